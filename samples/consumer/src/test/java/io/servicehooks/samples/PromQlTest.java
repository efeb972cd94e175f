package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.servicehooks.samples.PromQl.LabelMatcher;
import io.servicehooks.samples.PromQl.Selector;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tokenizer the dashboard and alert checks read expressions with (DashboardMetricsIT). */
final class PromQlTest {

  @Test
  void read_aggregationOfRate_oneSelectorAndTheGroupingLabels() {
    PromQl.Reads reads =
        PromQl.read(
            "sum by (outcome) (rate(webhook_deliveries_total{job=~\"$job\", outcome!=\"a,b\"}"
                + "[$__rate_interval]))");
    assertThat(reads.selectors())
        .containsExactly(
            new Selector(
                "webhook_deliveries_total",
                List.of(
                    new LabelMatcher("job", "=~", ".*"),
                    new LabelMatcher("outcome", "!=", "a,b"))));
    assertThat(reads.groupingLabels()).containsExactly("outcome");
  }

  @Test
  void read_binaryOperatorsNumbersAndKeywords_onlyTheMetricsAreSelectors() {
    PromQl.Reads reads =
        PromQl.read(
            "histogram_quantile(0.99, sum by (operation, le) (rate(x_bucket[5m]))) > 0.5 and on"
                + " (job, instance) count by (job, instance) (y) / 1e3 unless z offset 5m");
    assertThat(reads.selectors())
        .extracting(Selector::metric)
        .containsExactly("x_bucket", "y", "z");
    assertThat(reads.groupingLabels()).containsExactly("operation", "le", "job", "instance");
  }

  @Test
  void read_bareMetricWithoutMatchers_andNameOnlySelector() {
    assertThat(PromQl.read("up == 0").selectors()).containsExactly(new Selector("up", List.of()));
    assertThat(PromQl.read("{__name__=\"a\"}").selectors())
        .containsExactly(new Selector("", List.of(new LabelMatcher("__name__", "=", "a"))));
  }

  @Test
  void read_unreadableMatcher_fails() {
    assertThatThrownBy(() -> PromQl.read("x{outcome=accepted}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("matchers");
  }

  @Test
  void alternatives_plainAlternationOnly() {
    assertThat(PromQl.alternatives("failed|rejected")).containsExactly("failed", "rejected");
    assertThat(PromQl.alternatives("accepted")).containsExactly("accepted");
    assertThat(PromQl.alternatives(".*")).isEmpty();
    assertThat(PromQl.alternatives("fail.*|x")).isEmpty();
  }

  @Test
  void withoutGrafanaVariables_intervalsAndLabelValues() {
    assertThat(PromQl.withoutGrafanaVariables("rate(x{a=~\"${job}\"}[$__rate_interval])"))
        .isEqualTo("rate(x{a=~\".*\"}[5m])");
  }
}
