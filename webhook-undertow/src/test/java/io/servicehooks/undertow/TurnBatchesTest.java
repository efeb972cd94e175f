package io.servicehooks.undertow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TurnBatches} over real threads: a single-thread executor plays the IO thread (a task it
 * queues for itself runs after the current one, as XNIO runs an IO thread's own tasks after its
 * turn), a fixed pool plays Undertow's workers.
 */
final class TurnBatchesTest {

  private static final long WAIT_SECONDS = 10;

  private final AtomicReference<Thread> loopThread = new AtomicReference<>();
  private final ExecutorService loop =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "loop");
            loopThread.set(t);
            return t;
          });
  private final ExecutorService pool = Executors.newFixedThreadPool(4);
  private final AtomicInteger poolExecutes = new AtomicInteger();
  private final List<Runnable> refused = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() throws InterruptedException {
    loop.shutdownNow();
    pool.shutdownNow();
    assertThat(loop.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(pool.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  private TurnBatches batches(int maxDrainers) {
    return new TurnBatches(
        task -> {
          poolExecutes.incrementAndGet();
          pool.execute(task);
        },
        maxDrainers,
        thread -> thread == loopThread.get() ? loop : null,
        refused::add);
  }

  /** Runs {@code turn} as one turn of the loop thread and waits until it is over. */
  private void inOneTurn(Runnable turn) throws Exception {
    loop.submit(turn).get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void aTurnsTasks_goToThePoolTogether_notOneExecuteEach() throws Exception {
    TurnBatches batches = batches(4);
    CountDownLatch ran = new CountDownLatch(50);
    inOneTurn(
        () -> {
          for (int i = 0; i < 50; i++) {
            batches.execute(ran::countDown);
          }
          // Still this turn: nothing has gone to the pool yet.
          assertThat(poolExecutes).hasValue(0);
        });

    assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    // One drainer for the turn, plus at most one per other pool thread that joined while tasks
    // were waiting: never one pool task per delivery.
    assertThat(poolExecutes.get()).isBetween(1, 4);
    assertThat(batches.drainersStarted()).isEqualTo(poolExecutes.get());
    assertThat(refused).isEmpty();
  }

  @Test
  void aBlockingTask_holdsUpNoOtherOfItsTurn_whileThePoolHasThreads() throws Exception {
    TurnBatches batches = batches(4);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch others = new CountDownLatch(3);
    inOneTurn(
        () -> {
          batches.execute(
              () -> {
                try {
                  release.await(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
          for (int i = 0; i < 3; i++) {
            batches.execute(others::countDown);
          }
        });

    // The blocking task is still running: another drainer ran the rest.
    assertThat(others.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(release.getCount()).isEqualTo(1);
    release.countDown();
  }

  @Test
  void tasksFromAThreadWithoutTurns_runAtOnce() throws Exception {
    TurnBatches batches = batches(2);
    CountDownLatch ran = new CountDownLatch(1);
    batches.execute(ran::countDown);
    assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(poolExecutes).hasValue(1);
  }

  @Test
  void manyProducers_everyTaskRunsExactlyOnce() throws Exception {
    TurnBatches batches = batches(2);
    int producers = 6;
    int perProducer = 20_000;
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch all = new CountDownLatch(producers * perProducer);
    ExecutorService threads = Executors.newFixedThreadPool(producers);
    try {
      for (int p = 0; p < producers; p++) {
        boolean fromLoop = p == 0;
        threads.execute(
            () -> {
              for (int i = 0; i < perProducer; i++) {
                Runnable task =
                    () -> {
                      runs.incrementAndGet();
                      all.countDown();
                    };
                if (fromLoop && i % 2 == 0) {
                  loop.execute(() -> batches.execute(task));
                } else {
                  batches.execute(task);
                }
              }
            });
      }
      // Drainers leave as the queue runs dry and producers keep adding: a task added just as the
      // last drainer leaves must still run.
      assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
      assertThat(runs).hasValue(producers * perProducer);
      assertThat(refused).isEmpty();
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void aPoolThatRejects_refusesTheTurnsTasks_andRunsNone() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    TurnBatches batches =
        new TurnBatches(
            task -> {
              throw new RejectedExecutionException("pool stopped");
            },
            4,
            thread -> thread == loopThread.get() ? loop : null,
            refused::add);
    List<Runnable> tasks = List.of(runs::incrementAndGet, runs::incrementAndGet);
    inOneTurn(() -> tasks.forEach(batches::execute));
    // The flush ran on the loop thread after the turn; wait for it as for any later loop task.
    inOneTurn(() -> {});

    assertThat(refused).containsExactlyElementsOf(tasks);
    assertThat(runs).hasValue(0);
  }

  @Test
  void aDrainerKilledByAnError_startsASuccessor() throws Exception {
    TurnBatches batches = batches(1);
    CountDownLatch after = new CountDownLatch(2);
    inOneTurn(
        () -> {
          batches.execute(
              () -> {
                throw new AssertionError("a listener's error that escaped");
              });
          batches.execute(after::countDown);
          batches.execute(after::countDown);
        });
    assertThat(after.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(batches.drainersStarted()).isEqualTo(2);
  }
}
