package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.testkit.TestSigner;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/** Start-up checks of {@code servicehooks.webhook.*} values the core cannot take as they are. */
final class WebhookPropertiesValidationTest {

  private static final String SECRET = "test-consumer-secret";

  private final WebApplicationContextRunner configured =
      new WebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
          .withPropertyValues("servicehooks.webhook.consumer-secrets=" + SECRET);

  // ---- max-body-size ----------------------------------------------------------------------------

  @Test
  void maxBodySize_4GB_failsStartupNamingPropertyAndRange() {
    assertRefused("4GB");
  }

  @Test
  void maxBodySize_integerMaxValue_failsStartup() {
    // Bound without complaint before; every POST then failed when the adapter read limit + 1.
    assertRefused(Integer.MAX_VALUE + "B");
  }

  @Test
  void maxBodySize_justOverMaximum_failsStartup() {
    assertRefused((64L * 1024 * 1024 + 1) + "B");
  }

  @Test
  void maxBodySize_zeroOrNegative_failsStartupNamingProperty() {
    assertRefused("0B");
    assertRefused("-1KB");
  }

  @Test
  void maxBodySize_64KBand64MB_start() {
    for (String size : new String[] {"64KB", "64MB", "1B"}) {
      configured
          .withPropertyValues("servicehooks.webhook.max-body-size=" + size)
          .run(context -> assertThat(context).as(size).hasNotFailed());
    }
    configured
        .withPropertyValues("servicehooks.webhook.max-body-size=64MB")
        .run(
            context ->
                assertThat(context.getBean(WebhookConsumer.class).maxBodyBytes())
                    .isEqualTo(64 * 1024 * 1024));
  }

  private void assertRefused(String size) {
    configured
        .withPropertyValues("servicehooks.webhook.max-body-size=" + size)
        .run(
            context ->
                assertThat(context)
                    .as(size)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("servicehooks.webhook.max-body-size")
                    .hasMessageContaining("1B to 64MB"));
  }

  // ---- consumer-secrets -------------------------------------------------------------------------

  @Test
  void consumerSecrets_indexedElementWithComma_isOneWholeSecret() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
        .withPropertyValues(
            "servicehooks.webhook.consumer-secrets[0]=cur,rent",
            "servicehooks.webhook.consumer-secrets[1]=old")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(crc(context)).isEqualTo(TestSigner.crcResponse("cur,rent", "t"));
              assertThat(delivery(context, "old")).isEqualTo(200);
              assertThat(delivery(context, "rent")).isEqualTo(401);
            });
  }

  @Test
  void consumerSecrets_commaString_stillSplitFirstCurrent() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WebhookAutoConfiguration.class))
        .withPropertyValues("servicehooks.webhook.consumer-secrets= current , previous ,")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(crc(context)).isEqualTo(TestSigner.crcResponse("current", "t"));
              assertThat(delivery(context, "previous")).isEqualTo(200);
            });
  }

  private static String crc(AssertableWebApplicationContext context) {
    return context
        .getBean(WebhookConsumer.class)
        .handle(WebhookRequest.get("crc_token=t"))
        .join()
        .bodyAsString();
  }

  private static int delivery(AssertableWebApplicationContext context, String secret) {
    String body =
        "{\"data\":{\"event_uuid\":\""
            + secret
            + "\",\"event_type\":\"post.create\",\"filter\":{},\"payload\":{\"id\":\"1\"}}}";
    WebhookResponse answer =
        context
            .getBean(WebhookConsumer.class)
            .handle(
                WebhookRequest.post(
                    TestSigner.sign(secret, body), body.getBytes(StandardCharsets.UTF_8)))
            .join();
    return answer.status();
  }
}
