package io.servicehooks.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.testsupport.TcpProxy;
import io.servicehooks.testsupport.TestDatabase;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The database goes away under a running inbox and comes back. A proxy in front of the shared
 * server stands for it: every connection cut and new ones refused, the server itself untouched.
 */
final class OutageTest {

  private TestDatabase.Schema schema;
  private HikariDataSource pool;
  private TcpProxy proxy;
  private PostgresInbox inbox;

  @BeforeEach
  void setUp() throws Exception {
    schema = TestDatabase.schema();
    pool = TestDatabase.pool(2);
    PostgresInbox.builder().dataSource(pool).schema(schema.name).createSchema(true).build().close();
    URI db = TestDatabase.hostAndPort();
    proxy = new TcpProxy(db.getHost(), db.getPort()).start();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (inbox != null) {
      inbox.close();
    }
    proxy.close();
    pool.close();
    schema.close();
  }

  @Test
  void databaseDown_pollerBacksOffQuietlyAndResumesWhenItReturns() throws Exception {
    URI db = TestDatabase.hostAndPort();
    PGSimpleDataSource direct = new PGSimpleDataSource();
    // Unpooled: every look is a new connection, so refused ones are counted one by one.
    direct.setURL(
        TestDatabase.url().replace(db.getHost() + ":" + db.getPort(), "127.0.0.1:" + proxy.port()));
    direct.setConnectTimeout(1);
    direct.setLoginTimeout(1);
    direct.setSocketTimeout(5);
    CountingDataSource counting = new CountingDataSource(direct);
    List<String> handled = new CopyOnWriteArrayList<>();
    inbox =
        PostgresInbox.builder()
            .dataSource(counting)
            .schema(schema.name)
            .pollInterval(Duration.ofMillis(50))
            .maxPollInterval(Duration.ofMillis(500))
            .build();
    inbox.start(event -> handled.add(event.id()));
    inbox.store(List.of(Events.post("before"))).toCompletableFuture().get(10, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(20)).until(() -> handled.contains("before"));

    proxy.stop();
    assertThat(inbox.store(List.of(Events.post("refused"))).toCompletableFuture())
        .failsWithin(Duration.ofSeconds(10));
    int before = counting.connections.get();
    int pollerBefore = counting.pollerConnections.get();
    long downSince = System.nanoTime();
    // Another instance, still connected, stores an event meanwhile.
    schema.exec(
        "INSERT INTO "
            + schema.table()
            + " (dedup_key, event_id, event_type, original_type, family, delivery_json)"
            + " VALUES ('e:during', 'during', 'post.create', 'post.create', 'ACTIVITY', '{}')");
    // It keeps trying while the database is down...
    await().atMost(Duration.ofSeconds(20)).until(() -> counting.connections.get() > before);
    // ... over a window of at least two seconds, as long as it really lasted.
    await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(30)).until(() -> true);
    int pollerTries = counting.pollerConnections.get() - pollerBefore;
    int triesWhileDown = counting.connections.get() - before;
    long downMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - downSince);

    proxy.start();

    await().atMost(Duration.ofSeconds(20)).until(() -> handled.contains("during"));
    // Never a spin: the poller's back-off (50, 100, 200, 400 ms) reaches its 500 ms ceiling within
    // four tries, then one try per 500 ms of the window. A loaded machine makes fewer, never more.
    // (It makes none while the owner lock is known lost: then the lock alone tries.)
    int windows = (int) Math.ceil(downMillis / 500.0);
    assertThat(pollerTries).isBetween(0, 4 + windows);
    // The other threads (owner lock, writers, done marks) retry on their own back-offs: all of
    // them together stay within a few tries per 500 ms, where a loop without a pause would make
    // hundreds.
    assertThat(triesWhileDown).isBetween(Math.max(1, pollerTries), 4 * (4 + windows));
    assertThat(
            schema.number("SELECT count(*) FROM " + schema.table() + " WHERE event_id = 'refused'"))
        .isZero();
  }
}
