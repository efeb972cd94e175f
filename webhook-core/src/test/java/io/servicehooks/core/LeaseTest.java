package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.testsupport.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * An owner renews its lease while listeners run past half of it, and a lease that ran out before
 * the event was marked done is counted and logged.
 */
final class LeaseTest {

  private final TestStore store = new TestStore();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void slowListener_pastHalfTheLease_ownerRenewsUntilItEnds() {
    Duration lease = Duration.ofSeconds(8);
    FakeClock clock = FakeClock.ticker(0);
    ManualScheduler scheduler = new ManualScheduler(clock);
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .dedupLease(lease)
            .leaseTicker(clock::nanos)
            .dedupScheduler(scheduler)
            .on(
                "post.create",
                e -> {
                  // The slow listener under test: three leases long on the lease clock, which
                  // runs the sweeps due every quarter lease.
                  for (int quarter = 0; quarter < 12; quarter++) {
                    clock.advance(lease.dividedBy(4));
                    scheduler.runDue();
                  }
                  seen.add(e.id());
                })
            .build();

    WebhookResponse answer = consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();

    assertThat(answer.status()).isEqualTo(200);
    // One renewal each time the lease was half used: at 2, 4, ... 12 quarters.
    assertThat(store.renewals).hasSize(6).containsOnly("e:1");
    assertThat(store.done).containsExactly("e:1");
    // The claim ended: a lease later, the sweep still due ran, renewed nothing and stopped.
    clock.advance(lease);
    scheduler.runDue();
    assertThat(store.renewals).hasSize(6);
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void quickListener_neverRenews() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .on("post.create", e -> seen.add(e.id()))
            .build();
    consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();
    assertThat(store.renewals).isEmpty();
  }

  @Test
  void leaseRanOutBeforeMarkDone_isCountedAndLogged_answerStays200() {
    AtomicLong ticker = new AtomicLong();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .meterRegistry(registry)
            .leaseTicker(ticker::get)
            .on(
                "post.create",
                e -> {
                  // The listener takes longer than the lease (on the test's clock), and meanwhile
                  // another instance claimed the event.
                  ticker.addAndGet(Duration.ofSeconds(31).toNanos());
                  store.claimElsewhere(e.dedupKey());
                  seen.add(e.id());
                })
            .build();
    try (LogCapture logs = new LogCapture()) {
      WebhookResponse answer = consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();

      assertThat(answer.status()).isEqualTo(200);
      assertThat(registry.get("webhook.dedup.lease.expired").counter().count()).isEqualTo(1);
      assertThat(registry.get("webhook.dedup.claim.lost").counter().count()).isZero();
      assertThat(logs.messages(Level.WARN))
          .singleElement()
          .satisfies(
              line ->
                  assertThat(line)
                      .contains("e:1")
                      .contains("ran out before its listeners finished")
                      .contains("held 31000 ms")
                      .contains("may have run it too"));
    }
    assertThat(store.done).isEmpty(); // the stale token changed nothing
  }

  /**
   * The key vanished while the lease still ran (Redis evicted it, or lost it in a restart or
   * fail-over). The WARN used to blame a slow listener; it now says the store lost it.
   */
  @Test
  void keyLostWhileLeaseRan_countedAsLost_warnBlamesTheStoreNotTheListener() {
    AtomicLong ticker = new AtomicLong();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .meterRegistry(registry)
            .leaseTicker(ticker::get)
            .on(
                "post.create",
                e -> {
                  ticker.addAndGet(Duration.ofSeconds(2).toNanos()); // a quick listener
                  store.entries.remove(e.dedupKey()); // evicted
                  seen.add(e.id());
                })
            .build();
    try (LogCapture logs = new LogCapture()) {
      WebhookResponse answer = consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();

      assertThat(answer.status()).isEqualTo(200);
      assertThat(registry.get("webhook.dedup.claim.lost").counter().count()).isEqualTo(1);
      assertThat(registry.get("webhook.dedup.lease.expired").counter().count()).isZero();
      assertThat(logs.messages(Level.WARN))
          .singleElement()
          .satisfies(
              line ->
                  assertThat(line)
                      .contains("e:1")
                      .contains("although its lease still ran")
                      .contains("held 2000 ms of PT30S")
                      .contains("the store lost the key")
                      .contains("noeviction")
                      .doesNotContain("before its listeners finished"));
    }
  }

  @Test
  void renewLost_isLogged() {
    Duration lease = Duration.ofSeconds(8);
    FakeClock clock = FakeClock.ticker(0);
    ManualScheduler scheduler = new ManualScheduler(clock);
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .dedupLease(lease)
            .leaseTicker(clock::nanos)
            .dedupScheduler(scheduler)
            .on(
                "post.create",
                e -> {
                  store.claimElsewhere(e.dedupKey());
                  // Past half the lease, within it: the sweep renews, and the store refuses.
                  clock.advance(lease.dividedBy(4));
                  scheduler.runDue();
                  clock.advance(lease.dividedBy(4));
                  scheduler.runDue();
                })
            .build();
    try (LogCapture logs = new LogCapture()) {
      consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();
      assertThat(store.renewals).isEmpty();
      assertThat(logs.messages(Level.WARN))
          .anySatisfy(
              line ->
                  assertThat(line)
                      .contains("no longer held the claim on e:1 when it was renewed")
                      .contains("although its lease still ran"));
    }
  }

  @Test
  void dedupLease_defaultAndValidation() {
    assertThat(Deduplicator.DEFAULT_LEASE).isEqualTo(Duration.ofSeconds(30));
    assertThatThrownBy(() -> WebhookConsumer.builder().dedupLease(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dedupLease");
    assertThatThrownBy(() -> WebhookConsumer.builder().dedupLease(null))
        .isInstanceOf(NullPointerException.class);
  }
}
