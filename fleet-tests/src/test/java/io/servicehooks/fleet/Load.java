package io.servicehooks.fleet;

import io.servicehooks.fleet.Fleet.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A steady stream of deliveries across a fleet while faults happen: event {@code i} goes to
 * instance {@code 1 + i % instances}, every tenth also to the next instance (a duplicate on another
 * replica), and the fault actions run, off the feeder thread, when their event is sent.
 */
final class Load {

  private Load() {}

  static List<Answer> run(
      Fleet fleet,
      String prefix,
      int events,
      int perSecond,
      int instances,
      Map<Integer, ThrowingRunnable> actions)
      throws Exception {
    List<CompletableFuture<Answer>> answers = new ArrayList<>();
    List<CompletableFuture<Void>> faults = new ArrayList<>();
    ExecutorService faultThread = Executors.newSingleThreadExecutor();
    ScheduledExecutorService feeder = Executors.newSingleThreadScheduledExecutor();
    AtomicInteger next = new AtomicInteger();
    CompletableFuture<Void> fed = new CompletableFuture<>();
    try {
      feeder.scheduleAtFixedRate(
          () -> {
            int i = next.getAndIncrement();
            if (i >= events) {
              fed.complete(null);
              return;
            }
            ThrowingRunnable action = actions.get(i);
            if (action != null) {
              synchronized (faults) {
                faults.add(CompletableFuture.runAsync(action.unchecked(), faultThread));
              }
            }
            String id = String.format("%s-%04d", prefix, i);
            int to = 1 + i % instances;
            synchronized (answers) {
              answers.add(fleet.send(to, id));
              if (i % 10 == 0 && instances > 1) {
                answers.add(fleet.send(1 + (to % instances), id));
              }
            }
          },
          0,
          1_000_000_000L / perSecond,
          TimeUnit.NANOSECONDS);
      fed.get(events / perSecond + 120, TimeUnit.SECONDS);
      feeder.shutdown();
      List<Answer> all = new ArrayList<>();
      synchronized (answers) {
        for (CompletableFuture<Answer> a : answers) {
          all.add(a.get(30, TimeUnit.SECONDS));
        }
      }
      synchronized (faults) {
        CompletableFuture.allOf(faults.toArray(CompletableFuture[]::new))
            .get(120, TimeUnit.SECONDS);
      }
      return all;
    } finally {
      feeder.shutdownNow();
      faultThread.shutdownNow();
    }
  }

  /** Milliseconds since {@code startNanos}. */
  static long since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
  }

  /** A fault action. */
  @FunctionalInterface
  interface ThrowingRunnable {
    void run() throws Exception;

    default Runnable unchecked() {
      return () -> {
        try {
          run();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      };
    }
  }
}
