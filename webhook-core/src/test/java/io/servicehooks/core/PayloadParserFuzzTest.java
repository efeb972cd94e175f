package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.TestSigner;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fuzz targets for the POST path. Without {@code JAZZER_FUZZ} they run as regression tests over
 * {@code src/test/resources/io/servicehooks/core/PayloadParserFuzzTestInputs/}; see {@code fuzz.sh}
 * to fuzz them.
 */
final class PayloadParserFuzzTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PayloadParser PARSER = new PayloadParser(JSON, new EventTypeNames(Map.of()));
  private static final Set<String> POST_ERRORS = Set.of("malformed_payload");

  // Built once: fuzzing calls a target millions of times. The dedup store is bounded so a long run
  // does not grow the heap; a repeated input is answered as a duplicate, which is fine.
  private static final WebhookConsumer CONSUMER =
      WebhookConsumer.builder()
          .consumerSecrets(SECRET)
          .dedupMaxEntries(10_000)
          .onAny(PayloadParserFuzzTest::readEverything)
          .build();

  /** A verified body gives events or {@link PayloadParser.Malformed}, nothing else. */
  @FuzzTest
  void parse(byte[] body) {
    List<WebhookEvent> events;
    try {
      events = PARSER.parse(body);
    } catch (PayloadParser.Malformed expected) {
      assertThat(expected.getMessage()).isNotBlank();
      return;
    }
    assertThat(events).isNotEmpty();
    for (WebhookEvent event : events) {
      readEverything(event);
    }
  }

  /**
   * The whole POST path with a correct signature: always a documented status with a JSON body, and
   * a listener that only reads the event never sees it fail.
   */
  @FuzzTest
  void handle(byte[] body) throws IOException {
    WebhookResponse r =
        CONSUMER.handle(WebhookRequest.post(TestSigner.sign(SECRET, body), body)).join();

    assertThat(r.contentType()).isEqualTo("application/json");
    JsonNode answer = JSON.readTree(r.body());
    if (r.status() == 200) {
      assertThat(answer.path("status").asText()).isIn("accepted", "duplicate");
    } else {
      assertThat(r.status()).as(r.toString()).isEqualTo(400);
      assertThat(answer.path("error").asText()).as(r.toString()).isIn(POST_ERRORS);
    }
  }

  /** What a listener may touch; none of it may throw for an event the parser gave out. */
  private static void readEverything(WebhookEvent event) {
    assertThat(event.id()).isNotNull();
    assertThat(event.type()).isNotBlank();
    assertThat(event.originalType()).isNotBlank();
    assertThat(event.dedupKey()).isNotNull();
    assertThat(event.family()).isNotNull();
    assertThat(event.payload()).isNotNull();
    assertThat(event.filter()).isNotNull();
    assertThat(event.delivery()).isNotNull();
    event.forUserId();
    event.tag();
    event.toString();
  }
}
