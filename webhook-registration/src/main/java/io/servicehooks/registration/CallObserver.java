package io.servicehooks.registration;

import java.io.IOException;

/**
 * Wraps one call to the platform, to trace it ({@link Answering} opens a Micrometer observation as
 * a child of the delivery's); {@link #NONE} runs it as is.
 */
interface CallObserver {

  /** The call itself. */
  @FunctionalInterface
  interface Call {
    ApiResponse run() throws IOException;
  }

  CallObserver NONE = (name, call) -> call.run();

  /**
   * Runs {@code call}, named {@code name} (the method and the path's template, such as {@code POST
   * /2/posts}).
   */
  ApiResponse observe(String name, Call call) throws IOException;
}
