package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.core.InboxProcessor;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pure parts of a failed attempt: how long it waits, and what of the error is kept. */
final class BackoffAndErrorsTest {

  private static PostgresInbox.Settings settings(Duration base, Duration max) {
    PostgresInbox.Settings.Draft draft = new PostgresInbox.Settings.Draft();
    draft.backoffBase = base;
    draft.backoffMax = max;
    return new PostgresInbox.Settings(draft);
  }

  @Test
  void backoff_doublesPerAttemptWithinTheUpperHalf() {
    PostgresInbox.Settings s = settings(Duration.ofSeconds(2), Duration.ofMinutes(5));

    assertThat(s.backoffMillis(1, 0.0)).isEqualTo(1_000);
    assertThat(s.backoffMillis(1, 0.999_999)).isBetween(1_999L, 2_000L);
    assertThat(s.backoffMillis(2, 0.0)).isEqualTo(2_000);
    assertThat(s.backoffMillis(4, 0.0)).isEqualTo(8_000);
    assertThat(s.backoffMillis(8, 0.5)).isEqualTo(192_000); // 256 s: half plus a quarter
  }

  @Test
  void backoff_cappedAtMaxEvenForHugeAttemptNumbers() {
    PostgresInbox.Settings s = settings(Duration.ofSeconds(2), Duration.ofMinutes(5));

    assertThat(s.backoffMillis(9, 0.0)).isEqualTo(150_000);
    assertThat(s.backoffMillis(1_000, 0.999_999)).isBetween(299_999L, 300_000L);
    assertThat(s.backoffMillis(Integer.MAX_VALUE, 0.0)).isEqualTo(150_000);
  }

  @Test
  void describe_keepsClassAndMessageOfTheListenersFailureOnOneLine() {
    Exception wrapped =
        new InboxProcessor.ListenerError(new AssertionError("expected 1\nbut was 2"));

    assertThat(Workers.describe(wrapped))
        .isEqualTo("java.lang.AssertionError: expected 1 but was 2");
    assertThat(Workers.describe(new IllegalStateException()))
        .isEqualTo("java.lang.IllegalStateException");
  }

  @Test
  void describe_longMessage_truncated() {
    String text = Workers.describe(new RuntimeException("x".repeat(5_000)));

    assertThat(text).hasSize(Workers.MAX_ERROR_LENGTH).endsWith("...");
  }
}
