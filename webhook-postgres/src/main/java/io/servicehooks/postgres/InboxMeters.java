package io.servicehooks.postgres;

/**
 * What the inbox records. On Micrometer when the builder got a registry, a no-op otherwise, so the
 * module runs without Micrometer on the class path.
 */
interface InboxMeters {

  InboxMeters NONE = new InboxMeters() {};

  /** Attaches gauges; called once, at build time. */
  default void bind(PostgresInbox.Settings settings) {}

  /** Whether the gauges need the periodic count query. */
  default boolean wantsGauges() {
    return false;
  }

  /**
   * The gauges' latest values: not handled yet, of those the ones taken back from owners that are
   * gone and not run again yet, dead letters, oldest due age in seconds.
   */
  default void gauges(long pending, long orphaned, long dead, double lagSeconds) {}

  /** One attempt ended: {@code done}, {@code retry} or {@code dead}. */
  default void processed(String outcome, long nanos) {}
}
