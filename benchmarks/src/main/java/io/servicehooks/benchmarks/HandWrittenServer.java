package io.servicehooks.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
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
 * Load baseline (b): what a user would write instead of servicehooks, written well. On the IO
 * thread: read the body, check the HMAC (a {@link Mac} per thread, constant-time compare), parse
 * with one shared {@link ObjectMapper}, put-if-absent the {@code event_uuid} into a Caffeine cache
 * bounded like the consumer's (24 h, one million ids), answer 200. CRC GETs are signed.
 *
 * <p>{@code PORT=18080 java -cp benchmarks.jar io.servicehooks.benchmarks.HandWrittenServer}
 */
public final class HandWrittenServer {

  private static final HttpString SIGNATURE = new HttpString("x-service-webhooks-signature");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final ByteBuffer ACCEPTED =
      bytes("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
  private static final ByteBuffer DUPLICATE =
      bytes("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}");

  private final SecretKeySpec key;
  private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);
  private final Cache<String, Boolean> seen =
      Caffeine.newBuilder().expireAfterWrite(Duration.ofHours(24)).maximumSize(1_000_000).build();

  private HandWrittenServer(String secret) {
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  public static void main(String[] args) {
    HandWrittenServer server = new HandWrittenServer(BaselineEnv.secret());
    BaselineEnv.undertow().setHandler(server::handle).build().start();
    System.out.println("hand-written server on 127.0.0.1:" + BaselineEnv.port());
  }

  private void handle(HttpServerExchange exchange) {
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
    if (Methods.POST.equals(exchange.getRequestMethod())) {
      exchange.getRequestReceiver().receiveFullBytes(this::delivery);
    } else {
      crc(exchange);
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
    boolean fresh = seen.asMap().putIfAbsent(id.asText(), Boolean.TRUE) == null;
    exchange.getResponseSender().send((fresh ? ACCEPTED : DUPLICATE).duplicate());
  }

  private void crc(HttpServerExchange exchange) {
    var token = exchange.getQueryParameters().get("crc_token");
    if (token == null || token.isEmpty() || token.getFirst().isEmpty()) {
      answer(exchange, 400, "{\"error\":\"missing_crc_token\"}");
      return;
    }
    byte[] mac = macs.get().doFinal(token.getFirst().getBytes(StandardCharsets.UTF_8));
    exchange
        .getResponseSender()
        .send("{\"response_token\":\"sha256=" + Base64.getEncoder().encodeToString(mac) + "\"}");
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
