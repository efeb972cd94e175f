package io.servicehooks.samples;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.Map;

/**
 * The standalone consumer's standard output: buffered, and written out at most {@link
 * #FLUSH_INTERVAL} after a line was printed, when the buffer fills, after a WARN or ERROR line
 * ({@link ConsumerConsoleAppender}), and when the process exits.
 *
 * <p>The JVM's own {@code System.out} flushes on every write, so a consumer that logs a line per
 * event pays a {@code write(2)} per event: about 1.2 µs of CPU each on a 2-core virtual machine,
 * more than the event's dedup. Buffered, a burst of events costs one {@code write(2)} per 8 KB.
 * Every writer of standard output (the log appender, the usage text, a listener's {@code println})
 * goes through the one buffer, so their lines keep their order.
 *
 * <p>Only a consumer that reads the activity stream and nothing else ({@code DELIVERY=stream})
 * buffers. Where deliveries are answered over HTTP, an event's {@code Handled} line is written out
 * before its 200 leaves: the line is the record that the event's listeners ran, and a kill must not
 * be able to leave a 200 without it. On the stream nothing is answered, and a reconnect's backfill,
 * not the log, accounts for what ran.
 *
 * <p>What it gives up: lines printed in the last {@link #FLUSH_INTERVAL} before the process is
 * killed outright ({@code SIGKILL}, the kernel's OOM killer) or the JVM crashes are lost. A normal
 * exit, {@code System.exit} and {@code SIGTERM} run the shutdown hook, which writes out the rest
 * and makes every later write go out at once, so the lines other shutdown hooks log (the consumer's
 * own stop) are not left in the buffer when the JVM halts.
 */
final class BufferedStdout {

  /** How long a printed line may wait in the buffer. */
  static final Duration FLUSH_INTERVAL = Duration.ofMillis(100);

  private static final int BUFFER_BYTES = 8192;

  private BufferedStdout() {}

  /**
   * With {@code DELIVERY=stream}, replaces {@code System.out} with the buffered stream and starts
   * its flusher; otherwise changes nothing. Called once, first thing in {@code main}.
   */
  static void installFor(Map<String, String> env) {
    if ("stream".equals(env.get(ConsumerVariables.DELIVERY.name()))) {
      install();
    }
  }

  private static void install() {
    ExitAware stream = new ExitAware(new FileOutputStream(FileDescriptor.out));
    PrintStream buffered =
        new PrintStream(
            stream,
            false,
            Charset.forName(
                System.getProperty("stdout.encoding", Charset.defaultCharset().name())));
    System.setOut(buffered);
    Thread flusher = new Thread(() -> flushEvery(buffered), "servicehooks-stdout-flush");
    flusher.setDaemon(true);
    flusher.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stream.exiting = true;
                  buffered.flush();
                },
                "servicehooks-stdout-flush-at-exit"));
  }

  /** A buffer that, once the process is exiting, writes everything out at once. */
  private static final class ExitAware extends BufferedOutputStream {
    volatile boolean exiting;

    ExitAware(FileOutputStream out) {
      super(out, BUFFER_BYTES);
    }

    @Override
    public synchronized void write(int b) throws java.io.IOException {
      super.write(b);
      if (exiting) {
        flush();
      }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
      super.write(b, off, len);
      if (exiting) {
        flush();
      }
    }
  }

  private static void flushEvery(PrintStream out) {
    long intervalMillis = FLUSH_INTERVAL.toMillis();
    while (true) {
      try {
        Thread.sleep(intervalMillis);
      } catch (InterruptedException e) {
        out.flush();
        return;
      }
      out.flush(); // nothing written since the last flush: no system call
    }
  }
}
