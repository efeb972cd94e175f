package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.testsupport.DocTables;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The table of variables in code ({@link ConsumerVariables#ALL}) is the table of the docs. */
final class ConsumerVariablesTableTest {

  @Test
  void variablesTable_names_sameAsTheDocsTable() {
    Set<String> inTable = new TreeSet<>();
    for (ConsumerVariables.Variable v : ConsumerVariables.ALL) {
      assertThat(inTable.add(v.name())).as("listed once: %s", v.name()).isTrue();
    }

    DocTables.assertSame(
        "environment variable",
        inTable,
        "ConsumerVariables.ALL",
        DocTables.firstColumn(
            "docs/configuration.md",
            ConsumerVariablesDocTest.HEADING,
            Pattern.compile("[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")),
        "docs/configuration.md, the table under '" + ConsumerVariablesDocTest.HEADING + "'",
        "| `NAME` | <default> | <what it does> |");
  }

  @Test
  void variablesTable_flags_sameAsTheDocsTable() {
    String docs = DocTables.read("docs/configuration.md");
    for (ConsumerVariables.Variable v : ConsumerVariables.ALL) {
      if (v.flag() != null) {
        assertThat(docs).contains("| `" + v.name() + "` / `" + v.flag() + "` |");
      }
    }
  }
}
