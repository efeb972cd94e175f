package io.servicehooks.undertow;

import static io.servicehooks.undertow.Http.envelope;
import static io.servicehooks.undertow.Http.hmac;
import static io.servicehooks.undertow.Http.postSigned;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.core.Acknowledgement;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookEvent;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every answer of the webhook over a real Undertow on port 0 and a real java.net.http client. */
final class WebhookServerTest {

  private static final String SECRET = "current-consumer-secret";
  private static final String OLD_SECRET = "previous-consumer-secret";

  private final List<WebhookEvent> seen = new CopyOnWriteArrayList<>();
  private final List<WebhookServer> servers = new ArrayList<>();

  private WebhookConsumer.Builder consumer() {
    return WebhookConsumer.builder()
        .consumerSecrets(SECRET, OLD_SECRET)
        .onAny(seen::add)
        .onError((event, error) -> {});
  }

  private URI serve(WebhookConsumer consumer) {
    WebhookServer server =
        WebhookServer.builder(consumer).host("127.0.0.1").port(0).build().start();
    servers.add(server);
    return URI.create("http://127.0.0.1:" + server.port() + "/webhooks");
  }

  @AfterEach
  void stop() {
    servers.forEach(WebhookServer::close);
  }

  @Test
  void crc_validToken_200WithIndependentlyComputedToken() throws Exception {
    URI uri = serve(consumer().build());
    HttpResponse<String> r = Http.get(URI.create(uri + "?crc_token=9b2bc4f0-1c1e-4d3f&nonce=42"));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(r.body())
        .isEqualTo("{\"response_token\":\"" + hmac(SECRET, "9b2bc4f0-1c1e-4d3f") + "\"}");
  }

  @Test
  void crc_missingToken_400() throws Exception {
    URI uri = serve(consumer().build());
    assertThat(Http.get(uri).statusCode()).isEqualTo(400);
    assertThat(Http.get(URI.create(uri + "?crc_token=")).statusCode()).isEqualTo(400);
  }

  @Test
  void crc_forgedBodyAsToken_400AndNothingSigned() throws Exception {
    URI uri = serve(consumer().build());
    String forged =
        java.net.URLEncoder.encode(envelope("1", "post.create"), StandardCharsets.UTF_8);
    HttpResponse<String> r = Http.get(URI.create(uri + "?crc_token=" + forged));
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("invalid_crc_token").doesNotContain("sha256");
  }

  @Test
  void publishedVector_verifiesThenRefusedAsNotAnEvent_alteredVectorIs401() throws Exception {
    WebhookConsumer consumer = WebhookConsumer.builder().consumerSecrets("test").build();
    URI uri = serve(consumer);
    byte[] body = "{\"test_number\":1,\"test_string\":\"two\"}".getBytes(StandardCharsets.UTF_8);
    String published = "sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI=";
    HttpResponse<String> verified =
        Http.send(Http.post(uri, "x-service-webhooks-signature", published, body));
    assertThat(verified.statusCode()).isEqualTo(400); // past the signature, but not an event
    assertThat(verified.body()).contains("malformed_payload");
    byte[] altered = "{\"test_number\":2,\"test_string\":\"two\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(
            Http.send(Http.post(uri, "x-service-webhooks-signature", published, altered))
                .statusCode())
        .isEqualTo(401);
  }

  @Test
  void delivery_signed_200AndListenerSeesEvent() throws Exception {
    URI uri = serve(consumer().build());
    HttpResponse<String> r = postSigned(uri, SECRET, envelope("1001", "post.create"));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
    assertThat(seen)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.id()).isEqualTo("1001");
              assertThat(e.type()).isEqualTo("post.create");
              assertThat(e.payload().path("text").asText()).isEqualTo("hello world");
            });
  }

  @Test
  void delivery_headerNameInAnyCase_isFound() throws Exception {
    URI uri = serve(consumer().build());
    for (String header :
        new String[] {"X-Service-Webhooks-Signature", "X-SERVICE-WEBHOOKS-SIGNATURE"}) {
      String json = envelope(header, "post.create");
      byte[] body = json.getBytes(StandardCharsets.UTF_8);
      assertThat(Http.send(Http.post(uri, header, hmac(SECRET, body), body)).statusCode())
          .isEqualTo(200);
    }
    assertThat(seen).hasSize(2);
  }

  @Test
  void delivery_rotatedSecret_accepted_unknownSecret401() throws Exception {
    URI uri = serve(consumer().build());
    assertThat(postSigned(uri, OLD_SECRET, envelope("1", "post.create")).statusCode())
        .isEqualTo(200);
    assertThat(postSigned(uri, "not-ours", envelope("2", "post.create")).statusCode())
        .isEqualTo(401);
    assertThat(seen).extracting(WebhookEvent::id).containsExactly("1");
  }

  @Test
  void delivery_missingOrMalformedSignature_401WithJsonError() throws Exception {
    URI uri = serve(consumer().build());
    byte[] body = envelope("1", "post.create").getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> missing =
        Http.send(Http.post(uri, "x-service-webhooks-signature", null, body));
    assertThat(missing.statusCode()).isEqualTo(401);
    assertThat(missing.body())
        .isEqualTo("{\"error\":\"invalid_signature\",\"message\":\"missing signature header\"}");
    HttpResponse<String> malformed =
        Http.send(Http.post(uri, "x-service-webhooks-signature", "md5=abc", body));
    assertThat(malformed.statusCode()).isEqualTo(401);
    assertThat(seen).isEmpty();
  }

  @Test
  void delivery_oneWhitespaceByteChangedAfterSigning_401() throws Exception {
    URI uri = serve(consumer().build());
    String json = envelope("1", "post.create");
    String signature = hmac(SECRET, json);
    byte[] reformatted = json.replaceFirst(",", ", ").getBytes(StandardCharsets.UTF_8);
    assertThat(
            Http.send(Http.post(uri, "x-service-webhooks-signature", signature, reformatted))
                .statusCode())
        .isEqualTo(401);
    assertThat(seen).isEmpty();
  }

  @Test
  void delivery_notJsonOrNeitherFamily_400NothingDispatched() throws Exception {
    URI uri = serve(consumer().build());
    assertThat(postSigned(uri, SECRET, "not json").statusCode()).isEqualTo(400);
    HttpResponse<String> neither = postSigned(uri, SECRET, "{\"kind\":\"unknown\"}");
    assertThat(neither.statusCode()).isEqualTo(400);
    assertThat(neither.body()).startsWith("{\"error\":\"malformed_payload\"");
    assertThat(seen).isEmpty();
  }

  @Test
  void delivery_overLimitDeclaredOrChunked_413() throws Exception {
    URI uri = serve(consumer().maxBodyBytes(2048).build());
    byte[] big = new byte[4096];
    java.util.Arrays.fill(big, (byte) 'a');
    HttpResponse<String> declared =
        Http.send(Http.post(uri, "x-service-webhooks-signature", hmac(SECRET, big), big));
    assertThat(declared.statusCode()).isEqualTo(413);
    assertThat(declared.body()).contains("payload_too_large");
    HttpResponse<String> chunked = Http.postChunked(uri, hmac(SECRET, big), big);
    assertThat(chunked.statusCode()).isEqualTo(413);
    // At the limit exactly is fine.
    String json = envelope("1", "post.create");
    String padded =
        json.substring(0, json.length() - 1)
            + ",\"pad\":\""
            + "x".repeat(2048 - json.length() - 9)
            + "\"}";
    assertThat(padded.getBytes(StandardCharsets.UTF_8)).hasSize(2048);
    assertThat(postSigned(uri, SECRET, padded).statusCode()).isEqualTo(200);
  }

  @Test
  void delivery_overLimit_413WithJsonErrorBody() throws Exception {
    URI uri = serve(consumer().maxBodyBytes(2048).build());
    byte[] big = new byte[4096];
    java.util.Arrays.fill(big, (byte) 'a');
    String expected = "{\"error\":\"payload_too_large\",\"message\":\"body exceeds 2048 bytes\"}";
    for (HttpResponse<String> r :
        List.of(
            Http.send(Http.post(uri, "x-service-webhooks-signature", hmac(SECRET, big), big)),
            Http.postChunked(uri, hmac(SECRET, big), big))) {
      assertThat(r.statusCode()).isEqualTo(413);
      assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
      assertThat(r.body()).isEqualTo(expected);
    }
    assertThat(seen).isEmpty();
  }

  @Test
  void delivery_bodyCutShort_400UnreadableBodyWithJsonError() throws Exception {
    WebhookServer server =
        WebhookServer.builder(consumer().build()).host("127.0.0.1").port(0).build().start();
    servers.add(server);
    String json = envelope("1", "post.create");
    // The client declares the whole body, sends part of it and gives up: the body cannot be read
    // to its end, but the connection can still carry the answer. (A malformed chunk is not such a
    // case: Undertow closes the connection itself before the handler hears of it.)
    RawHttp.Response r =
        RawHttp.exchange(
            server.port(),
            "POST /webhooks HTTP/1.1\r\n"
                + "Host: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\n"
                + "x-service-webhooks-signature: "
                + hmac(SECRET, json)
                + "\r\n"
                + "Content-Length: "
                + json.length()
                + "\r\n"
                + "\r\n"
                + json.substring(0, json.length() / 2));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.headers())
        .containsEntry("content-type", "application/json")
        .containsEntry("connection", "close");
    assertThat(r.body())
        .isEqualTo(
            "{\"error\":\"unreadable_body\",\"message\":\"the body could not be read to its end\"}");
    assertThat(seen).isEmpty();
  }

  @Test
  void otherMethod_405WithAllow() throws Exception {
    URI uri = serve(consumer().build());
    HttpResponse<String> r =
        Http.send(
            HttpRequest.newBuilder(uri).method("PUT", HttpRequest.BodyPublishers.ofString("x")));
    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().firstValue("allow")).hasValue("GET, POST");
  }

  @Test
  void unknownPath_404() throws Exception {
    URI uri = serve(consumer().build());
    assertThat(Http.get(URI.create(uri + "/other?crc_token=a")).statusCode()).isEqualTo(404);
  }

  @Test
  void unknownPath_404WithJsonErrorBody() throws Exception {
    URI uri = serve(consumer().build());
    HttpResponse<String> r = Http.get(URI.create(uri + "/other?crc_token=a"));
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(r.body())
        .isEqualTo("{\"error\":\"not_found\",\"message\":\"nothing is served at this path\"}");
  }

  @Test
  void accountActivityBatch_eachItemDispatchedWithCurrentName() throws Exception {
    // dm.sent is the subscribed user's own message: named here, skipped by default
    URI uri = serve(consumer().ignoreOwnEvents(false).build());
    String batch =
        "{\"for_user_id\":\"42\",\"direct_message_events\":["
            + "{\"type\":\"message_create\",\"id\":\"d1\",\"message_create\":{\"sender_id\":\"42\",\"target\":{\"recipient_id\":\"7\"}}},"
            + "{\"type\":\"message_create\",\"id\":\"d2\",\"message_create\":{\"sender_id\":\"7\",\"target\":{\"recipient_id\":\"42\"}}}],"
            + "\"follow_events\":[{\"type\":\"unfollow\",\"created_timestamp\":\"1517588749178\"}],"
            + "\"users\":{\"7\":{\"id\":\"7\",\"name\":\"Seven\"}}}";
    HttpResponse<String> r = postSigned(uri, SECRET, batch);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("\"events\":3");
    assertThat(seen)
        .extracting(WebhookEvent::type)
        .containsExactly("dm.sent", "dm.received", "follow.unfollow");
    assertThat(postSigned(uri, SECRET, batch).body())
        .isEqualTo("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":3}");
  }

  @Test
  void concurrentIdenticalDeliveries_dispatchOnce() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    URI uri =
        serve(
            WebhookConsumer.builder()
                .consumerSecrets(SECRET)
                .on(
                    "post.create",
                    e -> {
                      runs.incrementAndGet();
                      Thread.sleep(300); // a slow listener, so the copies arrive while it runs
                    })
                .build());
    String json = envelope("same-event", "post.create");
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 48; i++) {
      responses.add(Http.postSignedAsync(uri, SECRET, json));
    }
    for (CompletableFuture<HttpResponse<String>> f : responses) {
      assertThat(f.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void listenerFailure_500ThenRedeliveryProcessed() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    URI uri =
        serve(
            consumer()
                .on(
                    "post.create",
                    e -> {
                      if (attempts.incrementAndGet() == 1) {
                        throw new IllegalStateException("transient");
                      }
                    })
                .build());
    String json = envelope("77", "post.create");
    HttpResponse<String> first = postSigned(uri, SECRET, json);
    assertThat(first.statusCode()).isEqualTo(500);
    assertThat(first.body()).contains("listener_failed");
    assertThat(postSigned(uri, SECRET, json).statusCode()).isEqualTo(200);
    assertThat(attempts).hasValue(2);
    assertThat(postSigned(uri, SECRET, json).body()).contains("\"status\":\"duplicate\"");
    assertThat(attempts).hasValue(2);
  }

  @Test
  void duplicateDuringInFlightFailure_getsTheFailure() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    URI uri =
        serve(
            consumer()
                .meterRegistry(registry)
                .on(
                    "post.create",
                    e -> {
                      if (runs.incrementAndGet() == 1) {
                        entered.countDown();
                        release.await(10, TimeUnit.SECONDS);
                        throw new IllegalStateException("slow failure");
                      }
                    })
                .build());
    String json = envelope("88", "post.create");
    CompletableFuture<HttpResponse<String>> original = Http.postSignedAsync(uri, SECRET, json);
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<HttpResponse<String>> duplicate = Http.postSignedAsync(uri, SECRET, json);
    awaitWaitingDuplicates(registry, 1);
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !duplicate.isDone());
    release.countDown();
    assertThat(original.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(500);
    HttpResponse<String> copy = duplicate.get(10, TimeUnit.SECONDS);
    assertThat(copy.statusCode()).isEqualTo(500);
    assertThat(copy.body()).contains("listener_failed");
    assertThat(runs).hasValue(1);
    assertThat(waitingDuplicates(registry)).isZero();
    // The platform's retry then runs it.
    assertThat(postSigned(uri, SECRET, json).statusCode()).isEqualTo(200);
    assertThat(runs).hasValue(2);
  }

  @Test
  void duplicateDuringInFlightSuccess_waitsThenAnswersDuplicate() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    URI uri =
        serve(
            consumer()
                .meterRegistry(registry)
                .on(
                    "post.create",
                    e -> {
                      runs.incrementAndGet();
                      entered.countDown();
                      release.await(10, TimeUnit.SECONDS);
                    })
                .build());
    String json = envelope("89", "post.create");
    CompletableFuture<HttpResponse<String>> original = Http.postSignedAsync(uri, SECRET, json);
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<HttpResponse<String>> duplicate = Http.postSignedAsync(uri, SECRET, json);
    awaitWaitingDuplicates(registry, 1);
    assertThat(duplicate).isNotDone();
    release.countDown();
    assertThat(original.get(10, TimeUnit.SECONDS).body())
        .isEqualTo("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
    assertThat(duplicate.get(10, TimeUnit.SECONDS).body())
        .isEqualTo("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}");
    assertThat(runs).hasValue(1);
    assertThat(waitingDuplicates(registry)).isZero();
  }

  /** Until the duplicate is known to wait on its running original, not merely not yet arrived. */
  private static void awaitWaitingDuplicates(SimpleMeterRegistry registry, int expected) {
    await().atMost(Duration.ofSeconds(10)).until(() -> waitingDuplicates(registry) == expected);
  }

  private static double waitingDuplicates(SimpleMeterRegistry registry) {
    return registry.get("webhook.duplicates.waiting").gauge().value();
  }

  @Test
  void asyncAcknowledgement_fullQueue503_thenAccepted() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    List<String> done = new CopyOnWriteArrayList<>();
    URI uri =
        serve(
            WebhookConsumer.builder()
                .consumerSecrets(SECRET)
                .acknowledgement(Acknowledgement.ASYNCHRONOUS)
                .asyncThreads(1)
                .asyncQueueCapacity(1)
                .on(
                    "post.create",
                    e -> {
                      release.await(10, TimeUnit.SECONDS);
                      done.add(e.id());
                    })
                .build());
    assertThat(postSigned(uri, SECRET, envelope("1", "post.create")).statusCode()).isEqualTo(200);
    assertThat(postSigned(uri, SECRET, envelope("2", "post.create")).statusCode()).isEqualTo(200);
    HttpResponse<String> full = postSigned(uri, SECRET, envelope("3", "post.create"));
    assertThat(full.statusCode()).isEqualTo(503);
    assertThat(full.body()).contains("queue_full");
    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 2);
    assertThat(postSigned(uri, SECRET, envelope("3", "post.create")).statusCode()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> done.contains("3"));
  }

  @Test
  void nonBlockingListeners_runOnIoThread_defaultOnWorker() throws Exception {
    List<String> threads = new CopyOnWriteArrayList<>();
    URI inline =
        serve(
            WebhookConsumer.builder()
                .consumerSecrets(SECRET)
                .listenersNonBlocking(true)
                .onAny(e -> threads.add(Thread.currentThread().getName()))
                .build());
    URI worker =
        serve(
            WebhookConsumer.builder()
                .consumerSecrets(SECRET)
                .onAny(e -> threads.add(Thread.currentThread().getName()))
                .build());
    assertThat(postSigned(inline, SECRET, envelope("1", "post.create")).statusCode())
        .isEqualTo(200);
    assertThat(postSigned(worker, SECRET, envelope("1", "post.create")).statusCode())
        .isEqualTo(200);
    assertThat(threads.get(0)).contains("I/O");
    assertThat(threads.get(1)).contains("task").doesNotContain("I/O");
  }

  @Test
  void nonBlockingListeners_blockingStore_storeAskedOnWorker_neverOnIoThread() throws Exception {
    List<String> asked = new CopyOnWriteArrayList<>();
    List<String> ran = new CopyOnWriteArrayList<>();
    Deduplicator memory = Deduplicator.inMemory();
    // A store that may block (the default): a synchronous driver, say.
    Deduplicator blocking =
        new Deduplicator() {
          @Override
          public CompletionStage<Claim> claim(String key, Duration lease) {
            asked.add(Thread.currentThread().getName());
            return memory.claim(key, lease);
          }

          @Override
          public CompletionStage<Boolean> markDone(String key, String token) {
            return memory.markDone(key, token);
          }

          @Override
          public CompletionStage<Boolean> release(String key, String token) {
            return memory.release(key, token);
          }

          @Override
          public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
            return memory.renew(key, token, lease);
          }
        };
    URI uri =
        serve(
            WebhookConsumer.builder()
                .consumerSecrets(SECRET)
                .listenersNonBlocking(true)
                .deduplicator(blocking)
                .onAny(e -> ran.add(Thread.currentThread().getName()))
                .build());

    assertThat(postSigned(uri, SECRET, envelope("1", "post.create")).statusCode()).isEqualTo(200);

    assertThat(asked).hasSize(1);
    assertThat(asked.get(0)).contains("task").doesNotContain("I/O");
    assertThat(ran).containsExactly(asked.get(0));
  }

  @Test
  void close_finishesInFlightDeliveryFirst() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    List<String> finished = new CopyOnWriteArrayList<>();
    WebhookServer server =
        WebhookServer.builder(
                WebhookConsumer.builder()
                    .consumerSecrets(SECRET)
                    .on(
                        "post.create",
                        e -> {
                          entered.countDown();
                          Thread.sleep(500); // still running when close() starts
                          finished.add(e.id());
                        })
                    .build())
            .host("127.0.0.1")
            .port(0)
            .build()
            .start();
    URI uri = URI.create("http://127.0.0.1:" + server.port() + "/webhooks");
    CompletableFuture<HttpResponse<String>> inFlight =
        Http.postSignedAsync(uri, SECRET, envelope("1", "post.create"));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    server.close();
    assertThat(finished).containsExactly("1");
    assertThat(inFlight.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
  }

  @Test
  void close_requestArrivingWhileDraining_503WithJsonErrorBody() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    WebhookServer server =
        WebhookServer.builder(
                WebhookConsumer.builder()
                    .consumerSecrets(SECRET)
                    .on(
                        "post.create",
                        e -> {
                          entered.countDown();
                          release.await(10, TimeUnit.SECONDS);
                        })
                    .build())
            .host("127.0.0.1")
            .port(0)
            .build()
            .start();
    servers.add(server);
    URI uri = URI.create("http://127.0.0.1:" + server.port() + "/webhooks");
    CompletableFuture<HttpResponse<String>> inFlight =
        Http.postSignedAsync(uri, SECRET, envelope("1", "post.create"));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
    try {
      // close() waits for the delivery held above; meanwhile new requests are refused.
      HttpResponse<String> refused =
          await()
              .atMost(Duration.ofSeconds(10))
              .until(
                  () -> Http.get(URI.create(uri + "?crc_token=abc")), r -> r.statusCode() == 503);
      assertThat(refused.headers().firstValue("content-type")).hasValue("application/json");
      assertThat(refused.body())
          .isEqualTo("{\"error\":\"shutting_down\",\"message\":\"server is shutting down\"}");
    } finally {
      release.countDown();
    }
    closing.get(10, TimeUnit.SECONDS);
    assertThat(inFlight.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
  }

  @Test
  void metrics_recordedThroughTheServer() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    URI uri = serve(consumer().meterRegistry(registry).build());
    postSigned(uri, SECRET, envelope("1", "ProfileBioUpdate"));
    postSigned(uri, SECRET, envelope("1", "ProfileBioUpdate"));
    Http.get(URI.create(uri + "?crc_token=abc"));
    assertThat(
            registry
                .get("webhook.events")
                .tags("type", "profile.update.bio", "outcome", "dispatched")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(registry.get("webhook.deliveries").tags("outcome", "duplicate").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("webhook.crc").tags("outcome", "answered").counter().count())
        .isEqualTo(1);
  }
}
