package io.servicehooks.core;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The shared scheduler that polls for copies and renews leases: one daemon thread for every
 * consumer in the JVM, since it only asks stores and never runs listeners.
 */
final class DedupScheduler {

  private DedupScheduler() {}

  static ScheduledExecutorService shared() {
    return Holder.INSTANCE;
  }

  private static final class Holder {
    static final ScheduledExecutorService INSTANCE = create();

    private static ScheduledExecutorService create() {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread t = new Thread(r, "servicehooks-dedup");
                t.setDaemon(true);
                return t;
              });
      executor.setRemoveOnCancelPolicy(true);
      return executor;
    }
  }
}
