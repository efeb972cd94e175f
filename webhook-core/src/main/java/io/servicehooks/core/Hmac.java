package io.servicehooks.core;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 under one consumer secret. The key is decoded once; each thread keeps its own {@link
 * Mac}, so the hot path builds none.
 */
final class Hmac {

  static final String PREFIX = "sha256=";
  private static final int MAC_BYTES = 32;

  private final SecretKeySpec key;
  private final ThreadLocal<Mac> macs;

  Hmac(String secret) {
    if (secret == null || secret.isEmpty()) {
      throw new IllegalArgumentException("consumer secret must not be empty");
    }
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    this.macs = ThreadLocal.withInitial(this::newMac);
    newMac(); // fail at build time, not on the first request
  }

  private Mac newMac() {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }

  byte[] mac(byte[] message) {
    return macs.get().doFinal(message);
  }

  /** {@code sha256=<base64 HMAC>} of the message: a signature header or a CRC response token. */
  String sign(byte[] message) {
    return PREFIX + Base64.getEncoder().encodeToString(mac(message));
  }

  /** Whether {@code expected} (32 decoded bytes) is this key's HMAC of the body; constant time. */
  boolean matches(byte[] body, byte[] expected) {
    return MessageDigest.isEqual(mac(body), expected);
  }

  /**
   * Decodes a signature header value to its 32 MAC bytes, or {@code null} when it is not of the
   * form {@code sha256=<base64 of 32 bytes>}.
   */
  static byte[] decodeSignature(String header) {
    if (header == null) {
      return null;
    }
    String value = header.trim();
    if (!value.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      return null;
    }
    try {
      byte[] raw = Base64.getDecoder().decode(value.substring(PREFIX.length()));
      return raw.length == MAC_BYTES ? raw : null;
    } catch (IllegalArgumentException notBase64) {
      return null;
    }
  }

  @Override
  public String toString() {
    return "Hmac[HmacSHA256]";
  }
}
