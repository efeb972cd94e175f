package io.servicehooks.cli;

/**
 * Text that the platform, a consumer or a request controls, made safe for one terminal or log line:
 * control characters (and the Unicode line and paragraph separators) escaped, so no text can forge
 * a line of its own, and cut at {@value #MAX_CHARS} characters.
 */
final class Printable {

  /** The longest piece of foreign text printed, after escaping. */
  static final int MAX_CHARS = 300;

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Printable() {}

  /** {@code text} escaped and cut at {@value #MAX_CHARS} characters; null stays empty. */
  static String of(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_CHARS) + 8);
    for (int i = 0; i < text.length(); i++) {
      if (out.length() >= MAX_CHARS) {
        out.setLength(MAX_CHARS);
        return out.append("...").toString();
      }
      char c = text.charAt(i);
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
            out.append("\\u")
                .append(HEX[(c >> 12) & 0xf])
                .append(HEX[(c >> 8) & 0xf])
                .append(HEX[(c >> 4) & 0xf])
                .append(HEX[c & 0xf]);
          } else {
            out.append(c);
          }
        }
      }
    }
    if (out.length() > MAX_CHARS) {
      out.setLength(MAX_CHARS);
      out.append("...");
    }
    return out.toString();
  }
}
