package io.servicehooks.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code servicehooks trigger TYPE}: makes a running {@code servicehooks simulate} produce sample
 * events of a type, delivered to its webhooks (signed, with retries) and its open activity streams,
 * like {@code stripe trigger}. It calls the simulator's control endpoint {@code POST
 * /_sim/trigger}; a real platform has none.
 */
@Command(
    name = "trigger",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Make a running simulator (servicehooks simulate) deliver sample events of TYPE to its",
      "webhooks and activity streams. Uses $SERVICE_API_BASE_URL (or --base-url)."
    })
final class TriggerCommand implements Callable<Integer> {

  @ParentCommand TopCommand top;

  @Parameters(
      paramLabel = "TYPE",
      description = "event type, e.g. post.create, dm.received, follow.follow, oauth.revoke")
  String type;

  @Option(
      names = "--count",
      paramLabel = "N",
      defaultValue = "1",
      description = "how many events (1..1000); default ${DEFAULT-VALUE}")
  int count;

  @Option(
      names = "--user-id",
      paramLabel = "ID",
      defaultValue = "2244994945",
      description = "the subscribed user the events are about; default ${DEFAULT-VALUE}")
  String userId;

  @Option(
      names = "--duplicate",
      description = "deliver each event twice, as the platform's retries and replays may")
  boolean duplicate;

  @Override
  public Integer call() throws IOException {
    if (count < 1 || count > 1000) {
      throw new ServicehooksCli.UsageException("--count must be 1..1000, was " + count);
    }
    ObjectNode body = Output.JSON.createObjectNode();
    body.put("type", type);
    body.put("count", count);
    body.put("user_id", userId);
    body.put("duplicate", duplicate);
    URI uri = top.baseUri().resolve("/_sim/trigger");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    BoundedAnswer.Answer response;
    try {
      response =
          BoundedAnswer.exchange(
              http,
              HttpRequest.newBuilder(uri)
                  .timeout(Duration.ofSeconds(9))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(Output.JSON.writeValueAsBytes(body)))
                  .build(),
              Duration.ofSeconds(9),
              1024 * 1024);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while triggering");
    }
    if (response.status() == 404) {
      top.err()
          .println(
              "error: "
                  + top.baseUri()
                  + " has no control endpoint: trigger works against servicehooks simulate only");
      top.err().flush();
      return ServicehooksCli.EXIT_API_ERROR;
    }
    JsonNode answer;
    try {
      answer = Output.JSON.readTree(response.text());
    } catch (IOException e) {
      answer = null;
    }
    if (response.status() != 200 || answer == null || !answer.has("data")) {
      String detail = answer == null ? "" : answer.path("error").asText("");
      top.err()
          .println(
              "error: the simulator answered HTTP "
                  + response.status()
                  + (detail.isEmpty() ? "" : ": " + Printable.of(detail)));
      top.err().flush();
      return response.status() == 400 ? ServicehooksCli.EXIT_USAGE : ServicehooksCli.EXIT_API_ERROR;
    }
    JsonNode data = answer.get("data");
    if (top.json) {
      top.out().println(Output.JSON.writeValueAsString(data));
    } else {
      for (JsonNode uuid : data.path("event_uuids")) {
        top.out().println("Triggered " + type + " event " + uuid.asText());
      }
      top.out()
          .println(
              "Started "
                  + plural(
                      data.path("webhook_deliveries").asInt(),
                      "webhook delivery",
                      "webhook deliveries")
                  + "; sent to "
                  + plural(data.path("streams").asInt(), "open stream", "open streams")
                  + (duplicate ? " (each event twice)." : "."));
      if (data.hasNonNull("no_webhook_deliveries")) {
        top.out().println("No webhook delivery: " + data.get("no_webhook_deliveries").asText());
      }
    }
    top.out().flush();
    return ServicehooksCli.EXIT_OK;
  }

  private static String plural(int n, String one, String many) {
    return n + " " + (n == 1 ? one : many);
  }
}
