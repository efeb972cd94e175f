package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shape of the shipped dashboard and alert rules, without a consumer: importable (a {@code
 * ${DS_PROMETHEUS}} input every panel uses, {@code job} and {@code instance} variables every query
 * filters on, a unit on every panel), and alerts a runbook can be followed from ({@code for},
 * severity, summary, description, a {@code runbook_url} to a heading of docs/operating.md, only
 * labels the expression keeps). Whether the metrics exist: {@code DashboardMetricsIT}.
 */
final class OpsFilesTest {

  private static final String RUNBOOKS =
      "https://github.com/servicehooks/servicehooks/blob/main/docs/operating.md#";
  private static final Pattern TEMPLATE_LABEL = Pattern.compile("\\$labels\\.([A-Za-z_]+)");

  @Test
  void dashboard_importableWithDatasourceInputVariablesAndUnits() {
    JsonNode d = OpsFiles.dashboard();
    assertThat(d.path("__inputs").findValuesAsText("name")).containsExactly("DS_PROMETHEUS");
    assertThat(d.path("uid").asText()).isEqualTo("servicehooks");
    assertThat(d.path("id").isNull()).as("an exported dashboard has id null").isTrue();
    List<String> variables = d.path("templating").path("list").findValuesAsText("name");
    assertThat(variables).containsExactly("job", "instance");
    List<String> problems = new ArrayList<>();
    Set<Integer> ids = new HashSet<>();
    for (JsonNode p : OpsFiles.panels(d)) {
      String title = p.path("title").asText();
      if (!ids.add(p.path("id").asInt())) {
        problems.add("panel '" + title + "': id " + p.path("id") + " used twice");
      }
      if (p.path("type").asText().equals("row")) {
        continue;
      }
      if (!p.path("datasource").path("uid").asText().equals("${DS_PROMETHEUS}")) {
        problems.add("panel '" + title + "': datasource is not ${DS_PROMETHEUS}");
      }
      if (p.path("fieldConfig").path("defaults").path("unit").asText().isEmpty()) {
        problems.add("panel '" + title + "': no unit");
      }
      if (p.path("description").asText().isEmpty()) {
        problems.add("panel '" + title + "': no description");
      }
      if (p.path("targets").isEmpty()) {
        problems.add("panel '" + title + "': no query");
      }
    }
    for (OpsFiles.Query q : OpsFiles.panelQueries(d)) {
      for (PromQl.Selector s : PromQl.read(q.expr()).selectors()) {
        Set<String> labels = new HashSet<>();
        s.matchers().forEach(m -> labels.add(m.label() + m.op()));
        if (!labels.contains("job=~") || !labels.contains("instance=~")) {
          problems.add(q.where() + ": " + s.metric() + " is not filtered by $job and $instance");
        }
      }
    }
    assertThat(problems).as("dashboard problems").isEmpty();
  }

  @Test
  void alerts_haveForSeveritySummaryDescriptionAndARunbookHeading() throws IOException {
    Set<String> headings = headings(OpsFiles.root().resolve("docs/operating.md"));
    List<OpsFiles.Rule> rules = OpsFiles.rules();
    assertThat(rules).hasSizeGreaterThanOrEqualTo(9);
    List<String> problems = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (OpsFiles.Rule r : rules) {
      String where = "alert " + r.name();
      if (!names.add(r.name())) {
        problems.add(where + ": name used twice");
      }
      var f = r.fields();
      if (f.get("expr") == null || f.get("expr").isBlank()) {
        problems.add(where + ": no expr");
        continue;
      }
      if (f.get("for") == null || !f.get("for").matches("[0-9]+[smh]")) {
        problems.add(where + ": no 'for:' duration");
      }
      if (!Set.of("warning", "critical").contains(f.get("severity"))) {
        problems.add(where + ": severity must be warning or critical, was " + f.get("severity"));
      }
      for (String annotation : List.of("summary", "description")) {
        if (f.get(annotation) == null || f.get(annotation).isBlank()) {
          problems.add(where + ": no " + annotation + " annotation");
        }
      }
      String runbook = f.getOrDefault("runbook_url", "");
      if (!runbook.startsWith(RUNBOOKS)) {
        problems.add(where + ": runbook_url does not start with " + RUNBOOKS);
      } else if (!headings.contains(runbook.substring(RUNBOOKS.length()))) {
        problems.add(where + ": runbook_url names no heading of docs/operating.md: " + runbook);
      }
      // A label the expression aggregates away is empty in the notification.
      Set<String> kept = PromQl.read(f.get("expr")).groupingLabels();
      for (String text :
          List.of(f.getOrDefault("summary", ""), f.getOrDefault("description", ""))) {
        Matcher m = TEMPLATE_LABEL.matcher(text);
        while (m.find()) {
          if (!kept.contains(m.group(1))) {
            problems.add(where + ": annotation names $labels." + m.group(1) + ", not kept by expr");
          }
        }
      }
    }
    assertThat(problems).as("alert rule problems").isEmpty();
  }

  @Test
  void promtool_checksTheRules() throws Exception {
    Path promtool = onPath("promtool");
    assumeTrue(promtool != null, "promtool is not on PATH: 'promtool check rules' skipped");
    Process p =
        new ProcessBuilder(
                promtool.toString(),
                "check",
                "rules",
                OpsFiles.root().resolve(OpsFiles.ALERTS).toString())
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("SUCCESS");
  }

  private static Path onPath(String command) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    return Stream.of(path.split(File.pathSeparator))
        .map(dir -> Path.of(dir, command))
        .filter(Files::isExecutable)
        .findFirst()
        .orElse(null);
  }

  private static Set<String> headings(Path markdown) throws IOException {
    Set<String> slugs = new HashSet<>();
    for (String line : Files.readAllLines(markdown)) {
      if (line.startsWith("#")) {
        slugs.add(DocsLinksTest.slug(line.replaceFirst("^#+", "")));
      }
    }
    return slugs;
  }
}
