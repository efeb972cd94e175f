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
 * The metrics table of docs/configuration.md names exactly the meters the modules register: every
 * {@code Counter}/{@code Timer}/{@code Gauge}/... {@code .builder("webhook....")} in a module's
 * main code (the names are literals there, so that they can be found).
 */
final class MetricNamesDocTest {

  private static final Pattern BUILDER =
      Pattern.compile(
          "(?:Counter|Timer|Gauge|DistributionSummary|LongTaskTimer|FunctionCounter|FunctionTimer"
              + "|TimeGauge|MultiGauge)\\.builder\\(\\s*\"([^\"]+)\"");
  static final String HEADING = "## Metrics";

  @Test
  void configurationReference_metricsTable_namesEveryMeterRegistered() throws IOException {
    Path root = DocTables.root();
    Set<String> inCode = new TreeSet<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file :
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> p.toString().contains("/src/main/java/"))
              .filter(p -> !p.startsWith(root.resolve("benchmarks")))
              .toList()) {
        Matcher m = BUILDER.matcher(Files.readString(file));
        while (m.find()) {
          inCode.add(m.group(1));
        }
      }
    }

    DocTables.assertSame(
        "meter registered",
        inCode,
        "the modules' src/main/java (X.builder(\"name\"))",
        DocTables.firstColumn(
            "docs/configuration.md", HEADING, Pattern.compile("webhook\\.[a-z0-9_.]+")),
        "docs/configuration.md, the table under '" + HEADING + "'",
        "| `NAME` (counter|timer|gauge) | <tags and what it counts> |");
  }
}
