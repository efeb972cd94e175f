package io.servicehooks.redis;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up check of the server's {@code maxmemory-policy}. Every key of the store has a TTL, so
 * every policy but {@code noeviction} may drop remembered ids when memory runs short ({@code
 * volatile-*} picks among exactly those keys), and a dropped id runs its event again.
 */
final class EvictionPolicy {

  private static final Logger LOG = LoggerFactory.getLogger(RedisDeduplicator.class);

  static final String SAFE = "noeviction";

  private EvictionPolicy() {}

  /**
   * Reads the policy ({@code CONFIG GET}, else the {@code maxmemory_policy} line of {@code INFO
   * memory}) and WARNs on an evicting one, or refuses it when {@code require} is set. A policy that
   * cannot be read is one line (INFO), never a failure: some managed services disable {@code
   * CONFIG}.
   */
  static void check(
      RedisClusterAsyncCommands<String, String> commands,
      Duration timeout,
      boolean require,
      String where) {
    String policy;
    String maxmemory;
    try {
      Map<String, String> config =
          commands.configGet("maxmemory*").get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      policy = config.get("maxmemory-policy");
      maxmemory = config.get("maxmemory");
    } catch (ExecutionException | TimeoutException | RuntimeException configRefused) {
      String info = info(commands, timeout);
      policy = field(info, "maxmemory_policy");
      maxmemory = field(info, "maxmemory");
      if (policy == null) {
        LOG.info(
            "Could not read the maxmemory-policy of Redis at {} (CONFIG GET and INFO refused: {});"
                + " make sure it is noeviction, or remembered event ids can be evicted and run"
                + " again",
            where,
            configRefused.getClass().getSimpleName());
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (policy == null || SAFE.equals(policy.toLowerCase(Locale.ROOT))) {
      return;
    }
    String limit =
        maxmemory == null || "0".equals(maxmemory)
            ? "no maxmemory set yet, so nothing is evicted until one is"
            : "maxmemory " + maxmemory + " bytes";
    String message =
        "Redis at "
            + where
            + " has maxmemory-policy "
            + policy
            + " ("
            + limit
            + "): under memory pressure it evicts remembered event ids, and an evicted id runs its"
            + " event again when a copy arrives, answered 200 both times. Set maxmemory-policy"
            + " noeviction (a full Redis then refuses new claims, answered 503, instead)";
    if (require) {
      throw new IllegalStateException(message + "; refused by requireNoEviction(true)");
    }
    LOG.warn(message);
  }

  private static String info(RedisClusterAsyncCommands<String, String> commands, Duration timeout) {
    try {
      return commands.info("memory").get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException | RuntimeException refused) {
      return null;
    }
  }

  /** The value of {@code name:value} in an {@code INFO} answer, or null. */
  private static String field(String info, String name) {
    if (info == null) {
      return null;
    }
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).strip();
      }
    }
    return null;
  }
}
