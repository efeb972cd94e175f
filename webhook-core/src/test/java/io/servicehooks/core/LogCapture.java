package io.servicehooks.core;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Records what the core logs (under the consumer's logger) from WARN up, for one test; close it to
 * detach and restore the level.
 */
final class LogCapture implements AutoCloseable {

  private final Logger logger = (Logger) LoggerFactory.getLogger(WebhookConsumer.class);
  private final Level level = logger.getLevel();
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  LogCapture() {
    this(Level.WARN);
  }

  /** Records from {@code from} up. */
  LogCapture(Level from) {
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(from);
  }

  /** The recorded events, oldest first. */
  List<ILoggingEvent> events() {
    return List.copyOf(appender.list);
  }

  /** The formatted messages, oldest first. */
  List<String> messages() {
    return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  /** The formatted messages at {@code level}. */
  List<String> messages(Level at) {
    return appender.list.stream()
        .filter(e -> e.getLevel() == at)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    logger.setLevel(level);
    appender.stop();
  }
}
