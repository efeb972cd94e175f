package io.servicehooks.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testsupport.DocTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shipped dashboard ({@code ops/grafana/servicehooks.json}) and alert rules ({@code
 * ops/prometheus/alerts.yml}) as the tests read them: every query with where it is, every rule with
 * its fields.
 */
final class OpsFiles {

  static final String DASHBOARD = "ops/grafana/servicehooks.json";
  static final String ALERTS = "ops/prometheus/alerts.yml";

  /** A PromQL expression and where it is (a panel's title and query, a variable, an alert). */
  record Query(String where, String expr) {}

  /**
   * One alerting rule: its name and its fields by key ({@code expr}, {@code for}, {@code severity},
   * {@code summary}, {@code description}, {@code runbook_url}, ...), block scalars joined.
   */
  record Rule(String name, Map<String, String> fields) {}

  private OpsFiles() {}

  static Path root() {
    return DocTables.root();
  }

  static JsonNode dashboard() {
    try {
      return new ObjectMapper().readTree(Files.readString(root().resolve(DASHBOARD)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every panel, rows' nested panels included, in order. */
  static List<JsonNode> panels(JsonNode dashboard) {
    List<JsonNode> panels = new ArrayList<>();
    for (JsonNode p : dashboard.path("panels")) {
      panels.add(p);
      for (JsonNode nested : p.path("panels")) {
        panels.add(nested);
      }
    }
    return panels;
  }

  /** Every panel target's expression, named by the panel's title and the target's refId. */
  static List<Query> panelQueries(JsonNode dashboard) {
    List<Query> queries = new ArrayList<>();
    for (JsonNode p : panels(dashboard)) {
      for (JsonNode t : p.path("targets")) {
        queries.add(
            new Query(
                "panel '" + p.path("title").asText() + "' query " + t.path("refId").asText(),
                t.path("expr").asText()));
      }
    }
    return queries;
  }

  /** Every query variable's query ({@code label_values(...)}), named by the variable. */
  static List<Query> variableQueries(JsonNode dashboard) {
    List<Query> queries = new ArrayList<>();
    for (JsonNode v : dashboard.path("templating").path("list")) {
      if (v.path("type").asText().equals("query")) {
        JsonNode q = v.path("query");
        queries.add(
            new Query(
                "variable $" + v.path("name").asText(),
                q.isObject() ? q.path("query").asText() : q.asText()));
      }
    }
    return queries;
  }

  /** Every alert's expression, named by the alert. */
  static List<Query> ruleQueries() {
    return rules().stream()
        .map(r -> new Query("alert " + r.name(), r.fields().get("expr")))
        .toList();
  }

  private static final Pattern KEY = Pattern.compile("^(\\s*)(- )?([A-Za-z_]+):\\s*(.*)$");

  /**
   * The rules of {@link #ALERTS}. A small reader of the file's own layout (one rule per {@code -
   * alert:}, keys one per line, plain, quoted or {@code >-}/{@code |} block values), not a YAML
   * parser: {@code promtool check rules} checks the YAML where it is installed.
   */
  static List<Rule> rules() {
    List<String> lines;
    try {
      lines = Files.readAllLines(root().resolve(ALERTS));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Rule> rules = new ArrayList<>();
    Map<String, String> fields = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank() || line.strip().startsWith("#")) {
        continue;
      }
      Matcher m = KEY.matcher(line);
      if (!m.matches()) {
        continue;
      }
      String key = m.group(3);
      String value = m.group(4).strip();
      if (key.equals("alert") || key.equals("record")) {
        fields = new LinkedHashMap<>();
        rules.add(new Rule(value, fields));
        continue;
      }
      if (fields == null) {
        continue;
      }
      int indent = m.group(1).length() + (m.group(2) == null ? 0 : 2);
      if (value.startsWith(">") || value.startsWith("|")) {
        StringBuilder block = new StringBuilder();
        while (i + 1 < lines.size()
            && (lines.get(i + 1).isBlank() || indentOf(lines.get(i + 1)) > indent)) {
          i++;
          if (!lines.get(i).isBlank()) {
            block.append(block.length() == 0 ? "" : value.startsWith(">") ? " " : "\n");
            block.append(lines.get(i).strip());
          }
        }
        value = block.toString();
      } else if (value.length() >= 2
          && (value.startsWith("\"") && value.endsWith("\"")
              || value.startsWith("'") && value.endsWith("'"))) {
        value = value.substring(1, value.length() - 1);
      }
      fields.put(key, value);
    }
    return rules;
  }

  private static int indentOf(String line) {
    int n = 0;
    while (n < line.length() && line.charAt(n) == ' ') {
      n++;
    }
    return n;
  }
}
