package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.testsupport.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter listener is called once when an event becomes a dead letter, and a dead letter
 * can be discarded (done, still a duplicate, purged with the retention).
 */
final class DeadLetterTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private PostgresInbox inbox;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(6);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (inbox != null) {
      inbox.close();
    }
    pool.close();
    schema.close();
  }

  private PostgresInbox.Builder builder() {
    return PostgresInbox.builder()
        .dataSource(pool)
        .schema(schema.name)
        .createSchema(true)
        .maxAttempts(2)
        .backoff(Duration.ofMillis(10), Duration.ofMillis(20))
        .pollInterval(Duration.ofMillis(20))
        .maxPollInterval(Duration.ofMillis(100))
        .drainTimeout(Duration.ofSeconds(2));
  }

  @Test
  void onDeadLetter_eventFailsEveryAttempt_calledOnceWithItsRowAndError() throws Exception {
    List<DeadLetter> letters = new CopyOnWriteArrayList<>();
    inbox =
        builder()
            .onDeadLetter(letters::add)
            .onDeadLetter(
                letter -> {
                  throw new IllegalStateException("a broken pager does not stop the inbox");
                })
            .build();
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(PostgresInbox.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
        new ch.qos.logback.core.read.ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    ch.qos.logback.classic.Level level = logger.getLevel();
    logger.setLevel(ch.qos.logback.classic.Level.WARN);
    inbox.start(
        event -> {
          throw new IllegalStateException("listener down for " + event.id());
        });
    inbox.store(List.of(Events.post("dl"))).toCompletableFuture().get(10, TimeUnit.SECONDS);

    await().atMost(Duration.ofSeconds(10)).until(() -> inbox.admin().stats().dead() == 1);
    logger.detachAppender(logs);
    logger.setLevel(level);
    assertThat(logs.list)
        .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
        .anySatisfy(
            line ->
                assertThat(line)
                    .matches(
                        "Inbox row \\d+ \\(post\\.create event dl\\) failed attempt 1 of 2:"
                            + " java\\.lang\\.IllegalStateException: listener down for dl; next"
                            + " attempt at \\S+ \\(in PT0\\.0\\d+S\\)"));
    await().atMost(Duration.ofSeconds(5)).until(() -> letters.size() == 1);

    DeadLetter letter = letters.get(0);
    InboxEntry row = inbox.admin().list(InboxStatus.DEAD, 1).get(0);
    assertThat(row.dueAt())
        .as("a dead row is not due in the future")
        .isBeforeOrEqualTo(java.time.Instant.now());
    assertThat(letter.id()).isEqualTo(row.id());
    assertThat(letter.eventId()).isEqualTo("dl");
    assertThat(letter.type()).isEqualTo("post.create");
    assertThat(letter.attempts()).isEqualTo(2);
    assertThat(letter.lastError())
        .isEqualTo("java.lang.IllegalStateException: listener down for dl")
        .isEqualTo(row.lastError().orElseThrow());
  }

  @Test
  void discard_deadRow_becomesDoneAndStaysADuplicate() throws Exception {
    inbox = builder().build();
    inbox
        .store(List.of(Events.post("x"), Events.post("y")))
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    schema.exec(
        "UPDATE "
            + schema.table()
            + " SET status = 'dead', attempts = 10, last_error = 'java.io.IOException: refused'"
            + " WHERE dedup_key = 'e:x'");
    InboxAdmin admin = inbox.admin();
    long dead = admin.list(InboxStatus.DEAD, 1).get(0).id();
    long pending = admin.list(InboxStatus.PENDING, 1).get(0).id();

    assertThat(admin.discard(dead)).isTrue();
    assertThat(admin.discard(dead)).isFalse(); // no longer dead
    assertThat(admin.discard(pending)).isFalse(); // only dead letters
    assertThat(admin.discard(-1)).isFalse();

    InboxEntry discarded = admin.list(InboxStatus.DONE, 1).get(0);
    assertThat(discarded.id()).isEqualTo(dead);
    assertThat(discarded.doneAt()).isPresent();
    assertThat(discarded.lastError()).contains("discarded: java.io.IOException: refused");
    assertThat(admin.stats().dead()).isZero();
    // a copy of the discarded event is still recognised
    assertThat(
            inbox
                .store(List.of(Events.post("x")))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS)
                .get(0))
        .isEqualTo(io.servicehooks.core.InboxOutcome.DUPLICATE);
  }
}
