package io.servicehooks.testkit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Counts work in flight (deliveries, attempts) and lets a caller wait, bounded, until none is. */
final class InFlight {

  private int count; // guarded by this

  synchronized void begin() {
    count++;
  }

  synchronized void end() {
    count--;
    notifyAll();
  }

  synchronized int count() {
    return count;
  }

  /**
   * Waits until nothing is in flight.
   *
   * @return false when {@code timeout} passed first, or the thread was interrupted (its flag set)
   */
  synchronized boolean awaitNone(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (count > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }
}
