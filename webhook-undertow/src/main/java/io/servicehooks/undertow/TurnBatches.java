package io.servicehooks.undertow;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The handler's worker executor: hands the deliveries an IO thread reads in one turn of its loop to
 * the worker pool together, so that a turn costs one wake-up of a parked worker instead of one per
 * delivery.
 *
 * <h2>Why</h2>
 *
 * Handing one task to a pool whose threads are parked wakes one of them, and on a busy core the
 * woken thread takes the CPU from the IO thread at once: two context switches and a futex call per
 * delivery, about as much as reading, verifying and parsing it (benchmarks/RESULTS.md, "Webhook
 * path"). An IO thread reads many deliveries per turn under load; handed over together, the worker
 * that wakes runs them one after another, and the IO thread is switched out once per turn.
 *
 * <h2>States</h2>
 *
 * A task is in exactly one of four places, and moves only forward:
 *
 * <ol>
 *   <li><b>Pending</b> in its IO thread's {@link Turn}, when {@link #execute} was called on an IO
 *       thread. Only that thread touches the list. The first task of a turn queues the turn's flush
 *       on the IO thread itself, which runs it once every connection made ready in this turn has
 *       been served (XNIO runs a thread's own tasks between turns, without waking its selector).
 *   <li><b>Ready</b> in the shared queue: moved there by the flush, or at once when {@link
 *       #execute} is called on any other thread (a dedup store's callback thread, say).
 *   <li><b>Running</b> on a drainer: a task of the worker pool that takes ready tasks until none is
 *       left.
 *   <li><b>Refused</b>: the pool rejected a drainer while none was left running, so nothing would
 *       ever take the ready tasks; each is given to {@code refuse}, which answers its delivery 503
 *       and releases its claims.
 * </ol>
 *
 * <h2>Why no task waits while a worker could run it</h2>
 *
 * {@link #drainers} counts drainers started and not finished, at most {@link #maxDrainers} (the
 * pool's thread count). Two rules keep every ready task moving:
 *
 * <ul>
 *   <li>Whoever makes a task ready ({@link #startDrainer}) starts a drainer unless the maximum is
 *       running. A drainer that finds the queue empty first leaves the count, then looks at the
 *       queue again and rejoins if a task arrived meanwhile: a task made ready in between either
 *       saw the count below the maximum (and started a drainer) or is seen by that second look.
 *   <li>A drainer about to run a task while others are still ready starts another drainer first. A
 *       listener that blocks then holds up no other delivery while the pool has a thread free: the
 *       parallelism of handing each task to the pool on its own, at the cost of one wake-up per
 *       thread that joins, not one per task.
 * </ul>
 *
 * A drainer that dies of an error leaves the count and starts a successor if tasks are ready.
 */
final class TurnBatches implements Executor {

  private final Executor pool;
  private final int maxDrainers;
  private final Function<Thread, Executor> turnOf;
  private final Consumer<Runnable> refuse;
  private final Queue<Runnable> ready = new ConcurrentLinkedQueue<>();
  private final AtomicInteger drainers = new AtomicInteger();
  private final AtomicInteger drainersStarted = new AtomicInteger();
  private final ThreadLocal<Turn> turns = ThreadLocal.withInitial(Turn::new);
  private final Runnable drainer = this::drain;

  /**
   * @param pool the worker pool the tasks run on
   * @param maxDrainers the pool's thread count: more drainers would only wait in its queue
   * @param turnOf for the calling thread, the executor that runs a task once the thread's current
   *     turn is over (an XNIO IO thread's own task queue), or null when the thread has no turns
   * @param refuse answers a task that will never run
   */
  TurnBatches(
      Executor pool,
      int maxDrainers,
      Function<Thread, Executor> turnOf,
      Consumer<Runnable> refuse) {
    if (maxDrainers < 1) {
      throw new IllegalArgumentException("maxDrainers must be positive, was " + maxDrainers);
    }
    this.pool = pool;
    this.maxDrainers = maxDrainers;
    this.turnOf = turnOf;
    this.refuse = refuse;
  }

  @Override
  public void execute(Runnable task) {
    Executor afterTurn = turnOf.apply(Thread.currentThread());
    if (afterTurn != null) {
      Turn turn = turns.get();
      turn.pending.add(task);
      if (turn.pending.size() > 1) {
        return; // the turn's flush is queued already
      }
      try {
        afterTurn.execute(turn);
        return;
      } catch (RejectedExecutionException stopping) {
        // The IO thread is stopping and runs no more tasks of its own: no batching.
        turn.pending.clear();
      }
    }
    ready.add(task);
    startDrainer();
  }

  /** Drainers started since this executor was made; for tests and benchmarks. */
  int drainersStarted() {
    return drainersStarted.get();
  }

  /** One IO thread's tasks of its current turn; touched by that thread only. */
  private final class Turn implements Runnable {
    final List<Runnable> pending = new ArrayList<>();

    /** The flush, run by the IO thread after its turn. */
    @Override
    public void run() {
      ready.addAll(pending);
      pending.clear();
      startDrainer();
    }
  }

  /**
   * Starts a drainer if tasks are ready and fewer than the maximum run; throws only an {@link
   * Error} of the pool's.
   */
  private void startDrainer() {
    if (!joinIfReady()) {
      return;
    }
    drainersStarted.incrementAndGet();
    try {
      pool.execute(drainer);
    } catch (RejectedExecutionException | Error failure) {
      if (drainers.decrementAndGet() == 0) {
        // No drainer left to take what is ready (a drainer still running takes it).
        refuseReady();
      }
      if (failure instanceof Error error) {
        throw error;
      }
    }
  }

  /** The pool takes no more drainers: nothing will run what is ready, so each is answered. */
  private void refuseReady() {
    Runnable task;
    while ((task = ready.poll()) != null) {
      refuse.accept(task);
    }
  }

  private void drain() {
    try {
      for (; ; ) {
        Runnable task = ready.poll();
        if (task == null) {
          // Leave the count, then look once more: a task made ready meanwhile is this drainer's
          // when no other drainer is left to start for it.
          drainers.decrementAndGet();
          if (!joinIfReady()) {
            return;
          }
          continue;
        }
        if (!ready.isEmpty()) {
          startDrainer();
        }
        task.run();
      }
    } catch (RuntimeException | Error failure) {
      // The pool's tasks answer their own failures; whatever escapes ends this drainer only.
      drainers.decrementAndGet();
      startDrainer();
      throw failure;
    }
  }

  /** Counts one more drainer if tasks are ready and fewer than the maximum run. */
  private boolean joinIfReady() {
    for (; ; ) {
      int running = drainers.get();
      if (running >= maxDrainers || ready.isEmpty()) {
        return false;
      }
      if (drainers.compareAndSet(running, running + 1)) {
        return true;
      }
    }
  }

  @Override
  public String toString() {
    return "TurnBatches[" + pool + ", drainers=" + maxDrainers + "]";
  }
}
