package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, point 4 (core side): an owner renews its lease while listeners run past half of it, and
 * a lease that ran out before the event was marked done is counted and logged.
 */
final class LeaseTest {

  private final TestStore store = new TestStore();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void slowListener_pastHalfTheLease_ownerRenewsUntilItEnds() throws Exception {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .dedupLease(Duration.ofMillis(200))
            .on(
                "post.create",
                e -> {
                  Thread.sleep(600); // the slow listener under test
                  seen.add(e.id());
                })
            .build();

    WebhookResponse answer = consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();

    assertThat(answer.status()).isEqualTo(200);
    assertThat(store.renewals).hasSizeGreaterThanOrEqualTo(2).containsOnly("e:1");
    assertThat(store.done).containsExactly("e:1");
    int renewals = store.renewals.size();
    Thread.sleep(300); // the claim ended: no renewal after it
    assertThat(store.renewals).hasSize(renewals);
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
  void leaseLostBeforeMarkDone_isCountedAndLogged_answerStays200() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .meterRegistry(registry)
            .on(
                "post.create",
                e -> {
                  // Meanwhile the lease ran out and another instance claimed the event.
                  store.claimElsewhere(e.dedupKey());
                  seen.add(e.id());
                })
            .build();
    try (LogCapture logs = new LogCapture()) {
      WebhookResponse answer = consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();

      assertThat(answer.status()).isEqualTo(200);
      assertThat(registry.get("webhook.dedup.lease.expired").counter().count()).isEqualTo(1);
      assertThat(logs.messages(Level.WARN))
          .anySatisfy(line -> assertThat(line).contains("e:1").contains("may have run it too"));
    }
    assertThat(store.done).isEmpty(); // the stale token changed nothing
  }

  @Test
  void renewLost_isLogged() throws Exception {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .dedupLease(Duration.ofMillis(100))
            .on(
                "post.create",
                e -> {
                  store.claimElsewhere(e.dedupKey());
                  Thread.sleep(300); // long enough for a renewal to be refused
                })
            .build();
    try (LogCapture logs = new LogCapture()) {
      consumer.handle(signed(SECRET, envelope("1", "post.create"))).join();
      assertThat(logs.messages(Level.WARN))
          .anySatisfy(line -> assertThat(line).contains("lease on e:1 was lost"));
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
