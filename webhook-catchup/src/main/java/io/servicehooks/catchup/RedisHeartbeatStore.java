package io.servicehooks.catchup;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The heartbeat in Redis: the hash {@code <prefix>state} holds {@code heartbeat} and, while a job
 * is in progress, {@code job.key}, {@code job.id}, {@code job.from}, {@code job.until}, {@code
 * job.attempt}, {@code job.askedAt}, {@code job.retryAt} (instants as epoch milliseconds); the key
 * {@code <prefix>leader} is the leadership, a random token set with {@code NX PX} and deleted by a
 * script only by its holder. Each change is one Lua script.
 */
final class RedisHeartbeatStore implements HeartbeatStore {

  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

  private static final String[] JOB_FIELDS = {
    "job.key", "job.id", "job.from", "job.until", "job.attempt", "job.askedAt", "job.retryAt"
  };

  // KEYS[1] state; ARGV[1] heartbeat millis
  private static final String BEAT =
      "if redis.call('HEXISTS', KEYS[1], 'job.key') == 1 then return 0 end "
          + "local hb = redis.call('HGET', KEYS[1], 'heartbeat') "
          + "if hb and tonumber(hb) >= tonumber(ARGV[1]) then return 0 end "
          + "redis.call('HSET', KEYS[1], 'heartbeat', ARGV[1]) return 1";

  // KEYS[1] state; ARGV field, value pairs of the new job
  private static final String PUT_JOB =
      "redis.call('HDEL', KEYS[1], "
          + quotedJobFields()
          + ") "
          + "redis.call('HSET', KEYS[1], unpack(ARGV)) return 1";

  // KEYS[1] state; ARGV[1] expected key, ARGV[2] heartbeat millis or '', then field, value pairs
  private static final String FINISH_JOB =
      "if redis.call('HGET', KEYS[1], 'job.key') ~= ARGV[1] then return 0 end "
          + "redis.call('HDEL', KEYS[1], "
          + quotedJobFields()
          + ") "
          + "if ARGV[2] ~= '' then "
          + "  local hb = redis.call('HGET', KEYS[1], 'heartbeat') "
          + "  if not hb or tonumber(hb) < tonumber(ARGV[2]) then "
          + "    redis.call('HSET', KEYS[1], 'heartbeat', ARGV[2]) end "
          + "end "
          + "if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3)) end "
          + "return 1";

  // KEYS[1] leader; ARGV[1] token
  private static final String RELEASE =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end "
          + "return 0";

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final String stateKey;
  private final String leaderKey;
  private final String where;

  private RedisHeartbeatStore(
      RedisClient client, StatefulRedisConnection<String, String> connection, String prefix) {
    this.client = client;
    this.connection = connection;
    this.redis = connection.sync();
    this.stateKey = prefix + "state";
    this.leaderKey = prefix + "leader";
    this.where = prefix;
  }

  static RedisHeartbeatStore connect(String redisUrl, String keyPrefix) {
    Objects.requireNonNull(redisUrl, "redisUrl");
    Objects.requireNonNull(keyPrefix, "keyPrefix");
    if (keyPrefix.isBlank()) {
      throw new IllegalArgumentException("keyPrefix must not be blank");
    }
    RedisURI uri;
    try {
      uri = RedisURI.create(redisUrl);
    } catch (RuntimeException e) {
      // the message of a URI parse error may quote the URL, password included
      throw new IllegalArgumentException("redisUrl is not a redis:// or rediss:// URL");
    }
    uri.setTimeout(COMMAND_TIMEOUT);
    RedisClient client = RedisClient.create(uri);
    client.setOptions(
        ClientOptions.builder()
            .socketOptions(SocketOptions.builder().connectTimeout(COMMAND_TIMEOUT).build())
            .timeoutOptions(TimeoutOptions.enabled(COMMAND_TIMEOUT))
            .build());
    try {
      return new RedisHeartbeatStore(client, client.connect(), keyPrefix);
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, COMMAND_TIMEOUT);
      throw new IllegalStateException(
          "cannot connect to Redis at " + uri.getHost() + ":" + uri.getPort(), null);
    }
  }

  @Override
  public Snapshot read() throws IOException {
    Map<String, String> state = call(() -> redis.hgetall(stateKey));
    Instant heartbeat = instant(state.get("heartbeat"));
    String key = state.get("job.key");
    if (key == null) {
      return new Snapshot(heartbeat, null);
    }
    try {
      return new Snapshot(
          heartbeat,
          new CatchUpJob(
              key,
              state.get("job.id"),
              instant(state.get("job.from")),
              instant(state.get("job.until")),
              Integer.parseInt(state.getOrDefault("job.attempt", "1")),
              instant(state.get("job.askedAt")),
              instant(state.get("job.retryAt"))));
    } catch (RuntimeException e) {
      throw new IOException("the catch-up state in " + stateKey + " is not readable", e);
    }
  }

  @Override
  public boolean beat(Instant at) throws IOException {
    Long written =
        call(
            () ->
                redis.eval(
                    BEAT,
                    ScriptOutputType.INTEGER,
                    new String[] {stateKey},
                    Long.toString(at.toEpochMilli())));
    return written != null && written == 1L;
  }

  @Override
  public Optional<Leadership> tryLead(Duration lease) throws IOException {
    String token = UUID.randomUUID().toString();
    String ok = call(() -> redis.set(leaderKey, token, SetArgs.Builder.nx().px(lease.toMillis())));
    if (!"OK".equals(ok)) {
      return Optional.empty();
    }
    return Optional.of(
        () -> {
          try {
            redis.eval(RELEASE, ScriptOutputType.INTEGER, new String[] {leaderKey}, token);
          } catch (RedisException e) {
            // the lease ends by itself
          }
        });
  }

  @Override
  public void putJob(CatchUpJob job) throws IOException {
    Objects.requireNonNull(job, "job");
    call(
        () ->
            redis.eval(
                PUT_JOB,
                ScriptOutputType.INTEGER,
                new String[] {stateKey},
                fields(job).toArray(new String[0])));
  }

  @Override
  public boolean finishJob(String key, CatchUpJob next, Instant heartbeat) throws IOException {
    List<String> args = new ArrayList<>();
    args.add(key);
    args.add(heartbeat == null ? "" : Long.toString(heartbeat.toEpochMilli()));
    if (next != null) {
      args.addAll(fields(next));
    }
    Long done =
        call(
            () ->
                redis.eval(
                    FINISH_JOB,
                    ScriptOutputType.INTEGER,
                    new String[] {stateKey},
                    args.toArray(new String[0])));
    return done != null && done == 1L;
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, COMMAND_TIMEOUT);
  }

  @Override
  public String toString() {
    return "RedisHeartbeatStore[prefix=" + where + "]";
  }

  private static List<String> fields(CatchUpJob job) {
    List<String> f = new ArrayList<>();
    add(f, "job.key", job.key());
    add(f, "job.id", job.jobId());
    add(f, "job.from", millis(job.from()));
    add(f, "job.until", millis(job.until()));
    add(f, "job.attempt", Integer.toString(job.attempt()));
    add(f, "job.askedAt", millis(job.askedAt()));
    add(f, "job.retryAt", millis(job.retryAt()));
    return f;
  }

  private static void add(List<String> f, String field, String value) {
    if (value != null) {
      f.add(field);
      f.add(value);
    }
  }

  private static String millis(Instant t) {
    return t == null ? null : Long.toString(t.toEpochMilli());
  }

  private static Instant instant(String millis) {
    return millis == null ? null : Instant.ofEpochMilli(Long.parseLong(millis));
  }

  private static String quotedJobFields() {
    StringBuilder s = new StringBuilder();
    for (String f : JOB_FIELDS) {
      s.append(s.length() == 0 ? "" : ", ").append('\'').append(f).append('\'');
    }
    return s.toString();
  }

  private interface Call<T> {
    T run();
  }

  /** Lettuce throws unchecked exceptions; a store that cannot be reached is an IOException. */
  private static <T> T call(Call<T> call) throws IOException {
    try {
      return call.run();
    } catch (RedisException e) {
      throw new IOException("Redis: " + e.getClass().getSimpleName(), e);
    }
  }
}
