package io.servicehooks.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.Deduplicator.Claim;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.FakeClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the store is for: a consumer restarted on the same file does not run an event it handled
 * before the restart, and a claim left by a process that died is taken again once its lease ends.
 */
final class RestartTest {

  private static final String SECRET = "sqlite-restart-secret";

  @TempDir Path dir;

  private final List<String> answered = new CopyOnWriteArrayList<>();

  private WebhookResponse deliver(SqliteDeduplicator store, String body) {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .deduplicator(store)
            .on("post.mention.create", event -> answered.add(event.id()))
            .build();
    try {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      return consumer.handle(WebhookRequest.post(TestSigner.sign(SECRET, bytes), bytes)).join();
    } finally {
      consumer.close();
    }
  }

  @Test
  void restart_eventDoneBefore_isADuplicateAfter_listenerRanOnce() {
    Path file = dir.resolve("bot.db");
    String mention = Events.sample("post.mention.create", "2244994945");

    try (SqliteDeduplicator first = SqliteDeduplicator.open(file)) {
      assertThat(deliver(first, mention).status()).isEqualTo(200);
    }
    WebhookResponse again;
    try (SqliteDeduplicator restarted = SqliteDeduplicator.open(file)) {
      again = deliver(restarted, mention);
    }

    assertThat(answered).hasSize(1);
    assertThat(again.status()).isEqualTo(200);
    assertThat(new String(again.body(), StandardCharsets.UTF_8)).contains("\"duplicates\":1");
    assertThat(Files.exists(file)).isTrue();
  }

  @Test
  void crash_unfinishedClaim_runningUntilItsLeaseEnds_thenClaimable() {
    Path file = dir.resolve("bot.db");
    FakeClock clock = FakeClock.at(Instant.parse("2026-11-26T12:00:00Z"));
    Duration lease = Duration.ofSeconds(30);
    SqliteDeduplicator crashed = SqliteDeduplicator.builder(file).clock(clock).build();
    Claim held = crashed.claim("e:1", lease).toCompletableFuture().join();
    assertThat(held.status()).isEqualTo(Claim.Status.CLAIMED);
    // The process dies mid-listener: neither done nor released. Closing the connection is all
    // that is left of it; the claim was committed when claim() answered.
    crashed.close();

    try (SqliteDeduplicator restarted = SqliteDeduplicator.builder(file).clock(clock).build()) {
      Claim early = restarted.claim("e:1", lease).toCompletableFuture().join();
      assertThat(early.status()).isEqualTo(Claim.Status.RUNNING_ELSEWHERE);
      assertThat(early.remainingLease()).isEqualTo(lease);

      clock.advance(lease);
      Claim after = restarted.claim("e:1", lease).toCompletableFuture().join();
      assertThat(after.status()).isEqualTo(Claim.Status.CLAIMED);
      assertThat(after.token()).isNotEqualTo(held.token());
      assertThat(restarted.markDone("e:1", after.token()).toCompletableFuture().join()).isTrue();
      assertThat(restarted.markDone("e:1", held.token()).toCompletableFuture().join()).isFalse();
    }
  }

  @Test
  void open_fileInAMissingDirectory_failsNamingIt() {
    Path missing = dir.resolve("no-such-dir").resolve("bot.db");

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> SqliteDeduplicator.open(missing))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no-such-dir");
  }
}
