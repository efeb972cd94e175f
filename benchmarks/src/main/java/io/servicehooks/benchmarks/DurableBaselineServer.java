package io.servicehooks.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Load baseline (b-durable): what a user would write instead of the durable inbox, written well. On
 * an Undertow worker thread: read the body, check the HMAC (a {@link Mac} per thread, constant-time
 * compare), parse with one shared {@link ObjectMapper}, then one {@code INSERT ... ON CONFLICT
 * (event_id) DO NOTHING} on a connection of its own from a small HikariCP pool (auto-commit: the
 * statement is its own transaction, so the 200 follows the commit), answer 200 ({@code duplicate}
 * when nothing was inserted), 503 if the database fails. Nothing processes the rows: this measures
 * acknowledgement only.
 *
 * <p>{@code DATABASE_URL=jdbc:postgresql://127.0.0.1:5432/test?user=postgres DATABASE_SCHEMA=bench
 * POOL_SIZE=8 PORT=18080 java -cp benchmarks.jar io.servicehooks.benchmarks.DurableBaselineServer}
 * (creates {@code <schema>.baseline_inbox} when missing).
 */
public final class DurableBaselineServer {

  private static final HttpString SIGNATURE = new HttpString("x-service-webhooks-signature");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final ByteBuffer ACCEPTED =
      bytes("{\"status\":\"accepted\",\"events\":1,\"duplicates\":0}");
  private static final ByteBuffer DUPLICATE =
      bytes("{\"status\":\"duplicate\",\"events\":0,\"duplicates\":1}");

  private final SecretKeySpec key;
  private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);
  private final HikariDataSource pool;
  private final String insert;

  private DurableBaselineServer(String secret, HikariDataSource pool, String table) {
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    this.pool = pool;
    this.insert =
        "INSERT INTO "
            + table
            + " (event_id, event_type, payload_json) VALUES (?, ?, ?) ON CONFLICT (event_id) DO"
            + " NOTHING";
  }

  public static void main(String[] args) throws SQLException {
    String url =
        System.getenv()
            .getOrDefault("DATABASE_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    String schema = System.getenv().getOrDefault("DATABASE_SCHEMA", "bench_baseline");
    int size = Integer.parseInt(System.getenv().getOrDefault("POOL_SIZE", "8"));
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(3_000);
    config.setValidationTimeout(2_000);
    config.addDataSourceProperty("connectTimeout", "3");
    config.addDataSourceProperty("socketTimeout", "8");
    HikariDataSource pool = new HikariDataSource(config);
    String table = schema + ".baseline_inbox";
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + table
              + " (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, event_id text NOT NULL"
              + " UNIQUE, event_type text NOT NULL, payload_json text NOT NULL, received_at"
              + " timestamptz NOT NULL DEFAULT now())");
    }
    DurableBaselineServer server = new DurableBaselineServer(BaselineEnv.secret(), pool, table);
    BaselineEnv.undertow().setHandler(server::handle).build().start();
    System.out.println(
        "durable baseline server on 127.0.0.1:" + BaselineEnv.port() + ", pool " + size);
  }

  private void handle(HttpServerExchange exchange) {
    if (exchange.isInIoThread()) {
      exchange.dispatch(this::handle);
      return;
    }
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
    // Blocking reads on the worker thread: the body, then the database.
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
    boolean fresh;
    try (Connection c = pool.getConnection();
        PreparedStatement s = c.prepareStatement(insert)) {
      s.setQueryTimeout(5);
      s.setString(1, id.asText());
      s.setString(2, data.path("event_type").asText(""));
      s.setString(3, new String(body, StandardCharsets.UTF_8));
      fresh = s.executeUpdate() == 1;
    } catch (SQLException e) {
      answer(exchange, 503, "{\"error\":\"inbox_unavailable\"}");
      return;
    }
    exchange.getResponseSender().send((fresh ? ACCEPTED : DUPLICATE).duplicate());
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
