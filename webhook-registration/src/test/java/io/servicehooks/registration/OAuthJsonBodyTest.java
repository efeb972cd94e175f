package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.registration.OAuthSigner.Param;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A JSON body is not part of the OAuth 1.0a signature base string
 * (docs/protocol.md#acting-for-a-user-oauth-10a): checked against the platform's worked example
 * (docs/protocol.md#known-answers), and over the wire, where two posts with different JSON bodies,
 * same nonce and timestamp, carry the same signature.
 */
final class OAuthJsonBodyTest {

  // docs/protocol.md#known-answers: the platform's worked example
  private static final String CONSUMER_KEY = "xvz1evFS4wEEPTGEFPHBog";
  private static final String CONSUMER_SECRET = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw";
  private static final String TOKEN = "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb";
  private static final String TOKEN_SECRET = "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE";
  private static final String NONCE = "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg";
  private static final long TIMESTAMP = 1318622958L;
  private static final String STATUS = "Hello Ladies + Gentlemen, a signed OAuth request!";
  private static final String PUBLISHED_SIGNATURE_HEADER_VALUE = "hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D";

  private static OAuthSigner vectorSigner() {
    Clock clock = Clock.fixed(Instant.ofEpochSecond(TIMESTAMP), ZoneOffset.UTC);
    return new OAuthSigner(CONSUMER_KEY, CONSUMER_SECRET, clock, () -> NONCE);
  }

  @Test
  void workedExample_parametersInTheQuery_noBodyParameters_publishedSignature() {
    // The worked example's two request parameters, carried by the query, with a JSON body (which
    // gives the signer no parameters): the published signature of the form example.
    URI uri =
        URI.create(
            "https://api.twitter.com/1.1/statuses/update.json?include_entities=true&status="
                + OAuthSigner.percentEncode(STATUS));

    String header =
        vectorSigner().authorization("POST", uri, List.of(), TOKEN, TOKEN_SECRET, List.of());

    assertThat(header).contains("oauth_signature=\"" + PUBLISHED_SIGNATURE_HEADER_VALUE + "\"");
  }

  @Test
  void workedExample_jsonBodyTakenAsAParameter_wouldNotGiveThePublishedSignature() {
    // What a signer that (wrongly) read the JSON body as a parameter would sign: not the published
    // value, so the test above tells the two apart.
    URI uri =
        URI.create(
            "https://api.twitter.com/1.1/statuses/update.json?include_entities=true&status="
                + OAuthSigner.percentEncode(STATUS));

    String header =
        vectorSigner()
            .authorization(
                "POST",
                uri,
                List.of(new Param("{\"text\":\"hello\"}", "")),
                TOKEN,
                TOKEN_SECRET,
                List.of());

    assertThat(header).doesNotContain(PUBLISHED_SIGNATURE_HEADER_VALUE);
  }

  @Test
  void overTheWire_postsWithDifferentJsonBodies_sameSignature_theSignersOwn() throws Exception {
    try (RecordingPlatform platform = new RecordingPlatform()) {
      platform.answer(201, "{\"data\":{\"id\":\"1\",\"text\":\"a\"}}");
      platform.answer(201, "{\"data\":{\"id\":\"2\",\"text\":\"b\"}}");
      Clock clock = Clock.fixed(Instant.ofEpochSecond(TIMESTAMP), ZoneOffset.UTC);
      ApiCaller api =
          new ApiCaller(
              HttpClient.newHttpClient(),
              platform.baseUrl(),
              Duration.ofSeconds(10),
              TokenSource.fixed("unused"),
              0,
              Duration.ZERO,
              clock,
              d -> {});
      UserClient user =
          new UserClient(api, vectorSigner(), new UserCredentials(TOKEN, TOKEN_SECRET, "1", "a"));

      user.posts().create(NewPost.text("a first text"));
      user.posts().create(NewPost.text("another text").quote("9"));

      List<String> headers = new ArrayList<>();
      platform.requests().forEach(r -> headers.add(r.header("Authorization")));
      assertThat(platform.requests().get(0).body()).isNotEqualTo(platform.requests().get(1).body());
      assertThat(headers.get(0)).isEqualTo(headers.get(1));
      URI sent = platform.baseUrl().resolve("/2/posts");
      assertThat(headers.get(0))
          .isEqualTo(
              vectorSigner()
                  .authorization("POST", sent, List.of(), TOKEN, TOKEN_SECRET, List.of()));
    }
  }
}
