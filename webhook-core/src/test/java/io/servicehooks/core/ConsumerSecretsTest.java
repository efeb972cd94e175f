package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.hmac;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the builder takes consumer secrets: a list takes each element whole, strings split. */
final class ConsumerSecretsTest {

  private static final String WITH_COMMA = "abc,def;ghi =\"x\"";
  private static final String OTHER = "second-secret";

  private static WebhookResponse answer(WebhookConsumer consumer, WebhookRequest request) {
    return consumer.handle(request).join();
  }

  @Test
  void listForm_secretWithComma_signsCrcAndVerifiesWhole() {
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(List.of(WITH_COMMA, OTHER)).build();
    assertThat(answer(consumer, WebhookRequest.get("crc_token=t")).bodyAsString())
        .isEqualTo("{\"response_token\":\"" + hmac(WITH_COMMA, "t") + "\"}");
    assertThat(answer(consumer, signed(WITH_COMMA, envelope("1", "post.create"))).status())
        .isEqualTo(200);
    assertThat(answer(consumer, signed(OTHER, envelope("2", "post.create"))).status())
        .isEqualTo(200);
    // The halves of the comma secret are not secrets of their own.
    assertThat(answer(consumer, signed("abc", envelope("3", "post.create"))).status())
        .isEqualTo(401);
  }

  @Test
  void listForm_surroundingWhitespace_isRemoved() {
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(List.of(" " + WITH_COMMA + "\n")).build();
    assertThat(answer(consumer, WebhookRequest.get("crc_token=t")).bodyAsString())
        .contains(hmac(WITH_COMMA, "t"));
  }

  @Test
  void listForm_blankOrNullElement_refusedNamingIndex() {
    assertThatThrownBy(() -> WebhookConsumer.builder().consumerSecrets(List.of("a", " ")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("index 1")
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> WebhookConsumer.builder().consumerSecrets(Arrays.asList("a", null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("index 1");
    assertThatThrownBy(() -> WebhookConsumer.builder().consumerSecrets(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one");
  }

  @Test
  void listForm_refusal_neverShowsTheSecrets() {
    assertThatThrownBy(() -> WebhookConsumer.builder().consumerSecrets(List.of(WITH_COMMA, "")))
        .message()
        .doesNotContain(WITH_COMMA);
  }

  @Test
  void commaForm_singleString_stillSplitsFirstCurrent() {
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(" current , previous ,").build();
    assertThat(answer(consumer, WebhookRequest.get("crc_token=t")).bodyAsString())
        .contains(hmac("current", "t"));
    assertThat(answer(consumer, signed("previous", envelope("1", "x.y"))).status()).isEqualTo(200);
  }

  @Test
  void commaForm_severalArguments_eachSplit() {
    WebhookConsumer consumer = WebhookConsumer.builder().consumerSecrets("a,b", "c").build();
    assertThat(answer(consumer, WebhookRequest.get("crc_token=t")).bodyAsString())
        .contains(hmac("a", "t"));
    for (String secret : List.of("b", "c")) {
      assertThat(answer(consumer, signed(secret, envelope(secret, "x.y"))).status())
          .as(secret)
          .isEqualTo(200);
    }
  }
}
