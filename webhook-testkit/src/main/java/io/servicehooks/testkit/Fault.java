package io.servicehooks.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A misbehaviour the simulator plays on the next {@code /2/...} API call, for testing how a client
 * copes. Queue faults with {@link PlatformSimulator#enqueueFault(Fault...)}; each API call consumes
 * at most one, in order. Token endpoints ({@code /oauth2/...}) never consume faults.
 */
public final class Fault {

  enum Kind {
    RATE_LIMITED,
    SERVER_ERROR,
    DELAY,
    DROP_RESPONSE,
    CLOSE_CONNECTION
  }

  private final Kind kind;
  private final Instant reset;
  private final int status;
  private final Duration delay;

  private Fault(Kind kind, Instant reset, int status, Duration delay) {
    this.kind = kind;
    this.reset = reset;
    this.status = status;
    this.delay = delay;
  }

  /**
   * The call is refused with HTTP 429, {@code x-rate-limit-remaining: 0} and {@code
   * x-rate-limit-reset} set to {@code reset} (unix seconds); nothing is applied.
   */
  public static Fault rateLimited(Instant reset) {
    return new Fault(Kind.RATE_LIMITED, Objects.requireNonNull(reset, "reset"), 429, null);
  }

  /**
   * The call is answered with the given status (400 to 599) and a problem body; nothing is applied.
   */
  public static Fault serverError(int status) {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("status must be 400..599 but was " + status);
    }
    return new Fault(Kind.SERVER_ERROR, null, status, null);
  }

  /**
   * The call is applied normally but answered only after {@code delay}, for client time-out tests.
   * Calls that arrive later are served only once this one is applied, so a client that times out
   * and then looks sees the change. Closing the simulator ends the wait without an answer.
   */
  public static Fault delay(Duration delay) {
    Objects.requireNonNull(delay, "delay");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative but was " + delay);
    }
    return new Fault(Kind.DELAY, null, 0, delay);
  }

  /**
   * The call is applied (a webhook is created, deleted, ...) but the client gets a 503 instead of
   * the real answer: "the answer was lost".
   */
  public static Fault dropResponseAfterApplying() {
    return new Fault(Kind.DROP_RESPONSE, null, 503, null);
  }

  /**
   * The call is applied but the connection is closed without any answer, so the client sees an
   * {@code IOException} rather than a status.
   */
  public static Fault closeConnectionAfterApplying() {
    return new Fault(Kind.CLOSE_CONNECTION, null, 0, null);
  }

  Kind kind() {
    return kind;
  }

  Instant reset() {
    return reset;
  }

  int status() {
    return status;
  }

  Duration delay() {
    return delay;
  }

  @Override
  public String toString() {
    switch (kind) {
      case RATE_LIMITED:
        return "Fault.rateLimited(" + reset + ")";
      case SERVER_ERROR:
        return "Fault.serverError(" + status + ")";
      case DELAY:
        return "Fault.delay(" + delay + ")";
      case DROP_RESPONSE:
        return "Fault.dropResponseAfterApplying()";
      default:
        return "Fault.closeConnectionAfterApplying()";
    }
  }
}
