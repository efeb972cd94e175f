package io.servicehooks.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

final class DocTablesTest {

  @Test
  void firstColumn_cliCommands_readsTheBacktickedNamesOfTheTableUnderTheHeading() {
    Set<String> names =
        DocTables.firstColumn(
            "docs/cli.md", "## Commands", Pattern.compile("servicehooks( [a-z][a-z-]*)+"));

    assertThat(names).contains("servicehooks send", "servicehooks webhooks create");
    assertThat(names).noneMatch(n -> n.contains("--"));
  }

  @Test
  void assertSame_namesDiffer_saysWhichRowsToAddAndWhichToRemove() {
    assertThatThrownBy(
            () ->
                DocTables.assertSame(
                    "environment variable",
                    Set.of("PORT", "NEW_VAR"),
                    "samples/consumer/src/main/java",
                    Set.of("PORT", "GONE_VAR"),
                    "docs/configuration.md, the table under '## X'",
                    "| `NAME` | <default> | <what it does> |"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "Each environment variable in samples/consumer/src/main/java needs a row in"
                + " docs/configuration.md, the table under '## X'")
        .hasMessageContaining("  | `NEW_VAR` | <default> | <what it does> |")
        .hasMessageContaining("remove or rename them: [GONE_VAR]")
        .message()
        .doesNotContain("`PORT`");
  }

  @Test
  void assertSame_sameNames_passes() {
    assertThatCode(
            () -> DocTables.assertSame("x", Set.of("A"), "code", Set.of("A"), "table", "NAME"))
        .doesNotThrowAnyException();
  }
}
