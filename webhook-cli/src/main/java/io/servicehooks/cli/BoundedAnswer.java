package io.servicehooks.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One HTTP exchange whose whole answer (status, headers and body) must arrive within a budget. The
 * JDK client's request time-out ends when the headers arrive; a body that stops halfway would hold
 * the caller for ever. Past the budget the exchange is cancelled and an {@link
 * HttpTimeoutException} says so.
 */
final class BoundedAnswer {

  /** A complete answer; the body cut at the bound the caller gave. */
  record Answer(int status, HttpHeaders headers, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private BoundedAnswer() {}

  /**
   * Sends {@code request} and reads the whole answer within {@code budget}, keeping at most {@code
   * maxBodyBytes} of the body (the rest is not read: the exchange is cancelled).
   *
   * @throws HttpTimeoutException when the whole answer did not arrive within the budget
   * @throws IOException when the exchange failed
   */
  static Answer exchange(HttpClient http, HttpRequest request, Duration budget, int maxBodyBytes)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + budget.toNanos();
    CompletableFuture<HttpResponse<Flow.Publisher<List<ByteBuffer>>>> sent =
        http.sendAsync(request, HttpResponse.BodyHandlers.ofPublisher());
    HttpResponse<Flow.Publisher<List<ByteBuffer>>> response;
    try {
      response = sent.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      sent.cancel(true);
      throw timedOut(budget);
    } catch (InterruptedException e) {
      sent.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      throw asIOException(e.getCause());
    }
    Chunks chunks = new Chunks();
    response.body().subscribe(chunks);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw timedOut(budget);
        }
        Object item = chunks.queue.poll(left, TimeUnit.NANOSECONDS);
        if (item == null) {
          continue;
        }
        if (item == Chunks.END) {
          break;
        }
        if (item instanceof Throwable failure) {
          throw asIOException(failure);
        }
        byte[] chunk = (byte[]) item;
        int room = maxBodyBytes - bytes.size();
        bytes.write(chunk, 0, Math.min(room, chunk.length));
        if (chunk.length > room) {
          break;
        }
        chunks.next();
      }
    } finally {
      chunks.cancel();
    }
    return new Answer(response.statusCode(), response.headers(), bytes.toByteArray());
  }

  private static HttpTimeoutException timedOut(Duration budget) {
    return new HttpTimeoutException("no complete answer within " + budget.toMillis() + " ms");
  }

  private static IOException asIOException(Throwable failure) {
    if (failure instanceof IOException io) {
      return io;
    }
    return new IOException(failure.getClass().getSimpleName(), failure);
  }

  /**
   * Hands the body's chunks to the polling reader, one request at a time (back-pressure), so the
   * reader notices its deadline within its poll instead of blocking in a read.
   */
  private static final class Chunks implements Flow.Subscriber<List<ByteBuffer>> {
    static final Object END = new Object();
    final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private volatile Flow.Subscription subscription;

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      int size = 0;
      for (ByteBuffer buffer : buffers) {
        size += buffer.remaining();
      }
      byte[] bytes = new byte[size];
      int at = 0;
      for (ByteBuffer buffer : buffers) {
        int n = buffer.remaining();
        buffer.get(bytes, at, n);
        at += n;
      }
      queue.add(bytes);
    }

    @Override
    public void onError(Throwable throwable) {
      queue.add(throwable);
    }

    @Override
    public void onComplete() {
      queue.add(END);
    }

    void next() {
      Flow.Subscription s = subscription;
      if (s != null) {
        s.request(1);
      }
    }

    void cancel() {
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
    }
  }
}
