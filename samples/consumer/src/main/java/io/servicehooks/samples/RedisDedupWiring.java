package io.servicehooks.samples;

import io.servicehooks.redis.RedisDeduplicator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone consumer's dedup on Redis ({@code REDIS_URL}, {@code REDIS_PREFIX}): connects at
 * start-up, so that Redis down is a {@link StandaloneConsumer.DedupStoreException} naming the URL
 * without its password rather than an instance that would run the others' events again.
 */
final class RedisDedupWiring {

  private static final Logger log = LoggerFactory.getLogger("servicehooks.consumer");

  private RedisDedupWiring() {}

  static RedisDeduplicator connect(StandaloneConsumer.Settings settings) {
    String where = StandaloneConsumer.redacted(settings.redisUrl());
    RedisDeduplicator.Builder redis = RedisDeduplicator.builder(settings.redisUrl());
    if (settings.redisPrefix() != null) {
      redis.prefix(settings.redisPrefix());
    }
    RedisDeduplicator store;
    try {
      store = redis.build();
    } catch (RuntimeException e) {
      // Lettuce's message names host and port; the store already took any password out of it.
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      String reason = root == e ? e.getMessage() : e.getMessage() + ": " + root.getMessage();
      throw new StandaloneConsumer.DedupStoreException(
          "cannot connect to Redis at "
              + where
              + " (REDIS_URL): "
              + StandaloneConsumer.withoutPassword(
                  StandaloneConsumer.redacted(reason), settings.redisUrl()));
    }
    log.info(
        "Dedup on Redis at {}, prefix {}: every instance with this REDIS_URL and prefix shares it",
        where,
        store.prefix());
    return store;
  }
}
