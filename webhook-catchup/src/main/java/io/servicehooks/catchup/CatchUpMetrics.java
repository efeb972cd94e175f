package io.servicehooks.catchup;

/** What {@link CatchUp} counts; a no-op unless the builder was given a Micrometer registry. */
interface CatchUpMetrics {

  CatchUpMetrics NONE = new CatchUpMetrics() {};

  /** A replay job the platform accepted. */
  default void asked() {}

  /** A job whose {@code replay_job_status} said Complete. */
  default void completed() {}

  /** An attempt that did not complete: Incomplete, conflict, refused, not reached, no status. */
  default void failed() {}

  /** Minutes of a gap older than the replay reach. */
  default void unhealable(long minutes) {}
}
