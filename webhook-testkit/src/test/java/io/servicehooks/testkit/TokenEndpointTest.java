package io.servicehooks.testkit;

import static io.servicehooks.testkit.PlatformClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class TokenEndpointTest {

  // docs/protocol.md#known-answers: the published Basic credential vector.
  private static final String VECTOR_KEY = "xvz1evFS4wEEPTGEFPHBog";
  private static final String VECTOR_SECRET = "L8qq9PZyRg6ieKGEKhZolGC0vJWLw8iEJ88DRdyOg";
  private static final String VECTOR_BASIC =
      "Basic eHZ6MWV2RlM0d0VFUFRHRUZQSEJvZzpMOHFxOVBaeVJnNmllS0dFS2hab2xHQzB2SldMdzhpRUo4OERSZHlPZw==";
  private static final String FORM = "application/x-www-form-urlencoded;charset=UTF-8";

  private final PlatformSimulator simulator =
      PlatformSimulator.builder().apiKey(VECTOR_KEY).apiSecret(VECTOR_SECRET).build().start();
  private final PlatformClient client = new PlatformClient(simulator);

  @AfterEach
  void close() {
    simulator.close();
  }

  @Test
  void token_publishedBasicVector_returnsBearerToken() {
    HttpResponse<String> response =
        client.form("/oauth2/token", VECTOR_BASIC, FORM, "grant_type=client_credentials");

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode body = json(response);
    assertThat(body.get("token_type").asText()).isEqualTo("bearer");
    assertThat(body.get("access_token").asText())
        .startsWith("AAAA")
        .contains("%2F")
        .endsWith("%3D");
  }

  @Test
  void token_requestedTwice_sameToken() {
    String first = json(client.requestToken()).get("access_token").asText();
    String second = json(client.requestToken()).get("access_token").asText();

    assertThat(second).isEqualTo(first);
  }

  @Test
  void token_wrongSecret_403Code99() {
    HttpResponse<String> response =
        client.form(
            "/oauth2/token",
            PlatformClient.basic(VECTOR_KEY, "wrong"),
            FORM,
            "grant_type=client_credentials");

    assertAuthenticityError(response);
  }

  @Test
  void token_missingAuthorization_403Code99() {
    assertAuthenticityError(
        client.form("/oauth2/token", null, FORM, "grant_type=client_credentials"));
  }

  @Test
  void token_wrongGrant_403Code99() {
    assertAuthenticityError(
        client.form("/oauth2/token", VECTOR_BASIC, FORM, "grant_type=password"));
  }

  @Test
  void token_notForm_403Code99() {
    assertAuthenticityError(
        client.form(
            "/oauth2/token", VECTOR_BASIC, "application/json", "grant_type=client_credentials"));
  }

  @Test
  void token_secretNeedingEscapes_acceptedOnlyUrlEncoded() {
    try (PlatformSimulator special =
        PlatformSimulator.builder().apiKey("key with space").apiSecret("s+cr/t=").build().start()) {
      PlatformClient specialClient = new PlatformClient(special);
      String unencoded =
          "Basic "
              + java.util.Base64.getEncoder()
                  .encodeToString("key with space:s+cr/t=".getBytes(StandardCharsets.UTF_8));

      assertThat(specialClient.requestToken().statusCode()).isEqualTo(200);
      assertAuthenticityError(
          specialClient.form("/oauth2/token", unencoded, FORM, "grant_type=client_credentials"));
    }
  }

  @Test
  void invalidateToken_currentToken_echoesTokenAndNextTokenDiffers() {
    String token = client.bearer();

    HttpResponse<String> response =
        client.form(
            "/oauth2/invalidate_token",
            VECTOR_BASIC,
            FORM,
            "access_token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response).get("access_token").asText()).isEqualTo(token);
    assertThat(json(client.requestToken()).get("access_token").asText()).isNotEqualTo(token);
  }

  @Test
  void invalidateToken_oldTokenOnApi_401Code89() {
    String token = client.bearer();
    client.form(
        "/oauth2/invalidate_token",
        VECTOR_BASIC,
        FORM,
        "access_token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));

    HttpResponse<String> response =
        client.call("GET", "/2/webhooks", null, "Bearer " + token, Duration.ofSeconds(5));

    assertExpiredToken(response);
  }

  @Test
  void invalidateToken_wrongCredentials_403Code99() {
    String token = client.bearer();

    HttpResponse<String> response =
        client.form(
            "/oauth2/invalidate_token",
            PlatformClient.basic("x", "y"),
            FORM,
            "access_token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));

    assertAuthenticityError(response);
    assertThat(client.call("GET", "/2/webhooks", null).statusCode()).isEqualTo(200);
  }

  @Test
  void revokeToken_currentToken_401Code89ThenNewTokenWorks() {
    String token = client.bearer();

    simulator.revokeToken();

    assertExpiredToken(client.call("GET", "/2/webhooks", null));
    client.forgetBearer();
    assertThat(client.bearer()).isNotEqualTo(token);
    assertThat(client.call("GET", "/2/webhooks", null).statusCode()).isEqualTo(200);
  }

  @Test
  void api_missingBearer_401Problem() {
    HttpResponse<String> response =
        client.call("GET", "/2/webhooks", null, null, Duration.ofSeconds(5));

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(json(response).get("title").asText()).isEqualTo("Unauthorized");
    assertThat(json(response).has("errors")).isFalse();
  }

  @Test
  void api_unknownBearer_401Problem() {
    client.bearer();

    HttpResponse<String> response =
        client.call("GET", "/2/webhooks", null, "Bearer made-up", Duration.ofSeconds(5));

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(json(response).get("type").asText()).isNotBlank();
  }

  @Test
  void api_tokenSentDecoded_401() {
    String decoded = java.net.URLDecoder.decode(client.bearer(), StandardCharsets.UTF_8);

    HttpResponse<String> response =
        client.call("GET", "/2/webhooks", null, "Bearer " + decoded, Duration.ofSeconds(5));

    assertThat(response.statusCode()).isEqualTo(401);
  }

  @Test
  void token_get_405() {
    HttpResponse<String> response =
        client.call("GET", "/oauth2/token", null, VECTOR_BASIC, Duration.ofSeconds(5));

    assertThat(response.statusCode()).isEqualTo(405);
  }

  private static void assertAuthenticityError(HttpResponse<String> response) {
    assertThat(response.statusCode()).isEqualTo(403);
    JsonNode error = json(response).get("errors").get(0);
    assertThat(error.get("code").asInt()).isEqualTo(99);
    assertThat(error.get("label").asText()).isEqualTo("authenticity_token_error");
    assertThat(error.get("message").asText()).isNotBlank();
  }

  private static void assertExpiredToken(HttpResponse<String> response) {
    assertThat(response.statusCode()).isEqualTo(401);
    JsonNode error = json(response).get("errors").get(0);
    assertThat(error.get("code").asInt()).isEqualTo(89);
    assertThat(error.get("message").asText()).isEqualTo("Invalid or expired token.");
  }
}
