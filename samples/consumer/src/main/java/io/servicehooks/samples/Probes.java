package io.servicehooks.samples;

import io.servicehooks.kafka.KafkaBrokerCheck;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * The standalone consumer's Kubernetes-style probes. {@code /health/live}: 200 while the process
 * serves at all (restarting would not fix a database). {@code /health/ready}: 503 while the
 * consumer is stopping and, in durable mode, while the inbox database does not answer (the instance
 * could store nothing and would answer every delivery 503); 200 otherwise. The database check is
 * one connection validation, at most once a second whatever the probe rate. With Kafka, {@code
 * /health/ready} is 503 too while no broker answers ({@link KafkaBrokerCheck}, cached likewise): an
 * edge could hand nothing over, a reader could read nothing.
 */
final class Probes {

  /** How long one database check answers for. */
  static final long CHECK_EVERY_NANOS = 1_000_000_000L;

  private final DataSource database; // null: nothing outside the process to check
  private final KafkaBrokerCheck brokers; // null: no Kafka
  private final LongSupplier nanoTime;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final Object checking = new Object();
  private volatile long checkedAt;
  private volatile boolean databaseAnswers = true;
  private volatile boolean checked;

  Probes(DataSource database, LongSupplier nanoTime) {
    this(database, null, nanoTime);
  }

  Probes(DataSource database, KafkaBrokerCheck brokers, LongSupplier nanoTime) {
    this.database = database;
    this.brokers = brokers;
    this.nanoTime = nanoTime;
  }

  /** From now on {@code /health/ready} answers 503: the load balancer stops sending deliveries. */
  void stopping() {
    stopping.set(true);
  }

  HttpHandler live() {
    return exchange -> json(exchange, 200, "{\"status\":\"UP\"}");
  }

  HttpHandler ready() {
    return exchange -> {
      if ((database != null || brokers != null) && exchange.isInIoThread()) {
        exchange.dispatch(ready()); // the check blocks on the database or the brokers
        return;
      }
      if (stopping.get()) {
        json(exchange, 503, "{\"status\":\"DOWN\",\"reason\":\"stopping\"}");
      } else if (!databaseAnswers()) {
        json(
            exchange,
            503,
            "{\"status\":\"DOWN\",\"reason\":\"the inbox database does not answer\"}");
      } else if (brokers != null && !brokers.answers()) {
        json(exchange, 503, "{\"status\":\"DOWN\",\"reason\":\"no Kafka broker answers\"}");
      } else {
        json(exchange, 200, "{\"status\":\"UP\"}");
      }
    };
  }

  boolean databaseAnswers() {
    if (database == null) {
      return true;
    }
    synchronized (checking) {
      long now = nanoTime.getAsLong();
      if (!checked || now - checkedAt >= CHECK_EVERY_NANOS) {
        databaseAnswers = check();
        checkedAt = nanoTime.getAsLong();
        checked = true;
      }
      return databaseAnswers;
    }
  }

  private boolean check() {
    try (Connection c = database.getConnection()) {
      return c.isValid(2);
    } catch (SQLException | RuntimeException e) {
      return false;
    }
  }

  private static void json(HttpServerExchange exchange, int status, String body) {
    exchange.setStatusCode(status);
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
    exchange.getResponseSender().send(body);
  }
}
