package io.servicehooks.testkit;

import java.time.Instant;
import java.util.Objects;

/**
 * A fault the simulator plays on the next connect to {@code GET /2/activity/stream}, queued with
 * {@link PlatformSimulator#enqueueStreamFault}: each connect consumes at most one, in order. Faults
 * on a stream that is already open (drop, stall, an operational-disconnect message) are immediate
 * calls on the simulator instead: {@link PlatformSimulator#dropStreams()}, {@link
 * PlatformSimulator#stallStreams()}, {@link PlatformSimulator#disconnectStreams()}.
 */
public final class StreamFault {

  enum Kind {
    RATE_LIMITED,
    SERVER_ERROR,
    TOO_MANY_CONNECTIONS
  }

  private final Kind kind;
  private final Instant reset;
  private final int status;

  private StreamFault(Kind kind, Instant reset, int status) {
    this.kind = kind;
    this.reset = reset;
    this.status = status;
  }

  /**
   * The connect is answered 429 with {@code x-rate-limit-limit}, {@code x-rate-limit-remaining: 0}
   * and {@code x-rate-limit-reset} (unix seconds of {@code reset}).
   */
  public static StreamFault rateLimited(Instant reset) {
    return new StreamFault(Kind.RATE_LIMITED, Objects.requireNonNull(reset, "reset"), 429);
  }

  /** The connect is answered with {@code status} (500 to 599) and a problem body. */
  public static StreamFault serverError(int status) {
    if (status < 500 || status > 599) {
      throw new IllegalArgumentException("status must be 500..599 but was " + status);
    }
    return new StreamFault(Kind.SERVER_ERROR, null, status);
  }

  /**
   * The connect is refused as if the app held too many connections already: HTTP 429 with {@code
   * {"title":"ConnectionException","connection_issue":"TooManyConnections",...}}, the answer the
   * simulator also gives when the {@linkplain PlatformSimulator.Builder#streamConnectionLimit
   * connection limit} is reached.
   */
  public static StreamFault tooManyConnections() {
    return new StreamFault(Kind.TOO_MANY_CONNECTIONS, null, 429);
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

  @Override
  public String toString() {
    switch (kind) {
      case RATE_LIMITED:
        return "StreamFault.rateLimited(" + reset + ")";
      case SERVER_ERROR:
        return "StreamFault.serverError(" + status + ")";
      default:
        return "StreamFault.tooManyConnections()";
    }
  }
}
