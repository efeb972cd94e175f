package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Keeps the example of {@link PlatformSimulator}'s Javadoc compiling and passing. */
final class UsageExampleTest {

  private final ConsumerStub consumer;
  private final String consumerUrl;
  private PlatformClient registrar;

  UsageExampleTest() throws IOException {
    consumer = ConsumerStub.start("DemoApiSecret4servicehooksNotForProduction");
    consumerUrl = consumer.url();
  }

  @AfterEach
  void close() {
    consumer.close();
  }

  @Test
  void javadocExample_registerDeliverAssert_passes() {
    try (PlatformSimulator platform = PlatformSimulator.builder().localMode(true).build().start()) {
      registrar = new PlatformClient(platform);
      // Point the client under test at platform.baseUrl() with platform.apiKey() and apiSecret();
      // it registers the consumer under test, whose CRC answers are keyed with consumerSecret().
      String webhookId = registerConsumer(platform.baseUrl(), consumerUrl);
      platform.deliver(Events.postCreate("2244994945", "1876", "hello"));
      assertThat(platform.awaitIdle(Duration.ofSeconds(5))).isTrue();
      assertThat(platform.attempts())
          .singleElement()
          .satisfies(
              attempt -> {
                assertThat(attempt.webhookId()).isEqualTo(webhookId);
                assertThat(attempt.succeeded()).isTrue();
              });
    }
  }

  private String registerConsumer(URI baseUrl, String url) {
    assertThat(baseUrl.getScheme()).isEqualTo("http");
    return registrar.register(url);
  }
}
