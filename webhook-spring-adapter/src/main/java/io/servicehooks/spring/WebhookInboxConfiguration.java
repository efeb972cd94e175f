package io.servicehooks.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.postgres.PostgresInbox;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * Durable mode: a {@link PostgresInbox} on the application's {@link DataSource}, given to the
 * consumer (which starts and closes it), with the {@code webhookinbox} endpoint and the {@code
 * webhookInbox} health indicator.
 *
 * <p>Imported by {@link WebhookAutoConfiguration}, so it applies under that class's conditions.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(PostgresInbox.class)
@ConditionalOnProperty(name = "servicehooks.webhook.acknowledgement.mode", havingValue = "durable")
final class WebhookInboxConfiguration {

  /** Closed by the consumer, not by the context: it must stop after the consumer's last use. */
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean
  PostgresInbox webhookInbox(
      WebhookProperties properties,
      ObjectProvider<DataSource> dataSource,
      org.springframework.beans.factory.ListableBeanFactory beans,
      org.springframework.core.env.Environment environment) {
    DataSource ds = dataSource.getIfUnique();
    if (ds == null) {
      throw new WebhookSetupException(
          "servicehooks.webhook.acknowledgement.mode=durable stores events in PostgreSQL through"
              + " the application's DataSource, and the application has "
              + (dataSource.stream().count() == 0 ? "none" : "several and none is primary")
              + ".",
          "Add spring-boot-starter-jdbc and set spring.datasource.url (or define one @Primary"
              + " DataSource bean).");
    }
    WebhookProperties.Inbox inbox = properties.getInbox();
    PostgresInbox.Builder builder =
        PostgresInbox.builder()
            .dataSource(ds)
            .schema(inbox.getSchema())
            .table(inbox.getTable())
            .createSchema(inbox.isCreateSchema())
            .workers(inbox.getWorkers())
            .maxAttempts(inbox.getMaxAttempts())
            .lease(inbox.getLease())
            .backoff(inbox.getBackoffBase(), inbox.getBackoffMax())
            .retention(inbox.getRetention())
            .pollInterval(inbox.getPollInterval())
            .maxPollInterval(inbox.getMaxPollInterval())
            .writers(inbox.getWriters())
            .statementTimeout(inbox.getStatementTimeout());
    if (inbox.getInstanceName() != null && !inbox.getInstanceName().isBlank()) {
      builder.instanceName(inbox.getInstanceName());
    }
    if (ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", null)) {
      PoolLimits.check(ds, inbox.getWriters(), inbox.getWorkers());
    }
    if (org.springframework.util.ClassUtils.isPresent(
        "io.micrometer.core.instrument.MeterRegistry", null)) {
      InboxMeters.register(builder, beans);
    }
    beans
        .getBeanProvider(io.servicehooks.postgres.DeadLetterListener.class)
        .orderedStream()
        .forEach(builder::onDeadLetter);
    if (!inbox.isCreateSchema()) {
      StartupFailures.requireInboxTable(ds, inbox.getSchema(), inbox.getTable(), environment);
    }
    try {
      return builder.build();
    } catch (IllegalStateException e) {
      throw StartupFailures.database(
          "creating the inbox schema " + inbox.getSchema() + "." + inbox.getTable(),
          StartupFailures.CREATE_SCHEMA,
          StartupFailures.INBOX_MIGRATIONS,
          e,
          environment);
    }
  }

  /** Referenced only when Micrometer is on the class path: the inbox's meters in the app's. */
  private static final class InboxMeters {
    static void register(
        PostgresInbox.Builder builder,
        org.springframework.beans.factory.ListableBeanFactory beans) {
      beans.getBeanProvider(MeterRegistry.class).ifUnique(builder::meterRegistry);
    }
  }

  @Bean
  @ConditionalOnMissingBean(name = "webhookInboxCustomizer")
  WebhookConsumerCustomizer webhookInboxCustomizer(PostgresInbox inbox) {
    return builder -> builder.inbox(inbox);
  }

  /** The {@code webhookinbox} endpoint, when the application has the Actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(Endpoint.class)
  static final class InboxEndpointConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(WebhookInboxEndpoint.class)
    WebhookInboxEndpoint webhookInboxEndpoint(PostgresInbox inbox) {
      return new WebhookInboxEndpoint(inbox.admin());
    }
  }

  /** The {@code webhookInbox} health indicator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("webhookinbox")
  static final class InboxHealthConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "webhookInboxHealthIndicator")
    HealthIndicator webhookInboxHealthIndicator(PostgresInbox inbox) {
      return new WebhookInboxHealthIndicator(inbox.admin(), inbox::problem);
    }

    /** The inbox in Boot's readiness group, when there is one. */
    @Bean
    @ConditionalOnClass(
        name = "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor")
    @ConditionalOnProperty(
        name = "servicehooks.webhook.inbox.readiness",
        havingValue = "true",
        matchIfMissing = true)
    static InboxReadiness webhookInboxReadiness() {
      return new InboxReadiness();
    }
  }
}
