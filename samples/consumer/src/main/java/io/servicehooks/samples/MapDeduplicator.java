package io.servicehooks.samples;

// README-STORE-BEGIN
import static java.util.concurrent.CompletableFuture.completedFuture;

import io.servicehooks.core.Deduplicator;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/** A dedup store on a map: the shape of a real one, which keeps the map in Redis or a table. */
public final class MapDeduplicator implements Deduplicator {

  /** The owner's token (null once done) and when the entry ends: its lease, or its window. */
  private record Entry(String token, long endsMillis) {}

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
  private final long windowMillis;

  /** Remembers a done key for {@code window}; a real store lets a TTL or a purge drop it. */
  public MapDeduplicator(Duration window) {
    this.windowMillis = window.toMillis();
  }

  @Override
  public CompletionStage<Claim> claim(String key, Duration lease) {
    long now = System.currentTimeMillis();
    Entry mine = new Entry(UUID.randomUUID().toString(), now + lease.toMillis());
    // One atomic step: take the key when it is free, its owner's lease ran out, or its window
    // passed.
    Entry held =
        entries.compute(key, (k, old) -> old == null || old.endsMillis() <= now ? mine : old);
    if (held == mine) {
      return completedFuture(Claim.claimed(mine.token()));
    }
    if (held.token() == null) {
      return completedFuture(Claim.done());
    }
    return completedFuture(Claim.runningElsewhere(Duration.ofMillis(held.endsMillis() - now)));
  }

  @Override
  public CompletionStage<Boolean> markDone(String key, String token) {
    Entry done = new Entry(null, System.currentTimeMillis() + windowMillis);
    return completedFuture(replaceIfOwner(key, token, done));
  }

  @Override
  public CompletionStage<Boolean> release(String key, String token) {
    return completedFuture(replaceIfOwner(key, token, null));
  }

  @Override
  public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
    Entry renewed = new Entry(token, System.currentTimeMillis() + lease.toMillis());
    return completedFuture(replaceIfOwner(key, token, renewed));
  }

  @Override
  public boolean mayBlock() {
    return false; // memory only; a network store keeps the default, true
  }

  /** Replaces the entry (null removes it) only while {@code token} holds a live lease on it. */
  private boolean replaceIfOwner(String key, String token, Entry next) {
    boolean[] owner = {false};
    entries.computeIfPresent(
        key,
        (k, old) -> {
          owner[0] = token.equals(old.token()) && old.endsMillis() > System.currentTimeMillis();
          return owner[0] ? next : old;
        });
    return owner[0];
  }
}
// README-STORE-END
