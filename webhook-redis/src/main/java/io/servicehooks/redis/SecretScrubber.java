package io.servicehooks.redis;

import java.util.Set;

/**
 * Keeps the password of a Redis URI out of what the store lets escape: exception messages handed to
 * callers and log lines.
 */
final class SecretScrubber {

  private final Set<String> secrets;

  SecretScrubber(Set<String> secrets) {
    this.secrets = secrets;
  }

  /** {@code e} itself unless a secret appears in its chain; then a copy without it. */
  Throwable safe(Throwable e) {
    if (secrets.isEmpty()) {
      return e;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (!scrub(String.valueOf(t.getMessage())).equals(String.valueOf(t.getMessage()))) {
        return new RedisStoreException(scrub(e.toString()));
      }
    }
    return e;
  }

  /** {@code text} with every secret replaced by {@code ***}. */
  String scrub(String text) {
    String out = text;
    for (String secret : secrets) {
      out = out.replace(secret, "***");
    }
    return out;
  }

  /**
   * {@code e} itself unless a secret appears in its chain; then an exception that names only where
   * the connect went ({@code description}) and the failure's class.
   */
  RuntimeException connectFailure(RuntimeException e, String description) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      for (String secret : secrets) {
        if (message.contains(secret)) {
          return new RedisStoreException(
              "cannot connect to Redis at " + description + " (" + e.getClass().getName() + ")");
        }
      }
    }
    return e;
  }

  /** A failure of the store whose original message had to lose a secret. */
  static final class RedisStoreException extends RuntimeException {
    RedisStoreException(String message) {
      super(message, null, false, false);
    }
  }
}
