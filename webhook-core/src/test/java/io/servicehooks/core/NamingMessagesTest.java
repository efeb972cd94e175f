package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.OLD_SECRET;
import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Patterns that can match nothing are refused; the consumer's toString says what it serves. */
final class NamingMessagesTest {

  @Test
  void pattern_endingWithDot_refusedSuggestingTheWildcard() {
    assertThatThrownBy(() -> WebhookConsumer.builder().on("post.", e -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'post.'")
        .hasMessageContaining("matches no event")
        .hasMessageContaining("'post.*'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"post.", " dm. ", ".post", ".*", "post..create", "profile..*"})
  void pattern_withAnEmptyWord_refusedLikeOtherBadPatterns(String pattern) {
    assertThatThrownBy(() -> WebhookConsumer.builder().on(pattern, e -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + pattern + "'");
    assertThatThrownBy(() -> WebhookConsumer.builder().on(List.of("post.create", pattern), e -> {}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"post.create", "post.*", "*", "profile.update.*", "ProfileBioUpdate"})
  void pattern_thatCanMatch_stillAccepted(String pattern) {
    assertThat(WebhookConsumer.builder().consumerSecrets(SECRET).on(pattern, e -> {}).build())
        .isNotNull();
  }

  @Test
  void consumerToString_namesSecretsCountModeAndListenersNeverValues() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(List.of(SECRET, OLD_SECRET))
            .on("post.create", e -> {})
            .on(List.of("dm.*", "follow.*"), e -> {})
            .acknowledgement(Acknowledgement.ASYNCHRONOUS)
            .build();
    assertThat(consumer.toString())
        .isEqualTo(
            "WebhookConsumer[secrets=2, acknowledgement=ASYNCHRONOUS, dedup=InMemoryDeduplicator,"
                + " listeners=3, closed=false]")
        .doesNotContain(SECRET)
        .doesNotContain(OLD_SECRET);
    consumer.close();
    assertThat(consumer.toString()).contains("closed=true");
  }

  @Test
  void consumerToString_afterHandlingDeliveries_staysTheSame() {
    WebhookConsumer consumer = WebhookConsumer.builder().consumerSecrets(SECRET).build();
    String before = consumer.toString();
    assertThat(consumer.handle(signed(SECRET, envelope("1", "post.create"))).join().status())
        .isEqualTo(200);
    assertThat(consumer.toString())
        .isEqualTo(before)
        .contains(
            "secrets=1, acknowledgement=SYNCHRONOUS, dedup=InMemoryDeduplicator, listeners=0");
  }
}
