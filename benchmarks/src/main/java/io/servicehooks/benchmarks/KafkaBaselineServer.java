package io.servicehooks.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Load baseline (b-kafka): what a user would write instead of the consumer's hand-off to Kafka,
 * written plainly. On an Undertow worker thread (the IO thread dispatches): read the body, check
 * the HMAC (a {@link Mac} per thread, constant-time compare), parse with one shared {@link
 * ObjectMapper}, then one {@code producer.send(record).get()} (the body as the value, the filter's
 * {@code user_id} as the key, the event's id and type as headers) and answer 200 once the broker
 * acknowledged it; 503 when it fails or takes more than 5 s. One producer shared by every thread,
 * with the durability the consumer's hand-off has ({@code acks=all}, idempotence) and Kafka's
 * default batching. No dedup: less than the consumer does.
 *
 * <p>{@code KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092 KAFKA_TOPIC=bench PORT=18080 java -cp
 * benchmarks.jar io.servicehooks.benchmarks.KafkaBaselineServer}
 */
public final class KafkaBaselineServer {

  private static final HttpString SIGNATURE = new HttpString("x-service-webhooks-signature");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final ByteBuffer ACCEPTED =
      bytes("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");

  private final SecretKeySpec key;
  private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);
  private final KafkaProducer<String, byte[]> producer;
  private final String topic;

  private KafkaBaselineServer(String secret, KafkaProducer<String, byte[]> producer, String topic) {
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    this.producer = producer;
    this.topic = topic;
  }

  public static void main(String[] args) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, System.getenv("KAFKA_BOOTSTRAP_SERVERS"));
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p);
    String topic = System.getenv("KAFKA_TOPIC");
    KafkaBaselineServer server = new KafkaBaselineServer(BaselineEnv.secret(), producer, topic);
    BaselineEnv.undertow().setHandler(server::handle).build().start();
    Runtime.getRuntime().addShutdownHook(new Thread(producer::close, "b-kafka-shutdown"));
    System.out.println("kafka baseline server on 127.0.0.1:" + BaselineEnv.port() + " -> " + topic);
  }

  private void handle(HttpServerExchange exchange) {
    if (exchange.isInIoThread()) {
      exchange.dispatch(this::handle);
      return;
    }
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
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
    JsonNode data = root.path("data");
    JsonNode id = data.path("event_uuid");
    if (!id.isTextual() && !id.isNumber()) {
      answer(exchange, 400, "{\"error\":\"malformed_payload\"}");
      return;
    }
    RecordHeaders headers = new RecordHeaders();
    headers.add("event-id", id.asText().getBytes(StandardCharsets.UTF_8));
    headers.add("event-type", data.path("event_type").asText("").getBytes(StandardCharsets.UTF_8));
    String user = data.path("filter").path("user_id").asText(null);
    try {
      producer
          .send(new ProducerRecord<>(topic, null, user, body, headers))
          .get(5, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      answer(exchange, 503, "{\"error\":\"inbox_unavailable\"}");
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      answer(exchange, 503, "{\"error\":\"inbox_unavailable\"}");
      return;
    }
    exchange.getResponseSender().send(ACCEPTED.duplicate());
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
