package io.servicehooks.catchup;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Where {@link CatchUp} keeps what must outlive a restart: the last heartbeat ("this consumer was
 * answering at T") and the replay job in progress, shared by every instance of one consumer, plus
 * the leadership that lets exactly one instance ask for a replay.
 *
 * <p>Three implementations come with the module: {@link #file(Path)} for a single process, {@link
 * #redis(String, String)} and {@link #postgres(DataSource, String, String, boolean)} for instances
 * that share a Redis or the inbox database. Each state change is one atomic operation on the store
 * (a Lua script, one SQL statement, a file replaced by an atomic move under a file lock), and each
 * call is bounded in time; a store that cannot be reached throws {@link IOException}, which {@link
 * CatchUp} logs and retries on its next heartbeat.
 *
 * <p>Implement it for another store by keeping the same contract: {@link #beat} and {@link
 * #finishJob} are compare-and-set operations, never a read followed by a write from Java.
 */
public interface HeartbeatStore extends AutoCloseable {

  /**
   * The stored state.
   *
   * @param heartbeat the last heartbeat, or {@code null} when none was ever recorded
   * @param job the replay job in progress, or {@code null} when there is none
   */
  record Snapshot(Instant heartbeat, CatchUpJob job) {}

  /** Leadership held by this instance until {@link #close()}; see {@link #tryLead(Duration)}. */
  interface Leadership extends AutoCloseable {
    /** Gives leadership up; never throws (a lost release ends with the lease). */
    @Override
    void close();
  }

  /** Reads the heartbeat and the job in progress. */
  Snapshot read() throws IOException;

  /**
   * Records a heartbeat at {@code at}, only when no job is in progress and {@code at} is later than
   * the stored heartbeat: a heartbeat never moves back, and never past a job not yet complete.
   *
   * @return whether the heartbeat was written
   */
  boolean beat(Instant at) throws IOException;

  /**
   * Tries to become the one instance that may ask for a replay; never waits for another holder.
   *
   * @param lease how long the leadership lasts at most if this process dies without closing it
   *     (stores whose leadership ends with the process, the file lock and the PostgreSQL advisory
   *     lock, may ignore it)
   * @return the leadership, or empty when another instance holds it
   */
  Optional<Leadership> tryLead(Duration lease) throws IOException;

  /** Stores {@code job} as the job in progress, replacing any; called by the leader only. */
  void putJob(CatchUpJob job) throws IOException;

  /**
   * Replaces the job in progress when its {@link CatchUpJob#key()} is {@code key}, in one atomic
   * operation: with {@code next}, or with nothing when {@code next} is {@code null}, and moves the
   * heartbeat forward to {@code heartbeat} when that is given and later.
   *
   * @return false when the stored job is another one (or none), and nothing was changed
   */
  boolean finishJob(String key, CatchUpJob next, Instant heartbeat) throws IOException;

  /** Releases the store's connections; the stored state stays. */
  @Override
  void close() throws IOException;

  /**
   * A small local file, for a single process: the state is written to a temporary file beside it
   * and moved over it atomically; a file lock beside it ({@code <path>.lock}) serializes changes,
   * and another ({@code <path>.leader}) is the leadership. Both locks end with the process.
   *
   * @param path the state file, created on first write; its directory must exist
   */
  static HeartbeatStore file(Path path) {
    return new FileHeartbeatStore(Objects.requireNonNull(path, "path"));
  }

  /**
   * Redis, through Lettuce (an optional dependency: add {@code io.lettuce:lettuce-core}): the state
   * is the hash {@code <keyPrefix>state}, the leadership the key {@code <keyPrefix>leader} taken
   * with {@code SET NX PX}. Every command times out after 2 seconds.
   *
   * @param redisUrl for example {@code redis://127.0.0.1:6379} or {@code rediss://:password@host};
   *     never logged with its password
   * @param keyPrefix for example {@code servicehooks:catchup:}; one prefix per consumer
   * @throws IllegalArgumentException when the URL cannot be parsed (the message does not quote it)
   * @throws IllegalStateException when Redis cannot be reached within the time-out
   */
  static HeartbeatStore redis(String redisUrl, String keyPrefix) {
    return RedisHeartbeatStore.connect(redisUrl, keyPrefix);
  }

  /**
   * PostgreSQL over plain JDBC: one row named {@code name} in {@code table}, the leadership a
   * session-level {@code pg_try_advisory_lock} held on a connection of its own. The statements time
   * out after 5 seconds; bound the connection wait in the data source (for example the driver's
   * {@code connectTimeout}, or a pool's connection time-out).
   *
   * @param dataSource connections to the database
   * @param table the table, optionally schema-qualified, for example {@code servicehooks_catchup}
   * @param name the row, one per consumer, for example {@code default}
   * @param createTable whether to create the table when absent (the DDL ships as {@code
   *     io/servicehooks/catchup/catchup-postgres.sql})
   * @throws IllegalStateException when the table is to be created and cannot be
   */
  static HeartbeatStore postgres(
      DataSource dataSource, String table, String name, boolean createTable) {
    return PostgresHeartbeatStore.open(dataSource, table, name, createTable);
  }
}
