package io.servicehooks.samples;

import static io.servicehooks.samples.ConsumerVariables.*;

import io.micrometer.core.instrument.MeterRegistry;
import io.servicehooks.catchup.CatchUp;
import io.servicehooks.catchup.HeartbeatStore;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code CATCH_UP=true}: the standalone consumer heals its own downtime with {@link CatchUp}.
 *
 * <pre>
 * CATCH_UP               true, or false (default)
 * SERVICE_API_BASE_URL   the platform's API address (required), as the CLI takes it
 * SERVICE_API_KEY, SERVICE_API_SECRET   the app's API key and secret (a token is fetched), or
 * SERVICE_BEARER_TOKEN   an app-only bearer token, as the CLI takes them
 * WEBHOOK_URL            the consumer's public URL: registered (or revalidated) at start, and
 *                        replayed; or
 * CATCH_UP_WEBHOOK_ID    the registered webhook's id
 * ALLOW_INSECURE_URL     true: accept an http WEBHOOK_URL with a port, for rehearsal against the
 *                        simulator (the CLI's --allow-insecure-url); default false
 * the heartbeat store, the first that is set:
 *   REDIS_URL            Redis, keys under REDIS_PREFIX (default servicehooks:default) + ":catchup:"
 *   DATABASE_URL         PostgreSQL (jdbc:postgresql://... or postgres://user:password@host/db),
 *                        table servicehooks_catchup, created when absent
 *   CATCH_UP_FILE        a local file, default ./servicehooks-heartbeat
 * CATCH_UP_HEARTBEAT_MS      how often the heartbeat is recorded, in ms (default 30000)
 * CATCH_UP_GAP_THRESHOLD_MS  how old the heartbeat, or how long every delivery refused, must be
 *                            for a replay, in ms (default 120000, above the heartbeat)
 * </pre>
 *
 * Secrets (API secret, token, passwords in the URLs) are never printed.
 */
final class CatchUpWiring {

  static final String DEFAULT_FILE = "./servicehooks-heartbeat";
  static final String DEFAULT_REDIS_PREFIX = "servicehooks:default";

  /** Which store the environment chose. */
  enum StoreKind {
    REDIS,
    POSTGRES,
    FILE
  }

  /** The parsed settings; {@link #toString()} leaves every secret out. */
  record Config(
      PlatformAccess platform,
      String webhookUrl,
      String webhookId,
      StoreKind store,
      String redisUrl,
      String redisPrefix,
      String databaseUrl,
      Path file,
      Duration heartbeatInterval,
      Duration gapThreshold) {
    @Override
    public String toString() {
      return "CatchUpWiring.Config["
          + platform
          + ", webhook="
          + (webhookId != null ? webhookId : webhookUrl)
          + ", store="
          + store
          + "]";
    }
  }

  private CatchUpWiring() {}

  /** The settings, or {@code null} when {@code CATCH_UP} is not true. */
  static Config parse(Map<String, String> env) throws ConsumerMain.ConfigException {
    String enabled = CATCH_UP.rawOr(env, "false").strip().toLowerCase(Locale.ROOT);
    if (enabled.equals("false") || enabled.isEmpty()) {
      return null;
    }
    if (!enabled.equals("true")) {
      throw new ConsumerMain.ConfigException(
          "CATCH_UP must be 'true' or 'false', was '" + enabled + "'");
    }
    PlatformAccess platform = PlatformAccess.parse(env, "CATCH_UP=true");
    String webhookUrl = WEBHOOK_URL.value(env);
    String webhookId = CATCH_UP_WEBHOOK_ID.value(env);
    if ((webhookUrl == null) == (webhookId == null)) {
      throw new ConsumerMain.ConfigException(
          "CATCH_UP=true needs exactly one of WEBHOOK_URL (the consumer's public URL) and"
              + " CATCH_UP_WEBHOOK_ID");
    }
    if (webhookId != null && !webhookId.matches("[0-9]{1,40}")) {
      throw new ConsumerMain.ConfigException(
          "CATCH_UP_WEBHOOK_ID must be digits, was '" + webhookId + "'");
    }
    String redisUrl = REDIS_URL.value(env);
    String databaseUrl = DATABASE_URL.value(env);
    StoreKind kind =
        redisUrl != null
            ? StoreKind.REDIS
            : databaseUrl != null ? StoreKind.POSTGRES : StoreKind.FILE;
    String prefix = REDIS_PREFIX.value(env);
    String file = CATCH_UP_FILE.value(env);
    if (kind == StoreKind.POSTGRES) {
      jdbcUrl(databaseUrl); // refuses a URL it cannot use, before start
    }
    Duration heartbeat =
        millis(env, CATCH_UP_HEARTBEAT_MS, CatchUp.DEFAULT_HEARTBEAT_INTERVAL, 100, 3_600_000);
    Duration threshold =
        millis(env, CATCH_UP_GAP_THRESHOLD_MS, CatchUp.DEFAULT_GAP_THRESHOLD, 200, 86_400_000);
    if (threshold.compareTo(heartbeat) <= 0) {
      throw new ConsumerMain.ConfigException(
          "CATCH_UP_GAP_THRESHOLD_MS ("
              + threshold.toMillis()
              + ") must be above CATCH_UP_HEARTBEAT_MS ("
              + heartbeat.toMillis()
              + ")");
    }
    return new Config(
        platform,
        webhookUrl,
        webhookId,
        kind,
        redisUrl,
        (prefix != null ? prefix : DEFAULT_REDIS_PREFIX) + ":catchup:",
        databaseUrl,
        Path.of(file != null ? file : DEFAULT_FILE),
        heartbeat,
        threshold);
  }

  /** A duration given in milliseconds from {@code min} to {@code max}; {@code otherwise} unset. */
  static Duration millis(
      Map<String, String> env, Variable name, Duration otherwise, long min, long max)
      throws ConsumerMain.ConfigException {
    String v = name.value(env);
    if (v == null) {
      return otherwise;
    }
    try {
      long ms = Long.parseLong(v);
      if (ms >= min && ms <= max) {
        return Duration.ofMillis(ms);
      }
    } catch (NumberFormatException e) {
      // the message below
    }
    throw new ConsumerMain.ConfigException(
        name
            + " must be a number of milliseconds from "
            + min
            + " to "
            + max
            + ", was '"
            + v
            + "'");
  }

  /** The catch-up of {@code config}, counting in {@code registry}. */
  static CatchUp build(Config config, MeterRegistry registry) {
    CatchUp.Builder builder =
        CatchUp.builder()
            .client(config.platform().client())
            .store(store(config))
            .heartbeatInterval(config.heartbeatInterval())
            .gapThreshold(config.gapThreshold())
            .meterRegistry(registry);
    if (config.webhookId() != null) {
      builder.webhookId(config.webhookId());
    } else {
      builder.webhookUrl(config.webhookUrl());
    }
    return builder.build();
  }

  static HeartbeatStore store(Config config) {
    return switch (config.store()) {
      case REDIS -> HeartbeatStore.redis(config.redisUrl(), config.redisPrefix());
      case POSTGRES -> {
        PGSimpleDataSource ds = dataSource(config.databaseUrl());
        yield HeartbeatStore.postgres(ds, "servicehooks_catchup", "default", true);
      }
      case FILE -> HeartbeatStore.file(config.file());
    };
  }

  /** A data source with bounded connect, login and socket waits; the password stays out of URLs. */
  static PGSimpleDataSource dataSource(String databaseUrl) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    try {
      String[] parts = jdbcUrl(databaseUrl);
      ds.setURL(parts[0]);
      if (parts[1] != null) {
        ds.setUser(parts[1]);
      }
      if (parts[2] != null) {
        ds.setPassword(parts[2]);
      }
    } catch (ConsumerMain.ConfigException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
    ds.setConnectTimeout(3);
    ds.setLoginTimeout(3);
    ds.setSocketTimeout(8);
    return ds;
  }

  /** {jdbc url, user or null, password or null}; a postgres:// URL's credentials come apart. */
  static String[] jdbcUrl(String databaseUrl) throws ConsumerMain.ConfigException {
    if (databaseUrl.startsWith("jdbc:postgresql:")) {
      return new String[] {databaseUrl, null, null};
    }
    URI uri;
    try {
      uri = URI.create(databaseUrl);
    } catch (IllegalArgumentException e) {
      uri = null;
    }
    if (uri == null
        || !("postgres".equals(uri.getScheme()) || "postgresql".equals(uri.getScheme()))
        || uri.getHost() == null) {
      throw new ConsumerMain.ConfigException(
          "DATABASE_URL must be jdbc:postgresql://... or postgres://user:password@host:port/db");
    }
    String user = null;
    String password = null;
    if (uri.getRawUserInfo() != null) {
      String[] userInfo = uri.getRawUserInfo().split(":", 2);
      user = URLDecoder.decode(userInfo[0], StandardCharsets.UTF_8);
      password =
          userInfo.length > 1 ? URLDecoder.decode(userInfo[1], StandardCharsets.UTF_8) : null;
    }
    String jdbc =
        "jdbc:postgresql://"
            + uri.getHost()
            + (uri.getPort() > 0 ? ":" + uri.getPort() : "")
            + (uri.getRawPath() == null ? "/" : uri.getRawPath())
            + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    return new String[] {jdbc, user, password};
  }
}
