package io.servicehooks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.servicehooks.core.Deduplicator.Claim;
import io.servicehooks.core.Deduplicator.Claim.Status;
import io.servicehooks.testsupport.TestRedis;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The five scripts' semantics against a real Redis, one store. */
final class RedisDeduplicatorTest {

  private static final Duration LEASE = Duration.ofSeconds(30);

  private final TestRedis redis = TestRedis.shared();
  private final RedisDeduplicator store =
      RedisDeduplicator.builder(redis.url).prefix(redis.prefix).build();

  @AfterEach
  void tearDown() {
    store.close();
    redis.close();
  }

  static <T> T get(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @Test
  void claim_newKey_claimedUnderPrefixAndHashTagWithLeaseAsTtl() throws Exception {
    Claim claim = get(store.claim("e:1", LEASE));

    assertThat(claim.status()).isEqualTo(Status.CLAIMED);
    assertThat(claim.token()).isNotBlank();
    String key = redis.prefix + ":{e:1}";
    assertThat(store.redisKey("e:1")).isEqualTo(key);
    assertThat(redis.keys()).containsExactly(key);
    assertThat(redis.admin().get(key)).isEqualTo("c:" + claim.token());
    assertThat(redis.admin().pttl(key)).isBetween(LEASE.toMillis() - 2_000, LEASE.toMillis());
  }

  @Test
  void claim_tokens_uniquePerClaimAndPerStore() throws Exception {
    Set<String> tokens = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      tokens.add(get(store.claim("e:t" + i, LEASE)).token());
    }
    assertThat(tokens).hasSize(200);
    // 128 random bits drawn once per store (base64url), then a counter.
    assertThat(tokens).allMatch(t -> t.matches("[A-Za-z0-9_-]{22}\\.[0-9a-z]+"));
    try (RedisDeduplicator other =
        RedisDeduplicator.builder(redis.url).prefix(redis.prefix).build()) {
      String theirs = get(other.claim("e:other", LEASE)).token();
      String mine = tokens.iterator().next();
      assertThat(theirs.substring(0, 23)).isNotEqualTo(mine.substring(0, 23));
    }
  }

  @Test
  void claim_whileClaimed_runningElsewhereWithRemainingLease() throws Exception {
    get(store.claim("e:1", Duration.ofSeconds(20)));

    Claim second = get(store.claim("e:1", LEASE));

    assertThat(second.status()).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(second.token()).isNull();
    assertThat(second.remainingLease())
        .isGreaterThan(Duration.ofSeconds(17))
        .isLessThanOrEqualTo(Duration.ofSeconds(20));
  }

  @Test
  void markDone_byOwner_keyDoneForTheWindowAndNextClaimIsDone() throws Exception {
    Claim claim = get(store.claim("e:1", LEASE));

    assertThat(get(store.markDone("e:1", claim.token()))).isTrue();

    String key = store.redisKey("e:1");
    assertThat(redis.admin().get(key)).isEqualTo("d");
    assertThat(redis.admin().pttl(key)).isCloseTo(Duration.ofHours(24).toMillis(), within(5_000L));
    assertThat(get(store.claim("e:1", LEASE))).isEqualTo(Claim.done());
  }

  @Test
  void claimDone_newKey_doneForTheWindowInOneStep_nextClaimIsDone() throws Exception {
    Claim claim = get(store.claimDone("e:1", LEASE));

    assertThat(claim.status()).isEqualTo(Status.CLAIMED);
    String key = store.redisKey("e:1");
    assertThat(redis.admin().get(key)).isEqualTo("d");
    assertThat(redis.admin().pttl(key)).isCloseTo(Duration.ofHours(24).toMillis(), within(5_000L));
    assertThat(get(store.claim("e:1", LEASE))).isEqualTo(Claim.done());
    assertThat(get(store.claimDone("e:1", LEASE))).isEqualTo(Claim.done());
    // Its token owns nothing: the key is done, not claimed.
    assertThat(get(store.markDone("e:1", claim.token()))).isFalse();
    assertThat(get(store.release("e:1", claim.token()))).isFalse();
    assertThat(redis.admin().get(key)).isEqualTo("d");
  }

  @Test
  void claimDone_whileClaimedElsewhere_runningElsewhereAndTheClaimUntouched() throws Exception {
    Claim owner = get(store.claim("e:1", Duration.ofSeconds(20)));

    Claim copy = get(store.claimDone("e:1", LEASE));

    assertThat(copy.status()).isEqualTo(Status.RUNNING_ELSEWHERE);
    assertThat(copy.remainingLease())
        .isGreaterThan(Duration.ofSeconds(17))
        .isLessThanOrEqualTo(Duration.ofSeconds(20));
    assertThat(redis.admin().get(store.redisKey("e:1"))).isEqualTo("c:" + owner.token());
  }

  @Test
  void markDone_shorterWindow_idKeptForThatWindow() throws Exception {
    try (RedisDeduplicator hours =
        RedisDeduplicator.builder(redis.url)
            .prefix(redis.prefix)
            .window(Duration.ofHours(2))
            .build()) {
      Claim claim = get(hours.claim("e:1", LEASE));
      get(hours.markDone("e:1", claim.token()));

      assertThat(redis.admin().pttl(hours.redisKey("e:1")))
          .isCloseTo(Duration.ofHours(2).toMillis(), within(5_000L));
    }
  }

  @Test
  void markDone_twice_secondFindsNoClaimAndChangesNothing() throws Exception {
    Claim claim = get(store.claim("e:1", LEASE));
    get(store.markDone("e:1", claim.token()));

    assertThat(get(store.markDone("e:1", claim.token()))).isFalse();
    assertThat(get(store.release("e:1", claim.token()))).isFalse();
    assertThat(redis.admin().get(store.redisKey("e:1"))).isEqualTo("d");
  }

  @Test
  void release_byOwner_deletesKeySoTheNextClaimOwnsIt() throws Exception {
    Claim claim = get(store.claim("e:1", LEASE));

    assertThat(get(store.release("e:1", claim.token()))).isTrue();

    assertThat(redis.keys()).isEmpty();
    Claim again = get(store.claim("e:1", LEASE));
    assertThat(again.status()).isEqualTo(Status.CLAIMED);
    assertThat(again.token()).isNotEqualTo(claim.token());
  }

  @Test
  void renew_byOwner_extendsTheLease() throws Exception {
    Claim claim = get(store.claim("e:1", Duration.ofSeconds(5)));

    assertThat(get(store.renew("e:1", claim.token(), Duration.ofSeconds(60)))).isTrue();

    assertThat(redis.admin().pttl(store.redisKey("e:1"))).isBetween(58_000L, 60_000L);
    assertThat(redis.admin().get(store.redisKey("e:1"))).isEqualTo("c:" + claim.token());
  }

  @Test
  void markDoneReleaseRenew_unknownKeyOrWrongToken_falseAndNothingWritten() throws Exception {
    assertThat(get(store.markDone("e:none", "tok"))).isFalse();
    assertThat(get(store.release("e:none", "tok"))).isFalse();
    assertThat(get(store.renew("e:none", "tok", LEASE))).isFalse();
    assertThat(redis.keys()).isEmpty();

    Claim claim = get(store.claim("e:1", LEASE));
    assertThat(get(store.markDone("e:1", "someone-else"))).isFalse();
    assertThat(get(store.release("e:1", "someone-else"))).isFalse();
    assertThat(redis.admin().get(store.redisKey("e:1"))).isEqualTo("c:" + claim.token());
  }

  @Test
  void claim_keyWithForeignValue_failsInsteadOfGuessing() {
    redis.admin().set(store.redisKey("e:1"), "something else");

    assertThatThrownBy(() -> get(store.claim("e:1", LEASE)))
        .hasRootCauseInstanceOf(IllegalStateException.class)
        .hasStackTraceContaining("did not write");
  }

  @Test
  void keyInLogsAndErrors_controlCharactersEscaped() {
    assertThat(RedisDeduplicator.printable("p:{e:1\nERROR forged}"))
        .isEqualTo("p:{e:1\\u000aERROR forged}");
  }

  @Test
  void prefixes_separateNamespaces_doNotSeeEachOther() throws Exception {
    try (TestRedis other = TestRedis.shared();
        RedisDeduplicator otherStore =
            RedisDeduplicator.builder(other.url).prefix(other.prefix).build()) {
      Claim claim = get(store.claim("e:1", LEASE));
      get(store.markDone("e:1", claim.token()));

      assertThat(get(otherStore.claim("e:1", LEASE)).status()).isEqualTo(Status.CLAIMED);
    }
  }

  @Test
  void ownerThatNeverFinishes_losesTheClaimAfterTheLease_nextClaimOwnsIt() throws Exception {
    try (RedisDeduplicator crashed =
            RedisDeduplicator.builder(redis.url).prefix(redis.prefix).build();
        RedisDeduplicator next =
            RedisDeduplicator.builder(redis.url).prefix(redis.prefix).build()) {
      // Short, yet long enough that a loaded machine still asks again within it.
      Duration lease = Duration.ofSeconds(1);
      long claimedAt = System.nanoTime();
      Claim lost = get(crashed.claim("e:1", lease));
      assertThat(lost.status()).isEqualTo(Status.CLAIMED);
      // "crashed" never calls markDone or release.
      assertThat(get(next.claim("e:1", LEASE)).status()).isEqualTo(Status.RUNNING_ELSEWHERE);

      Awaitility.await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> get(next.claim("e:1", LEASE)).status() == Status.CLAIMED);
      assertThat(Duration.ofNanos(System.nanoTime() - claimedAt))
          .isGreaterThanOrEqualTo(lease.minus(Duration.ofMillis(100)));
    }
  }

  @Test
  void staleToken_afterLeaseExpiryAndReclaim_cannotFinishReleaseOrRenew() throws Exception {
    try (RedisDeduplicator a = RedisDeduplicator.builder(redis.url).prefix(redis.prefix).build();
        RedisDeduplicator b = RedisDeduplicator.builder(redis.url).prefix(redis.prefix).build()) {
      Claim stale = get(a.claim("e:1", Duration.ofMillis(200)));
      Awaitility.await()
          .atMost(Duration.ofSeconds(3))
          .until(() -> redis.admin().exists(a.redisKey("e:1")) == 0);
      Claim current = get(b.claim("e:1", LEASE));
      assertThat(current.status()).isEqualTo(Status.CLAIMED);
      String key = a.redisKey("e:1");

      assertThat(get(a.markDone("e:1", stale.token()))).isFalse();
      assertThat(get(a.release("e:1", stale.token()))).isFalse();
      assertThat(get(a.renew("e:1", stale.token(), Duration.ofHours(1)))).isFalse();

      assertThat(redis.admin().get(key)).isEqualTo("c:" + current.token());
      assertThat(redis.admin().pttl(key)).isLessThanOrEqualTo(LEASE.toMillis());
      assertThat(get(b.markDone("e:1", current.token()))).isTrue();
    }
  }

  @Test
  void builder_rejectsBracesInPrefixAndLongTimeouts() {
    RedisDeduplicator.Builder builder = RedisDeduplicator.builder(redis.url);
    assertThatThrownBy(() -> builder.prefix("app:{x}"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.prefix(" ")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.commandTimeout(Duration.ofSeconds(60)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.connectTimeout(Duration.ofSeconds(10)))
        .isInstanceOf(IllegalArgumentException.class);
    builder.commandTimeout(Duration.ofMillis(9_999)).connectTimeout(Duration.ofMillis(9_999));
    assertThatThrownBy(() -> builder.connectTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.window(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.claim("e:1", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void defaults_prefixWindowTimeoutAndMayBlock() {
    try (RedisDeduplicator defaults = RedisDeduplicator.builder(redis.url).build()) {
      assertThat(defaults.prefix()).isEqualTo("servicehooks:default");
      assertThat(defaults.window()).isEqualTo(Duration.ofHours(24));
      assertThat(defaults.commandTimeout()).isEqualTo(Duration.ofSeconds(2));
      // Calls return at once and complete when Redis answers: asked from the IO thread.
      assertThat(defaults.mayBlock()).isFalse();
      assertThat(defaults.redisKey("e:x")).isEqualTo("servicehooks:default:{e:x}");
    }
  }

  @Test
  void close_callsAfterwardsFail_closeTwiceIsHarmless() {
    RedisDeduplicator closing = RedisDeduplicator.builder(redis.url).prefix(redis.prefix).build();
    closing.close();
    closing.close();

    assertThatThrownBy(() -> get(closing.claim("e:1", LEASE)))
        .hasRootCauseInstanceOf(IllegalStateException.class);
  }
}
