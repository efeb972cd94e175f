package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The watch against the simulator, which marks a webhook invalid as the platform does; the watch's
 * clock is a fake one and each test calls {@code tick()} where the watch's thread would.
 */
final class WebhookWatchTest {

  private PlatformSimulator platform;
  private ConsumerStub consumer;
  private WebhookClient client;
  private String url;
  private final FakeClock time = FakeClock.at(Instant.now().truncatedTo(ChronoUnit.SECONDS));
  private final AtomicReference<Instant> lastCrc = new AtomicReference<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(WebhookWatch.class);

  @BeforeEach
  void start() throws Exception {
    platform = PlatformSimulator.builder().localMode(true).build().start();
    consumer = ConsumerStub.start(platform.consumerSecret());
    client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), platform.apiSecret())
            .allowInsecureUrls(true)
            .build();
    url = consumer.url("/webhook");
    log.start();
    logger.addAppender(log);
    logger.setLevel(Level.INFO);
  }

  @AfterEach
  void stop() {
    logger.detachAppender(log);
    logger.setLevel(null);
    consumer.close();
    platform.close();
  }

  private WebhookWatch watch() {
    return WebhookWatch.builder()
        .client(client)
        .webhookUrl(url)
        .checkInterval(Duration.ofMinutes(15))
        .silence(Duration.ofMinutes(75))
        .lastCrcAnswered(() -> Optional.ofNullable(lastCrc.get()))
        .meterRegistry(registry)
        .clock(time)
        .build();
  }

  private double revalidations(String outcome) {
    return registry
        .get("webhook.registration.revalidations")
        .tag("outcome", outcome)
        .counter()
        .count();
  }

  private long warnings() {
    return log.list.stream().filter(e -> e.getLevel() == Level.WARN).count();
  }

  private boolean valid(String id) throws Exception {
    return client.list().stream().filter(w -> w.id().equals(id)).findFirst().orElseThrow().valid();
  }

  @Test
  void firstTick_notRegistered_registersItQuietly_deletedLater_isAnEpisode() throws Exception {
    WebhookWatch watch = watch();
    watch.tick();

    assertThat(client.list()).extracting(Webhook::url).containsExactly(url);
    assertThat(revalidations("revalidated")).isZero();
    assertThat(warnings()).isZero();

    client.delete(client.list().get(0).id());
    time.advance(Duration.ofMinutes(15));
    watch.tick();

    assertThat(client.list()).extracting(Webhook::url).containsExactly(url);
    assertThat(revalidations("revalidated")).isEqualTo(1);
    assertThat(warnings()).isEqualTo(1);
    assertThat(log.list)
        .filteredOn(e -> e.getLevel() == Level.WARN)
        .first()
        .extracting(ILoggingEvent::getFormattedMessage)
        .asString()
        .contains("is no longer registered");
  }

  @Test
  void switchedOff_foundAtTheNextInterval_revalidatedOnceWithOneWarn() throws Exception {
    String id = client.create(url).id();
    WebhookWatch watch = watch();
    watch.tick(); // valid: nothing to do
    assertThat(revalidations("revalidated")).isZero();

    assertThat(platform.invalidateWebhook(id)).isTrue();
    time.advance(Duration.ofMinutes(14));
    watch.tick(); // not due yet
    assertThat(valid(id)).isFalse();

    time.advance(Duration.ofMinutes(1));
    watch.tick();

    assertThat(valid(id)).isTrue();
    assertThat(revalidations("revalidated")).isEqualTo(1);
    assertThat(warnings()).isEqualTo(1);
    assertThat(log.list)
        .filteredOn(e -> e.getLevel() == Level.WARN)
        .first()
        .extracting(ILoggingEvent::getFormattedMessage)
        .asString()
        .contains("Webhook " + id, "switched off by the platform", "Revalidating");
  }

  @Test
  void consumerStillDown_countedInvalid_warnedOncePerEpisode() throws Exception {
    String id = client.create(url).id();
    WebhookWatch watch = watch();
    watch.tick();
    platform.invalidateWebhook(id);
    consumer.crcAnswer(ConsumerStub.CrcAnswer.SERVER_ERROR);

    for (int i = 0; i < 3; i++) {
      time.advance(Duration.ofMinutes(15));
      watch.tick();
    }
    assertThat(revalidations("invalid")).isEqualTo(3);
    assertThat(warnings()).isEqualTo(1);
    assertThat(valid(id)).isFalse();

    consumer.crcAnswer(ConsumerStub.CrcAnswer.CORRECT);
    time.advance(Duration.ofMinutes(15));
    watch.tick();
    assertThat(valid(id)).isTrue();
    assertThat(revalidations("revalidated")).isEqualTo(1);

    // A second episode warns again.
    platform.invalidateWebhook(id);
    time.advance(Duration.ofMinutes(15));
    watch.tick();
    assertThat(warnings()).isEqualTo(2);
  }

  @Test
  void noCrcForTheSilence_checksAtOnceBeforeTheInterval() throws Exception {
    String id = client.create(url).id();
    WebhookWatch watch =
        WebhookWatch.builder()
            .client(client)
            .webhookUrl(url)
            .checkInterval(Duration.ofHours(6))
            .silence(Duration.ofMinutes(75))
            .lastCrcAnswered(() -> Optional.ofNullable(lastCrc.get()))
            .meterRegistry(registry)
            .clock(time)
            .build();
    watch.tick();
    lastCrc.set(time.instant());
    platform.invalidateWebhook(id);

    time.advance(Duration.ofMinutes(74));
    watch.tick();
    assertThat(valid(id)).isFalse();

    time.advance(Duration.ofMinutes(1));
    watch.tick(); // 75 minutes without a CRC check: look now

    assertThat(valid(id)).isTrue();
    assertThat(revalidations("revalidated")).isEqualTo(1);
  }

  @Test
  void platformUnreachable_errorLoggedOnceAndWatchGoesOn() throws Exception {
    WebhookWatch watch = watch();
    platform.close();

    watch.tick();
    time.advance(Duration.ofMinutes(15));
    watch.tick();

    assertThat(warnings()).isEqualTo(1);
    assertThat(log.list.get(0).getFormattedMessage()).contains("Could not check webhook " + url);
  }

  @Test
  void builder_belowOneSecondOrMissing_refused() {
    assertThatThrownBy(() -> WebhookWatch.builder().checkInterval(Duration.ofMillis(999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("checkInterval");
    assertThatThrownBy(() -> WebhookWatch.builder().silence(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("silence");
    assertThatThrownBy(() -> WebhookWatch.builder().webhookUrl(url).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("client");
    assertThat(WebhookWatch.tickPeriod(Duration.ofMinutes(15), Duration.ofMinutes(75)))
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(WebhookWatch.tickPeriod(Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void started_revalidatesOnItsOwnThread() throws Exception {
    String id = client.create(url).id();
    platform.invalidateWebhook(id);
    try (WebhookWatch watch =
        WebhookWatch.builder()
            .client(client)
            .webhookUrl(url)
            .checkInterval(Duration.ofSeconds(1))
            .build()
            .start()) {
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> valid(id));
    }
  }
}
