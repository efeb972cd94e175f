package io.servicehooks.core;

import io.servicehooks.testsupport.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A scheduler on a {@link FakeClock}'s ticker that runs nothing by itself: {@link #runDue} runs, on
 * the calling thread, each task whose delay has passed on the clock. Tasks a run schedules wait for
 * the next call. Only one-shot {@code schedule} is supported (what the dedup gate uses).
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

  private final FakeClock clock;
  private final List<Task<?>> tasks = new ArrayList<>();

  ManualScheduler(FakeClock clock) {
    this.clock = clock;
  }

  /** Runs every task due by the clock's reading now, in the order they fall due. */
  void runDue() {
    List<Task<?>> due = new ArrayList<>();
    synchronized (this) {
      long now = clock.nanos();
      tasks.removeIf(
          t -> {
            boolean isDue = now - t.dueAt >= 0;
            if (isDue) {
              due.add(t);
            }
            return isDue;
          });
    }
    due.sort((a, b) -> Long.compare(a.dueAt, b.dueAt));
    due.forEach(Task::run);
  }

  /** Tasks scheduled and not yet run or cancelled. */
  synchronized int pending() {
    return (int) tasks.stream().filter(t -> !t.isDone()).count();
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return schedule(
        () -> {
          command.run();
          return null;
        },
        delay,
        unit);
  }

  @Override
  public synchronized <V> ScheduledFuture<V> schedule(
      Callable<V> callable, long delay, TimeUnit unit) {
    Task<V> task = new Task<>(callable, clock.nanos() + unit.toNanos(delay));
    tasks.add(task);
    return task;
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException("one-shot tasks only");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("one-shot tasks only");
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  @Override
  public void shutdown() {}

  @Override
  public List<Runnable> shutdownNow() {
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return false;
  }

  private final class Task<V> implements ScheduledFuture<V> {
    private final Callable<V> callable;
    private final long dueAt;
    private final CompletableFuture<V> result = new CompletableFuture<>();

    Task(Callable<V> callable, long dueAt) {
      this.callable = callable;
      this.dueAt = dueAt;
    }

    void run() {
      if (result.isDone()) {
        return;
      }
      try {
        result.complete(callable.call());
      } catch (Exception e) {
        result.completeExceptionally(e);
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(dueAt - clock.nanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      return result.cancel(false);
    }

    @Override
    public boolean isCancelled() {
      return result.isCancelled();
    }

    @Override
    public boolean isDone() {
      return result.isDone();
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
      return result.get();
    }

    @Override
    public V get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      return result.get(timeout, unit);
    }
  }
}
