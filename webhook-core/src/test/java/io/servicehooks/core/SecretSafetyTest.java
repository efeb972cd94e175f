package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Secrets that would give an endpoint anyone can sign for: an unresolved placeholder is refused, a
 * short secret is warned about once per build.
 */
final class SecretSafetyTest {

  private static final String LONG = "L8qq9PZyRg6ieKGEKhZolGC0vJWLw8iEJ88DRdyOgAbCdEfGhI"; // 50
  private static final String SHORT = "short-but-real-secret"; // 21

  @Test
  void placeholder_asTheWholeSecret_refusedNamingTheShapeNotTheVariable() {
    // An unexpanded placeholder would otherwise be taken as the secret, and CRCs signed with the
    // literal text: the webhook would fail every check with no clue why.
    assertThatThrownBy(
            () -> WebhookConsumer.builder().consumerSecrets("${SERVICE_CONSUMER_SECRET}").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("index 0")
        .hasMessageContaining("unresolved placeholder")
        .hasMessageContaining("${...}")
        .message()
        .doesNotContain("SERVICE_CONSUMER_SECRET");
  }

  @Test
  void placeholder_inListFormOrInsideTheValue_refusedNamingItsIndex() {
    assertThatThrownBy(
            () -> WebhookConsumer.builder().consumerSecrets(List.of(LONG, "prefix-${X:dflt}-x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("index 1")
        .hasMessageContaining("${...}")
        .message()
        .doesNotContain(LONG)
        .doesNotContain("dflt");
  }

  @Test
  void placeholder_commaForm_indexCountsTheSplitParts() {
    assertThatThrownBy(() -> WebhookConsumer.builder().consumerSecrets(LONG + ",${OLD_SECRET}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("index 1")
        .message()
        .doesNotContain(LONG)
        .doesNotContain("OLD_SECRET");
  }

  @Test
  void placeholder_bareShellVariable_refused() {
    // What an env file that is not expanded (docker --env-file, systemd) passes through.
    assertThatThrownBy(() -> WebhookConsumer.builder().consumerSecrets("$SERVICE_CONSUMER_SECRET"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("$NAME")
        .message()
        .doesNotContain("SERVICE_CONSUMER_SECRET");
  }

  @Test
  void dollarThatIsNotAPlaceholder_accepted() {
    String withDollars = "ab$cd${ef-no-closing-brace-" + LONG; // no '}' after "${"
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(List.of(withDollars, "$1" + LONG)).build();
    assertThat(consumer.handle(signed(withDollars, envelope("1", "post.create"))).join().status())
        .isEqualTo(200);
  }

  @Test
  void shortSecrets_oneWarnPerBuild_namingPositionsNeverValues() {
    try (LogCapture logs = new LogCapture()) {
      WebhookConsumer.Builder builder =
          WebhookConsumer.builder().consumerSecrets(List.of(SHORT, LONG, "tiny"));
      assertThat(logs.messages()).as("nothing before build()").isEmpty();
      builder.build();
      assertThat(logs.messages(Level.WARN)).hasSize(1);
      String line = logs.messages(Level.WARN).get(0);
      assertThat(line)
          .contains("index 0, 2")
          .contains(String.valueOf(WebhookConsumer.MIN_SECRET_LENGTH))
          .doesNotContain(SHORT)
          .doesNotContain("tiny")
          .doesNotContain(LONG);
    }
  }

  @Test
  void secretsAtLeastTheMinimum_noWarn() {
    String exactlyMinimum = LONG.substring(0, WebhookConsumer.MIN_SECRET_LENGTH);
    try (LogCapture logs = new LogCapture()) {
      WebhookConsumer.builder().consumerSecrets(List.of(LONG, exactlyMinimum)).build();
      assertThat(logs.messages()).isEmpty();
    }
  }
}
