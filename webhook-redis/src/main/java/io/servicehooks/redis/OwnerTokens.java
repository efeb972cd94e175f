package io.servicehooks.redis;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * New owner tokens: 128 random bits drawn once per store, then a counter. Unique across instances
 * and restarts without a read of the system's random source per claim (a system call each time): a
 * token only has to differ from every other owner's, it guards nothing secret.
 */
final class OwnerTokens {

  private static final Base64.Encoder TOKENS = Base64.getUrlEncoder().withoutPadding();

  /** This store's random part of every owner token; a counter makes each token unique. */
  private final String tokenPrefix = randomTokenPrefix();

  private final AtomicLong tokens = new AtomicLong();

  String next() {
    return tokenPrefix + Long.toString(tokens.incrementAndGet(), 36);
  }

  private static String randomTokenPrefix() {
    byte[] bytes = new byte[16];
    new SecureRandom().nextBytes(bytes);
    return TOKENS.encodeToString(bytes) + ".";
  }
}
