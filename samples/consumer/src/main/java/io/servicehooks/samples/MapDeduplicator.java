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

  /** The owner's token and when its lease ends; {@link #DONE} once handled. */
  private record Entry(String token, long leaseEndsMillis) {}

  private static final Entry DONE = new Entry(null, Long.MAX_VALUE);

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  @Override
  public CompletionStage<Claim> claim(String key, Duration lease) {
    long now = System.currentTimeMillis();
    Entry mine = new Entry(UUID.randomUUID().toString(), now + lease.toMillis());
    // One atomic step: take the key when it is free or its owner's lease ran out.
    Entry held =
        entries.compute(key, (k, old) -> old == null || old.leaseEndsMillis() <= now ? mine : old);
    if (held == mine) {
      return completedFuture(Claim.claimed(mine.token()));
    }
    if (held == DONE) {
      return completedFuture(Claim.done());
    }
    return completedFuture(Claim.runningElsewhere(Duration.ofMillis(held.leaseEndsMillis() - now)));
  }

  @Override
  public CompletionStage<Boolean> markDone(String key, String token) {
    return completedFuture(replaceIfOwner(key, token, DONE)); // a real store: kept 24 h
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
          owner[0] =
              token.equals(old.token()) && old.leaseEndsMillis() > System.currentTimeMillis();
          return owner[0] ? next : old;
        });
    return owner[0];
  }
}
// README-STORE-END
