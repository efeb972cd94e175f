package io.servicehooks.spring;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.core.WebhookConsumer;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable mode's start-up check of a HikariCP pool (Boot's default) against the inbox's documented
 * limits: one WARN line per limit broken, naming the property to change. Referenced only when
 * HikariCP is on the class path.
 */
final class PoolLimits {

  private static final Logger log = LoggerFactory.getLogger(WebhookAutoConfiguration.class);

  private PoolLimits() {}

  /**
   * @return how many limits the pool breaks (each logged once)
   */
  static int check(DataSource dataSource, int writers, int workers) {
    HikariDataSource pool = hikari(dataSource);
    if (pool == null) {
      return 0;
    }
    int broken = 0;
    Duration connectionTimeout = Duration.ofMillis(pool.getConnectionTimeout());
    Duration inboxTimeout = WebhookConsumer.DEFAULT_INBOX_TIMEOUT;
    if (connectionTimeout.compareTo(inboxTimeout) >= 0) {
      broken++;
      log.warn(
          "spring.datasource.hikari.connection-timeout is {} ms, not below the inbox's {} s answer"
              + " budget: while the database does not answer, deliveries wait for a connection"
              + " until the platform gives up instead of being answered 503; set it to 3s",
          connectionTimeout.toMillis(),
          inboxTimeout.toSeconds());
    }
    int needed = writers + workers + 4;
    if (pool.getMaximumPoolSize() < needed) {
      broken++;
      log.warn(
          "spring.datasource.hikari.maximum-pool-size is {}, below the {} the inbox needs"
              + " (servicehooks.webhook.inbox.writers {} + workers {} + 4 for the poller, the"
              + " marker, maintenance and the owner lock's session): stores and workers will wait"
              + " for connections; raise it"
              + " to at least {} plus what the application itself uses",
          pool.getMaximumPoolSize(),
          needed,
          writers,
          workers,
          needed);
    }
    return broken;
  }

  private static HikariDataSource hikari(DataSource dataSource) {
    if (dataSource instanceof HikariDataSource pool) {
      return pool;
    }
    try {
      return dataSource.isWrapperFor(HikariDataSource.class)
          ? dataSource.unwrap(HikariDataSource.class)
          : null;
    } catch (java.sql.SQLException e) {
      return null;
    }
  }
}
