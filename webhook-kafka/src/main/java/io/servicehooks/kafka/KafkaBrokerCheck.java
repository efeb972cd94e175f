package io.servicehooks.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Whether a broker of a Kafka cluster answers, for health checks and readiness probes: one {@code
 * describeCluster} call bounded by a short time-out, its answer kept for a while so that any probe
 * rate costs the cluster at most one call per {@linkplain #DEFAULT_CACHE_FOR cache period}. Also
 * the bounded wait at start-up ({@link #awaitAnswer}) that makes brokers unreachable at start one
 * clear failure instead of an application that answers every delivery 503.
 *
 * <p>The problem it reports names the bootstrap servers and the client's reason, never a client
 * property's value (a SASL password or JAAS configuration stays out of it).
 */
public final class KafkaBrokerCheck implements AutoCloseable {

  /** How long one check waits for a broker's answer by default: 2 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

  /** How long one check's answer is kept by default: 5 s. */
  public static final Duration DEFAULT_CACHE_FOR = Duration.ofSeconds(5);

  private final String bootstrapServers;
  private final Admin admin;
  private final Duration timeout;
  private final long cacheForNanos;
  private final LongSupplier nanoTime;
  private final Object checking = new Object();
  private boolean checked;
  private long checkedAt;
  private Optional<String> problem = Optional.empty();

  private KafkaBrokerCheck(
      String bootstrapServers,
      Map<String, ?> clientProperties,
      Duration timeout,
      Duration cacheFor,
      LongSupplier nanoTime) {
    this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    this.timeout = positive(timeout, "timeout");
    this.cacheForNanos = positive(cacheFor, "cacheFor").toNanos();
    this.nanoTime = nanoTime;
    Map<String, Object> p = new HashMap<>(clientProperties);
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "servicehooks-broker-check");
    int ms = (int) timeout.toMillis();
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
    p.putIfAbsent(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
    this.admin = Admin.create(p);
  }

  /**
   * A check of the cluster at {@code bootstrapServers} with the default time-out and cache period.
   *
   * @param clientProperties the clients' other properties (security, SASL...); properties of a
   *     producer or consumer only are ignored by the admin client
   */
  public static KafkaBrokerCheck create(String bootstrapServers, Map<String, ?> clientProperties) {
    return create(bootstrapServers, clientProperties, DEFAULT_TIMEOUT, DEFAULT_CACHE_FOR);
  }

  /** A check with its own time-out per call and cache period. */
  public static KafkaBrokerCheck create(
      String bootstrapServers,
      Map<String, ?> clientProperties,
      Duration timeout,
      Duration cacheFor) {
    return new KafkaBrokerCheck(
        bootstrapServers, clientProperties, timeout, cacheFor, System::nanoTime);
  }

  /** As {@link #create(String, Map, Duration, Duration)}, on {@code nanoTime} (tests' clock). */
  static KafkaBrokerCheck create(
      String bootstrapServers,
      Map<String, ?> clientProperties,
      Duration timeout,
      Duration cacheFor,
      LongSupplier nanoTime) {
    return new KafkaBrokerCheck(bootstrapServers, clientProperties, timeout, cacheFor, nanoTime);
  }

  /** The servers it checks, as given. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** Whether a broker answered the latest check (one is made when the last is too old). */
  public boolean answers() {
    return problem().isEmpty();
  }

  /**
   * Why no broker answers, or empty when one did; from the latest check, made now when the last is
   * older than the cache period. Blocks at most the time-out.
   */
  public Optional<String> problem() {
    synchronized (checking) {
      long now = nanoTime.getAsLong();
      if (!checked || now - checkedAt >= cacheForNanos) {
        problem = check();
        checkedAt = nanoTime.getAsLong();
        checked = true;
      }
      return problem;
    }
  }

  /**
   * Checks until a broker answers or {@code wait} has passed, whichever comes first.
   *
   * @return empty once a broker answered, else the last problem
   */
  public Optional<String> awaitAnswer(Duration wait) {
    long deadline = nanoTime.getAsLong() + positive(wait, "wait").toNanos();
    Optional<String> last;
    do {
      last = check();
      synchronized (checking) {
        problem = last;
        checkedAt = nanoTime.getAsLong();
        checked = true;
      }
      if (last.isEmpty()) {
        return last;
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return last;
      }
    } while (nanoTime.getAsLong() < deadline);
    return last;
  }

  private Optional<String> check() {
    try {
      int nodes =
          admin
              .describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
              .nodes()
              .get(timeout.toMillis() + 500, TimeUnit.MILLISECONDS)
              .size();
      return nodes > 0
          ? Optional.empty()
          : Optional.of("the Kafka cluster at " + bootstrapServers + " reports no broker");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted while checking the Kafka brokers at " + bootstrapServers);
    } catch (ExecutionException | java.util.concurrent.TimeoutException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      String reason = cause.getMessage() == null ? "" : ": " + firstLine(cause.getMessage());
      return Optional.of(
          "no Kafka broker answered at "
              + bootstrapServers
              + " within "
              + timeout.toMillis()
              + " ms ("
              + cause.getClass().getSimpleName()
              + reason
              + ")");
    }
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  private static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive");
    }
    return d;
  }

  /** Closes the admin client. */
  @Override
  public void close() {
    admin.close(Duration.ofSeconds(2));
  }

  @Override
  public String toString() {
    return "KafkaBrokerCheck[" + bootstrapServers + "]";
  }
}
