package io.servicehooks.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.SameThreadExecutor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Load baseline (b-redis): what a user would write instead of the consumer's Redis dedup, written
 * well. Read the body, check the HMAC (a {@link Mac} per thread, constant-time compare), parse with
 * one shared {@link ObjectMapper}, then {@code SET <prefix>:<event_uuid> c NX PX 30000} (the claim,
 * a 30 s lease): when it was set, nothing to run (as the consumer jar with {@code
 * LOG_EVENTS=false}), {@code SET <key> d PX 86400000} (done for 24 h) and answer 200 {@code
 * accepted}; when the key was there, 200 {@code duplicate}; 503 when Redis fails. No owner token,
 * no lease renewal, no release of a failed claim: less than the consumer promises.
 *
 * <p>One Lettuce connection shared by every thread (Lettuce pipelines their commands), command
 * time-out 2 s. {@code B_REDIS_MODE=sync} (default): on an Undertow worker thread with Lettuce's
 * synchronous API, as {@code b-durable} does with JDBC; {@code async}: on the IO thread with
 * Lettuce's asynchronous API, the answer written from Lettuce's thread.
 *
 * <p>{@code REDIS_URL=redis://127.0.0.1:6379 REDIS_PREFIX=bench PORT=18080 java -cp benchmarks.jar
 * io.servicehooks.benchmarks.RedisBaselineServer}
 */
public final class RedisBaselineServer {

  private static final HttpString SIGNATURE = new HttpString("x-service-webhooks-signature");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final ByteBuffer ACCEPTED =
      bytes("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
  private static final ByteBuffer DUPLICATE =
      bytes("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}");
  private static final SetArgs CLAIM = SetArgs.Builder.nx().px(30_000);
  private static final SetArgs DONE = SetArgs.Builder.px(86_400_000);

  private final SecretKeySpec key;
  private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);
  private final String prefix;
  private final RedisCommands<String, String> sync;
  private final RedisAsyncCommands<String, String> async;
  private final boolean blocking;

  private RedisBaselineServer(
      String secret, String prefix, StatefulRedisConnection<String, String> c, boolean blocking) {
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    this.prefix = prefix + ":";
    this.sync = c.sync();
    this.async = c.async();
    this.blocking = blocking;
  }

  public static void main(String[] args) {
    String url = System.getenv().getOrDefault("REDIS_URL", "redis://127.0.0.1:6379");
    String prefix = System.getenv().getOrDefault("REDIS_PREFIX", "servicehooks-bench:b-redis");
    boolean blocking = !"async".equals(System.getenv().getOrDefault("B_REDIS_MODE", "sync"));
    RedisURI uri = RedisURI.create(url);
    uri.setTimeout(Duration.ofSeconds(2));
    StatefulRedisConnection<String, String> connection = RedisClient.create(uri).connect();
    RedisBaselineServer server =
        new RedisBaselineServer(BaselineEnv.secret(), prefix, connection, blocking);
    BaselineEnv.undertow().setHandler(server::handle).build().start();
    System.out.println(
        "redis baseline server on 127.0.0.1:"
            + BaselineEnv.port()
            + ", "
            + (blocking ? "sync on workers" : "async on the IO thread"));
  }

  private void handle(HttpServerExchange exchange) {
    if (blocking && exchange.isInIoThread()) {
      exchange.dispatch(this::handle);
      return;
    }
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
    if (blocking) {
      exchange.startBlocking();
      byte[] body;
      try {
        body = exchange.getInputStream().readAllBytes();
      } catch (IOException e) {
        exchange.setStatusCode(400);
        exchange.endExchange();
        return;
      }
      delivery(exchange, body);
    } else {
      exchange.getRequestReceiver().receiveFullBytes(this::delivery);
    }
  }

  private void delivery(HttpServerExchange exchange, byte[] body) {
    String signature = exchange.getRequestHeaders().getFirst(SIGNATURE);
    if (signature == null || !signature.startsWith("sha256=")) {
      answer(exchange, 401, "{\"error\":\"invalid_signature\"}");
      return;
    }
    byte[] expected;
    try {
      expected = Base64.getDecoder().decode(signature.substring(7));
    } catch (IllegalArgumentException e) {
      answer(exchange, 401, "{\"error\":\"invalid_signature\"}");
      return;
    }
    if (!MessageDigest.isEqual(macs.get().doFinal(body), expected)) {
      answer(exchange, 401, "{\"error\":\"invalid_signature\"}");
      return;
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (IOException e) {
      answer(exchange, 400, "{\"error\":\"malformed_payload\"}");
      return;
    }
    JsonNode id = root.path("data").path("event_uuid");
    if (!id.isTextual() && !id.isNumber()) {
      answer(exchange, 400, "{\"error\":\"malformed_payload\"}");
      return;
    }
    String redisKey = prefix + id.asText();
    if (blocking) {
      boolean fresh;
      try {
        fresh = "OK".equals(sync.set(redisKey, "c", CLAIM));
        if (fresh) {
          sync.set(redisKey, "d", DONE);
        }
      } catch (RuntimeException e) {
        answer(exchange, 503, "{\"error\":\"dedup_unavailable\"}");
        return;
      }
      exchange.getResponseSender().send((fresh ? ACCEPTED : DUPLICATE).duplicate());
      return;
    }
    exchange.dispatch(
        SameThreadExecutor.INSTANCE,
        () ->
            async
                .set(redisKey, "c", CLAIM)
                .thenCompose(
                    claimed ->
                        "OK".equals(claimed)
                            ? async.set(redisKey, "d", DONE).thenApply(done -> Boolean.TRUE)
                            : java.util.concurrent.CompletableFuture.completedFuture(Boolean.FALSE))
                .whenComplete(
                    (fresh, failure) -> {
                      if (failure != null) {
                        answer(exchange, 503, "{\"error\":\"dedup_unavailable\"}");
                      } else {
                        exchange
                            .getResponseSender()
                            .send((fresh ? ACCEPTED : DUPLICATE).duplicate());
                      }
                    }));
  }

  private static void answer(HttpServerExchange exchange, int status, String json) {
    exchange.setStatusCode(status);
    exchange.getResponseSender().send(json);
  }

  private Mac newMac() {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();
  }
}
