package io.servicehooks.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads the length of a relative replay window ({@code --since}): a whole number and a unit, {@code
 * s}, {@code m}, {@code h} or {@code d}, such as {@code 30m}, {@code 90m}, {@code 2h} or {@code
 * 1d}. It must be positive and at most the platform's replay reach of 24 hours.
 */
final class SinceConverter implements ITypeConverter<Duration> {

  /** How far back the platform replays (docs/protocol.md#registration-api-shapes). */
  static final Duration REPLAY_REACH = Duration.ofHours(24);

  private static final Pattern AMOUNT = Pattern.compile("([+-]?[0-9]{1,9})\\s*([smhd])");

  @Override
  public Duration convert(String value) {
    Matcher m = AMOUNT.matcher(value.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new TypeConversionException(
          "'"
              + value
              + "' is not a duration: use a whole number and a unit s, m, h or d,"
              + " such as 30m, 90m, 2h or 1d");
    }
    long amount = Long.parseLong(m.group(1));
    Duration since =
        switch (m.group(2)) {
          case "s" -> Duration.ofSeconds(amount);
          case "m" -> Duration.ofMinutes(amount);
          case "h" -> Duration.ofHours(amount);
          default -> Duration.ofDays(amount);
        };
    if (since.isZero() || since.isNegative()) {
      throw new TypeConversionException("'" + value + "' must be a positive duration");
    }
    if (since.compareTo(REPLAY_REACH) > 0) {
      throw new TypeConversionException(
          "'"
              + value
              + "' is above the replay reach of 24 hours: the platform replays only the last 24 h");
    }
    return since;
  }
}
