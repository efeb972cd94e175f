package io.servicehooks.samples;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a PromQL expression reads, found by a small tokenizer (not a parser): the series selectors
 * (metric name and label matchers) and the labels named in {@code by}, {@code without}, {@code on}
 * and {@code ignoring} lists. An identifier followed by {@code (}, or an aggregation operator, is
 * not a metric; strings, numbers and {@code [ranges]} are skipped. Grafana's variables are replaced
 * first: {@code $__rate_interval}, {@code $__range} and {@code $__interval} by {@code 5m}, any
 * other {@code $name} by {@code .*} (they only stand in label values).
 */
final class PromQl {

  /** One label matcher, {@code label op "value"}. */
  record LabelMatcher(String label, String op, String value) {}

  /** One series selector: a metric name and its matchers. */
  record Selector(String metric, List<LabelMatcher> matchers) {}

  /** Everything an expression reads. */
  record Reads(List<Selector> selectors, Set<String> groupingLabels) {}

  private static final Pattern GRAFANA_VARIABLE = Pattern.compile("\\$\\{?(\\w+)\\}?");
  private static final Set<String> KEYWORDS =
      Set.of("and", "or", "unless", "bool", "offset", "inf", "nan", "atan2");
  // Aggregations may put "by (...)" before their parenthesis: "sum by (le) (...)".
  private static final Set<String> AGGREGATIONS =
      Set.of(
          "sum",
          "min",
          "max",
          "avg",
          "group",
          "stddev",
          "stdvar",
          "count",
          "count_values",
          "bottomk",
          "topk",
          "quantile",
          "limitk",
          "limit_ratio");
  private static final Set<String> LABEL_LISTS =
      Set.of("by", "without", "on", "ignoring", "group_left", "group_right");

  private PromQl() {}

  /** {@code expr} with Grafana's variables replaced by what Prometheus would see. */
  static String withoutGrafanaVariables(String expr) {
    Matcher m = GRAFANA_VARIABLE.matcher(expr);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, m.group(1).startsWith("__") ? "5m" : ".*");
    }
    m.appendTail(out);
    return out.toString();
  }

  /** The selectors and grouping labels of {@code expr}. */
  static Reads read(String expr) {
    String s = withoutGrafanaVariables(expr);
    List<Selector> selectors = new ArrayList<>();
    Set<String> grouping = new LinkedHashSet<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = skipString(s, i);
      } else if (c == '[') {
        i = s.indexOf(']', i) + 1;
        if (i == 0) {
          throw new IllegalArgumentException("unclosed [ in " + expr);
        }
      } else if (Character.isDigit(c) || (c == '.' && i + 1 < s.length() && isDigit(s, i + 1))) {
        while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '.')) {
          i++;
        }
      } else if (c == '{') {
        // A selector without a name ({__name__=~"..."}): its matchers, under no metric.
        List<LabelMatcher> matchers = new ArrayList<>();
        i = matchers(s, i, matchers);
        selectors.add(new Selector("", matchers));
      } else if (Character.isLetter(c) || c == '_' || c == ':') {
        int start = i;
        while (i < s.length() && isNameChar(s.charAt(i))) {
          i++;
        }
        String word = s.substring(start, i);
        int next = skipSpace(s, i);
        if (LABEL_LISTS.contains(word)) {
          if (next < s.length() && s.charAt(next) == '(') {
            int close = s.indexOf(')', next);
            for (String label : s.substring(next + 1, close).split(",")) {
              if (!label.isBlank()) {
                grouping.add(label.strip());
              }
            }
            i = close + 1;
          }
        } else if (KEYWORDS.contains(word.toLowerCase(java.util.Locale.ROOT))
            || AGGREGATIONS.contains(word)) {
          // an operator or a number's name
        } else if (next < s.length() && s.charAt(next) == '(') {
          i = next; // a function or an aggregation
        } else {
          List<LabelMatcher> matchers = new ArrayList<>();
          if (next < s.length() && s.charAt(next) == '{') {
            i = matchers(s, next, matchers);
          }
          selectors.add(new Selector(word, matchers));
        }
      } else {
        i++;
      }
    }
    return new Reads(selectors, grouping);
  }

  private static final Pattern MATCHER =
      Pattern.compile(
          "\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\s*,?");

  /** Reads {@code {a="b", c=~"d"}} from {@code open}; the index after the closing brace. */
  private static int matchers(String s, int open, List<LabelMatcher> into) {
    int i = open + 1;
    Matcher m = MATCHER.matcher(s);
    while (true) {
      int at = skipSpace(s, i);
      if (at < s.length() && s.charAt(at) == '}') {
        return at + 1;
      }
      m.region(i, s.length());
      if (!m.lookingAt()) {
        throw new IllegalArgumentException("cannot read the matchers at " + s.substring(open));
      }
      into.add(new LabelMatcher(m.group(1), m.group(2), m.group(3).replace("\\\\", "\\")));
      i = m.end();
    }
  }

  /**
   * The literal values a matcher's regular expression stands for, when it is a plain alternation
   * ({@code a|b|c}); empty for anything else.
   */
  static List<String> alternatives(String regex) {
    if (!regex.matches("[A-Za-z0-9_.:-]+(\\|[A-Za-z0-9_.:-]+)*")) {
      return List.of();
    }
    return List.of(regex.split("\\|"));
  }

  private static int skipString(String s, int i) {
    char quote = s.charAt(i);
    int j = i + 1;
    while (j < s.length() && s.charAt(j) != quote) {
      j += s.charAt(j) == '\\' && quote != '`' ? 2 : 1;
    }
    return j + 1;
  }

  private static int skipSpace(String s, int i) {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
    return i;
  }

  private static boolean isDigit(String s, int i) {
    return Character.isDigit(s.charAt(i));
  }

  private static boolean isNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == ':';
  }
}
