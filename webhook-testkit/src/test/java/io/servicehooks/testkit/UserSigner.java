package io.servicehooks.testkit;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Signs user-context calls to the simulator by hand with the testkit's own {@link OAuthSignature}
 * (a JSON body is not part of the base string).
 */
final class UserSigner {

  private static final AtomicInteger NONCES = new AtomicInteger();

  private UserSigner() {}

  static String authorization(
      PlatformSimulator simulator, String method, String pathAndQuery, SimulatedUserToken user) {
    URI uri = simulator.baseUrl().resolve(pathAndQuery);
    Map<String, String> oauth = new LinkedHashMap<>();
    oauth.put("oauth_consumer_key", simulator.apiKey());
    oauth.put("oauth_nonce", "nonce" + NONCES.incrementAndGet() + "x" + System.nanoTime());
    oauth.put("oauth_signature_method", "HMAC-SHA1");
    oauth.put("oauth_timestamp", Long.toString(simulator.now().getEpochSecond()));
    oauth.put("oauth_token", user.token());
    oauth.put("oauth_version", "1.0");
    List<String[]> params = new ArrayList<>(OAuthSignature.pairs(uri.getRawQuery()));
    oauth.forEach((k, v) -> params.add(new String[] {k, v}));
    String base = "http://" + uri.getHost() + ":" + uri.getPort() + uri.getPath();
    oauth.put(
        "oauth_signature",
        OAuthSignature.compute(method, base, params, simulator.apiSecret(), user.tokenSecret()));
    List<String> parts = new ArrayList<>();
    oauth.forEach(
        (k, v) -> parts.add(OAuthSignature.encode(k) + "=\"" + OAuthSignature.encode(v) + "\""));
    return "OAuth " + String.join(", ", parts);
  }
}
