package io.servicehooks.testkit;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The simulator's own HMAC-SHA256 signer, written against {@code javax.crypto} directly so the
 * testkit stays an oracle independent of {@code webhook-core}.
 */
final class Hmac {

  static final String PREFIX = "sha256=";

  private final Mac prototype;

  Hmac(String consumerSecret) {
    try {
      prototype = Mac.getInstance("HmacSHA256");
      prototype.init(
          new SecretKeySpec(consumerSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }

  /** Returns {@code sha256=<base64 HMAC>} of the given bytes. */
  String sign(byte[] message) {
    return PREFIX + Base64.getEncoder().encodeToString(newMac().doFinal(message));
  }

  String sign(String message) {
    return sign(message.getBytes(StandardCharsets.UTF_8));
  }

  /** Constant-time check of a {@code sha256=...} value against the signature of {@code message}. */
  boolean matches(String message, String candidate) {
    return matches(message.getBytes(StandardCharsets.UTF_8), candidate);
  }

  /** Constant-time check of a {@code sha256=...} value against the signature of these bytes. */
  boolean matches(byte[] message, String candidate) {
    if (candidate == null) {
      return false;
    }
    return MessageDigest.isEqual(
        sign(message).getBytes(StandardCharsets.UTF_8), candidate.getBytes(StandardCharsets.UTF_8));
  }

  // Mac is not thread-safe; cloning the initialised prototype avoids re-deriving the key per call.
  private Mac newMac() {
    try {
      return (Mac) prototype.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("HmacSHA256 provider does not support clone()", e);
    }
  }

  @Override
  public String toString() {
    return "Hmac[HmacSHA256]";
  }
}
