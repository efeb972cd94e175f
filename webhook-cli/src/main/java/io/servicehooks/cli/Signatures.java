package io.servicehooks.cli;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Signs a delivery body the way the platform does: {@code sha256=<base64(HMAC-SHA256(consumer secret, body))>}. */
final class Signatures {

    static final String HEADER = "x-service-webhooks-signature";

    private Signatures() {
    }

    static String sign(String consumerSecret, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(consumerSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return "sha256=" + Base64.getEncoder().encodeToString(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
