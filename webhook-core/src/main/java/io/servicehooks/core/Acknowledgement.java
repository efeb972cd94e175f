package io.servicehooks.core;

/** When a delivery is answered relative to running its listeners. */
public enum Acknowledgement {
  /**
   * The default: answer after every listener finished, 200 when all succeeded and 500 when one
   * threw, so the platform retries what failed.
   */
  SYNCHRONOUS,
  /**
   * Answer 200 as soon as the delivery's events are on a bounded queue; listeners run later on the
   * consumer's own threads. A full queue answers 503. Failures reach only the {@link ErrorHandler}.
   */
  ASYNCHRONOUS
}
