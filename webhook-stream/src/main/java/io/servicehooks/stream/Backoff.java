package io.servicehooks.stream;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * The platform's reconnect rules (docs/stream.md#what-the-stream-does-for-you), one counter per
 * kind of failure: network errors wait 250 ms more per attempt up to 16 s; HTTP errors 5 s,
 * doubling, up to 320 s; 429 one minute, doubling (at least until {@code x-rate-limit-reset} when
 * given), up to {@link #MAX_RATE_LIMITED}; a store that did not take an event 1 s, doubling, up to
 * 16 s. Every wait gets a jitter of up to {@link #JITTER} of itself on top, never below the rule's
 * figure, so many consumers dropped at once do not come back in step. The counters start again once
 * a connection delivers a byte.
 */
final class Backoff {

  static final Duration NETWORK_STEP = Duration.ofMillis(250);
  static final Duration MAX_NETWORK = Duration.ofSeconds(16);
  static final Duration FIRST_HTTP = Duration.ofSeconds(5);
  static final Duration MAX_HTTP = Duration.ofSeconds(320);
  static final Duration FIRST_RATE_LIMITED = Duration.ofMinutes(1);

  /** The rate-limit window is 15 minutes: a wait past it only delays recovery. */
  static final Duration MAX_RATE_LIMITED = Duration.ofMinutes(16);

  static final Duration FIRST_NOT_TAKEN = Duration.ofSeconds(1);
  static final Duration MAX_NOT_TAKEN = Duration.ofSeconds(16);

  /** The largest jitter, as a fraction of the wait it is added to. */
  static final double JITTER = 0.1;

  private final DoubleSupplier random;
  private int network;
  private int http;
  private int rateLimited;
  private int notTaken;

  /**
   * @param random values in [0, 1): the jitter's share of {@link #JITTER}
   */
  Backoff(DoubleSupplier random) {
    this.random = random;
  }

  synchronized Duration network() {
    network++;
    return jitter(min(NETWORK_STEP.multipliedBy(network), MAX_NETWORK));
  }

  synchronized Duration http() {
    http++;
    return jitter(doubling(FIRST_HTTP, http, MAX_HTTP));
  }

  /**
   * @param untilReset how long until the platform's {@code x-rate-limit-reset}, or null
   */
  synchronized Duration rateLimited(Duration untilReset) {
    rateLimited++;
    Duration wait = doubling(FIRST_RATE_LIMITED, rateLimited, MAX_RATE_LIMITED);
    if (untilReset != null && untilReset.compareTo(wait) > 0) {
      wait = min(untilReset, MAX_RATE_LIMITED);
    }
    return jitter(wait);
  }

  synchronized Duration notTaken() {
    notTaken++;
    return jitter(doubling(FIRST_NOT_TAKEN, notTaken, MAX_NOT_TAKEN));
  }

  /** A connection delivered a byte: the platform and the network work again. */
  synchronized void reset() {
    network = 0;
    http = 0;
    rateLimited = 0;
  }

  /** The store took an event again. */
  synchronized void resetNotTaken() {
    notTaken = 0;
  }

  private Duration jitter(Duration wait) {
    double share = random.getAsDouble();
    if (!(share >= 0) || share >= 1) {
      share = 0;
    }
    return wait.plusNanos((long) (wait.toNanos() * JITTER * share));
  }

  private static Duration doubling(Duration first, int attempt, Duration max) {
    int shift = Math.min(attempt - 1, 20);
    return min(first.multipliedBy(1L << shift), max);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  @Override
  public synchronized String toString() {
    return "Backoff[network="
        + network
        + ", http="
        + http
        + ", rateLimited="
        + rateLimited
        + ", notTaken="
        + notTaken
        + "]";
  }
}
