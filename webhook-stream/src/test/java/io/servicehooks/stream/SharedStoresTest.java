package io.servicehooks.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.postgres.PostgresInbox;
import io.servicehooks.redis.RedisDeduplicator;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testsupport.TcpProxy;
import io.servicehooks.testsupport.TestDatabase;
import io.servicehooks.testsupport.TestRedis;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The stream on real stores: durable mode on PostgreSQL with the database cut away (the stream
 * stops taking, nothing is lost), and the platform's hot-failover advice, two consumers each
 * holding a stream on one Redis (each event runs once).
 */
final class SharedStoresTest {

  private final List<AutoCloseable> open = new ArrayList<>();
  private final List<String> handled = new CopyOnWriteArrayList<>();
  private final ManualClock clock = new ManualClock(ActivityStreamTest.T0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private PlatformSimulator simulator;

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private void simulator() {
    simulator =
        PlatformSimulator.builder()
            .clock(Clock.fixed(ActivityStreamTest.T0, ZoneOffset.UTC))
            .streamKeepAliveOnSimulatorClock(true)
            .build()
            .start();
    open.add(simulator);
  }

  private WebhookClient client() {
    return WebhookClient.builder()
        .baseUrl(simulator.baseUrl())
        .apiCredentials(simulator.apiKey(), simulator.apiSecret())
        .build();
  }

  private ActivityStream started(WebhookConsumer consumer, ManualClock streamClock) {
    ActivityStream stream =
        ActivityStream.builder(consumer, client())
            .clock(streamClock)
            .random(() -> 0)
            .meterRegistry(registry)
            .build();
    open.add(0, stream);
    return stream.start();
  }

  private static String event(String id) {
    return Events.activity(id, "post.create", Map.of("user_id", "2244994945"), null, Map.of());
  }

  @Test
  void durable_databaseCut_streamStopsTaking_nothingLost() throws Exception {
    simulator();
    Matcher m = Pattern.compile("//([^:/]+):(\\d+)").matcher(TestDatabase.url());
    assertThat(m.find()).isTrue();
    TcpProxy proxy = new TcpProxy(m.group(1), Integer.parseInt(m.group(2))).start();
    open.add(proxy);
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(TestDatabase.url().replace(m.group(0), "//127.0.0.1:" + proxy.port()));
    pool.setMaximumPoolSize(6);
    pool.setConnectionTimeout(1000);
    pool.setValidationTimeout(500);
    pool.addDataSourceProperty("socketTimeout", "3");
    HikariDataSource dataSource = new HikariDataSource(pool);
    TestDatabase.Schema schema = TestDatabase.schemaToBeCreated();
    open.add(schema);
    open.add(0, dataSource);
    PostgresInbox inbox =
        PostgresInbox.builder()
            .dataSource(dataSource)
            .schema(schema.name)
            .createSchema(true)
            .workers(1)
            .pollInterval(Duration.ofMillis(50))
            .maxPollInterval(Duration.ofMillis(200))
            .statementTimeout(Duration.ofSeconds(2))
            .build();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(simulator.consumerSecret())
            .inbox(inbox)
            .inboxTimeout(Duration.ofSeconds(2))
            .onAny(event -> handled.add(event.id()))
            .build();
    open.add(0, consumer);
    ActivityStream stream = started(consumer, clock);
    await().until(() -> stream.state() == ActivityStream.State.CONNECTED);
    simulator.deliverToStream(event("before"));
    await().until(() -> handled.contains("before"));

    proxy.stop();
    simulator.deliverToStream(event("during-1"));
    simulator.deliverToStream(event("during-2"));

    // The inbox cannot store: the stream stops taking and reconnects, asking for the events again.
    await().atMost(Duration.ofSeconds(15)).until(() -> !clock.reconnectWaits().isEmpty());
    assertThat(clock.reconnectWaits().get(0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(registry.counter("webhook.stream.reconnects", "cause", "not_taken").count())
        .isGreaterThanOrEqualTo(1.0);
    assertThat(handled).containsExactly("before");

    proxy.start();
    // Each reconnect asks for the minutes since the first event not taken; play the waits the
    // stream asks until both events are in (a reconnect may still meet a pool healing itself).
    await()
        .atMost(Duration.ofSeconds(40))
        .until(
            () -> {
              List<Duration> waits = clock.reconnectWaits();
              if (stream.state() == ActivityStream.State.CONNECTING && played < waits.size()) {
                Duration wait = waits.get(played++);
                simulator.advance(wait);
                clock.advance(wait);
              }
              return handled.containsAll(List.of("during-1", "during-2"));
            });
    simulator.deliverToStream(event("after"));
    await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains("after"));
    // each once; durable mode promises no order (the inbox's workers take due rows as they come,
    // and the two refused events came back in one backfill)
    assertThat(handled).containsExactlyInAnyOrder("before", "during-1", "during-2", "after");
    assertThat(handled.get(0)).isEqualTo("before");
    assertThat(schema.number("SELECT count(*) FROM " + schema.table())).isEqualTo(4);
  }

  private int played;

  @Test
  void redundantStreams_twoConsumersOnOneRedis_eachEventRunsOnce() {
    simulator();
    TestRedis redis = TestRedis.shared();
    open.add(redis);
    List<ActivityStream> streams = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      RedisDeduplicator store = RedisDeduplicator.builder(redis.url).prefix(redis.prefix).build();
      String name = "consumer-" + i;
      WebhookConsumer consumer =
          WebhookConsumer.builder()
              .consumerSecrets(simulator.consumerSecret())
              .deduplicator(store)
              .onAny(event -> handled.add(event.id() + " " + name))
              .build();
      open.add(0, store);
      open.add(0, consumer);
      streams.add(started(consumer, new ManualClock(ActivityStreamTest.T0)));
    }
    await().until(() -> simulator.openStreams().size() == 2);

    for (int i = 0; i < 50; i++) {
      assertThat(simulator.deliverToStream(event("e" + i))).isEqualTo(2); // on both streams
    }

    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> registry.get("webhook.stream.events").counter().count() == 100.0);
    await().until(() -> handled.size() >= 50);
    List<String> ids = handled.stream().map(h -> h.substring(0, h.indexOf(' '))).sorted().toList();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      expected.add("e" + i);
    }
    assertThat(ids).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(streams).allSatisfy(s -> assertThat(s.healthy()).isTrue());
  }
}
