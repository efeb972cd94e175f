package io.servicehooks.samples;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;

/**
 * The standalone consumer's console appender: lines go into {@link BufferedStdout}'s buffer, and a
 * WARN or ERROR line writes the buffer out at once, so an operator watching the output (or a probe
 * that just turned DOWN) sees the line that says why without waiting for the next flush.
 */
public final class ConsumerConsoleAppender extends ConsoleAppender<ILoggingEvent> {

  @Override
  protected void subAppend(ILoggingEvent event) {
    super.subAppend(event);
    if (event.getLevel().isGreaterOrEqual(Level.WARN)) {
      System.out.flush();
    }
  }
}
