package io.servicehooks.samples;

import io.servicehooks.testsupport.DocTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The environment-variable table of docs/configuration.md names exactly the variables the
 * standalone consumer reads. Every upper-case string literal in this module's main code is an
 * environment variable name (the consumer reads them from a {@code Map} of the environment); a
 * literal that is not one goes into {@link #NOT_VARIABLES}.
 */
final class ConsumerVariablesDocTest {

  private static final Path MAIN = Path.of("src/main/java");
  private static final Pattern LITERAL = Pattern.compile("\"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\"");
  private static final Set<String> NOT_VARIABLES =
      Set.of("GET"); // an HTTP method in SignInWithCallback
  static final String HEADING = "## Standalone consumer environment variables";

  @Test
  void configurationReference_environmentTable_namesEveryVariableTheConsumerReads()
      throws IOException {
    Set<String> inCode = new TreeSet<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher m = LITERAL.matcher(Files.readString(file));
        while (m.find()) {
          if (m.group(1).length() >= 3 && !NOT_VARIABLES.contains(m.group(1))) {
            inCode.add(m.group(1));
          }
        }
      }
    }

    DocTables.assertSame(
        "environment variable",
        inCode,
        "samples/consumer/src/main/java",
        DocTables.firstColumn(
            "docs/configuration.md", HEADING, Pattern.compile("[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")),
        "docs/configuration.md, the table under '" + HEADING + "'",
        "| `NAME` | <default> | <what it does> |");
  }
}
