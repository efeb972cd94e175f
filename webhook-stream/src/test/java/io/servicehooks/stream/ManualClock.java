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
  private long nanos = 1_000_000_000L;
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
    return base.plusNanos(nanos);
  }

  @Override
  public synchronized Cancellable schedule(Duration delay, Runnable task) {
    waits.add(delay);
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

  /** The delays asked so far that are not the stall check's. */
  synchronized List<Duration> reconnectWaits() {
    return waits.stream().filter(d -> !d.equals(ActivityStream.STALL_TIMEOUT)).toList();
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
