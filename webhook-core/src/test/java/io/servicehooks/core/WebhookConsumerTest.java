package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.OLD_SECRET;
import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.hmac;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The core's answers without any server; the same cases over HTTP live in webhook-undertow. */
final class WebhookConsumerTest {

  private final List<String> seen = new CopyOnWriteArrayList<>();

  private WebhookConsumer.Builder builder() {
    return WebhookConsumer.builder().consumerSecrets(SECRET, OLD_SECRET);
  }

  private static WebhookResponse answer(WebhookConsumer consumer, WebhookRequest request) {
    return consumer.handle(request).join();
  }

  @Test
  void crc_validToken_answersHmacWithCurrentSecret() {
    WebhookConsumer consumer = builder().build();
    WebhookResponse r = answer(consumer, WebhookRequest.get("crc_token=Zm9vYmFy-_x.9&nonce=123"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).isEqualTo("application/json");
    assertThat(r.bodyAsString())
        .isEqualTo("{\"response_token\":\"" + hmac(SECRET, "Zm9vYmFy-_x.9") + "\"}");
  }

  @Test
  void crc_percentEncodedToken_isDecodedAndPlusKept() {
    WebhookConsumer consumer = builder().build();
    WebhookResponse r = answer(consumer, WebhookRequest.get("nonce=1&crc_token=ab%2Fc+d%3D"));
    assertThat(r.bodyAsString()).contains(hmac(SECRET, "ab/c+d="));
  }

  @Test
  void crc_missingOrEmptyToken_is400() {
    WebhookConsumer consumer = builder().build();
    for (String query : new String[] {null, "", "nonce=1", "crc_token=", "crc_token"}) {
      WebhookResponse r = answer(consumer, WebhookRequest.get(query));
      assertThat(r.status()).as(String.valueOf(query)).isEqualTo(400);
      assertThat(r.bodyAsString()).contains("\"error\":\"missing_crc_token\"");
    }
  }

  @Test
  void crc_tokenThatCouldBeABody_isRefusedAndNothingSigned() {
    WebhookConsumer consumer = builder().build();
    String forged = envelope("1", "post.create");
    String encoded = java.net.URLEncoder.encode(forged, java.nio.charset.StandardCharsets.UTF_8);
    for (String token :
        new String[] {encoded, "a%20b", "%22quoted%22", "%5B1%5D", "a".repeat(129), "%ZZ"}) {
      WebhookResponse r = answer(consumer, WebhookRequest.get("crc_token=" + token));
      assertThat(r.status()).as(token).isEqualTo(400);
      assertThat(r.bodyAsString()).doesNotContain("sha256=");
    }
    assertThat(answer(consumer, WebhookRequest.get("crc_token=" + "a".repeat(128))).status())
        .isEqualTo(200);
  }

  @Test
  void delivery_signedWithOlderSecret_isAccepted_andCrcStillUsesCurrent() {
    WebhookConsumer consumer = builder().on("post.create", e -> seen.add(e.id())).build();
    assertThat(answer(consumer, signed(OLD_SECRET, envelope("1", "post.create"))).status())
        .isEqualTo(200);
    assertThat(seen).containsExactly("1");
    assertThat(answer(consumer, WebhookRequest.get("crc_token=abc")).bodyAsString())
        .contains(hmac(SECRET, "abc"))
        .doesNotContain(hmac(OLD_SECRET, "abc"));
  }

  @Test
  void delivery_unknownSecret_is401AndNothingDispatched() {
    WebhookConsumer consumer = builder().onAny(e -> seen.add(e.id())).build();
    WebhookResponse r = answer(consumer, signed("someone-else", envelope("1", "post.create")));
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.bodyAsString())
        .isEqualTo("{\"error\":\"invalid_signature\",\"message\":\"signature does not match\"}");
    assertThat(seen).isEmpty();
  }

  @Test
  void delivery_badSignatureShapes_are401() {
    WebhookConsumer consumer = builder().onAny(e -> seen.add(e.id())).build();
    byte[] body = envelope("1", "post.create").getBytes();
    for (String sig :
        new String[] {null, "", "sha256=", "sha1=abc", "sha256=!!!notbase64", "sha256=AAAA"}) {
      assertThat(answer(consumer, WebhookRequest.post(sig, body)).status()).as(sig).isEqualTo(401);
    }
    assertThat(seen).isEmpty();
  }

  @Test
  void delivery_verifiedButNotAnEvent_is400() {
    WebhookConsumer consumer = builder().onAny(e -> seen.add(e.id())).build();
    WebhookResponse r = answer(consumer, signed(SECRET, "{\"hello\":1}"));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.bodyAsString()).contains("\"error\":\"malformed_payload\"");
    assertThat(seen).isEmpty();
  }

  @Test
  void delivery_overLimit_is413BeforeVerification() {
    WebhookConsumer consumer = builder().maxBodyBytes(100).build();
    WebhookResponse r = answer(consumer, WebhookRequest.post(null, new byte[101]));
    assertThat(r.status()).isEqualTo(413);
  }

  @Test
  void otherMethods_are405WithAllow() {
    WebhookResponse r = answer(builder().build(), new WebhookRequest("PUT", null, null, null));
    assertThat(r.status()).isEqualTo(405);
    assertThat(r.headers()).containsEntry("Allow", "GET, POST");
  }

  @Test
  void routing_exactWildcardAndAny_runInRegistrationOrder() {
    WebhookConsumer consumer =
        builder()
            .onAny(e -> seen.add("any:" + e.type()))
            .on("profile.update.*", e -> seen.add("prefix:" + e.type()))
            .on("ProfileBioUpdate", e -> seen.add("exact:" + e.type()))
            .on("profile.update.bio", e -> seen.add("exact2:" + e.originalType()))
            .on("dm.*", e -> seen.add("dm:" + e.type()))
            .build();
    answer(consumer, signed(SECRET, envelope("1", "ProfileBioUpdate")));
    assertThat(seen)
        .containsExactly(
            "any:profile.update.bio",
            "prefix:profile.update.bio",
            "exact:profile.update.bio",
            "exact2:ProfileBioUpdate");
  }

  @Test
  void routing_noListener_isAcknowledgedAndCountedUnhandled() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WebhookConsumer consumer =
        builder().meterRegistry(registry).on("dm.*", e -> seen.add("dm")).build();
    WebhookResponse r = answer(consumer, signed(SECRET, envelope("1", "news.new")));
    assertThat(r.status()).isEqualTo(200);
    assertThat(seen).isEmpty();
    assertThat(
            registry
                .get("webhook.events")
                .tag("type", "news.new")
                .tag("outcome", "unhandled")
                .counter()
                .count())
        .isEqualTo(1.0);
  }

  record Post(String id, String text) {}

  @Test
  void payloadAs_mapsToCallersType() {
    List<Post> posts = new ArrayList<>();
    WebhookConsumer consumer =
        builder().on("post.create", e -> posts.add(e.payloadAs(Post.class))).build();
    answer(consumer, signed(SECRET, envelope("7", "post.create")));
    assertThat(posts).containsExactly(new Post("7", "hello"));
  }

  @Test
  void listenerFailure_releasesClaim_redeliveryRunsAgain() {
    AtomicInteger calls = new AtomicInteger();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        builder()
            .on(
                "post.create",
                e -> {
                  if (calls.incrementAndGet() == 1) {
                    throw new IllegalStateException("database down");
                  }
                })
            .onError((e, t) -> errors.add(t))
            .build();
    WebhookRequest delivery = signed(SECRET, envelope("9", "post.create"));
    WebhookResponse first = answer(consumer, delivery);
    assertThat(first.status()).isEqualTo(500);
    assertThat(first.bodyAsString()).doesNotContain("database down");
    assertThat(errors).singleElement().extracting(Throwable::getMessage).isEqualTo("database down");
    assertThat(answer(consumer, delivery).status()).isEqualTo(200);
    assertThat(answer(consumer, delivery).bodyAsString()).contains("\"status\":\"duplicate\"");
    assertThat(calls).hasValue(2);
  }

  @Test
  void batch_failedItemOnly_isRedone() {
    AtomicInteger failuresLeft = new AtomicInteger(1);
    WebhookConsumer consumer =
        builder()
            .onAny(
                e -> {
                  if (e.id().equals("b") && failuresLeft.getAndDecrement() > 0) {
                    throw new RuntimeException("once");
                  }
                  seen.add(e.id());
                })
            .onError((e, t) -> {})
            .build();
    WebhookRequest batch =
        signed(
            SECRET,
            "{\"for_user_id\":\"1\",\"post_create_events\":[{\"id_str\":\"a\"},{\"id_str\":\"b\"},{\"id_str\":\"c\"}]}");
    assertThat(answer(consumer, batch).status()).isEqualTo(500);
    assertThat(seen).containsExactly("a", "c");
    assertThat(answer(consumer, batch).status()).isEqualTo(200);
    assertThat(seen).containsExactly("a", "c", "b");
  }

  @Test
  void duplicateWhileOriginalInFlight_getsOriginalsOutcome() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    WebhookConsumer consumer =
        builder()
            .on(
                "post.create",
                e -> {
                  entered.countDown();
                  release.await(10, TimeUnit.SECONDS);
                  throw new IllegalStateException("failed after a while");
                })
            .onError((e, t) -> {})
            .build();
    WebhookRequest delivery = signed(SECRET, envelope("5", "post.create"));
    CompletableFuture<WebhookResponse> original =
        CompletableFuture.supplyAsync(() -> consumer.handle(delivery).join());
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<WebhookResponse> duplicate = consumer.handle(delivery);
    assertThat(duplicate).isNotDone();
    release.countDown();
    assertThat(original.get(10, TimeUnit.SECONDS).status()).isEqualTo(500);
    assertThat(duplicate.get(10, TimeUnit.SECONDS).status()).isEqualTo(500);
  }

  @Test
  void metrics_duplicateWaitingOnOriginal_gaugedUntilTheOriginalEnds() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    WebhookConsumer consumer =
        builder()
            .meterRegistry(registry)
            .on(
                "post.create",
                e -> {
                  entered.countDown();
                  release.await(10, TimeUnit.SECONDS);
                })
            .build();
    WebhookRequest delivery = signed(SECRET, envelope("9", "post.create"));
    CompletableFuture<WebhookResponse> original =
        CompletableFuture.supplyAsync(() -> consumer.handle(delivery).join());
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(registry.get("webhook.duplicates.waiting").gauge().value()).isZero();
    CompletableFuture<WebhookResponse> duplicate = consumer.handle(delivery);
    assertThat(registry.get("webhook.duplicates.waiting").gauge().value()).isEqualTo(1);
    release.countDown();
    assertThat(original.get(10, TimeUnit.SECONDS).bodyAsString())
        .isEqualTo("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
    assertThat(duplicate.get(10, TimeUnit.SECONDS).bodyAsString())
        .isEqualTo("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}");
    assertThat(registry.get("webhook.duplicates.waiting").gauge().value()).isZero();
  }

  @Test
  void async_fullQueue_is503AndClaimReleased() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    WebhookConsumer consumer =
        builder()
            .acknowledgement(Acknowledgement.ASYNCHRONOUS)
            .asyncThreads(1)
            .asyncQueueCapacity(1)
            .on(
                "post.create",
                e -> {
                  release.await(10, TimeUnit.SECONDS);
                  seen.add(e.id());
                })
            .build();
    assertThat(answer(consumer, signed(SECRET, envelope("1", "post.create"))).status())
        .isEqualTo(200);
    // One running (blocked), one queued; the third finds the queue full.
    assertThat(answer(consumer, signed(SECRET, envelope("2", "post.create"))).status())
        .isEqualTo(200);
    WebhookResponse full = answer(consumer, signed(SECRET, envelope("3", "post.create")));
    assertThat(full.status()).isEqualTo(503);
    assertThat(full.bodyAsString()).contains("queue_full");
    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 2);
    // The refused event's claim was released: its redelivery runs.
    assertThat(answer(consumer, signed(SECRET, envelope("3", "post.create"))).status())
        .isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("3"));
    consumer.close();
  }

  @Test
  void async_failure_reachesErrorHandler_andCloseDrains() {
    List<String> failed = new CopyOnWriteArrayList<>();
    WebhookConsumer consumer =
        builder()
            .acknowledgement(Acknowledgement.ASYNCHRONOUS)
            .drainTimeout(Duration.ofSeconds(10))
            .on(
                "post.create",
                e -> {
                  if (e.id().equals("bad")) {
                    throw new IllegalStateException("nope");
                  }
                  Thread.sleep(20); // simulated work, so that close() has something to drain
                  seen.add(e.id());
                })
            .onError((e, t) -> failed.add(e.id()))
            .build();
    for (int i = 0; i < 20; i++) {
      assertThat(answer(consumer, signed(SECRET, envelope("e" + i, "post.create"))).status())
          .isEqualTo(200);
    }
    assertThat(answer(consumer, signed(SECRET, envelope("bad", "post.create"))).status())
        .isEqualTo(200);
    consumer.close();
    assertThat(seen).hasSize(20);
    assertThat(failed).containsExactly("bad");
    assertThat(answer(consumer, signed(SECRET, envelope("late", "post.create"))).status())
        .isEqualTo(503);
  }

  @Test
  void metrics_countEveryOutcome() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WebhookConsumer consumer =
        builder().meterRegistry(registry).on("post.create", e -> {}).maxBodyBytes(10_000).build();
    answer(consumer, signed(SECRET, envelope("1", "post.create")));
    answer(consumer, signed(SECRET, envelope("1", "post.create")));
    answer(consumer, signed("wrong", envelope("2", "post.create")));
    answer(consumer, signed(SECRET, "[]"));
    answer(consumer, WebhookRequest.post(null, new byte[10_001]));
    answer(consumer, WebhookRequest.get("crc_token=abc"));
    answer(consumer, WebhookRequest.get("crc_token=%7B"));
    assertThat(count(registry, "webhook.deliveries", "outcome", "accepted")).isEqualTo(1);
    assertThat(count(registry, "webhook.deliveries", "outcome", "duplicate")).isEqualTo(1);
    assertThat(count(registry, "webhook.deliveries", "outcome", "invalid_signature")).isEqualTo(1);
    assertThat(count(registry, "webhook.deliveries", "outcome", "malformed")).isEqualTo(1);
    assertThat(count(registry, "webhook.deliveries", "outcome", "too_large")).isEqualTo(1);
    assertThat(count(registry, "webhook.crc", "outcome", "answered")).isEqualTo(1);
    assertThat(count(registry, "webhook.crc", "outcome", "rejected")).isEqualTo(1);
    assertThat(
            registry
                .get("webhook.events")
                .tags("type", "post.create", "outcome", "dispatched")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(
            registry
                .get("webhook.events")
                .tags("type", "post.create", "outcome", "duplicate")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(registry.get("webhook.delivery.latency").timer().count()).isEqualTo(5);
    assertThat(registry.find("cache.size").tag("cache", "webhook.dedup").gauge()).isNotNull();
  }

  @Test
  void metrics_inMemoryStoreGivenExplicitly_publishesItsCacheStatistics() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    builder().meterRegistry(registry).deduplicator(Deduplicator.inMemory()).build();
    assertThat(registry.find("cache.size").tag("cache", "webhook.dedup").gauge()).isNotNull();
  }

  @Test
  void metrics_customStore_publishesNoCacheStatistics() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WebhookConsumer consumer =
        builder().meterRegistry(registry).deduplicator(Deduplicator.none()).build();
    assertThat(answer(consumer, signed(SECRET, envelope("1", "post.create"))).status())
        .isEqualTo(200);
    assertThat(registry.find("cache.size").gauge()).isNull();
    assertThat(count(registry, "webhook.deliveries", "outcome", "accepted")).isEqualTo(1);
  }

  private static double count(SimpleMeterRegistry registry, String name, String tag, String value) {
    return registry.get(name).tag(tag, value).counter().count();
  }

  @Test
  void builder_withoutSecret_failsAtBuild() {
    assertThatThrownBy(() -> WebhookConsumer.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("consumerSecrets");
    assertThatThrownBy(() -> WebhookConsumer.builder().consumerSecrets(" , "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebhookConsumer.builder().maxBodyBytes(0)).hasMessageContaining("0");
    assertThatThrownBy(() -> WebhookConsumer.builder().on("dm*", e -> {}))
        .hasMessageContaining("dm*");
  }

  @Test
  void secrets_neverInToStringOrErrors() {
    WebhookConsumer consumer = builder().build();
    assertThat(consumer.toString()).doesNotContain(SECRET).doesNotContain(OLD_SECRET);
    assertThat(WebhookConsumer.builder().consumerSecrets(SECRET).toString()).doesNotContain(SECRET);
    WebhookResponse refused = answer(consumer, signed("x", envelope("1", "post.create")));
    assertThat(refused.bodyAsString()).doesNotContain(SECRET);
  }

  @Test
  void consumerSecrets_commaSeparated_firstIsCurrent() {
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(SECRET + "," + OLD_SECRET).build();
    assertThat(answer(consumer, WebhookRequest.get("crc_token=t")).bodyAsString())
        .contains(hmac(SECRET, "t"));
    assertThat(answer(consumer, signed(OLD_SECRET, envelope("1", "x.y"))).status()).isEqualTo(200);
  }

  @Test
  void handleWithExecutor_handsOffOnlyWhenListenersMustRun() {
    List<Runnable> handedOff = new ArrayList<>();
    java.util.concurrent.Executor recording = handedOff::add;
    WebhookConsumer consumer =
        builder().on("post.create", e -> seen.add(Thread.currentThread().getName())).build();

    // Nothing to run: answered on the calling thread.
    assertThat(
            consumer.handle(signed(SECRET, envelope("1", "news.new")), recording).join().status())
        .isEqualTo(200);
    assertThat(consumer.handle(WebhookRequest.get("crc_token=a"), recording).join().status())
        .isEqualTo(200);
    assertThat(
            consumer
                .handle(signed("wrong", envelope("2", "post.create")), recording)
                .join()
                .status())
        .isEqualTo(401);
    assertThat(handedOff).isEmpty();

    // A listener to run: handed off, answered when the executor runs it.
    CompletableFuture<WebhookResponse> pending =
        consumer.handle(signed(SECRET, envelope("3", "post.create")), recording);
    assertThat(pending).isNotDone();
    assertThat(handedOff).hasSize(1);
    Thread worker = new Thread(handedOff.get(0), "test-worker");
    worker.start();
    assertThat(pending.join().status()).isEqualTo(200);
    assertThat(seen).containsExactly("test-worker");

    // The duplicate is answered here, without a hand-off.
    assertThat(
            consumer
                .handle(signed(SECRET, envelope("3", "post.create")), recording)
                .join()
                .bodyAsString())
        .contains("\"status\":\"duplicate\"");
    assertThat(handedOff).hasSize(1);
  }

  @Test
  void handleWithExecutor_refused_is503AndClaimReleased() {
    WebhookConsumer consumer = builder().on("post.create", e -> seen.add(e.id())).build();
    java.util.concurrent.Executor full =
        r -> {
          throw new java.util.concurrent.RejectedExecutionException("full");
        };
    WebhookResponse busy =
        consumer.handle(signed(SECRET, envelope("4", "post.create")), full).join();
    assertThat(busy.status()).isEqualTo(503);
    assertThat(busy.bodyAsString()).contains("\"error\":\"busy\"");
    assertThat(
            consumer
                .handle(signed(SECRET, envelope("4", "post.create")), Runnable::run)
                .join()
                .status())
        .isEqualTo(200);
    assertThat(seen).containsExactly("4");
  }

  @Test
  void handleWithExecutor_customStore_isAskedOnTheExecutor() {
    TestStore store = new TestStore(true);
    WebhookConsumer consumer = builder().deduplicator(store).build();
    WebhookConsumer async =
        builder().deduplicator(store).acknowledgement(Acknowledgement.ASYNCHRONOUS).build();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newSingleThreadExecutor(r -> new Thread(r, "store-worker"));
    try {
      assertThat(consumer.handle(signed(SECRET, envelope("5", "news.new")), pool).join().status())
          .isEqualTo(200);
      assertThat(async.handle(signed(SECRET, envelope("6", "news.new")), pool).join().status())
          .isEqualTo(200);
      assertThat(store.claimThreads).containsExactly("store-worker", "store-worker");
    } finally {
      pool.shutdownNow();
      async.close();
    }
  }

  @Test
  void failingMarkDone_answerStays200_loggedNeverThrownOrLeftHanging() {
    TestStore broken = new TestStore(true);
    broken.failMarkDone = key -> true;
    WebhookConsumer consumer =
        builder().deduplicator(broken).on("post.create", e -> seen.add(e.id())).build();
    try (LogCapture logs = new LogCapture()) {
      WebhookResponse direct = consumer.handle(signed(SECRET, envelope("6", "post.create"))).join();
      assertThat(direct.status()).isEqualTo(200);
      assertThat(logs.messages(ch.qos.logback.classic.Level.WARN))
          .anySatisfy(line -> assertThat(line).contains("Dedup store failed (markDone e:6)"));
    }
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      WebhookResponse handedOff =
          consumer
              .handle(signed(SECRET, envelope("7", "post.create")), pool)
              .orTimeout(10, TimeUnit.SECONDS)
              .join();
      assertThat(handedOff.status()).isEqualTo(200);
      assertThat(seen).containsExactly("6", "7");
    } finally {
      pool.shutdownNow();
    }
  }
}
