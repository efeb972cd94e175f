package io.servicehooks.testkit;

import static io.servicehooks.testkit.PlatformClient.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class ConnectionsTest {

  private final PlatformSimulator simulator =
      PlatformSimulator.builder().streamConnectionLimit(3).build().start();
  private final PlatformClient client = new PlatformClient(simulator);
  private final List<StreamReader> readers = new ArrayList<>();

  @AfterEach
  void close() {
    readers.forEach(StreamReader::close);
    simulator.close();
  }

  private StreamReader connect(String query) {
    StreamReader reader = StreamReader.open(simulator, client.bearer(), query);
    readers.add(reader);
    return reader;
  }

  @Test
  void list_twoOpenStreams_bothWithEndpointIds() {
    connect("");
    connect("backfill_minutes=3");

    HttpResponse<String> response = client.call("GET", "/2/connections", null);

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode body = json(response);
    assertThat(body.get("meta").get("result_count").asInt()).isEqualTo(2);
    assertThat(body.get("data")).hasSize(2);
    List<String> ids = new ArrayList<>();
    body.get("data").forEach(c -> ids.add(c.get("endpoint_id").asText()));
    assertThat(ids)
        .containsExactlyElementsOf(
            simulator.openStreams().stream().map(OpenStream::endpointId).toList());
    assertThat(body.get("data").get(1).get("backfill_minutes").asInt()).isEqualTo(3);
    assertThat(body.get("data").get(0).get("connected_at").asText()).isNotBlank();
  }

  @Test
  void list_none_emptyData() {
    JsonNode body = json(client.call("GET", "/2/connections", null));

    assertThat(body.get("data")).isEmpty();
    assertThat(body.get("meta").get("result_count").asInt()).isZero();
  }

  @Test
  void deleteOne_open_thatStreamEndsOthersStay() {
    StreamReader first = connect("");
    StreamReader second = connect("");
    String firstId = simulator.openStreams().get(0).endpointId();

    HttpResponse<String> response = client.call("DELETE", "/2/connections/" + firstId, null);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response).get("data").get("killed_connections").asInt()).isEqualTo(1);
    await().until(() -> first.end() == StreamReader.End.CLEAN);
    assertThat(second.end()).isEqualTo(StreamReader.End.OPEN);
    assertThat(simulator.openStreams()).extracting(OpenStream::endpointId).doesNotContain(firstId);
  }

  @Test
  void deleteOne_unknown_404() {
    HttpResponse<String> response = client.call("DELETE", "/2/connections/12345", null);

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response).get("detail").asText()).contains("12345");
  }

  @Test
  void deleteAll_threeOpen_allEndAndCountReturned() {
    List<StreamReader> all = List.of(connect(""), connect(""), connect(""));

    HttpResponse<String> response = client.call("DELETE", "/2/connections/all", null);

    assertThat(json(response).get("data").get("killed_connections").asInt()).isEqualTo(3);
    await().until(() -> all.stream().allMatch(r -> r.end() == StreamReader.End.CLEAN));
    assertThat(simulator.openStreams()).isEmpty();
  }

  @Test
  void deleteNamed_bodyWithIds_thoseEndUnknownReported() {
    connect("");
    StreamReader kept = connect("");
    String first = simulator.openStreams().get(0).endpointId();

    HttpResponse<String> response =
        client.call("DELETE", "/2/connections", "{\"endpoint_ids\":[\"" + first + "\",\"9\"]}");

    JsonNode body = json(response);
    assertThat(body.get("data").get("killed_connections").asInt()).isEqualTo(1);
    assertThat(body.get("errors").get(0).get("detail").asText()).contains("9");
    assertThat(simulator.openStreams()).hasSize(1);
    assertThat(kept.end()).isEqualTo(StreamReader.End.OPEN);
    assertThat(client.call("DELETE", "/2/connections", "{}").statusCode()).isEqualTo(400);
  }

  @Test
  void connections_withoutToken_401() {
    HttpResponse<String> response =
        client.call("GET", "/2/connections", null, null, java.time.Duration.ofSeconds(5));

    assertThat(response.statusCode()).isEqualTo(401);
  }
}
