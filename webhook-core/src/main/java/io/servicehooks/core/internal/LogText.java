package io.servicehooks.core.internal;

/**
 * Makes text that the platform or a request controls safe to put in a log line: control characters
 * escaped, so a {@code \n} cannot end the line and forge the next one, and long text cut, so one
 * answer cannot write a line of a megabyte. Shared by the servicehooks modules; not API, and may
 * change without notice.
 */
public final class LogText {

  /** The most characters {@link #of} keeps. */
  public static final int MAX_CHARS = 300;

  private LogText() {}

  /**
   * {@code value} {@linkplain #escape escaped}, and cut to its first {@link #MAX_CHARS} characters
   * followed by {@code ...} when longer.
   */
  public static String of(String value) {
    String escaped = escape(value);
    if (escaped.length() <= MAX_CHARS) {
      return escaped;
    }
    int end = MAX_CHARS;
    if (Character.isHighSurrogate(escaped.charAt(end - 1))) {
      end--; // never half a character
    }
    return escaped.substring(0, end) + "...";
  }

  /**
   * {@code value} with {@code \n}, {@code \r} and {@code \t} written as those two-character
   * escapes, a backslash doubled, and every other control character (C0, DEL, C1, and the Unicode
   * line and paragraph separators) as {@code \\uXXXX}; the same string when there is nothing to
   * escape.
   */
  public static String escape(String value) {
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
