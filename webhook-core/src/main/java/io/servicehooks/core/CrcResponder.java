package io.servicehooks.core;

import io.servicehooks.core.RefusalLog.Reason;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * The GET step: takes {@code crc_token} from the raw query, refuses a token that could be a forged
 * body, and signs the rest with the current consumer secret. It remembers when it last answered
 * one: the platform switches a webhook off after failed checks and then sends nothing at all, so a
 * long silence here is the only sign of it a consumer has.
 */
final class CrcResponder {

  private final Hmac current;
  private final Metrics metrics;
  private final RefusalLog refusals;
  private final Clock clock;
  private volatile long lastAnsweredMillis = -1; // on clock; -1: never

  CrcResponder(Hmac current, Metrics metrics, RefusalLog refusals, Clock clock) {
    this.current = current;
    this.metrics = metrics;
    this.refusals = refusals;
    this.clock = clock;
  }

  /** When a CRC check was last answered, or empty when none has been since start. */
  Optional<Instant> lastAnswered() {
    long millis = lastAnsweredMillis;
    return millis < 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(millis));
  }

  /** {@link #lastAnswered} in seconds since the epoch, 0 when none has been: the gauge's value. */
  double lastAnsweredEpochSeconds() {
    long millis = lastAnsweredMillis;
    return millis < 0 ? 0 : millis / 1000.0;
  }

  WebhookResponse answer(String rawQuery) {
    String token;
    try {
      token = queryParameter(rawQuery, "crc_token");
    } catch (IllegalArgumentException badEscape) {
      return refuse("invalid_crc_token", "crc_token is not a token the platform sends");
    }
    if (token == null || token.isEmpty()) {
      return refuse("missing_crc_token", "crc_token query parameter is required");
    }
    if (!plausibleToken(token)) {
      return refuse("invalid_crc_token", "crc_token is not a token the platform sends");
    }
    metrics.crc("answered");
    String answer = current.sign(token.getBytes(StandardCharsets.UTF_8));
    lastAnsweredMillis = clock.millis();
    return WebhookResponse.json(200, "{\"response_token\":\"" + answer + "\"}");
  }

  private WebhookResponse refuse(String code, String message) {
    refusals.warn(
        code.equals("missing_crc_token") ? Reason.CRC_TOKEN_MISSING : Reason.CRC_TOKEN_INVALID,
        "Refused a CRC check: " + message);
    metrics.crc("rejected");
    return WebhookResponse.error(400, code, message);
  }

  /**
   * Whether a CRC token looks like one the platform sends. Signing anything else would make the
   * endpoint a signing oracle: a body sent as a token, signed, replays as a delivery signature.
   */
  static boolean plausibleToken(String token) {
    if (token.length() > WebhookConsumer.MAX_CRC_TOKEN_LENGTH) {
      return false;
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_'
              || c == '='
              || c == '+'
              || c == '/'
              || c == '.'
              || c == '~';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** The first value of {@code name}, percent-decoded as UTF-8 with {@code +} kept literally. */
  static String queryParameter(String rawQuery, String name) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return null;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      if (key.equals(name)) {
        String raw = eq < 0 ? "" : pair.substring(eq + 1);
        return raw.indexOf('%') < 0
            ? raw
            : URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "CrcResponder";
  }
}
