package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.registration.OAuthSigner.Param;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * RFC 5849 HMAC-SHA1 signing against published vectors: the platform's own worked example
 * (docs/protocol.md#known-answers) and the normalization example of RFC 5849 section 3.4.1.
 */
final class OAuthSignerTest {

  // docs/protocol.md#known-answers, the platform's worked example.
  private static final String CONSUMER_KEY = "xvz1evFS4wEEPTGEFPHBog";
  private static final String CONSUMER_SECRET = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw";
  private static final String TOKEN = "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb";
  private static final String TOKEN_SECRET = "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE";
  private static final String NONCE = "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg";
  private static final long TIMESTAMP = 1318622958L;
  private static final String STATUS = "Hello Ladies + Gentlemen, a signed OAuth request!";
  private static final String PUBLISHED_SIGNATURE = "hCtSmYh+iHYCEqBWrE7C7hYmtUk=";

  private static OAuthSigner vectorSigner() {
    Clock clock = Clock.fixed(Instant.ofEpochSecond(TIMESTAMP), ZoneOffset.UTC);
    return new OAuthSigner(CONSUMER_KEY, CONSUMER_SECRET, clock, () -> NONCE);
  }

  @Test
  void toString_namesNoCredential() {
    assertThat(vectorSigner().toString())
        .doesNotContain(CONSUMER_KEY)
        .doesNotContain(CONSUMER_SECRET);
  }

  @Test
  void userCredentials_toString_namesTheUserNeitherTokenNorSecret() {
    UserCredentials credentials = new UserCredentials(TOKEN, TOKEN_SECRET, "370773112", "alice");

    assertThat(credentials.toString())
        .contains("370773112", "alice")
        .doesNotContain(TOKEN)
        .doesNotContain(TOKEN_SECRET);
  }

  @Test
  void authorization_platformWorkedExample_carriesThePublishedSignature() {
    String header =
        vectorSigner()
            .authorization(
                "POST",
                URI.create(
                    "https://api.twitter.com/1.1/statuses/update.json?include_entities=true"),
                List.of(new Param("status", STATUS)),
                TOKEN,
                TOKEN_SECRET,
                List.of());

    assertThat(header)
        .isEqualTo(
            "OAuth oauth_consumer_key=\"xvz1evFS4wEEPTGEFPHBog\","
                + " oauth_nonce=\"kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg\","
                + " oauth_signature=\"hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D\","
                + " oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"1318622958\","
                + " oauth_token=\"370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb\","
                + " oauth_version=\"1.0\"");
  }

  @Test
  void sign_platformWorkedExample_matchesPublishedBaseStringAndSignature() {
    List<Param> params =
        List.of(
            new Param("include_entities", "true"),
            new Param("status", STATUS),
            new Param("oauth_consumer_key", CONSUMER_KEY),
            new Param("oauth_nonce", NONCE),
            new Param("oauth_signature_method", "HMAC-SHA1"),
            new Param("oauth_timestamp", Long.toString(TIMESTAMP)),
            new Param("oauth_token", TOKEN),
            new Param("oauth_version", "1.0"));

    String base =
        OAuthSigner.baseString(
            "POST", URI.create("https://api.twitter.com/1.1/statuses/update.json"), params);

    assertThat(base)
        .isEqualTo(
            "POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue"
                + "%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3DkYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"
                + "%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958"
                + "%26oauth_token%3D370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"
                + "%26oauth_version%3D1.0%26status%3DHello%2520Ladies%2520%252B%2520Gentlemen"
                + "%252C%2520a%2520signed%2520OAuth%2520request%2521");
    assertThat(OAuthSigner.sign(base, CONSUMER_SECRET, TOKEN_SECRET))
        .isEqualTo(PUBLISHED_SIGNATURE);
  }

  /**
   * RFC 5849 section 3.4.1.3: query {@code b5=%3D%253D&a3=a&c%40=&a2=r%20b}, form body {@code
   * c2&a3=2+q}; the RFC prints the normalized parameters and the base string. Covers reserved
   * characters, a {@code +} that is a space, repeated keys sorted by value, empty values, and a
   * query and a form body together.
   */
  @Test
  void baseString_rfc5849Example_matchesThePublishedText() {
    URI uri = URI.create("http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b");
    List<Param> params = new ArrayList<>(OAuthSigner.queryParams(uri));
    params.addAll(OAuthSigner.formParams("c2&a3=2+q"));
    params.add(new Param("oauth_consumer_key", "9djdj82h48djs9d2"));
    params.add(new Param("oauth_token", "kkk9d7dh3k39sjv7"));
    params.add(new Param("oauth_signature_method", "HMAC-SHA1"));
    params.add(new Param("oauth_timestamp", "137131201"));
    params.add(new Param("oauth_nonce", "7d8f3e4a"));

    assertThat(OAuthSigner.normalizedParameters(params))
        .isEqualTo(
            "a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2=&oauth_consumer_key=9djdj82h48djs9d2"
                + "&oauth_nonce=7d8f3e4a&oauth_signature_method=HMAC-SHA1"
                + "&oauth_timestamp=137131201&oauth_token=kkk9d7dh3k39sjv7");
    assertThat(OAuthSigner.baseString("post", uri, params))
        .isEqualTo(
            "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26"
                + "b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26"
                + "oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26"
                + "oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7");
  }

  @Test
  void baseUrl_defaultPortAndUpperCaseHost_normalizedPerRfc() {
    assertThat(OAuthSigner.baseUrl(URI.create("HTTP://EXAMPLE.COM:80/r%20v/X?id=123")))
        .isEqualTo("http://example.com/r%20v/X");
    assertThat(OAuthSigner.baseUrl(URI.create("https://www.example.net:8080/?q=1")))
        .isEqualTo("https://www.example.net:8080/");
    assertThat(OAuthSigner.baseUrl(URI.create("https://api.example.com:443")))
        .isEqualTo("https://api.example.com/");
  }

  @Test
  void percentEncode_reservedSpacePlusTildeAndUtf8_matchIndependentEncoding() {
    for (String text :
        List.of(
            "Ladies + Gentlemen",
            "!*'();:@&=+$,/?#[]",
            "~-._",
            "dogs, cats & mice",
            "☃",
            "é",
            "\uD83D\uDE00",
            "")) {
      assertThat(OAuthSigner.percentEncode(text)).as(text).isEqualTo(independentEncode(text));
    }
    assertThat(OAuthSigner.percentEncode("é ☃+~")).isEqualTo("%C3%A9%20%E2%98%83%2B~");
  }

  @Test
  void authorization_utf8FormValueAndPlusInQuery_signatureMatchesHandBuiltBaseString()
      throws Exception {
    Clock clock = Clock.fixed(Instant.ofEpochSecond(1_700_000_000L), ZoneOffset.UTC);
    OAuthSigner signer = new OAuthSigner("key", "s&cret é", clock, () -> "abc123");

    String header =
        signer.authorization(
            "POST",
            URI.create("https://api.example.com/1.1/x.json?q=a+b&q=a%2Bb&empty="),
            List.of(new Param("text", "grüße ☃"), new Param("z", "")),
            "tok",
            "tok secret",
            List.of());

    // Built by hand from RFC 5849 3.4.1, not by the signer.
    String params =
        "empty=&oauth_consumer_key=key&oauth_nonce=abc123&oauth_signature_method=HMAC-SHA1"
            + "&oauth_timestamp=1700000000&oauth_token=tok&oauth_version=1.0"
            + "&q=a%20b&q=a%2Bb&text=gr%C3%BC%C3%9Fe%20%E2%98%83&z=";
    String base =
        "POST&"
            + independentEncode("https://api.example.com/1.1/x.json")
            + "&"
            + independentEncode(params);
    Mac mac = Mac.getInstance("HmacSHA1");
    mac.init(
        new SecretKeySpec(
            "s%26cret%20%C3%A9&tok%20secret".getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
    String expected =
        Base64.getEncoder().encodeToString(mac.doFinal(base.getBytes(StandardCharsets.UTF_8)));

    assertThat(header).contains("oauth_signature=\"" + independentEncode(expected) + "\"");
  }

  @Test
  void authorization_beforeAToken_keyEndsWithAmpersandAndNoTokenParameter() throws Exception {
    Clock clock = Clock.fixed(Instant.ofEpochSecond(1_700_000_000L), ZoneOffset.UTC);
    OAuthSigner signer = new OAuthSigner("key", "secret", clock, () -> "n");

    String header =
        signer.authorization(
            "POST",
            URI.create("https://api.example.com/oauth/request_token"),
            List.of(),
            null,
            null,
            List.of(new Param("oauth_callback", "oob")));

    String base =
        "POST&https%3A%2F%2Fapi.example.com%2Foauth%2Frequest_token&"
            + independentEncode(
                "oauth_callback=oob&oauth_consumer_key=key&oauth_nonce=n"
                    + "&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1700000000"
                    + "&oauth_version=1.0");
    Mac mac = Mac.getInstance("HmacSHA1");
    mac.init(new SecretKeySpec("secret&".getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
    String expected =
        Base64.getEncoder().encodeToString(mac.doFinal(base.getBytes(StandardCharsets.UTF_8)));
    assertThat(header)
        .doesNotContain("oauth_token")
        .contains("oauth_callback=\"oob\"")
        .contains("oauth_signature=\"" + independentEncode(expected) + "\"");
  }

  @Test
  void secureNonces_manyDrawn_asciiAlphanumericAndDistinct() {
    var nonces = OAuthSigner.secureNonces(new SecureRandom());
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      String nonce = nonces.get();
      assertThat(nonce).matches("[A-Za-z0-9]{32}");
      seen.add(nonce);
    }
    assertThat(seen).hasSize(1000);
  }

  /**
   * The classic independent route: form encoding, then the three characters it spells otherwise.
   */
  private static String independentEncode(String text) {
    return java.net.URLEncoder.encode(text, StandardCharsets.UTF_8)
        .replace("+", "%20")
        .replace("*", "%2A")
        .replace("%7E", "~");
  }
}
