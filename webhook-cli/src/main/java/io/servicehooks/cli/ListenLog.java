package io.servicehooks.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Shows the log lines of the stream, the consumer and the platform client on the standard error of
 * {@code servicehooks listen}, one plain line each while it runs: the stream's story (connected,
 * down and why, each further attempt and its wait, error objects from the platform, a refusal) is
 * what {@code listen} has to say about the connection, told in the stream's own words. ERROR lines
 * start with {@code error: }. {@link #close()} gives the loggers back their settings.
 */
final class ListenLog extends AppenderBase<ILoggingEvent> implements AutoCloseable {

  /** The stream's logger, at DEBUG while listening: its per-attempt lines are DEBUG. */
  static final String STREAM = "io.servicehooks.stream";

  private static final List<String> LOGGERS =
      List.of(STREAM, "io.servicehooks.core", "io.servicehooks.registration");

  private record Saved(Logger logger, Level level, boolean additive) {}

  private final PrintWriter err;
  private final List<Saved> saved = new ArrayList<>();

  private ListenLog(PrintWriter err) {
    this.err = err;
  }

  /**
   * Routes those loggers to {@code err} until {@link #close()}; does nothing when logging is not
   * Logback (the command line ships Logback).
   */
  static ListenLog attach(PrintWriter err) {
    ListenLog log = new ListenLog(err);
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return log;
    }
    log.setContext(context);
    log.setName("servicehooks-listen");
    log.start();
    for (String name : LOGGERS) {
      Logger logger = context.getLogger(name);
      log.saved.add(new Saved(logger, logger.getLevel(), logger.isAdditive()));
      if (name.equals(STREAM)) {
        logger.setLevel(Level.DEBUG);
      }
      logger.setAdditive(false);
      logger.addAppender(log);
    }
    return log;
  }

  @Override
  protected void append(ILoggingEvent event) {
    StringBuilder line = new StringBuilder();
    if (event.getLevel() == Level.ERROR) {
      line.append("error: ");
    }
    line.append(event.getFormattedMessage());
    IThrowableProxy thrown = event.getThrowableProxy();
    if (thrown != null) {
      String name = thrown.getClassName();
      line.append(" (")
          .append(name.substring(name.lastIndexOf('.') + 1))
          .append(thrown.getMessage() == null ? "" : ": " + Printable.of(thrown.getMessage()))
          .append(')');
    }
    synchronized (err) {
      err.println(line);
      err.flush();
    }
  }

  @Override
  public void close() {
    for (Saved s : saved) {
      s.logger().detachAppender(this);
      s.logger().setAdditive(s.additive());
      s.logger().setLevel(s.level());
    }
    saved.clear();
    stop();
  }
}
