package io.servicehooks.undertow;

import io.servicehooks.core.AdapterSupport;
import io.undertow.io.Receiver;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HttpString;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xnio.IoUtils;
import org.xnio.XnioExecutor;

/**
 * Reads a delivery's body without blocking the IO thread and never past the consumer's limit: the
 * buffer starts small whatever {@code Content-Length} claims and doubles as bytes arrive. A body
 * too large or unreadable is answered here; a whole one goes to {@link Delivered}.
 *
 * <p>A client that goes silent mid-body for the read time-out has its connection closed and nothing
 * is dispatched. The watch costs nothing for a body read whole within {@link #receive} (almost
 * every delivery): only a body still arriving after it gets a timer, on its IO thread, which
 * re-arms itself for the time left while chunks keep coming. A socket-level read time-out would
 * instead arm and cancel a timer for every read of every request.
 */
final class BodyReceiver {

  // Logs under WebhookHandler's name, the one logger users' log configuration names for the
  // adapter; the class that does the work is an implementation detail.
  private static final Logger log = LoggerFactory.getLogger(WebhookHandler.class);
  private static final HttpString CONNECTION = new HttpString("Connection");

  /**
   * The most a body buffer starts with, whatever {@code Content-Length} claims; it doubles as bytes
   * arrive, up to the consumer's limit.
   */
  static final int INITIAL_BUFFER_BYTES = 16 * 1024;

  /** Takes a body that arrived in full. */
  interface Delivered {
    void received(HttpServerExchange exchange, byte[] body);
  }

  private final AdapterSupport adapter;
  private final Delivered delivered;
  private final Set<HttpServerExchange> receiving = ConcurrentHashMap.newKeySet();
  private final long silenceNanos; // the read time-out: the longest silence allowed mid-body

  BodyReceiver(AdapterSupport adapter, Delivered delivered, Duration readTimeout) {
    this.adapter = adapter;
    this.delivered = delivered;
    this.silenceNanos = readTimeout.toNanos();
  }

  void receive(HttpServerExchange exchange) {
    int limit = adapter.maxBodyBytes();
    long declared = exchange.getRequestContentLength();
    if (declared > limit) {
      tooLarge(exchange);
      return;
    }
    // The declared length is unverified: a buffer sized from it would let anyone pin up to the
    // limit per connection by sending headers alone. Start small and grow as bytes arrive.
    int initial = (int) Math.min(declared >= 0 ? declared : limit, INITIAL_BUFFER_BYTES);
    Body body = new Body(limit, initial);
    exchange.getRequestReceiver().receivePartialBytes(body, body);
    if (!body.finished) {
      // Still arriving (most bodies are already read by the call above): tracked until it ends,
      // so a shutdown can cut it. Later chunks come on the IO thread, after this returns; the
      // exchange's end removes the entry in any case.
      body.tracked = true;
      receiving.add(exchange);
      exchange.addExchangeCompleteListener(
          (done, next) -> {
            receiving.remove(done);
            body.unwatch();
            next.proceed();
          });
      body.watch(exchange);
    }
  }

  /**
   * Closes the connection of every delivery whose body has not fully arrived, so a server that is
   * shutting down waits only for deliveries already being answered. Nothing was verified, claimed
   * or acknowledged for a cut delivery: the platform retries it.
   */
  void cutUnfinishedBodies() {
    for (HttpServerExchange exchange : receiving) {
      IoUtils.safeClose(exchange.getConnection());
    }
  }

  int unfinishedBodies() {
    return receiving.size();
  }

  /**
   * Collects one body into a buffer that doubles as bytes arrive, never past the limit. A body that
   * arrives in one chunk (most deliveries: Undertow hands over a fresh array per chunk) is passed
   * on as that chunk, with no buffer and no copy.
   */
  private final class Body implements Receiver.PartialBytesCallback, Receiver.ErrorCallback {
    private final int limit;
    private final int initial;
    private byte[] bytes; // null until a body takes more than one chunk
    private int size;
    private boolean finished;
    private boolean tracked; // in receiving: the body did not arrive within receive()
    // The silence watch, only for a tracked body; its fields are used on the exchange's IO thread.
    private long lastChunkNanos;
    private XnioExecutor.Key timer;

    Body(int limit, int initial) {
      this.limit = limit;
      this.initial = initial;
    }

    @Override
    public void handle(HttpServerExchange exchange, byte[] chunk, boolean last) {
      if (finished) {
        return;
      }
      if (tracked) {
        lastChunkNanos = System.nanoTime();
      }
      if (chunk.length > limit - size) {
        finish(exchange);
        exchange.getRequestReceiver().pause();
        tooLarge(exchange);
        return;
      }
      if (bytes == null) {
        if (last) {
          finish(exchange);
          delivered.received(exchange, chunk);
          return;
        }
        bytes = new byte[Math.max(initial, chunk.length)];
      } else if (chunk.length > bytes.length - size) {
        int capacity = Math.max(size + chunk.length, (int) Math.min(limit, 2L * bytes.length));
        bytes = Arrays.copyOf(bytes, capacity);
      }
      System.arraycopy(chunk, 0, bytes, size, chunk.length);
      size += chunk.length;
      if (last) {
        byte[] whole = size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
        finish(exchange);
        delivered.received(exchange, whole);
      }
    }

    /** The body is done with, whatever the outcome: no more chunks, no buffer, no watch. */
    private void finish(HttpServerExchange exchange) {
      finished = true;
      bytes = null;
      if (tracked) {
        receiving.remove(exchange);
        unwatch();
      }
    }

    void watch(HttpServerExchange exchange) {
      this.lastChunkNanos = System.nanoTime();
      arm(exchange, silenceNanos);
    }

    private void arm(HttpServerExchange exchange, long delayNanos) {
      // Read as a whole millisecond at least: XNIO's timers count milliseconds.
      long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(delayNanos + 999_999));
      timer =
          exchange.getIoThread().executeAfter(() -> check(exchange), millis, TimeUnit.MILLISECONDS);
    }

    private void check(HttpServerExchange exchange) {
      timer = null;
      if (finished) {
        return;
      }
      long silent = System.nanoTime() - lastChunkNanos;
      if (silent < silenceNanos) {
        arm(exchange, silenceNanos - silent);
        return;
      }
      finish(exchange);
      log.debug(
          "A delivery's body stopped arriving for {} ms; connection closed",
          TimeUnit.NANOSECONDS.toMillis(silent));
      IoUtils.safeClose(exchange.getConnection());
    }

    void unwatch() {
      XnioExecutor.Key armed = timer;
      if (armed != null) {
        timer = null;
        armed.remove();
      }
    }

    @Override
    public void error(HttpServerExchange exchange, IOException error) {
      if (finished) {
        return;
      }
      finish(exchange);
      readFailed(exchange, error);
    }
  }

  private void readFailed(HttpServerExchange exchange, IOException error) {
    if (error instanceof Receiver.RequestToLargeException) {
      tooLarge(exchange);
    } else {
      log.debug("Could not read a delivery's body: {}", error.toString());
      exchange.getResponseHeaders().put(CONNECTION, "close");
      exchange.setPersistent(false);
      ExchangeAnswers.send(exchange, adapter.unreadableBody());
    }
  }

  private void tooLarge(HttpServerExchange exchange) {
    // The rest of the body is never read: the connection cannot be reused.
    exchange.getResponseHeaders().put(CONNECTION, "close");
    exchange.setPersistent(false);
    ExchangeAnswers.send(exchange, adapter.payloadTooLarge());
  }
}
