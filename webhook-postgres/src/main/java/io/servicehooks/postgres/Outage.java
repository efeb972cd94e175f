package io.servicehooks.postgres;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs a database outage once when it starts and once when it ends, however many calls fail. */
final class Outage {

  private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);

  private final String what;
  private final AtomicBoolean down = new AtomicBoolean();

  Outage(String what) {
    this.what = what;
  }

  void failed(Throwable e) {
    if (down.compareAndSet(false, true)) {
      log.warn("Inbox {} failed, retrying quietly until it works: {}", what, describe(e));
    } else {
      log.debug("Inbox {} failed again: {}", what, describe(e));
    }
  }

  void worked() {
    if (down.get() && down.compareAndSet(true, false)) {
      log.info("Inbox {} works again", what);
    }
  }

  /**
   * Class, SQL state and the message's first line, scrubbed: a server's error may repeat a user
   * name that swallowed a password ({@link DatabaseMessages}).
   */
  static String describe(Throwable e) {
    return DatabaseMessages.describe(e, null);
  }
}
