package io.servicehooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The testkit's own OAuth 1.0a code against the platform's worked example
 * (docs/protocol.md#known-answers).
 */
final class OAuthSignatureTest {

  // Header as the platform's documentation prints it for the worked example.
  private static final String VECTOR_HEADER =
      "OAuth oauth_consumer_key=\"xvz1evFS4wEEPTGEFPHBog\","
          + " oauth_nonce=\"kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg\","
          + " oauth_signature=\"hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D\","
          + " oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"1318622958\","
          + " oauth_token=\"370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb\","
          + " oauth_version=\"1.0\"";

  @Test
  void compute_platformWorkedExample_givesThePublishedSignature() {
    Map<String, String> header = OAuthSignature.header(VECTOR_HEADER);
    List<String[]> params = new ArrayList<>(OAuthSignature.pairs("include_entities=true"));
    params.addAll(
        OAuthSignature.pairs(
            "status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21"));
    header.forEach(
        (name, value) -> {
          if (!name.equals("oauth_signature")) {
            params.add(new String[] {name, value});
          }
        });

    String signature =
        OAuthSignature.compute(
            "POST",
            "https://api.twitter.com/1.1/statuses/update.json",
            params,
            "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
            "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE");

    assertThat(signature).isEqualTo("hCtSmYh+iHYCEqBWrE7C7hYmtUk=");
    assertThat(OAuthSignature.matches(signature, header.get("oauth_signature"))).isTrue();
  }

  @Test
  void compute_rfc5849ExampleParameters_sortedByNameThenValue() {
    // RFC 5849 3.4.1.3: the same signature whatever order the parameters arrive in.
    List<String[]> params =
        new ArrayList<>(OAuthSignature.pairs("b5=%3D%253D&a3=a&c%40=&a2=r%20b"));
    params.addAll(OAuthSignature.pairs("c2&a3=2+q"));
    List<String[]> reversed = new ArrayList<>(params);
    java.util.Collections.reverse(reversed);

    assertThat(OAuthSignature.compute("POST", "http://example.com/request", params, "c", "t"))
        .isEqualTo(
            OAuthSignature.compute("POST", "http://example.com/request", reversed, "c", "t"));
    assertThat(params)
        .extracting(p -> p[0] + "=" + p[1])
        .containsExactly("b5==%3D", "a3=a", "c@=", "a2=r b", "c2=", "a3=2 q");
  }

  @Test
  void encode_rfc3986_unreservedKeptEverythingElseEscaped() {
    assertThat(OAuthSignature.encode("Ladies + Gentlemen, ~ok_.-!"))
        .isEqualTo("Ladies%20%2B%20Gentlemen%2C%20~ok_.-%21");
    assertThat(OAuthSignature.encode("é☃")).isEqualTo("%C3%A9%E2%98%83");
  }

  @Test
  void header_malformedOrOtherScheme_null() {
    assertThat(OAuthSignature.header("Bearer AAAA")).isNull();
    assertThat(OAuthSignature.header("OAuth oauth_nonce=abc")).isNull();
    assertThat(OAuthSignature.header("OAuth a=\"1\", a=\"2\"")).isNull();
    assertThat(OAuthSignature.header("OAuth realm=\"x\", a=\"%41\""))
        .containsExactly(Map.entry("a", "A"));
  }
}
