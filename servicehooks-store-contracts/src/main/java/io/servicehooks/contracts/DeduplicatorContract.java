package io.servicehooks.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.Deduplicator.Claim;
import io.servicehooks.core.Deduplicator.Claim.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Deduplicator}, as a JUnit 5 suite that every store runs: claims and their
 * owner tokens, leases that run out and are taken over, renewal, release, done, the window, keys
 * that never meet, concurrent claims, and a store that cannot be reached. A store's test class
 * extends it and says how to make the store:
 *
 * <pre>{@code
 * final class MyDeduplicatorContractTest extends DeduplicatorContract {
 *   @Override
 *   protected Deduplicator newDeduplicator(Duration window) {
 *     return new MyDeduplicator(window);
 *   }
 * }
 * }</pre>
 *
 * <p><b>Time.</b> The cases that let a lease or the window run out call {@link #advance}. Its
 * default lets real time pass, so a store on the system clock runs the suite as it is, with leases
 * and windows of {@link #shortTime()}. A store that reads an injectable clock or ticker overrides
 * {@link #advance} to move it, and the suite then takes no real time. No case asserts that a short
 * lease is still live: a slow machine only makes a run longer, never red.
 *
 * <p><b>Resources.</b> Every store the suite gets from the factories is closed after each case when
 * it is {@link AutoCloseable}; then {@link #cleanUp()} runs. Free the storage of a case (keys, a
 * schema) there: JUnit runs a subclass's own {@code @AfterEach} before this class's.
 *
 * <p>A case a store cannot meet is overridden in its subclass with {@code @Disabled} and the
 * reason, so the exception stays visible in the store's test report.
 */
public abstract class DeduplicatorContract {

  /** A lease or window that never runs out during a case. */
  protected static final Duration LONG = Duration.ofHours(1);

  /**
   * The platform's answer budget: every call completes (or fails) within it, including on a store
   * that cannot be reached.
   */
  protected static final Duration ANSWER_BUDGET = Duration.ofSeconds(10);

  private final List<Deduplicator> made = new ArrayList<>();

  /**
   * A new store, holding no key this case did not claim (a namespace or schema of its own),
   * remembering done keys for {@code window}. Called up to twice in a case: the second call stands
   * for another instance of the consumer and must share the first one's keys.
   *
   * @param window how long a done key is remembered
   */
  protected abstract Deduplicator newDeduplicator(Duration window) throws Exception;

  /**
   * A store whose engine cannot be reached (stopped, or behind a cut connection), or {@code null}
   * when the store has no engine to lose: the time-out case is then skipped.
   */
  protected Deduplicator unreachableDeduplicator() throws Exception {
    return null;
  }

  /**
   * Moves the store's time forward by {@code duration}. The default lets that much real time pass;
   * a store on an injectable clock or ticker overrides this to move it instead.
   */
  protected void advance(Duration duration) throws Exception {
    long end = System.nanoTime() + duration.toNanos();
    for (long left = duration.toNanos(); left > 0; left = end - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  /**
   * The lease and window the suite lets run out (default 1 s). Keep it above the store's own
   * resolution (milliseconds for a TTL, seconds for a database timestamp).
   */
  protected Duration shortTime() {
    return Duration.ofSeconds(1);
  }

  /** Frees what a case used (keys, a schema); runs after the suite closed the stores. */
  protected void cleanUp() throws Exception {}

  @AfterEach
  final void closeStores() throws Exception {
    try {
      for (Deduplicator store : made) {
        if (store instanceof AutoCloseable closeable) {
          closeable.close();
        }
      }
    } finally {
      made.clear();
      cleanUp();
    }
  }

  private Deduplicator store() throws Exception {
    return store(LONG);
  }

  private Deduplicator store(Duration window) throws Exception {
    Deduplicator store = newDeduplicator(window);
    assertThat(store).as("newDeduplicator(%s)", window).isNotNull();
    made.add(store);
    return store;
  }

  private static <T> T answer(CompletionStage<T> stage) throws Exception {
    assertThat(stage).as("a call's stage").isNotNull();
    return stage.toCompletableFuture().get(ANSWER_BUDGET.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static String claimed(Deduplicator store, String key, Duration lease) throws Exception {
    Claim claim = answer(store.claim(key, lease));
    assertThat(claim.status()).as("claim of %s", key).isEqualTo(Status.CLAIMED);
    return claim.token();
  }

  private static Status status(Deduplicator store, String key) throws Exception {
    return answer(store.claim(key, LONG)).status();
  }

  // ---- claims and owner tokens

  /** A key never seen is claimed, with a token. */
  @Test
  public void claim_newKey_claimedWithToken() throws Exception {
    Claim claim = answer(store().claim("e:1", LONG));

    assertThat(claim.status()).isEqualTo(Status.CLAIMED);
    assertThat(claim.token()).isNotBlank();
  }

  /** A copy of a claimed key waits: running elsewhere, for at most the owner's lease. */
  @Test
  public void claim_claimedKey_runningElsewhereWithinTheLease() throws Exception {
    Deduplicator store = store();
    claimed(store, "e:1", LONG);

    Claim copy = answer(store.claim("e:1", LONG));

    assertThat(copy.status()).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(copy.token()).isNull();
    assertThat(copy.remainingLease()).isBetween(Duration.ZERO, LONG);
  }

  /** Another instance on the same storage sees the claim and the done of the first. */
  @Test
  public void claim_secondInstance_seesClaimsAndDoneOfTheFirst() throws Exception {
    Deduplicator first = store();
    Deduplicator second = store();
    String token = claimed(first, "e:1", LONG);

    assertThat(status(second, "e:1")).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(answer(first.markDone("e:1", token))).isTrue();
    assertThat(status(second, "e:1")).isEqualTo(Status.DONE);
  }

  /** Every claim gets a token of its own, on one key again and again and across keys. */
  @Test
  public void claim_tokens_differPerClaim() throws Exception {
    Deduplicator store = store();
    Set<String> tokens = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      String token = claimed(store, "e:same", LONG);
      tokens.add(token);
      assertThat(answer(store.release("e:same", token))).isTrue();
      tokens.add(claimed(store, "e:k" + i, LONG));
    }

    assertThat(tokens).hasSize(40);
  }

  /** Keys that look alike stay apart: no two different keys meet. */
  @Test
  public void claim_similarKeys_neverMeet() throws Exception {
    Deduplicator store = store();
    List<String> keys =
        List.of(
            "e:7",
            "e:07",
            "e:007",
            "e:-7",
            "e:0",
            "e:-0",
            "E:7",
            "e:7 ",
            "7",
            "e:9223372036854775807",
            "e:9223372036854775808",
            "e:123e4567-e89b-12d3-a456-426614174000",
            "e:123E4567-E89B-12D3-A456-426614174000",
            "k:1:post.create:0",
            "k:1:post.create:00",
            "e:\u00e9v\u00e9nement");
    for (String key : keys) {
      claimed(store, key, LONG);
    }
  }

  /** A lease that ran out is taken over by the next claim, under a new token. */
  @Test
  public void claim_leaseRanOut_nextClaimTakesOver() throws Exception {
    Deduplicator store = store();
    String first = claimed(store, "e:1", shortTime());

    advance(shortTime().multipliedBy(2));
    String second = claimed(store, "e:1", LONG);

    assertThat(second).isNotEqualTo(first);
    assertThat(status(store, "e:1")).isEqualTo(Status.RUNNING_ELSEWHERE);
  }

  // ---- done

  /** The owner marks its key done; every later claim finds it done. */
  @Test
  public void markDone_owner_trueAndDoneForEveryone() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", LONG);

    assertThat(answer(store.markDone("e:1", token))).isTrue();

    assertThat(answer(store.claim("e:1", LONG))).isEqualTo(Claim.done());
    assertThat(status(store, "e:1")).isEqualTo(Status.DONE);
  }

  /** A token that does not own the key changes nothing. */
  @Test
  public void markDone_otherToken_falseAndOwnerKeepsTheKey() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", LONG);
    String other = claimed(store, "e:2", LONG);

    assertThat(answer(store.markDone("e:1", other))).isFalse();
    assertThat(answer(store.markDone("e:1", "not-a-token"))).isFalse();

    assertThat(status(store, "e:1")).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(answer(store.markDone("e:1", token))).isTrue();
  }

  /** A key never claimed cannot be marked done. */
  @Test
  public void markDone_unknownKey_falseAndKeyFree() throws Exception {
    Deduplicator store = store();

    assertThat(answer(store.markDone("e:1", "not-a-token"))).isFalse();

    claimed(store, "e:1", LONG);
  }

  /** Once done, the token owns nothing: a second mark answers false, the key stays done. */
  @Test
  public void markDone_twice_secondFalseAndStillDone() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", LONG);
    assertThat(answer(store.markDone("e:1", token))).isTrue();

    assertThat(answer(store.markDone("e:1", token))).isFalse();

    assertThat(status(store, "e:1")).isEqualTo(Status.DONE);
  }

  /** An owner whose lease ran out lost the key: its mark answers false, nothing is done. */
  @Test
  public void markDone_leaseRanOut_falseAndKeyFree() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", shortTime());
    advance(shortTime().multipliedBy(2));

    assertThat(answer(store.markDone("e:1", token))).isFalse();

    claimed(store, "e:1", LONG);
  }

  /** An owner whose key was taken over cannot mark it: the new owner keeps it. */
  @Test
  public void markDone_keyTakenOver_falseAndNewOwnerKeepsIt() throws Exception {
    Deduplicator store = store();
    String old = claimed(store, "e:1", shortTime());
    advance(shortTime().multipliedBy(2));
    String current = claimed(store, "e:1", LONG);

    assertThat(answer(store.markDone("e:1", old))).isFalse();

    assertThat(status(store, "e:1")).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(answer(store.markDone("e:1", current))).isTrue();
  }

  // ---- release

  /** The owner releases its key: the next claim takes it, with a new token. */
  @Test
  public void release_owner_trueAndClaimableWithNewToken() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", LONG);

    assertThat(answer(store.release("e:1", token))).isTrue();

    assertThat(claimed(store, "e:1", LONG)).isNotEqualTo(token);
  }

  /** A token that does not own the key releases nothing. */
  @Test
  public void release_otherToken_falseAndOwnerKeepsTheKey() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", LONG);

    assertThat(answer(store.release("e:1", "not-a-token"))).isFalse();

    assertThat(status(store, "e:1")).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(answer(store.release("e:1", token))).isTrue();
  }

  /** A done key cannot be released, not even with the token that marked it. */
  @Test
  public void release_doneKey_falseAndStillDone() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", LONG);
    answer(store.markDone("e:1", token));

    assertThat(answer(store.release("e:1", token))).isFalse();

    assertThat(status(store, "e:1")).isEqualTo(Status.DONE);
  }

  /** A released token owns nothing any more: its second release and its mark answer false. */
  @Test
  public void release_twice_secondFalseAndTokenOwnsNothing() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", LONG);
    answer(store.release("e:1", token));

    assertThat(answer(store.release("e:1", token))).isFalse();
    assertThat(answer(store.markDone("e:1", token))).isFalse();

    claimed(store, "e:1", LONG);
  }

  /** An owner whose key was taken over cannot release it from the new owner. */
  @Test
  public void release_keyTakenOver_falseAndNewOwnerKeepsIt() throws Exception {
    Deduplicator store = store();
    String old = claimed(store, "e:1", shortTime());
    advance(shortTime().multipliedBy(2));
    String current = claimed(store, "e:1", LONG);

    assertThat(answer(store.release("e:1", old))).isFalse();

    assertThat(status(store, "e:1")).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(answer(store.markDone("e:1", current))).isTrue();
  }

  // ---- leases and renewal

  /** A renewed claim outlives its first lease. */
  @Test
  public void renew_owner_keyOutlivesTheFirstLease() throws Exception {
    Deduplicator store = store();
    Duration first = shortTime().multipliedBy(5);
    String token = claimed(store, "e:1", first);

    boolean renewed = answer(store.renew("e:1", token, LONG));
    // On real time a machine that stalled past the first lease lost the key: not this case's
    // subject, which is what a renewal does to a live claim.
    Assumptions.assumeTrue(renewed, "the first lease ran out before the renewal");
    advance(first.plus(shortTime()));

    assertThat(status(store, "e:1")).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(answer(store.markDone("e:1", token))).isTrue();
  }

  /** A renewal sets the lease to its length from now, so a shorter one runs out sooner. */
  @Test
  public void renew_shorterLease_runsOutFromNow() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", LONG);

    assertThat(answer(store.renew("e:1", token, shortTime()))).isTrue();
    advance(shortTime().multipliedBy(2));

    claimed(store, "e:1", LONG);
  }

  /** A token that does not own the key extends nothing: the lease still runs out. */
  @Test
  public void renew_otherToken_falseAndLeaseUnchanged() throws Exception {
    Deduplicator store = store();
    claimed(store, "e:1", shortTime());

    assertThat(answer(store.renew("e:1", "not-a-token", LONG))).isFalse();
    advance(shortTime().multipliedBy(2));

    claimed(store, "e:1", LONG);
  }

  /** An owner whose lease ran out cannot renew it back. */
  @Test
  public void renew_leaseRanOut_falseAndKeyFree() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", shortTime());
    advance(shortTime().multipliedBy(2));

    assertThat(answer(store.renew("e:1", token, LONG))).isFalse();

    claimed(store, "e:1", LONG);
  }

  /** A done key is not a claim any more: renewing it answers false and it stays done. */
  @Test
  public void renew_doneKey_falseAndStillDone() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", LONG);
    answer(store.markDone("e:1", token));

    assertThat(answer(store.renew("e:1", token, LONG))).isFalse();

    assertThat(status(store, "e:1")).isEqualTo(Status.DONE);
  }

  // ---- claimDone

  /** claimDone on a new key claims it and leaves it done in the same step. */
  @Test
  public void claimDone_newKey_claimedAndDone() throws Exception {
    Deduplicator store = store();

    assertThat(answer(store.claimDone("e:1", LONG)).status()).isEqualTo(Status.CLAIMED);

    assertThat(status(store, "e:1")).isEqualTo(Status.DONE);
  }

  /** claimDone on a claimed key waits like a claim and leaves the owner's claim alone. */
  @Test
  public void claimDone_claimedKey_runningElsewhereAndOwnerKeepsIt() throws Exception {
    Deduplicator store = store();
    String token = claimed(store, "e:1", LONG);

    assertThat(answer(store.claimDone("e:1", LONG)).status()).isEqualTo(Status.RUNNING_ELSEWHERE);

    assertThat(answer(store.release("e:1", token))).isTrue();
    claimed(store, "e:1", LONG);
  }

  /** claimDone on a done key finds it done. */
  @Test
  public void claimDone_doneKey_done() throws Exception {
    Deduplicator store = store();
    answer(store.markDone("e:1", claimed(store, "e:1", LONG)));

    assertThat(answer(store.claimDone("e:1", LONG)).status()).isEqualTo(Status.DONE);
  }

  // ---- the window

  /** A done key is remembered within the window, long after any lease. */
  @Test
  public void window_doneKeyWithinIt_stillDone() throws Exception {
    Deduplicator store = store(LONG);
    assertThat(answer(store.markDone("e:1", claimed(store, "e:1", LONG)))).isTrue();

    advance(shortTime().multipliedBy(3));

    assertThat(status(store, "e:1")).isEqualTo(Status.DONE);
  }

  /** A done key is forgotten once the window passed: the window bounds the store's memory. */
  @Test
  public void window_passed_doneKeyForgotten() throws Exception {
    Deduplicator store = store(shortTime());
    assertThat(answer(store.markDone("e:1", claimed(store, "e:1", LONG)))).isTrue();

    advance(shortTime().multipliedBy(3));

    claimed(store, "e:1", LONG);
  }

  // ---- concurrency

  /** Of many claims on one key at once, exactly one takes it. */
  @Test
  public void concurrency_claimsOnOneKey_exactlyOneClaimed() throws Exception {
    Deduplicator store = store();
    int threads = 16;
    List<Status> answers = race(threads, i -> answer(store.claim("e:race", LONG)).status());

    assertThat(answers).filteredOn(s -> s == Status.CLAIMED).hasSize(1);
    assertThat(answers).filteredOn(s -> s == Status.RUNNING_ELSEWHERE).hasSize(threads - 1);
  }

  /**
   * Threads on two instances claim the same keys at once and mark done what they took: each key is
   * taken once and ends done.
   */
  @Test
  public void concurrency_manyKeysTwoInstances_eachTakenOnceAndDone() throws Exception {
    Deduplicator[] stores = {store(), store()};
    int keys = 50;
    ConcurrentHashMap<String, AtomicInteger> taken = new ConcurrentHashMap<>();
    race(
        8,
        i -> {
          Deduplicator store = stores[i % 2];
          for (int k = 0; k < keys; k++) {
            String key = "e:" + ((k + i * 7) % keys);
            Claim claim = answer(store.claim(key, LONG));
            if (claim.status() == Status.CLAIMED) {
              taken.computeIfAbsent(key, x -> new AtomicInteger()).incrementAndGet();
              assertThat(answer(store.markDone(key, claim.token()))).isTrue();
            }
          }
          return null;
        });

    assertThat(taken).hasSize(keys);
    assertThat(taken.values()).allMatch(n -> n.get() == 1);
    for (int k = 0; k < keys; k++) {
      assertThat(status(stores[k % 2], "e:" + k)).isEqualTo(Status.DONE);
    }
  }

  // ---- time-outs

  /**
   * A store that cannot be reached fails every call, as a failed stage or an exception, within the
   * answer budget: the consumer answers 503 and runs nothing. Never a hang, never a made-up answer.
   */
  @Test
  public void unreachable_everyCallFailsWithinTheAnswerBudget() throws Exception {
    Deduplicator store = unreachableDeduplicator();
    Assumptions.assumeTrue(store != null, "the store has no engine to lose");
    made.add(store);

    assertFails(() -> store.claim("e:1", LONG));
    assertFails(() -> store.claimDone("e:2", LONG));
    assertFails(() -> store.markDone("e:1", "token"));
    assertFails(() -> store.release("e:1", "token"));
    assertFails(() -> store.renew("e:1", "token", LONG));
  }

  private static void assertFails(Supplier<CompletionStage<?>> call) {
    CompletableFuture<?> stage;
    try {
      stage = call.get().toCompletableFuture();
    } catch (RuntimeException thrown) {
      return;
    }
    assertThat(stage).failsWithin(ANSWER_BUDGET);
  }

  /** A piece of a concurrent case, given its thread's number. */
  @FunctionalInterface
  private interface Racer<T> {
    T run(int thread) throws Exception;
  }

  /** Runs {@code racer} on {@code threads} threads released together; their answers in order. */
  private static <T> List<T> race(int threads, Racer<T> racer) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        int thread = i;
        futures.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return racer.run(thread);
                }));
      }
      assertThat(ready.await(ANSWER_BUDGET.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      go.countDown();
      List<T> answers = new ArrayList<>();
      for (Future<T> future : futures) {
        answers.add(future.get(ANSWER_BUDGET.toSeconds() * 6, TimeUnit.SECONDS));
      }
      return answers;
    } finally {
      pool.shutdownNow();
    }
  }
}
