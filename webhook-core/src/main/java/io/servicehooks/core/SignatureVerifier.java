package io.servicehooks.core;

import io.servicehooks.core.RefusalLog.Reason;
import java.util.List;

/**
 * The first POST step after the size check: the signature header must be {@code sha256=<base64>} of
 * the exact body under one of the consumer secrets, compared in constant time. Holds the secrets,
 * each decoded once; the first is current and also signs CRC answers.
 */
final class SignatureVerifier {

  private static final String MISSING =
      "Refused a delivery: no " + WebhookRequest.SIGNATURE_HEADER + " header";

  private final Hmac[] secrets;
  private final RefusalLog refusals;

  SignatureVerifier(List<String> secrets, RefusalLog refusals) {
    this.secrets = secrets.stream().map(Hmac::new).toArray(Hmac[]::new);
    this.refusals = refusals;
  }

  /** The current secret, which signs CRC answers. */
  Hmac current() {
    return secrets[0];
  }

  int secretCount() {
    return secrets.length;
  }

  /**
   * {@code null} when one of the secrets signed {@code body}; otherwise the 401 to answer. A null
   * for success keeps the accepted path free of allocation.
   */
  WebhookResponse refusal(byte[] body, String signature) {
    if (signature == null) {
      refusals.warn(Reason.MISSING_SIGNATURE, MISSING);
      return WebhookResponse.error(401, "invalid_signature", "missing signature header");
    }
    byte[] expected = Hmac.decodeSignature(signature);
    if (expected == null) {
      refusals.warn(
          Reason.MALFORMED_SIGNATURE,
          "Refused a delivery: signature header is not sha256=<base64 of 32 bytes>");
      return WebhookResponse.error(401, "invalid_signature", "malformed signature header");
    }
    for (Hmac secret : secrets) {
      if (secret.matches(body, expected)) {
        return null;
      }
    }
    refusals.warn(
        Reason.SIGNATURE_MISMATCH,
        "Refused a delivery: signature matches no configured consumer secret");
    return WebhookResponse.error(401, "invalid_signature", "signature does not match");
  }

  @Override
  public String toString() {
    return "SignatureVerifier[secrets=" + secrets.length + "]";
  }
}
