package io.servicehooks.stream;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/** A {@link StreamClock} that moves only when the test says so, and records every wait asked. */
final class ManualClock implements StreamClock {

  private record Task(long due, long seq, Runnable task, boolean[] cancelled) {}

  private final Instant base;
  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(
          (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
  private final List<Duration> waits = new ArrayList<>();
  private final List<Duration> reconnectWaits = new ArrayList<>();
  private static final long START = 1_000_000_000L;
  private long nanos = START;
  private long seq;

  ManualClock(Instant base) {
    this.base = base;
  }

  @Override
  public synchronized long nanoTime() {
    return nanos;
  }

  @Override
  public synchronized Instant now() {
    return base.plusNanos(nanos - START);
  }

  @Override
  public synchronized Cancellable schedule(Duration delay, Runnable task) {
    waits.add(delay);
    if (task instanceof ActivityStream.Reconnect) {
      reconnectWaits.add(delay);
    }
    boolean[] cancelled = new boolean[1];
    tasks.add(new Task(nanos + delay.toNanos(), seq++, task, cancelled));
    return () -> {
      synchronized (ManualClock.this) {
        cancelled[0] = true;
      }
    };
  }

  /** Every delay asked so far, in order (stall checks included). */
  synchronized List<Duration> waits() {
    return List.copyOf(waits);
  }

  /** The reconnect delays asked so far (not the stall checks). */
  synchronized List<Duration> reconnectWaits() {
    return List.copyOf(reconnectWaits);
  }

  /** Moves the clock forward, running each task that comes due on the way, in time order. */
  void advance(Duration by) {
    long target;
    synchronized (this) {
      target = nanos + by.toNanos();
    }
    while (true) {
      Task next;
      synchronized (this) {
        next = tasks.peek();
        if (next == null || next.due > target) {
          nanos = target;
          return;
        }
        tasks.poll();
        nanos = Math.max(nanos, next.due);
        if (next.cancelled[0]) {
          continue;
        }
      }
      next.task.run();
    }
  }

  @Override
  public String toString() {
    return "ManualClock[" + now() + "]";
  }
}
