package io.servicehooks.cli;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a time as an ISO-8601 instant or offset date-time, or as the platform's {@code
 * yyyyMMddHHmm} in UTC.
 */
final class InstantConverter implements ITypeConverter<Instant> {

  private static final DateTimeFormatter PLATFORM =
      DateTimeFormatter.ofPattern("uuuuMMddHHmm").withResolverStyle(ResolverStyle.STRICT);

  @Override
  public Instant convert(String value) {
    String text = value.trim();
    try {
      if (text.matches("\\d{12}")) {
        return LocalDateTime.parse(text, PLATFORM).toInstant(ZoneOffset.UTC);
      }
      if (text.endsWith("Z") || text.endsWith("z")) {
        return Instant.parse(text.toUpperCase(java.util.Locale.ROOT));
      }
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      throw new TypeConversionException(
          "'"
              + value
              + "' is not a time: use ISO-8601 such as"
              + " 2026-03-01T12:00:00Z, or yyyyMMddHHmm in UTC such as 202603011200");
    }
  }
}
