package io.servicehooks.benchmarks.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Load baseline (c): a plain Spring Boot 4 application on Tomcat whose controller does what
 * servicehooks does for a delivery, by hand: check the HMAC (a {@link Mac} per thread,
 * constant-time compare), parse with one {@link ObjectMapper}, put-if-absent the {@code event_uuid}
 * into a Caffeine cache bounded like the consumer's, answer 200. CRC GETs are signed.
 *
 * <p>{@code SERVICE_CONSUMER_SECRET=... PORT=18080 java -jar spring-baseline.jar}
 */
@SpringBootApplication
@RestController
public class SpringBaseline {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String ACCEPTED = "{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}";
  private static final String DUPLICATE =
      "{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}";

  private final SecretKeySpec key;
  private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);
  private final Cache<String, Boolean> seen =
      Caffeine.newBuilder().expireAfterWrite(Duration.ofHours(24)).maximumSize(1_000_000).build();

  public SpringBaseline() {
    String secret =
        System.getenv()
            .getOrDefault("SERVICE_CONSUMER_SECRET", "bench-consumer-secret-0123456789abcdef");
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  public static void main(String[] args) {
    SpringApplication.run(SpringBaseline.class, args);
  }

  @PostMapping(path = "/webhooks", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> delivery(
      @RequestHeader(name = "x-service-webhooks-signature", required = false) String signature,
      @RequestBody byte[] body) {
    if (signature == null || !signature.startsWith("sha256=")) {
      return ResponseEntity.status(401).body("{\"error\":\"invalid_signature\"}");
    }
    byte[] expected;
    try {
      expected = Base64.getDecoder().decode(signature.substring(7));
    } catch (IllegalArgumentException e) {
      return ResponseEntity.status(401).body("{\"error\":\"invalid_signature\"}");
    }
    if (!MessageDigest.isEqual(macs.get().doFinal(body), expected)) {
      return ResponseEntity.status(401).body("{\"error\":\"invalid_signature\"}");
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (IOException e) {
      return ResponseEntity.badRequest().body("{\"error\":\"malformed_payload\"}");
    }
    JsonNode id = root.path("data").path("event_uuid");
    if (!id.isTextual() && !id.isNumber()) {
      return ResponseEntity.badRequest().body("{\"error\":\"malformed_payload\"}");
    }
    boolean fresh = seen.asMap().putIfAbsent(id.asText(), Boolean.TRUE) == null;
    return ResponseEntity.ok(fresh ? ACCEPTED : DUPLICATE);
  }

  @GetMapping(path = "/webhooks", produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<String> crc(
      @RequestParam(name = "crc_token", required = false) String token) {
    if (token == null || token.isEmpty()) {
      return ResponseEntity.badRequest().body("{\"error\":\"missing_crc_token\"}");
    }
    byte[] mac = macs.get().doFinal(token.getBytes(StandardCharsets.UTF_8));
    return ResponseEntity.ok(
        "{\"response_token\":\"sha256=" + Base64.getEncoder().encodeToString(mac) + "\"}");
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
}
