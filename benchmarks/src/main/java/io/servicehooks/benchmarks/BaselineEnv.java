package io.servicehooks.benchmarks;

import io.undertow.Undertow;

/** The settings the hand-written baseline servers share with the consumer jar: env, loopback. */
final class BaselineEnv {

  private BaselineEnv() {}

  static int port() {
    return Integer.parseInt(System.getenv().getOrDefault("PORT", "18080"));
  }

  static String secret() {
    return System.getenv().getOrDefault("SERVICE_CONSUMER_SECRET", Payloads.SECRET);
  }

  /**
   * An Undertow builder on 127.0.0.1. {@code IO_THREADS} / {@code WORKER_THREADS} override
   * Undertow's defaults (IO: the larger of the core count and 2), as the consumer jar's settings
   * do.
   */
  static Undertow.Builder undertow() {
    Undertow.Builder builder = Undertow.builder().addHttpListener(port(), "127.0.0.1");
    String io = System.getenv("IO_THREADS");
    if (io != null && !io.isBlank()) {
      builder.setIoThreads(Integer.parseInt(io.trim()));
    }
    String workers = System.getenv("WORKER_THREADS");
    if (workers != null && !workers.isBlank()) {
      builder.setWorkerThreads(Integer.parseInt(workers.trim()));
    }
    return builder;
  }
}
