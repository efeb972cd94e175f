package io.servicehooks.starter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With this one dependency (its test class path is what an application gets from it) everything
 * durable mode, registration and catch-up need is there; only spring-boot-starter-jdbc (the
 * DataSource and HikariCP) is the application's to add.
 */
final class StarterContentsTest {

  private static boolean present(String className) {
    try {
      Class.forName(className, false, StarterContentsTest.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  @Test
  void starter_bringsTheAdapterDurableModeRegistrationAndCatchUp() {
    for (String needed :
        List.of(
            "io.servicehooks.spring.WebhookAutoConfiguration",
            "io.servicehooks.spring.CatchUpAutoConfiguration",
            "io.servicehooks.postgres.PostgresInbox",
            "io.servicehooks.registration.WebhookClient",
            "io.servicehooks.catchup.CatchUp",
            "org.postgresql.Driver")) {
      assertThat(present(needed)).as(needed).isTrue();
    }
  }

  @Test
  void starter_leavesTheJdbcStarterRedisAndKafkaToTheApplication() {
    // DataSourceAutoConfiguration comes with spring-boot-starter-jdbc, which the application adds;
    // webhook-redis only for dedup on Redis (not needed in durable mode); webhook-kafka only for
    // an edge that hands its events to Kafka (servicehooks.webhook.kafka.topic).
    assertThat(present("com.zaxxer.hikari.HikariDataSource")).isFalse();
    assertThat(present("io.servicehooks.redis.RedisDeduplicator")).isFalse();
    assertThat(present("io.servicehooks.kafka.KafkaHandOff")).isFalse();
    assertThat(present("org.apache.kafka.clients.producer.KafkaProducer")).isFalse();
  }
}
