package io.servicehooks.stream;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Every wait of an {@link ActivityStream} runs here: the reconnect delays, the stall check, the
 * health grace. Tests give a clock they move by hand, so they check exact delays without sleeping.
 */
interface StreamClock {

  /** A monotonic reading in nanoseconds, for elapsed times. */
  long nanoTime();

  /** The wall-clock time, for log lines that name the bounds of a gap. */
  Instant now();

  /** Runs {@code task} once after {@code delay}; the returned handle cancels it. */
  Cancellable schedule(Duration delay, Runnable task);

  /** Stops the clock's own threads, if any. */
  default void shutdown() {}

  /** A scheduled task that may be cancelled. */
  @FunctionalInterface
  interface Cancellable {
    void cancel();
  }

  /**
   * The real clock: {@link System#nanoTime()}, the UTC system clock and one daemon timer thread.
   */
  static StreamClock system() {
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "servicehooks-stream-timer");
              t.setDaemon(true);
              return t;
            });
    return new StreamClock() {
      @Override
      public long nanoTime() {
        return System.nanoTime();
      }

      @Override
      public Instant now() {
        return Instant.now();
      }

      @Override
      public Cancellable schedule(Duration delay, Runnable task) {
        var future = timer.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
      }

      @Override
      public void shutdown() {
        timer.shutdownNow();
      }

      @Override
      public String toString() {
        return "StreamClock[system]";
      }
    };
  }
}
