package io.servicehooks.redis;

import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Parses Redis URIs and describes them without their credentials. */
final class RedisUris {

  private static final Pattern USER_INFO = Pattern.compile("//[^/?#]*@");

  private RedisUris() {}

  /**
   * Parses {@code redis://}, {@code rediss://} and {@code redis-sentinel://} URIs. A malformed URI
   * is reported without its text past the scheme, so a password in it never reaches a log.
   */
  static RedisURI parse(String uri) {
    if (uri == null || uri.isBlank()) {
      throw new IllegalArgumentException("a Redis URI is required, e.g. redis://127.0.0.1:6379");
    }
    String scheme = uri.contains("://") ? uri.substring(0, uri.indexOf("://")) : "";
    if (!scheme.equals(RedisURI.URI_SCHEME_REDIS)
        && !scheme.equals(RedisURI.URI_SCHEME_REDIS_SECURE)
        && !scheme.equals(RedisURI.URI_SCHEME_REDIS_SENTINEL)
        && !scheme.equals(RedisURI.URI_SCHEME_REDIS_SENTINEL_SECURE)) {
      throw new IllegalArgumentException(
          "a Redis URI starts with redis://, rediss:// or redis-sentinel://, not: " + redact(uri));
    }
    try {
      return RedisURI.create(uri);
    } catch (RuntimeException e) {
      // The parser's message may quote the URI, password included: not chained.
      throw new IllegalArgumentException("not a valid Redis URI: " + redact(uri));
    }
  }

  /** The URI's text with any user info ({@code user:password@}) replaced by {@code ***@}. */
  static String redact(String uri) {
    return uri == null ? "null" : USER_INFO.matcher(uri).replaceAll("//***@");
  }

  /**
   * The secret part of the URI's user info (the password, or the whole user info when it has no
   * colon), as written and URL-decoded; empty when the URI carries none.
   */
  static java.util.Set<String> secrets(String uri) {
    java.util.Set<String> secrets = new java.util.HashSet<>();
    java.util.regex.Matcher m = uri == null ? null : USER_INFO.matcher(uri);
    if (m == null || !m.find()) {
      return secrets;
    }
    String info = uri.substring(m.start() + 2, m.end() - 1);
    String secret = info.contains(":") ? info.substring(info.indexOf(':') + 1) : info;
    if (secret.isEmpty()) {
      return secrets;
    }
    secrets.add(secret);
    try {
      secrets.add(java.net.URLDecoder.decode(secret, java.nio.charset.StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      // not URL-encoded: the text as written is the secret
    }
    return secrets;
  }

  /** Scheme, hosts, database and Sentinel master of {@code uri}; never its credentials. */
  static String describe(RedisURI uri) {
    StringBuilder out = new StringBuilder();
    if (!uri.getSentinels().isEmpty()) {
      out.append(uri.isSsl() ? "rediss-sentinel://" : "redis-sentinel://");
      List<String> hosts = new ArrayList<>();
      for (RedisURI sentinel : uri.getSentinels()) {
        hosts.add(sentinel.getHost() + ":" + sentinel.getPort());
      }
      out.append(String.join(",", hosts));
    } else if (uri.getSocket() != null) {
      out.append("redis-socket://").append(uri.getSocket());
    } else {
      out.append(uri.isSsl() ? "rediss://" : "redis://")
          .append(uri.getHost())
          .append(':')
          .append(uri.getPort());
    }
    out.append('/').append(uri.getDatabase());
    if (uri.getSentinelMasterId() != null) {
      out.append('#').append(uri.getSentinelMasterId());
    }
    return out.toString();
  }
}
