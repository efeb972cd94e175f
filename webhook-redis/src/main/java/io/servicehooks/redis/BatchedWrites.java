package io.servicehooks.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.RedisCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands commands to the connection in batches, at most one batch on the wire at a time: a command
 * asked while nothing is in flight leaves at once; one asked while a batch is out waits for that
 * batch's last answer (one round trip at most) and leaves with everything asked meanwhile, in one
 * write. Under load the calling threads then never wake Lettuce's event loop, which wakes once per
 * batch for its answers instead of once or twice per command (benchmarks/RESULTS.md, "Store paths":
 * on one core, the wake-ups were most of a Redis call's cost).
 *
 * <p>Used only on a connection whose client times out every command: a command that never completes
 * would hold the batches after it.
 */
final class BatchedWrites {

  private static final long MIN_TIMEOUT_NANOS = Duration.ofMillis(1).toNanos();

  private final StatefulConnection<String, String> connection;
  private final ConcurrentLinkedQueue<RedisCommand<String, String, ?>> waiting =
      new ConcurrentLinkedQueue<>();

  /** Commands handed to the connection and not yet completed (answered, failed or timed out). */
  private final AtomicInteger inFlight = new AtomicInteger();

  BatchedWrites(StatefulConnection<String, String> connection) {
    this.connection = connection;
  }

  /** A command as {@link #send} takes it: it knows since when it waits. */
  static final class Queued<T> extends AsyncCommand<String, String, T> {
    final long queuedAt = System.nanoTime();

    Queued(RedisCommand<String, String, T> command) {
      super(command);
    }
  }

  /**
   * The time-out left to {@code command} when it is handed to the connection: the whole {@code
   * timeout} less its wait for a batch, at least 1 ms.
   */
  static long remaining(RedisCommand<?, ?, ?> command, Duration timeout) {
    long nanos = timeout.toNanos();
    if (command instanceof Queued<?> queued) {
      nanos -= System.nanoTime() - queued.queuedAt;
    }
    return Math.max(MIN_TIMEOUT_NANOS, nanos);
  }

  /** Sends {@code command} now or with the next batch; the command completes as Lettuce's do. */
  <T> Queued<T> send(Queued<T> command) {
    command.whenComplete(
        (answer, failure) -> {
          if (inFlight.decrementAndGet() == 0) {
            // The batch's last answer (or time-out): what was asked meanwhile leaves now, from
            // the event loop itself when the answer came from there.
            drain();
          }
        });
    waiting.add(command);
    if (inFlight.get() == 0) {
      drain();
    }
    return command;
  }

  /**
   * Dispatches every waiting command as one batch. Any thread may call it at any time: a command is
   * taken from the queue by exactly one caller, and a drain that finds nothing does nothing.
   *
   * <p>Liveness: a command is queued before its sender reads {@code inFlight}; a sender that reads
   * zero drains, and one that reads more than zero is followed by a completion that brings it to
   * zero (every command completes: the client times each out), which drains.
   */
  private void drain() {
    List<RedisCommand<String, String, ?>> batch = null;
    for (RedisCommand<String, String, ?> c; (c = waiting.poll()) != null; ) {
      if (batch == null) {
        batch = new ArrayList<>();
      }
      batch.add(c);
    }
    if (batch == null) {
      return;
    }
    inFlight.addAndGet(batch.size());
    try {
      connection.dispatch(batch);
    } catch (RuntimeException refused) {
      // Lettuce completes commands it refuses; these did not even reach it.
      for (RedisCommand<String, String, ?> c : batch) {
        c.completeExceptionally(refused);
      }
    }
  }
}
