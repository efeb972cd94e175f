package io.servicehooks.testkit;

import com.sun.net.httpserver.Headers;
import java.net.URI;
import java.util.Locale;

/**
 * Decides whether a call to the control endpoint may come from a web page rather than from the
 * developer's shell, and refuses it if so. The rules, and why they suffice, are in {@link
 * ControlHandler}'s comment; this class only reads headers and never calls back.
 */
final class ControlGuard {

  private static final int MAX_SHOWN = 100;

  private ControlGuard() {}

  /**
   * Why the call must be refused, or null when it may go on.
   *
   * @param boundHost the address the simulator was bound to, accepted as a {@code Host} besides the
   *     loopback names
   */
  static String refusal(Headers headers, String boundHost) {
    String host = headers.getFirst("Host");
    if (host == null || !isLocal(hostName(host), boundHost)) {
      return "the control endpoint answers only calls addressed to a loopback host, not "
          + shown(host);
    }
    String origin = headers.getFirst("Origin");
    if (origin != null && !sameOrigin(origin, host)) {
      return "the control endpoint refuses calls from a web page (Origin " + shown(origin) + ")";
    }
    return null;
  }

  /** False for a call that carries a body in anything but JSON (a form or text a page can send). */
  static boolean acceptsBody(String method, Headers headers) {
    if (method.equals("GET") || method.equals("HEAD")) {
      return true;
    }
    String type = headers.getFirst("Content-Type");
    if (type == null) {
      return false;
    }
    int semicolon = type.indexOf(';');
    String media = (semicolon < 0 ? type : type.substring(0, semicolon)).trim();
    return media.equalsIgnoreCase("application/json");
  }

  private static boolean sameOrigin(String origin, String host) {
    URI uri;
    try {
      uri = URI.create(origin);
    } catch (IllegalArgumentException e) {
      return false;
    }
    return "http".equalsIgnoreCase(uri.getScheme())
        && uri.getRawAuthority() != null
        && uri.getRawAuthority().equalsIgnoreCase(host)
        && (uri.getRawPath() == null || uri.getRawPath().isEmpty());
  }

  /**
   * The host part of a {@code Host} header: without the port, brackets kept off an IPv6 literal.
   */
  static String hostName(String host) {
    String value = host.trim().toLowerCase(Locale.ROOT);
    if (value.startsWith("[")) {
      int close = value.indexOf(']');
      return close < 0 ? value : value.substring(1, close);
    }
    int colon = value.lastIndexOf(':');
    return colon < 0 ? value : value.substring(0, colon);
  }

  private static boolean isLocal(String name, String boundHost) {
    if (name.equals("localhost") || name.endsWith(".localhost") || name.equals("::1")) {
      return true;
    }
    if (name.startsWith("127.") && isIpv4(name)) {
      return true;
    }
    // A simulator bound to another address on purpose (a test network) answers calls addressed to
    // that address as a literal; a name is never enough, as a page's own name can point anywhere.
    String bound = boundHost == null ? "" : boundHost.replace("[", "").replace("]", "");
    return name.equalsIgnoreCase(bound) && (isIpv4(name) || name.contains(":"));
  }

  private static boolean isIpv4(String name) {
    String[] parts = name.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(Character::isDigit)) {
        return false;
      }
      if (Integer.parseInt(part) > 255) {
        return false;
      }
    }
    return true;
  }

  /** A header value fit for an error message: control characters escaped, cut to a length. */
  private static String shown(String value) {
    if (value == null) {
      return "(none)";
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < value.length() && out.length() < MAX_SHOWN; i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.length() < value.length() ? out + "..." : out.toString();
  }
}
