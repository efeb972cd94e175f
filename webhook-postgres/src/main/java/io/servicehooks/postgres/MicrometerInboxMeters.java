package io.servicehooks.postgres;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/** {@link InboxMeters} on Micrometer; the only class that names Micrometer types. */
final class MicrometerInboxMeters implements InboxMeters {

  private final MeterRegistry registry;
  private volatile double pending = Double.NaN;
  private volatile double orphaned = Double.NaN;
  private volatile double dead = Double.NaN;
  private volatile double lag = Double.NaN;
  private Timer done;
  private Timer retry;
  private Timer deadTimer;
  private Counter retries;
  private Counter deadLettered;

  MicrometerInboxMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void bind(PostgresInbox.Settings settings) {
    String table = settings.tables.qualified;
    // Gauges read the last refresh: a scrape never queries the database.
    Gauge.builder("webhook.inbox.pending", this, m -> m.pending)
        .description("Inbox rows not handled yet (pending or running)")
        .tag("table", table)
        .register(registry);
    Gauge.builder("webhook.inbox.orphaned", this, m -> m.orphaned)
        .description(
            "Inbox rows taken back from a process that is gone (its database session ended),"
                + " not run again yet")
        .tag("table", table)
        .register(registry);
    Gauge.builder("webhook.inbox.dead", this, m -> m.dead)
        .description("Inbox dead letters")
        .tag("table", table)
        .register(registry);
    Gauge.builder("webhook.inbox.lag", this, m -> m.lag)
        .description("Age of the oldest due inbox row")
        .baseUnit("seconds")
        .tag("table", table)
        .register(registry);
    done = timer(table, "done");
    retry = timer(table, "retry");
    deadTimer = timer(table, "dead");
    retries =
        Counter.builder("webhook.inbox.retries")
            .description("Failed attempts that will be retried")
            .tag("table", table)
            .register(registry);
    deadLettered =
        Counter.builder("webhook.inbox.dead.lettered")
            .description("Rows that became dead letters")
            .tag("table", table)
            .register(registry);
  }

  private Timer timer(String table, String outcome) {
    return Timer.builder("webhook.inbox.processing")
        .description("One attempt at an inbox row's listeners")
        .tag("table", table)
        .tag("outcome", outcome)
        .register(registry);
  }

  @Override
  public boolean wantsGauges() {
    return true;
  }

  @Override
  public void gauges(long pending, long orphaned, long dead, double lagSeconds) {
    this.pending = pending;
    this.orphaned = orphaned;
    this.dead = dead;
    this.lag = lagSeconds;
  }

  @Override
  public void processed(String outcome, long nanos) {
    switch (outcome) {
      case "done":
        done.record(nanos, TimeUnit.NANOSECONDS);
        break;
      case "retry":
        retry.record(nanos, TimeUnit.NANOSECONDS);
        retries.increment();
        break;
      default:
        deadTimer.record(nanos, TimeUnit.NANOSECONDS);
        deadLettered.increment();
    }
  }

  @Override
  public String toString() {
    return "MicrometerInboxMeters";
  }
}
