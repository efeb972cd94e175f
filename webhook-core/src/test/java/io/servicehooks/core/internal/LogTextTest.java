package io.servicehooks.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class LogTextTest {

  @Test
  void of_newlineAndLongText_oneLineOf300CharactersAndAnEllipsis() {
    String forged = "Title\nERROR forged line" + "x".repeat(200_000);

    String safe = LogText.of(forged);

    assertThat(safe).startsWith("Title\\nERROR forged line").doesNotContain("\n").endsWith("...");
    assertThat(safe).hasSize(LogText.MAX_CHARS + 3);
  }

  @Test
  void of_shortPlainText_unchanged() {
    String plain = "operational-disconnect";
    assertThat(LogText.of(plain)).isSameAs(plain);
  }

  @Test
  void of_cutBetweenASurrogatePair_keepsNoHalfCharacter() {
    String text = "a".repeat(LogText.MAX_CHARS - 1) + "\uD83D\uDE00" + "tail";
    assertThat(LogText.of(text)).isEqualTo("a".repeat(LogText.MAX_CHARS - 1) + "...");
  }
}
