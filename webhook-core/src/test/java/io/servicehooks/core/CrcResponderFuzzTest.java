package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.TestSigner;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Fuzz target for the CRC answer to a raw query string. Without {@code JAZZER_FUZZ} it runs as a
 * regression test over {@code src/test/resources/io/servicehooks/core/CrcResponderFuzzTestInputs/};
 * see {@code fuzz.sh} to fuzz it.
 */
final class CrcResponderFuzzTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The README's rule for a token worth signing, written out independently of the code. */
  private static final Pattern PLAUSIBLE = Pattern.compile("[A-Za-z0-9\\-_=+/.~]{1,128}");

  private static final WebhookConsumer CONSUMER =
      WebhookConsumer.builder().consumerSecrets(SECRET).build();

  /**
   * 200 with the HMAC of the token only for a plausible token, else 400 with one of the two CRC
   * error codes; never an exception, never a signature of anything else.
   */
  @FuzzTest
  void answer(byte[] rawQuery) throws IOException {
    String query = new String(rawQuery, StandardCharsets.UTF_8);
    WebhookResponse r = CONSUMER.handle(WebhookRequest.get(query)).join();

    assertThat(r.contentType()).isEqualTo("application/json");
    JsonNode answer = JSON.readTree(r.body());
    String token = expectedToken(query);
    if (r.status() == 200) {
      assertThat(token).as(query).isNotNull().matches(PLAUSIBLE);
      assertThat(r.bodyAsString()).isEqualTo(TestSigner.crcResponse(SECRET, token));
    } else {
      assertThat(r.status()).as(query).isEqualTo(400);
      assertThat(answer.path("error").asText()).isIn("missing_crc_token", "invalid_crc_token");
      assertThat(r.bodyAsString()).doesNotContain("sha256=");
      assertThat(token == null || !PLAUSIBLE.matcher(token).matches()).as(query).isTrue();
    }
  }

  /**
   * The first {@code crc_token} value as the README documents it ({@code +} literal, percent
   * escapes decoded as UTF-8), or null when absent or not decodable.
   */
  private static String expectedToken(String query) {
    for (String pair : query.split("&", -1)) {
      String[] kv = pair.split("=", 2);
      if (kv[0].equals("crc_token")) {
        try {
          return kv.length < 2
              ? ""
              : URLDecoder.decode(kv[1].replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException badEscape) {
          return null;
        }
      }
    }
    return null;
  }
}
