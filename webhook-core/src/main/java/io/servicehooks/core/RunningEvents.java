package io.servicehooks.core;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The events this process is claiming or running, by dedup key: a copy that arrives while its
 * original is here finds it, and ending an attempt removes it and tells the waiting copies.
 */
final class RunningEvents {

  private final ConcurrentMap<String, DedupGate.Running> running = new ConcurrentHashMap<>();

  /** Adds {@code mine} unless its key is running already; then returns the one running. */
  DedupGate.Running putIfAbsent(DedupGate.Running mine) {
    return running.putIfAbsent(mine.key, mine);
  }

  /** Ends {@code r}'s attempt: no more renewals, out of the map, copies learn {@code outcome}. */
  void end(DedupGate.Running r, DedupGate.Outcome outcome) {
    r.token = null;
    running.remove(r.key, r);
    r.outcome.complete(outcome);
  }

  Collection<DedupGate.Running> all() {
    return running.values();
  }

  boolean isEmpty() {
    return running.isEmpty();
  }

  int size() {
    return running.size();
  }
}
