package io.servicehooks.registration;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads a response body up to a bound, so an answer (from the platform, or from whatever answers at
 * its address) cannot make the client buffer without limit. The buffer grows as bytes arrive, never
 * from a declared {@code Content-Length}; past the bound the subscription is cancelled, which
 * closes the connection, and the body is reported too large instead.
 */
final class BoundedBody {

  /** What was read: the bytes, or {@code null} with {@code tooLarge} when the bound was passed. */
  record Result(byte[] bytes, boolean tooLarge) {}

  private BoundedBody() {}

  static HttpResponse.BodyHandler<Result> handler(int limit) {
    return info -> {
      long declared = info.headers().firstValueAsLong("content-length").orElse(-1);
      return new Subscriber(limit, declared > limit);
    };
  }

  private static final class Subscriber implements HttpResponse.BodySubscriber<Result> {
    private final int limit;
    private final boolean declaredTooLarge;
    private final CompletableFuture<Result> result = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private Flow.Subscription subscription;

    Subscriber(int limit, boolean declaredTooLarge) {
      this.limit = limit;
      this.declaredTooLarge = declaredTooLarge;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      if (declaredTooLarge) {
        tooLarge();
        return;
      }
      subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      if (result.isDone()) {
        return;
      }
      for (ByteBuffer buffer : buffers) {
        if (buffer.remaining() > limit - bytes.size()) {
          tooLarge();
          return;
        }
        byte[] chunk = new byte[buffer.remaining()];
        buffer.get(chunk);
        bytes.writeBytes(chunk);
      }
      subscription.request(1);
    }

    @Override
    public void onError(Throwable throwable) {
      result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
      result.complete(new Result(bytes.toByteArray(), false));
    }

    @Override
    public CompletionStage<Result> getBody() {
      return result;
    }

    private void tooLarge() {
      subscription.cancel();
      result.complete(new Result(null, true));
    }
  }
}
