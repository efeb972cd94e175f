package io.servicehooks.catchup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The store contract, on each implementation over its real engine. */
final class HeartbeatStoreTest {

  private static final Instant T = Instant.parse("2026-03-18T10:00:00.123Z");

  private static CatchUpJob job(String key, String jobId) {
    return new CatchUpJob(key, jobId, Instant.parse("2026-03-18T09:20:00Z"), T, 1, T, null);
  }

  @ParameterizedTest
  @EnumSource(HeartbeatPlace.Kind.class)
  void beat_laterOnly_movesForwardNeverBack(HeartbeatPlace.Kind kind) throws Exception {
    try (HeartbeatPlace place = HeartbeatPlace.of(kind);
        HeartbeatStore store = place.open()) {
      assertThat(store.read()).isEqualTo(new HeartbeatStore.Snapshot(null, null));
      assertThat(store.beat(T)).isTrue();
      assertThat(store.beat(T.minusSeconds(30))).isFalse();
      assertThat(store.beat(T)).isFalse();
      assertThat(store.beat(T.plusSeconds(30))).isTrue();
      try (HeartbeatStore other = place.open()) {
        assertThat(other.read().heartbeat()).isEqualTo(T.plusSeconds(30));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(HeartbeatPlace.Kind.class)
  void beat_whileJobInProgress_isRefused(HeartbeatPlace.Kind kind) throws Exception {
    try (HeartbeatPlace place = HeartbeatPlace.of(kind);
        HeartbeatStore store = place.open()) {
      store.beat(T);
      store.putJob(job("k1", null));
      assertThat(store.beat(T.plusSeconds(60))).isFalse();
      assertThat(store.read().heartbeat()).isEqualTo(T);
    }
  }

  @ParameterizedTest
  @EnumSource(HeartbeatPlace.Kind.class)
  void putJob_roundTrips_everyField(HeartbeatPlace.Kind kind) throws Exception {
    try (HeartbeatPlace place = HeartbeatPlace.of(kind);
        HeartbeatStore store = place.open()) {
      CatchUpJob waiting =
          new CatchUpJob(
              "k1",
              null,
              Instant.parse("2026-03-18T09:20:00Z"),
              T,
              3,
              T.plusSeconds(5),
              T.plusSeconds(240));
      store.putJob(waiting);
      assertThat(store.read().job()).isEqualTo(waiting);
      store.putJob(job("k1", "1876"));
      try (HeartbeatStore other = place.open()) {
        assertThat(other.read().job()).isEqualTo(job("k1", "1876"));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(HeartbeatPlace.Kind.class)
  void finishJob_otherKey_changesNothing(HeartbeatPlace.Kind kind) throws Exception {
    try (HeartbeatPlace place = HeartbeatPlace.of(kind);
        HeartbeatStore store = place.open()) {
      store.beat(T.minusSeconds(3600));
      store.putJob(job("k1", "1876"));
      assertThat(store.finishJob("k2", null, T)).isFalse();
      assertThat(store.read())
          .isEqualTo(new HeartbeatStore.Snapshot(T.minusSeconds(3600), job("k1", "1876")));
    }
  }

  @ParameterizedTest
  @EnumSource(HeartbeatPlace.Kind.class)
  void finishJob_sameKey_clearsJobAndMovesHeartbeat(HeartbeatPlace.Kind kind) throws Exception {
    try (HeartbeatPlace place = HeartbeatPlace.of(kind);
        HeartbeatStore store = place.open()) {
      store.beat(T.minusSeconds(3600));
      store.putJob(job("k1", "1876"));
      assertThat(store.finishJob("k1", null, T)).isTrue();
      assertThat(store.read()).isEqualTo(new HeartbeatStore.Snapshot(T, null));
      assertThat(store.beat(T.plusSeconds(1))).isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(HeartbeatPlace.Kind.class)
  void finishJob_withNext_replacesJobAndKeepsHeartbeat(HeartbeatPlace.Kind kind) throws Exception {
    try (HeartbeatPlace place = HeartbeatPlace.of(kind);
        HeartbeatStore store = place.open()) {
      store.beat(T.minusSeconds(3600));
      store.putJob(job("k1", "1876"));
      CatchUpJob retry = job("k1", "1876").retryingAt(T.plusSeconds(60));
      assertThat(store.finishJob("k1", retry, null)).isTrue();
      assertThat(store.read()).isEqualTo(new HeartbeatStore.Snapshot(T.minusSeconds(3600), retry));
    }
  }

  @ParameterizedTest
  @EnumSource(HeartbeatPlace.Kind.class)
  void tryLead_heldByOne_othersRefusedUntilReleased(HeartbeatPlace.Kind kind) throws Exception {
    try (HeartbeatPlace place = HeartbeatPlace.of(kind);
        HeartbeatStore a = place.open();
        HeartbeatStore b = place.open()) {
      Optional<HeartbeatStore.Leadership> first = a.tryLead(Duration.ofSeconds(30));
      assertThat(first).isPresent();
      assertThat(b.tryLead(Duration.ofSeconds(30))).isEmpty();
      assertThat(a.tryLead(Duration.ofSeconds(30))).isEmpty();
      first.get().close();
      Optional<HeartbeatStore.Leadership> second = b.tryLead(Duration.ofSeconds(30));
      assertThat(second).isPresent();
      second.get().close();
    }
  }
}
