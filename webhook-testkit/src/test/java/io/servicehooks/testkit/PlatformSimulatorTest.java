package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

final class PlatformSimulatorTest {

  @Test
  void builder_defaults_readyToStartOnLoopbackPortZero() {
    try (PlatformSimulator simulator = PlatformSimulator.builder().build()) {
      assertThat(simulator.start()).isSameAs(simulator);
      assertThat(simulator.port()).isPositive();
      assertThat(simulator.baseUrl()).hasToString("http://127.0.0.1:" + simulator.port());
      assertThat(simulator.apiKey()).isNotBlank();
      assertThat(simulator.consumerSecret()).isEqualTo(simulator.apiSecret());
    }
  }

  @Test
  void builder_credentials_configurable() {
    PlatformSimulator simulator =
        PlatformSimulator.builder().apiKey("k").apiSecret("s").consumerSecret("c").build();

    assertThat(List.of(simulator.apiKey(), simulator.apiSecret(), simulator.consumerSecret()))
        .containsExactly("k", "s", "c");
    simulator.close();
  }

  @Test
  void builder_badValues_rejectedNamingTheValue() {
    assertThatThrownBy(() -> PlatformSimulator.builder().port(70_000))
        .hasMessageContaining("70000");
    assertThatThrownBy(() -> PlatformSimulator.builder().webhookLimit(0))
        .hasMessageContaining("webhookLimit");
    assertThatThrownBy(() -> PlatformSimulator.builder().crcTimeout(Duration.ZERO))
        .hasMessageContaining("crcTimeout");
    assertThatThrownBy(
            () -> PlatformSimulator.builder().retrySchedule(List.of(Duration.ofSeconds(-1))))
        .hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> PlatformSimulator.builder().apiSecret(" "))
        .hasMessageContaining("apiSecret");
    assertThatThrownBy(() -> PlatformSimulator.builder().rateLimit(0)).hasMessageContaining("0");
  }

  @Test
  void lifecycle_misuse_illegalState() {
    PlatformSimulator simulator = PlatformSimulator.builder().build();
    assertThatThrownBy(simulator::port).isInstanceOf(IllegalStateException.class);
    simulator.start();
    assertThatThrownBy(simulator::start).isInstanceOf(IllegalStateException.class);
    simulator.close();
    simulator.close();
    assertThatThrownBy(simulator::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void deliver_badCopies_rejected() {
    try (PlatformSimulator simulator = PlatformSimulator.builder().build()) {
      assertThatThrownBy(() -> simulator.deliver("{}", 0)).hasMessageContaining("0");
    }
  }

  @Test
  void toString_builderAndSimulator_noSecrets() {
    PlatformSimulator.Builder builder =
        PlatformSimulator.builder()
            .apiKey("key-1")
            .apiSecret("api-secret-1")
            .consumerSecret("consumer-secret-1");
    try (PlatformSimulator simulator = builder.build().start()) {
      String token = new PlatformClient(simulator).bearer();

      for (String text : List.of(builder.toString(), simulator.toString())) {
        assertThat(text).doesNotContain("api-secret-1", "consumer-secret-1", token);
      }
      assertThat(simulator.toString()).contains(Integer.toString(simulator.port()));
    }
  }

  @Test
  void logs_fullFlowAtDebug_neverContainSecretsOrTokens() throws IOException {
    Logger logger = (Logger) LoggerFactory.getLogger("io.servicehooks.testkit");
    Level before = logger.getLevel();
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(Level.DEBUG);
    logger.setAdditive(false);
    try (PlatformSimulator simulator =
            PlatformSimulator.builder()
                .localMode(true)
                .apiSecret("api-secret-2")
                .consumerSecret("consumer-secret-2")
                .retrySchedule(List.of(Duration.ofMillis(10)))
                .build()
                .start();
        ConsumerStub consumer = ConsumerStub.start("consumer-secret-2")) {
      PlatformClient client = new PlatformClient(simulator);
      String token = client.bearer();
      String id = client.register(consumer.url());
      consumer.answerDeliveriesWith(500);
      simulator.deliver(Events.postCreate("1", "2", "x"));
      simulator.awaitIdle(Duration.ofSeconds(5));
      consumer.crcAnswer(ConsumerStub.CrcAnswer.WRONG_TOKEN);
      client.call("PUT", "/2/webhooks/" + id, null);
      simulator.enqueueFault(Fault.serverError(500));
      client.call("GET", "/2/webhooks", null);
      simulator.revokeToken();
      client.call("GET", "/2/webhooks", null);

      assertThat(appender.list).isNotEmpty();
      assertThat(appender.list)
          .extracting(ILoggingEvent::getFormattedMessage)
          .allSatisfy(
              message ->
                  assertThat(message).doesNotContain("api-secret-2", "consumer-secret-2", token));
    } finally {
      logger.detachAppender(appender);
      logger.setLevel(before);
      logger.setAdditive(true);
    }
  }
}
