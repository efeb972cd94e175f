package io.servicehooks.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.fleet.Fleet.Answer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The invariants checked after each fault, one row per scenario, printed as a table (at the end of
 * each test class, and to {@code target/fleet/invariants.md}) and asserted:
 *
 * <ul>
 *   <li>every acknowledged (2xx) event handled;
 *   <li>events run more than once counted, within the scenario's bound (what the README promises
 *       for the mode and the fault);
 *   <li>no answer slower than the platform's 10 s;
 *   <li>recovery without a restart within the stated bound;
 *   <li>nothing left pending, running or dead (durable mode), or claimed (Redis), that should not
 *       be.
 * </ul>
 */
final class Invariants {

  static final long PLATFORM_TIMEOUT_MS = 10_000;
  private static final List<String> ROWS = new ArrayList<>();

  private Invariants() {}

  /** One scenario's figures. */
  static final class Row {
    final String scenario;
    final String mode;
    int sent;
    int acknowledged;
    int refused;
    long slowestMs;
    int lost;
    int duplicates;
    int duplicateBound;
    long recoveryMs = -1;
    long recoveryBoundMs = -1;
    long leftover;
    String notes = "";

    Row(String scenario, String mode) {
      this.scenario = scenario;
      this.mode = mode;
    }

    /** Fills sent/acknowledged/refused/slowest/lost/duplicates from the answers and the logs. */
    Row from(List<Answer> answers, Map<String, Integer> handled) {
      sent = answers.size();
      Set<String> acked = new TreeSet<>();
      for (Answer a : answers) {
        if (a.ok()) {
          acknowledged++;
          acked.add(a.id());
        } else {
          refused++;
        }
        slowestMs = Math.max(slowestMs, a.millis());
      }
      Set<String> ids = new TreeSet<>();
      answers.forEach(a -> ids.add(a.id()));
      acked.removeAll(handled.keySet());
      lost = acked.size();
      duplicates = (int) ids.stream().filter(id -> handled.getOrDefault(id, 0) > 1).count();
      return this;
    }

    /** Prints the row, then asserts every invariant on it. */
    void check() {
      String line =
          String.format(
              "| %s | %s | %d | %d | %d | %d | %d | %d (≤ %d) | %s | %d | %s |",
              scenario,
              mode,
              sent,
              acknowledged,
              refused,
              slowestMs,
              lost,
              duplicates,
              duplicateBound,
              recoveryMs < 0 ? "-" : recoveryMs + " (≤ " + recoveryBoundMs + ")",
              leftover,
              notes);
      synchronized (ROWS) {
        ROWS.add(line);
      }
      System.out.println("FLEET " + line);
      assertThat(lost).as(scenario + ": acknowledged events not handled").isZero();
      assertThat(duplicates)
          .as(scenario + ": events run twice")
          .isLessThanOrEqualTo(duplicateBound);
      assertThat(slowestMs).as(scenario + ": slowest answer, ms").isLessThan(PLATFORM_TIMEOUT_MS);
      if (recoveryBoundMs >= 0) {
        assertThat(recoveryMs).as(scenario + ": recovery, ms").isBetween(0L, recoveryBoundMs);
      }
      assertThat(leftover).as(scenario + ": left pending/running/dead/claimed").isZero();
    }
  }

  /** The table so far, Markdown. */
  static String table() {
    StringBuilder b =
        new StringBuilder(
            "| scenario | mode | sent | 2xx | refused | slowest ms | acked not handled"
                + " | run twice (bound) | recovery ms (bound) | left over | notes |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|\n");
    synchronized (ROWS) {
      ROWS.forEach(r -> b.append(r).append('\n'));
    }
    return b.toString();
  }
}
