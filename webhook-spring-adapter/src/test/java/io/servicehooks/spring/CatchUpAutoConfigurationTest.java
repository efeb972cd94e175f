package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.catchup.CatchUp;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.registration.WebhookClient;
import java.net.URI;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

final class CatchUpAutoConfigurationTest {

  @TempDir Path dir;

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(WebhookAutoConfiguration.class, CatchUpAutoConfiguration.class))
          .withPropertyValues("servicehooks.webhook.consumer-secrets=test-consumer-secret");

  @Configuration(proxyBeanMethods = false)
  static class Client {
    @Bean
    WebhookClient webhookClient() {
      return WebhookClient.builder()
          .baseUrl(URI.create("http://127.0.0.1:9"))
          .bearerToken("a-token-never-printed")
          .build();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Database {
    @Bean
    DataSource dataSource() {
      org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
      ds.setURL("jdbc:postgresql://127.0.0.1:9/none");
      return ds;
    }
  }

  @Test
  void enabled_unset_noCatchUp() {
    runner
        .withUserConfiguration(Client.class)
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(WebhookConsumer.class)
                    .doesNotHaveBean(CatchUp.class));
  }

  @Test
  void enabled_withWebhookId_fileStoreAndListenerInstalled() {
    runner
        .withUserConfiguration(Client.class)
        .withPropertyValues(
            "servicehooks.webhook.catch-up.enabled=true",
            "servicehooks.webhook.catch-up.webhook-id=1234567890",
            "servicehooks.webhook.catch-up.file=" + dir.resolve("hb"))
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(CatchUp.class);
              assertThat(context.getBean(CatchUp.class).toString())
                  .contains("webhook=1234567890")
                  .contains("FileHeartbeatStore[" + dir.resolve("hb"));
              assertThat(context).hasBean("webhookCatchUpCustomizer");
              assertThat(context).hasSingleBean(WebhookConsumer.class);
            });
  }

  @Test
  void storeAuto_withDataSource_postgres() {
    runner
        .withUserConfiguration(Client.class, Database.class)
        .withPropertyValues(
            "servicehooks.webhook.catch-up.enabled=true",
            "servicehooks.webhook.catch-up.webhook-id=1234567890",
            "servicehooks.webhook.catch-up.create-table=false")
        .run(
            context ->
                assertThat(context.getBean(CatchUp.class).toString())
                    .contains("PostgresHeartbeatStore[table=servicehooks_catchup"));
  }

  @Test
  void enabled_withoutClient_failsNamingWhatIsMissing() {
    runner
        .withPropertyValues(
            "servicehooks.webhook.catch-up.enabled=true",
            "servicehooks.webhook.catch-up.webhook-id=1234567890")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("needs a WebhookClient"));
  }

  @Test
  void enabled_withoutWebhook_failsNamingBothProperties() {
    runner
        .withUserConfiguration(Client.class)
        .withPropertyValues("servicehooks.webhook.catch-up.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("servicehooks.webhook.catch-up.webhook-id")
                    .hasMessageContaining("servicehooks.registration.public-url"));
  }
}
