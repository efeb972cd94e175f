package io.servicehooks.registration;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads when the platform says a refused call may be tried again ({@code Retry-After}, or {@code
 * x-rate-limit-reset} of a 429), whatever the headers hold.
 */
final class RetryAfter {

  /**
   * Stands for a reset time the platform named but {@link Instant} cannot hold (such as {@code
   * Retry-After: 99999999999999999}): later than any wait the client would accept.
   */
  static final Instant BEYOND_REACH = Instant.MAX;

  /** Both headers are unsigned decimal numbers (RFC 9110 {@code delay-seconds}: 1*DIGIT). */
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");

  private RetryAfter() {}

  /**
   * When the platform says to try again: {@code Retry-After}, or for a 429 {@code
   * x-rate-limit-reset} (unix seconds). Other answers carry {@code x-rate-limit-reset} too, but
   * there it only ends the current rate window and says nothing about when a failed call may
   * succeed.
   *
   * <p>Never throws, whatever the headers hold. A value that is not a time ({@code soon}, a sign, a
   * negative number, a date that does not parse) is ignored as if absent. A well-formed value too
   * far ahead for {@link Instant} gives {@link #BEYOND_REACH}: later than any wait.
   */
  static Optional<Instant> resetTime(ApiResponse response, Clock clock) {
    Optional<String> reset =
        response.status() == 429
            ? response.headers().firstValue("x-rate-limit-reset")
            : Optional.empty();
    if (reset.isPresent() && DIGITS.matcher(reset.get().trim()).matches()) {
      return Optional.of(epochSecondsOrBeyond(reset.get().trim()));
    }
    Optional<String> retryAfter = response.headers().firstValue("retry-after");
    if (retryAfter.isEmpty()) {
      return Optional.empty();
    }
    String value = retryAfter.get().trim();
    if (DIGITS.matcher(value).matches()) {
      return Optional.of(secondsFromNowOrBeyond(clock.instant(), value));
    }
    try {
      return Optional.of(
          ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
    } catch (DateTimeException notDate) {
      return Optional.empty();
    }
  }

  /**
   * {@link #resetTime}, as reported in {@link WebhookApiException#rateLimitReset()}: without the
   * {@link #BEYOND_REACH} marker, which is no time the platform named.
   */
  static Optional<Instant> reportedResetTime(ApiResponse response, Clock clock) {
    return resetTime(response, clock).filter(time -> !time.equals(BEYOND_REACH));
  }

  private static Instant epochSecondsOrBeyond(String digits) {
    try {
      return Instant.ofEpochSecond(Long.parseLong(digits));
    } catch (NumberFormatException | DateTimeException tooLarge) {
      return BEYOND_REACH;
    }
  }

  private static Instant secondsFromNowOrBeyond(Instant now, String digits) {
    try {
      return now.plusSeconds(Long.parseLong(digits));
    } catch (NumberFormatException | DateTimeException | ArithmeticException tooLarge) {
      return BEYOND_REACH;
    }
  }
}
