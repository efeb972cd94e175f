package io.servicehooks.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The app's rate limit on {@code /2/} calls: a budget per 15-minute window, counted down by each
 * admitted call and reported in the {@code x-rate-limit-*} headers of every answer.
 */
final class RateLimit {

  private static final Duration WINDOW = Duration.ofMinutes(15);

  /** The outcome of {@link #admit()}: the refusal (429), or the headers of an admitted call. */
  record Admission(SimResponse refusal, Map<String, String> headers) {}

  private final int limit;
  private final SimClock clock;

  private final Object lock = new Object();
  // Guarded by lock.
  private Instant windowEnd = Instant.MIN;
  private int remaining;

  RateLimit(int limit, SimClock clock) {
    this.limit = limit;
    this.clock = clock;
  }

  /** Counts one call against the window, or refuses it when the window's budget is spent. */
  Admission admit() {
    synchronized (lock) {
      if (remainingAfterRefresh() == 0) {
        return new Admission(rateLimited(windowEnd), null);
      }
      return new Admission(null, headers(true));
    }
  }

  /** The headers of an answer that counts nothing (a refused or failed call). */
  Map<String, String> headers() {
    return headers(false);
  }

  /** The 429 answer, naming {@code reset} as the end of the window. */
  SimResponse rateLimited(Instant reset) {
    Map<String, String> headers =
        Map.of(
            "x-rate-limit-limit", Integer.toString(limit),
            "x-rate-limit-remaining", "0",
            "x-rate-limit-reset", Long.toString(reset.getEpochSecond()));
    return SimResponse.problem(429, "Too Many Requests", "Too Many Requests", "about:blank")
        .withHeaders(headers);
  }

  // Caller holds lock.
  private int remainingAfterRefresh() {
    Instant now = clock.now();
    if (!now.isBefore(windowEnd)) {
      windowEnd = now.plus(WINDOW);
      remaining = limit;
    }
    return remaining;
  }

  private Map<String, String> headers(boolean consume) {
    synchronized (lock) {
      remainingAfterRefresh();
      if (consume && remaining > 0) {
        remaining--;
      }
      Map<String, String> headers = new LinkedHashMap<>();
      headers.put("x-rate-limit-limit", Integer.toString(limit));
      headers.put("x-rate-limit-remaining", Integer.toString(remaining));
      headers.put("x-rate-limit-reset", Long.toString(windowEnd.getEpochSecond()));
      return headers;
    }
  }
}
