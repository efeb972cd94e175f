package io.servicehooks.core;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first POST step after the size check: the signature header must be {@code sha256=<base64>} of
 * the exact body under one of the consumer secrets, compared in constant time. Holds the secrets,
 * each decoded once; the first is current and also signs CRC answers.
 */
final class SignatureVerifier {

  // Logs under the consumer's name, as before the split: users' log configuration names it.
  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private final Hmac[] secrets;

  SignatureVerifier(List<String> secrets) {
    this.secrets = secrets.stream().map(Hmac::new).toArray(Hmac[]::new);
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
      log.warn("Refused a delivery: no {} header", WebhookRequest.SIGNATURE_HEADER);
      return WebhookResponse.error(401, "invalid_signature", "missing signature header");
    }
    byte[] expected = Hmac.decodeSignature(signature);
    if (expected == null) {
      log.warn("Refused a delivery: signature header is not sha256=<base64 of 32 bytes>");
      return WebhookResponse.error(401, "invalid_signature", "malformed signature header");
    }
    for (Hmac secret : secrets) {
      if (secret.matches(body, expected)) {
        return null;
      }
    }
    log.warn("Refused a delivery: signature matches no configured consumer secret");
    return WebhookResponse.error(401, "invalid_signature", "signature does not match");
  }

  @Override
  public String toString() {
    return "SignatureVerifier[secrets=" + secrets.length + "]";
  }
}
