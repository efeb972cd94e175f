package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.JarProcesses;
import io.servicehooks.testsupport.Ports;
import io.servicehooks.testsupport.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer jar in durable mode with a 256 MiB heap, sent the largest legacy batches a delivery
 * may be (1 MiB, the default body limit): one with as many events as fit (the parser has no item
 * limit but the body's size) and one shaped as the review's (2,000 items of about 500 bytes). Each
 * must be stored, run and marked done, and health must stay UP: before, every event's row held a
 * copy of the whole body and such a batch ran the JVM out of memory, killing the inbox's threads.
 */
final class LargeBatchIT {

  private static final Path JAR = Path.of("target/servicehooks-consumer.jar");
  private static final String SECRET = "large-batch-consumer-secret-0123456789";
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @RegisterExtension final JarProcesses jars = new JarProcesses(JAR);
  private TestDatabase.Schema schema;

  @AfterEach
  void stopAndDrop() throws Exception {
    jars.close();
    if (schema != null) {
      schema.close();
    }
  }

  /** {@code {"for_user_id":..,"favorite_events":[{"id":0},{"id":1},...]}}, as many as fit. */
  static String mostItems(int maxBytes, int[] count) {
    StringBuilder b = new StringBuilder("{\"for_user_id\":\"2244994945\",\"favorite_events\":[");
    String end = "]}";
    int n = 0;
    while (true) {
      String item = (n == 0 ? "" : ",") + "{\"id\":" + n + "}";
      if (b.length() + item.length() + end.length() > maxBytes) {
        break;
      }
      b.append(item);
      n++;
    }
    count[0] = n;
    return b.append(end).toString();
  }

  /** 2,000 items of about 500 bytes each: the shape of the batch that killed the inbox. */
  static String reviewShape(int items) {
    StringBuilder b = new StringBuilder("{\"for_user_id\":\"2244994945\",\"favorite_events\":[");
    String filler = "x".repeat(440);
    for (int i = 0; i < items; i++) {
      b.append(i == 0 ? "" : ",")
          .append("{\"id\":\"r")
          .append(i)
          .append("\",\"text\":\"")
          .append(filler)
          .append("\"}");
    }
    return b.append("]}").toString();
  }

  @Test
  void oneMebibyteBatches_in256MiBHeap_storedRunAndDoneWithHealthUp(@TempDir Path dir)
      throws Exception {
    schema = TestDatabase.schemaToBeCreated();
    int port = Ports.free();
    Map<String, String> env = new HashMap<>();
    env.put("SERVICE_CONSUMER_SECRET", SECRET);
    env.put("PORT", String.valueOf(port));
    env.put("HOST", "127.0.0.1");
    env.put("DATABASE_URL", TestDatabase.url());
    env.put("DATABASE_SCHEMA", schema.name);
    env.put("LOG_EVENTS", "false");
    Path output = dir.resolve("consumer.txt");
    Process p = start(output, env);
    awaitHealth(port, 200);

    int[] most = new int[1];
    String big = mostItems(WebhookConsumer.DEFAULT_MAX_BODY_BYTES, most);
    String review = reviewShape(2_000);
    assertThat(big.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(WebhookConsumer.DEFAULT_MAX_BODY_BYTES);
    assertThat(review.length()).isBetween(900_000, WebhookConsumer.DEFAULT_MAX_BODY_BYTES);
    long began = System.nanoTime();
    // As the platform does: a delivery not answered 200 is sent again.
    List<Integer> reviewAnswers = deliverUntil200(port, review);
    List<Integer> bigAnswers = deliverUntil200(port, big);
    long stored = System.nanoTime();
    int events = most[0] + 2_000;

    await()
        .atMost(Duration.ofMinutes(4))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                schema.number("SELECT count(*) FROM " + schema.table() + " WHERE status = 'done'")
                    == events);
    long done = System.nanoTime();
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isEqualTo(events);
    // Each body once: two batch bodies, no row holding a copy.
    assertThat(schema.number("SELECT count(*) FROM " + schema.table() + "_body")).isEqualTo(2);
    assertThat(
            schema.number(
                "SELECT count(*) FROM " + schema.table() + " WHERE delivery_json IS NOT NULL"))
        .isZero();
    assertThat(schema.number("SELECT max(attempts) FROM " + schema.table())).isEqualTo(1);
    awaitHealth(port, 200);
    assertThat(p.isAlive()).isTrue();
    String log = Files.readString(output, StandardCharsets.UTF_8);
    assertThat(log).doesNotContain("OutOfMemoryError").doesNotContain("starts over");
    System.out.printf(
        "LargeBatchIT: %d events (%d in the fullest 1 MiB batch) stored in %.1f s, all done %.1f s"
            + " later, -Xmx256m; answers to the 2,000-item batch %s, to the fullest %s%n",
        events, most[0], (stored - began) / 1e9, (done - stored) / 1e9, reviewAnswers, bigAnswers);
  }

  /** Sends until answered 200, as the platform retries; the statuses in order (0: no answer). */
  private static List<Integer> deliverUntil200(int port, String body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks"))
            .timeout(Duration.ofSeconds(10))
            .header(TestSigner.SIGNATURE_HEADER, TestSigner.sign(SECRET, body))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .build();
    int[] status = new int[1];
    List<Integer> answers = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              try {
                status[0] =
                    CLIENT.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
              } catch (IOException timedOut) {
                status[0] = 0;
              }
              answers.add(status[0]);
              return status[0] == 200;
            });
    return answers;
  }

  private Process start(Path output, Map<String, String> env) throws IOException {
    return jars.launch().jvm("-Xmx256m").env(env).appendOutput(output).start();
  }

  private static void awaitHealth(int port, int status) {
    HttpRequest health =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
            .timeout(Duration.ofSeconds(2))
            .build();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                CLIENT.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == status);
  }
}
