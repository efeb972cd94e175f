package io.servicehooks.registration;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSession;

/**
 * Every exchange of this module with the platform, bounded in time as a whole. The JDK client's
 * request time-out covers the wait for the headers only: an answer that sends its headers and then
 * part of its body would hold the caller for ever. Here one deadline (the client's {@code
 * requestTimeout}) covers the status, the headers and the body; when it passes, the exchange is
 * cancelled (which closes its connection) and the caller gets an {@link HttpTimeoutException}, the
 * failure a time-out has everywhere else, so the usual failure or retry path runs.
 *
 * <p>{@link #open} is the one exchange whose body outlives the call (the activity stream): there
 * the deadline covers the status and the headers, and, for any answer but 200, its error body too,
 * which is read here (up to a bound) so no caller ever parks on it.
 */
final class BoundedExchange {

  private BoundedExchange() {}

  /**
   * Sends {@code request} and reads its whole answer with {@code body} within {@code timeout}.
   *
   * @param what names the call in a time-out's message, such as {@code POST /oauth2/token}
   * @throws HttpTimeoutException when the whole answer did not arrive in time
   * @throws IOException as {@link HttpClient#send} does
   */
  static <T> HttpResponse<T> send(
      HttpClient http,
      HttpRequest request,
      HttpResponse.BodyHandler<T> body,
      Duration timeout,
      String what)
      throws IOException {
    CompletableFuture<HttpResponse<T>> answer = http.sendAsync(request, body);
    try {
      return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      answer.cancel(true);
      throw timedOut(what, timeout);
    } catch (InterruptedException e) {
      answer.cancel(true);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted during " + what);
    } catch (ExecutionException e) {
      throw unwrapped(e.getCause());
    }
  }

  /**
   * Sends {@code request} for a long-lived body. A 200 answer is returned as soon as its headers
   * arrived, its body unread (the caller reads and closes it, and bounds the reading itself). Any
   * other answer is returned with its first {@code maxErrorBytes} bytes of body already read; when
   * the deadline passes while that body is still arriving, the answer keeps its status and headers
   * with the bytes that did arrive, so the caller still learns what the platform said.
   *
   * @throws HttpTimeoutException when the status and headers did not arrive within {@code timeout}
   */
  static HttpResponse<InputStream> open(
      HttpClient http, HttpRequest request, Duration timeout, int maxErrorBytes, String what)
      throws IOException {
    AtomicReference<ErrorBody> error = new AtomicReference<>();
    AtomicReference<HttpResponse.ResponseInfo> head = new AtomicReference<>();
    HttpResponse.BodyHandler<InputStream> handler =
        info -> {
          head.set(info);
          if (info.statusCode() == 200) {
            return HttpResponse.BodySubscribers.ofInputStream();
          }
          ErrorBody body = new ErrorBody(maxErrorBytes);
          error.set(body);
          return body;
        };
    CompletableFuture<HttpResponse<InputStream>> answer = http.sendAsync(request, handler);
    try {
      return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      answer.cancel(true);
      // A 200 whose headers came just as the time ran out: its body is nobody's, close it.
      answer.thenAccept(late -> closeQuietly(late.body()));
      HttpResponse.ResponseInfo info = head.get();
      ErrorBody partial = error.get();
      if (info == null || partial == null) {
        throw timedOut(what, timeout);
      }
      return new PartialAnswer(request, info, partial.soFar());
    } catch (InterruptedException e) {
      answer.cancel(true);
      answer.thenAccept(late -> closeQuietly(late.body()));
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted during " + what);
    } catch (ExecutionException e) {
      throw unwrapped(e.getCause());
    }
  }

  private static HttpTimeoutException timedOut(String what, Duration timeout) {
    return new HttpTimeoutException(
        what
            + ": no complete answer within "
            + ApiCaller.saturatedMillis(timeout)
            + " ms (the request time-out)");
  }

  /** The failure {@link HttpClient#send} would have thrown. */
  private static IOException unwrapped(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof IOException io) {
      return io;
    }
    if (cause instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IOException(cause);
  }

  private static void closeQuietly(InputStream body) {
    try {
      body.close();
    } catch (IOException | RuntimeException ignored) {
      // only releasing the connection matters
    }
  }

  /**
   * An error body: keeps its first bytes, up to a bound, and stops the transfer there; what arrived
   * so far can be taken at any time.
   */
  private static final class ErrorBody implements HttpResponse.BodySubscriber<InputStream> {
    private final int limit;
    private final CompletableFuture<InputStream> result = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private Flow.Subscription subscription;

    ErrorBody(int limit) {
      this.limit = limit;
    }

    synchronized byte[] soFar() {
      return bytes.toByteArray();
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      boolean full = false;
      synchronized (this) {
        for (ByteBuffer buffer : buffers) {
          int room = limit - bytes.size();
          int take = Math.min(room, buffer.remaining());
          byte[] chunk = new byte[take];
          buffer.get(chunk);
          bytes.writeBytes(chunk);
          if (bytes.size() >= limit) {
            full = true;
            break;
          }
        }
      }
      if (full) {
        subscription.cancel();
        result.complete(new ByteArrayInputStream(soFar()));
      } else {
        subscription.request(1);
      }
    }

    @Override
    public void onError(Throwable throwable) {
      result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
      result.complete(new ByteArrayInputStream(soFar()));
    }

    @Override
    public CompletionStage<InputStream> getBody() {
      return result;
    }
  }

  /** An answer whose body stopped arriving: its status and headers, and the bytes that came. */
  private record PartialAnswer(HttpRequest request, HttpResponse.ResponseInfo info, byte[] bytes)
      implements HttpResponse<InputStream> {

    @Override
    public int statusCode() {
      return info.statusCode();
    }

    @Override
    public HttpHeaders headers() {
      return info.headers();
    }

    @Override
    public InputStream body() {
      return new ByteArrayInputStream(bytes);
    }

    @Override
    public Optional<HttpResponse<InputStream>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return request.uri();
    }

    @Override
    public HttpClient.Version version() {
      return info.version();
    }
  }
}
