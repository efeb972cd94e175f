package io.servicehooks.stream;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Cuts the stream's bytes into lines at {@code '\n'}, as they arrive in chunks; a line longer than
 * the consumer's body limit is dropped whole (reported once) instead of being held in memory. Used
 * by the reader thread only.
 */
final class LineSplitter {

  /** Takes one complete line (without its {@code '\n'}); a non-null answer stops the feeding. */
  @FunctionalInterface
  interface Sink<T> {
    T line(byte[] line) throws InterruptedException;
  }

  private final int maxLineBytes;
  private final Runnable tooLarge;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(512);
  private boolean oversized;
  private long completed;

  LineSplitter(int maxLineBytes, Runnable tooLarge) {
    this.maxLineBytes = maxLineBytes;
    this.tooLarge = tooLarge;
  }

  /** How many lines have ended so far (keep-alives and dropped oversized lines included). */
  long completed() {
    return completed;
  }

  /**
   * Feeds {@code n} bytes of {@code buffer}: each line they complete goes to {@code sink}, the rest
   * waits for the next chunk. Returns the sink's first non-null answer (the bytes after that line
   * are not read), or null.
   */
  <T> T feed(byte[] buffer, int n, Sink<T> sink) throws InterruptedException {
    int start = 0;
    for (int i = 0; i < n; i++) {
      if (buffer[i] != '\n') {
        continue;
      }
      completed++;
      if (!oversized) {
        byte[] complete;
        if (line.size() == 0) {
          complete = Arrays.copyOfRange(buffer, start, i); // the whole line is in this chunk
        } else {
          line.write(buffer, start, i - start);
          complete = line.toByteArray();
        }
        T stop = sink.line(complete);
        if (stop != null) {
          return stop;
        }
      }
      line.reset();
      oversized = false;
      start = i + 1;
    }
    if (!oversized) {
      line.write(buffer, start, n - start);
      if (line.size() > maxLineBytes) {
        oversized = true;
        line.reset();
        tooLarge.run();
      }
    }
    return null;
  }
}
