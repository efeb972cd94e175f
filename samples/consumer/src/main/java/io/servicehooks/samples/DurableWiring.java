package io.servicehooks.samples;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.postgres.DatabaseMessages;
import io.servicehooks.postgres.PostgresInbox;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone consumer's durable mode: opens the inbox's pool from {@link DatabaseSettings},
 * builds the {@link PostgresInbox} on it and makes it the consumer's; a database it cannot use is a
 * {@link StandaloneConsumer.DatabaseUnavailableException} without the password.
 */
final class DurableWiring {

  private static final Logger log = LoggerFactory.getLogger("servicehooks.consumer");

  /** The pool and the inbox on it. */
  record Durable(HikariDataSource pool, PostgresInbox inbox) {}

  private DurableWiring() {}

  /**
   * Opens the pool (one connection at once, so an unreachable database fails here), builds the
   * inbox on it and makes it the consumer's. The listeners run on {@code workerThreads} inbox
   * workers.
   */
  static Durable install(
      StandaloneConsumer.Settings settings,
      DatabaseSettings database,
      MeterRegistry registry,
      WebhookConsumer.Builder builder) {
    int workers =
        settings.workerThreads() > 0 ? settings.workerThreads() : PostgresInbox.DEFAULT_WORKERS;
    HikariDataSource pool;
    try {
      // writers + workers + the poller, the marker, maintenance and the owner lock's session
      pool = database.pool(PostgresInbox.DEFAULT_WRITERS + workers + 4);
    } catch (java.sql.SQLException | RuntimeException e) {
      throw new StandaloneConsumer.DatabaseUnavailableException(
          "cannot connect to the database at "
              + database.redactedUrl()
              + ": "
              + reason(e, database.password()));
    }
    PostgresInbox built;
    try {
      PostgresInbox.Builder inbox =
          PostgresInbox.builder()
              .dataSource(pool)
              .schema(database.schema())
              .createSchema(database.createSchema())
              .workers(workers)
              .meterRegistry(registry);
      if (database.maxAttempts() > 0) {
        inbox.maxAttempts(database.maxAttempts());
      }
      if (database.retryBase() != null) {
        Duration max =
            database.retryBase().compareTo(PostgresInbox.DEFAULT_BACKOFF_MAX) > 0
                ? database.retryBase()
                : PostgresInbox.DEFAULT_BACKOFF_MAX;
        inbox.backoff(database.retryBase(), max);
      }
      if (database.lease() != null) {
        inbox.lease(database.lease());
      }
      if (database.instanceName() != null) {
        inbox.instanceName(database.instanceName());
      }
      built = inbox.build();
      builder.inbox(built);
    } catch (RuntimeException e) {
      pool.close();
      throw new StandaloneConsumer.DatabaseUnavailableException(
          "cannot set up the inbox in schema "
              + database.schema()
              + " at "
              + database.redactedUrl()
              + ": "
              + reason(e, database.password()));
    }
    log.info(
        "Durable mode: deliveries are answered once stored in {}.{} at {} (user {}), {} workers",
        database.schema(),
        PostgresInbox.DEFAULT_TABLE,
        database.redactedUrl(),
        database.user() == null ? "from the URL" : database.user(),
        workers);
    return new Durable(pool, built);
  }

  /**
   * The innermost cause's class and first line, through the inbox's scrub: the server may repeat a
   * user name that swallowed the password, and the driver a {@code password=} parameter.
   */
  private static String reason(Throwable e, String password) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message =
        root.getMessage() == null ? "" : root.getMessage().lines().findFirst().orElse("");
    return DatabaseMessages.scrub(root.getClass().getSimpleName() + ": " + message, password);
  }
}
