package io.servicehooks.cli;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Hands a streamed body's chunks to a polling reader, one request at a time (back-pressure), so the
 * reader notices a stop, an interrupt or silence within its poll instead of blocking in a read.
 */
final class StreamChunks implements Flow.Subscriber<List<ByteBuffer>> {
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

  /** The start of a refusal's body (64 KiB at most), waiting at most 5 s for it. */
  static String head(Flow.Publisher<List<ByteBuffer>> body) {
    StreamChunks chunks = new StreamChunks();
    body.subscribe(chunks);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try {
      while (bytes.size() < 64 * 1024 && System.nanoTime() < deadline) {
        Object item = chunks.queue.poll(250, TimeUnit.MILLISECONDS);
        if (item == END || item instanceof Throwable) {
          break;
        }
        if (item instanceof byte[] chunk) {
          bytes.write(chunk, 0, chunk.length);
          chunks.next();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      chunks.cancel();
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
