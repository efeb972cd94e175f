package io.servicehooks.core;

/**
 * Makes a value taken from a payload (an event id, a type name, a field name) safe to put in a log
 * line: a control character in it could otherwise end the line and forge the next one. The value
 * comes from a verified body, but the platform relays text that third parties chose.
 */
final class LogSafe {

  private LogSafe() {}

  /**
   * {@code value} with {@code \n}, {@code \r} and {@code \t} written as those two-character
   * escapes, a backslash doubled, and every other control character (C0, DEL, C1, and the Unicode
   * line and paragraph separators) as {@code \\uXXXX}; the same string when there is nothing to
   * escape.
   */
  static String escape(String value) {
    if (value == null) {
      return "null";
    }
    int i = 0;
    while (i < value.length() && !needsEscape(value.charAt(i))) {
      i++;
    }
    if (i == value.length()) {
      return value;
    }
    StringBuilder out = new StringBuilder(value.length() + 16).append(value, 0, i);
    for (; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\\' -> out.append("\\\\");
        default -> {
          if (needsEscape(c)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }

  private static boolean needsEscape(char c) {
    return c < 0x20 || c == '\\' || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
  }
}
