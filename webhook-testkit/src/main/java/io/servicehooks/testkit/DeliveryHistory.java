package io.servicehooks.testkit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Each webhook's events as produced, kept for the replay reach (24 hours, to the start of that
 * minute) on the simulator's clock; replay jobs draw their window from it.
 */
final class DeliveryHistory {

  /** How far back the platform keeps a webhook's events for replay. */
  static final Duration REPLAY_REACH = Duration.ofHours(24);

  /** An event as produced for one webhook. */
  private record Produced(Instant time, byte[] body) {}

  private final SimClock clock;
  // Guarded by itself: webhook id to its events, oldest first.
  private final Map<String, Deque<Produced>> history = new HashMap<>();

  DeliveryHistory(SimClock clock) {
    this.clock = clock;
  }

  /**
   * Adds an event produced now for {@code webhookId}, and forgets the events that fell out of the
   * replay reach.
   */
  void remember(String webhookId, byte[] body) {
    Instant now = clock.now();
    synchronized (history) {
      history.computeIfAbsent(webhookId, id -> new ArrayDeque<>()).add(new Produced(now, body));
      prune(now);
    }
  }

  /** Forgets, for every webhook, the events produced before the replay reach. */
  void prune() {
    synchronized (history) {
      prune(clock.now());
    }
  }

  // Caller holds history. Keeps the whole oldest minute a replay may still name.
  private void prune(Instant now) {
    Instant oldest = oldestReplayable(now);
    for (Deque<Produced> events : history.values()) {
      while (!events.isEmpty() && events.peekFirst().time().isBefore(oldest)) {
        events.pollFirst();
      }
    }
  }

  /** The start of the oldest minute a replay may ask for at {@code now}. */
  static Instant oldestReplayable(Instant now) {
    return now.minus(REPLAY_REACH).truncatedTo(ChronoUnit.MINUTES);
  }

  /** The history of {@code webhookId} within the replay reach, oldest first. */
  List<HistoryEntry> entries(String webhookId) {
    List<HistoryEntry> out = new ArrayList<>();
    synchronized (history) {
      prune(clock.now());
      for (Produced e : history.getOrDefault(webhookId, new ArrayDeque<>())) {
        out.add(
            new HistoryEntry(webhookId, e.time(), new String(e.body(), StandardCharsets.UTF_8)));
      }
    }
    return out;
  }

  /** Events produced for {@code webhookId} in {@code [from, toExclusive)}, oldest first. */
  List<byte[]> producedBetween(String webhookId, Instant from, Instant toExclusive) {
    List<byte[]> out = new ArrayList<>();
    synchronized (history) {
      prune(clock.now());
      for (Produced e : history.getOrDefault(webhookId, new ArrayDeque<>())) {
        if (!e.time().isBefore(from) && e.time().isBefore(toExclusive)) {
          out.add(e.body());
        }
      }
    }
    return out;
  }
}
