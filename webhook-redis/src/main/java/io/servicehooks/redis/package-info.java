/**
 * Dedup shared by several instances of a consumer, on Redis: {@link
 * io.servicehooks.redis.RedisDeduplicator} implements the core's {@link
 * io.servicehooks.core.Deduplicator} with one atomic Lua script per operation, over Lettuce's
 * asynchronous API.
 */
package io.servicehooks.redis;
