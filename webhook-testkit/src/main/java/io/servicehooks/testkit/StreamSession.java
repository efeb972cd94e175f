package io.servicehooks.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One open activity stream: a queue of frames (event lines, keep-alives, control frames) that the
 * connection's own server thread writes, one flushed chunk per frame.
 */
final class StreamSession {

  /** Thrown out of the server's handler so the JDK server drops the TCP connection mid-response. */
  static final class Dropped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Dropped(String endpointId) {
      super("stream " + endpointId + " dropped (simulated fault)", null, false, false);
    }
  }

  enum Kind {
    EVENT,
    KEEP_ALIVE,
    DROP,
    DISCONNECT,
    CLOSE,
    PROBE
  }

  /**
   * A frame for the writer.
   *
   * @param probe for a {@link Kind#PROBE}, completed with whether the client still reads
   */
  record Frame(Kind kind, byte[] line, CompletableFuture<Boolean> probe) {
    Frame(Kind kind, byte[] line) {
      this(kind, line, null);
    }
  }

  private static final byte[] NEWLINE = {'\n'};
  // A client that has gone is only noticed on a write: the first write after its socket closed
  // still succeeds (and draws a reset), the second fails. A probe writes two keep-alives this far
  // apart.
  private static final long PROBE_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  // When keep-alives run on the simulator's clock, the writer still wakes this often to notice
  // that nothing asks it to stop; it writes nothing on such a wake-up.
  private static final long IDLE_WAKE_NANOS = TimeUnit.SECONDS.toNanos(1);

  final String endpointId;
  final Instant connectedAt;
  final int backfillMinutes;
  private final BlockingQueue<Frame> frames;
  private volatile boolean stalled;
  private volatile boolean slow;
  private volatile Instant lastKeepAlive; // on the simulator's clock

  StreamSession(String endpointId, Instant connectedAt, int backfillMinutes, int buffer) {
    this.endpointId = endpointId;
    this.connectedAt = connectedAt;
    this.backfillMinutes = backfillMinutes;
    this.frames = new ArrayBlockingQueue<>(buffer);
    this.lastKeepAlive = connectedAt;
  }

  OpenStream describe() {
    return new OpenStream(endpointId, connectedAt, backfillMinutes, stalled);
  }

  boolean stalled() {
    return stalled;
  }

  void stall() {
    stalled = true;
  }

  /**
   * Queues an event line. A reader too slow to keep the buffer from filling is cut off, as the
   * platform does: the connection drops as soon as its writer runs again.
   */
  void offerEvent(byte[] line) {
    if (!frames.offer(new Frame(Kind.EVENT, line))) {
      slow = true;
    }
  }

  /**
   * Asks the writer whether the client still reads: it writes two keep-alives (a keep-alive is
   * allowed at any time) and completes the answer with false when the write fails. A stalled
   * connection writes nothing and a full buffer means a writer still busy: both answer true at
   * once, as nothing shows the client has gone.
   */
  CompletableFuture<Boolean> probe() {
    CompletableFuture<Boolean> answer = new CompletableFuture<>();
    if (stalled || !frames.offer(new Frame(Kind.PROBE, NEWLINE, answer))) {
      answer.complete(true);
    }
    return answer;
  }

  /** Queues a control frame; it goes ahead of nothing, but is never lost to a full buffer. */
  void control(Kind kind, byte[] line) {
    Frame frame = new Frame(kind, line);
    if (!frames.offer(frame)) {
      // Control frames end the connection anyway: a slow reader is dropped on the next wake.
      slow = true;
    }
  }

  /** Queues as many keep-alives as intervals have passed on the simulator's clock. */
  void keepAlivesUntil(Instant now, Duration interval) {
    Instant last = lastKeepAlive;
    int due = 0;
    while (!last.plus(interval).isAfter(now) && due < 100) {
      last = last.plus(interval);
      due++;
    }
    lastKeepAlive = last;
    for (int i = 0; i < due; i++) {
      if (!frames.offer(new Frame(Kind.KEEP_ALIVE, NEWLINE))) {
        slow = true;
        return;
      }
    }
  }

  /**
   * Writes the backfill, then frames as they come, until a control frame ends the connection.
   * Returns normally for a clean end (the caller closes the response); throws {@link Dropped} for
   * an abrupt one and {@link IOException} when the client went away.
   *
   * @param keepAlive the real-time keep-alive interval now in force, or null when keep-alives run
   *     on the simulator's clock
   */
  void serve(
      OutputStream out, List<byte[]> backfill, java.util.function.Supplier<Duration> keepAlive)
      throws IOException, InterruptedException {
    for (byte[] line : backfill) {
      writeLine(out, line);
    }
    out.flush();
    while (true) {
      if (slow) {
        throw new Dropped(endpointId);
      }
      Duration interval = keepAlive.get();
      long wait = interval == null ? IDLE_WAKE_NANOS : interval.toNanos();
      Frame frame = frames.poll(wait, TimeUnit.NANOSECONDS);
      if (frame == null) {
        if (interval != null && !stalled) {
          out.write(NEWLINE);
          out.flush();
        }
        continue;
      }
      switch (frame.kind()) {
        case EVENT:
        case KEEP_ALIVE:
          if (!stalled) {
            writeLine(out, frame.line());
            out.flush();
          }
          break;
        case DISCONNECT:
          if (!stalled) {
            writeLine(out, frame.line());
            out.flush();
          }
          return;
        case CLOSE:
          return;
        case PROBE:
          boolean written = false;
          try {
            if (!stalled) {
              out.write(NEWLINE);
              out.flush();
              LockSupport.parkNanos(PROBE_GAP_NANOS);
              out.write(NEWLINE);
              out.flush();
            }
            written = true;
          } finally {
            frame.probe().complete(written);
          }
          break;
        default:
          throw new Dropped(endpointId);
      }
    }
  }

  private static void writeLine(OutputStream out, byte[] line) throws IOException {
    out.write(line);
    if (line.length == 0 || line[line.length - 1] != '\n') {
      out.write(NEWLINE);
    }
  }

  @Override
  public String toString() {
    return "StreamSession[" + endpointId + (stalled ? ", stalled" : "") + "]";
  }
}
