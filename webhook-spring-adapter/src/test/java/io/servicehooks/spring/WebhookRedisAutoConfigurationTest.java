package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.redis.RedisDeduplicator;
import io.servicehooks.testkit.TestSigner;
import io.servicehooks.testsupport.TestRedis;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code servicehooks.webhook.dedup.redis.*} against a real Redis. */
@ExtendWith(OutputCaptureExtension.class)
final class WebhookRedisAutoConfigurationTest {

  private static final String SECRET = "redis-adapter-test-consumer-secret-0123456789";
  private static final String PASSWORD = "not-a-real-redis-password-4711";

  private final TestRedis redis = TestRedis.shared();

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  WebhookAutoConfiguration.class, WebhookRedisAutoConfiguration.class))
          .withPropertyValues("servicehooks.webhook.consumer-secrets=" + SECRET);

  @AfterEach
  void tearDown() {
    redis.close();
  }

  private static WebhookResponse deliver(WebhookConsumer consumer, String id) {
    String json =
        "{\"data\":{\"event_uuid\":\"" + id + "\",\"event_type\":\"NewsNew\",\"payload\":{}}}";
    return consumer
        .handle(
            WebhookRequest.post(
                TestSigner.sign(SECRET, json), json.getBytes(StandardCharsets.UTF_8)))
        .toCompletableFuture()
        .join();
  }

  @Test
  void url_createsRedisStore_consumerDedupsInRedisUnderThePrefix(CapturedOutput output) {
    runner
        .withPropertyValues(
            "servicehooks.webhook.dedup.redis.url=" + redis.urlWithPassword(PASSWORD),
            "servicehooks.webhook.dedup.redis.prefix=" + redis.prefix,
            "servicehooks.webhook.dedup.redis.command-timeout=1500ms",
            "servicehooks.webhook.dedup.window=2h")
        .withBean(
            io.servicehooks.core.WebhookListener.class,
            () -> event -> {}) // something to run, so events are claimed and marked done
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(RedisDeduplicator.class);
              RedisDeduplicator store = context.getBean(RedisDeduplicator.class);
              assertThat(store.prefix()).isEqualTo(redis.prefix);
              assertThat(store.commandTimeout()).isEqualTo(Duration.ofMillis(1500));
              assertThat(store.window()).isEqualTo(Duration.ofHours(2));

              WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
              WebhookResponse first = deliver(consumer, "1");
              assertThat(first.status()).isEqualTo(200);
              assertThat(first.bodyAsString()).contains("accepted");
              String key = redis.prefix + ":{e:1}";
              assertThat(redis.keys()).containsExactly(key);
              assertThat(redis.admin().get(key)).isEqualTo("d");
              assertThat(redis.admin().pttl(key))
                  .isBetween(Duration.ofHours(2).minusMinutes(1).toMillis(), 7_200_000L);

              // A second instance's memory: the key in Redis, not this store, makes it a copy.
              assertThat(deliver(consumer, "1").bodyAsString()).contains("duplicate");
            });
    assertThat(output).contains("Webhook dedup on Redis").doesNotContain(PASSWORD);
  }

  @Test
  void url_twoContexts_shareOneMemory() {
    WebApplicationContextRunner instance =
        runner
            .withPropertyValues(
                "servicehooks.webhook.dedup.redis.url=" + redis.url,
                "servicehooks.webhook.dedup.redis.prefix=" + redis.prefix)
            .withBean(io.servicehooks.core.WebhookListener.class, () -> event -> {});
    instance.run(
        a ->
            assertThat(deliver(a.getBean(WebhookConsumer.class), "7").bodyAsString())
                .contains("accepted"));
    instance.run(
        b ->
            assertThat(deliver(b.getBean(WebhookConsumer.class), "7").bodyAsString())
                .contains("duplicate"));
  }

  @Test
  void enabled_withApplicationsRedisClient_storeUsesItAndLeavesItOpen() {
    RedisClient client = RedisClient.create(redis.url);
    try {
      runner
          .withPropertyValues(
              "servicehooks.webhook.dedup.redis.enabled=true",
              "servicehooks.webhook.dedup.redis.prefix=" + redis.prefix)
          .withBean(RedisClient.class, () -> client, d -> d.setDestroyMethodName(""))
          .withBean(io.servicehooks.core.WebhookListener.class, () -> event -> {})
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                RedisDeduplicator store = context.getBean(RedisDeduplicator.class);
                assertThat(store.toString()).contains("the application's RedisClient");
                assertThat(deliver(context.getBean(WebhookConsumer.class), "3").status())
                    .isEqualTo(200);
                assertThat(redis.keys()).containsExactly(redis.prefix + ":{e:3}");
              });
      // The context closed the store's connection, not the application's client.
      try (var connection = client.connect()) {
        assertThat(connection.sync().ping()).isEqualTo("PONG");
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void enabled_withoutUrlOrClient_failsNamingWhatIsMissing() {
    runner
        .withPropertyValues("servicehooks.webhook.dedup.redis.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("servicehooks.webhook.dedup.redis.enabled=true puts")
                    .hasMessageContaining("servicehooks.webhook.dedup.redis.url"));
  }

  @Test
  void withoutProperty_inMemoryStoreStays_evenWithARedisClientBean() {
    RedisClient client = RedisClient.create(redis.url);
    try {
      runner
          .withBean(RedisClient.class, () -> client, d -> d.setDestroyMethodName(""))
          .withBean(io.servicehooks.core.WebhookListener.class, () -> event -> {})
          .run(
              context -> {
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(WebhookConsumer.class)
                    .doesNotHaveBean(RedisDeduplicator.class);
                WebhookConsumer consumer = context.getBean(WebhookConsumer.class);
                assertThat(deliver(consumer, "5").bodyAsString()).contains("accepted");
                assertThat(deliver(consumer, "5").bodyAsString()).contains("duplicate");
                assertThat(redis.admin().keys("*:{e:5}")).isEmpty();
              });
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void badUrl_failsStartUpWithoutThePassword() {
    runner
        .withPropertyValues(
            "servicehooks.webhook.dedup.redis.url=http://app:" + PASSWORD + "@redis.internal:6379")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith(
                        "servicehooks.webhook.dedup.redis.url is not a Redis URL: ")
                    .hasMessageContaining("http://***@redis.internal:6379")
                    .hasMessageNotContaining(PASSWORD));
  }

  @Test
  void applicationsOwnDeduplicator_wins() {
    runner
        .withPropertyValues("servicehooks.webhook.dedup.redis.url=" + redis.url)
        .withUserConfiguration(OwnDeduplicator.class)
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(RedisDeduplicator.class)
                    .hasBean("ownDeduplicator"));
  }

  @Test
  void withoutWebhookRedis_noProperty_endpointStillRuns() {
    runner
        .withClassLoader(new FilteredClassLoader(RedisDeduplicator.class, RedisClient.class))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(WebhookConsumer.class)
                    .doesNotHaveBean("webhookRedisDeduplicator"));
  }

  @Test
  void withoutWebhookRedis_urlSet_failsNamingTheModule() {
    runner
        .withClassLoader(new FilteredClassLoader(RedisDeduplicator.class, RedisClient.class))
        .withPropertyValues("servicehooks.webhook.dedup.redis.url=" + redis.url)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "io.servicehooks:webhook-redis is not on the class path"));
  }

  /** Every property in this module's generated metadata, by name. */
  private Map<String, JsonNode> metadata() throws Exception {
    Map<String, JsonNode> properties = new HashMap<>();
    ObjectMapper mapper = new ObjectMapper();
    for (URL file :
        Collections.list(
            getClass()
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
      try (InputStream in = file.openStream()) {
        for (JsonNode property : mapper.readTree(in).path("properties")) {
          properties.put(property.path("name").asText(), property);
        }
      }
    }
    return properties;
  }

  @Test
  void metadata_everyServicehooksPropertyIsKnownToTheMisspellingCheck() throws Exception {
    List<String> names =
        metadata().keySet().stream().filter(n -> n.startsWith("servicehooks.")).toList();
    assertThat(names)
        .contains(
            "servicehooks.webhook.dedup.redis.enabled",
            "servicehooks.webhook.dedup.redis.url",
            "servicehooks.webhook.dedup.redis.prefix",
            "servicehooks.webhook.dedup.redis.command-timeout");
    assertThat(UnknownProperties.KNOWN).containsAll(names);
  }

  @Test
  void metadata_defaultsAreTheStoresDefaults() throws Exception {
    Map<String, JsonNode> defaults = new HashMap<>();
    metadata()
        .forEach(
            (name, property) -> {
              if (property.has("defaultValue")) {
                defaults.put(name, property.path("defaultValue"));
              }
            });
    assertThat(defaults.get("servicehooks.webhook.dedup.redis.prefix").asText())
        .isEqualTo(RedisDeduplicator.DEFAULT_PREFIX);
    assertThat(
            DurationStyle.detectAndParse(
                defaults.get("servicehooks.webhook.dedup.redis.command-timeout").asText()))
        .isEqualTo(RedisDeduplicator.DEFAULT_COMMAND_TIMEOUT);
    WebhookProperties.Redis fresh = new WebhookProperties().getDedup().getRedis();
    assertThat(fresh.getPrefix()).isEqualTo(RedisDeduplicator.DEFAULT_PREFIX);
    assertThat(fresh.getCommandTimeout()).isEqualTo(RedisDeduplicator.DEFAULT_COMMAND_TIMEOUT);
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnDeduplicator {
    @Bean
    io.servicehooks.core.Deduplicator ownDeduplicator() {
      return io.servicehooks.core.Deduplicator.inMemory();
    }
  }
}
