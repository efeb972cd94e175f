package io.servicehooks.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.servicehooks.contracts.EventInboxContract;
import io.servicehooks.core.EventInbox;
import io.servicehooks.testsupport.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL inbox runs the contract on a real PostgreSQL, in a schema of the case's own. Each
 * instance has a pool of its own, as a separate process would (its owner lock is a session of its
 * own). Retries and polls are short so the cases take little real time; the unreachable inbox
 * points at a port where nothing listens.
 */
final class PostgresInboxContractTest extends EventInboxContract {

  private final TestDatabase.Schema schema;
  private final List<HikariDataSource> pools = new ArrayList<>();

  PostgresInboxContractTest() throws Exception {
    schema = TestDatabase.schema();
  }

  @Override
  protected EventInbox newInbox() {
    HikariDataSource pool = TestDatabase.pool(4);
    pools.add(pool);
    return PostgresInbox.builder()
        .dataSource(pool)
        .schema(schema.name)
        .createSchema(true)
        .workers(2)
        .lease(Duration.ofSeconds(10))
        .backoff(Duration.ofMillis(50), Duration.ofMillis(200))
        .pollInterval(Duration.ofMillis(20))
        .maxPollInterval(Duration.ofMillis(100))
        .drainTimeout(Duration.ofSeconds(1))
        .build();
  }

  @Override
  protected EventInbox unreachableInbox() {
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setURL("jdbc:postgresql://127.0.0.1:9/test?user=postgres");
    nowhere.setConnectTimeout(1);
    nowhere.setLoginTimeout(1);
    return PostgresInbox.builder()
        .dataSource(nowhere)
        .schema(schema.name)
        .maxPollInterval(Duration.ofMillis(100))
        .drainTimeout(Duration.ZERO)
        .build();
  }

  @Override
  protected void cleanUp() throws Exception {
    pools.forEach(HikariDataSource::close);
    schema.close();
  }
}
