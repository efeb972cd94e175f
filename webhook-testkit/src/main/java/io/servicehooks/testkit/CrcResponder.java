package io.servicehooks.testkit;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The CRC side of {@link ConsumerStub}: answers {@code GET ?crc_token=...} as configured (right or
 * wrong token, 500, redirect, hang), counts the checks, and can hold answers until several checks
 * overlap.
 */
final class CrcResponder {

  // How long CRC answers held by holdUntil wait for the other checks to arrive.
  private static final long BARRIER_SECONDS = 5;

  private final Hmac hmac;
  private final Hmac wrongHmac;
  private final AtomicInteger requests = new AtomicInteger();
  private volatile ConsumerStub.CrcAnswer answer = ConsumerStub.CrcAnswer.CORRECT;
  private volatile CountDownLatch barrier;

  CrcResponder(String consumerSecret) {
    this.hmac = new Hmac(consumerSecret);
    this.wrongHmac = new Hmac(consumerSecret + "-wrong");
  }

  void answer(ConsumerStub.CrcAnswer answer) {
    this.answer = Objects.requireNonNull(answer, "answer");
  }

  void holdUntil(int checks) {
    if (checks < 1) {
      throw new IllegalArgumentException("checks must be at least 1 but was " + checks);
    }
    barrier = new CountDownLatch(checks);
  }

  int requests() {
    return requests.get();
  }

  /**
   * Answers one check.
   *
   * @param redirectTo where a {@link ConsumerStub.CrcAnswer#REDIRECT} points
   * @param closing what a {@link ConsumerStub.CrcAnswer#HANG} waits for
   */
  void respond(HttpExchange exchange, String redirectTo, CountDownLatch closing)
      throws IOException {
    String token = crcToken(exchange.getRequestURI().getRawQuery());
    if (token == null) {
      ConsumerStub.json(exchange, 400, "{}");
      return;
    }
    requests.incrementAndGet();
    CountDownLatch held = barrier;
    if (held != null) {
      held.countDown();
      ConsumerStub.await(held, BARRIER_SECONDS);
    }
    switch (answer) {
      case CORRECT -> ConsumerStub.json(exchange, 200, responseToken(hmac, token));
      case WRONG_TOKEN -> ConsumerStub.json(exchange, 200, responseToken(wrongHmac, token));
      case SERVER_ERROR -> ConsumerStub.json(exchange, 500, "{}");
      case REDIRECT -> {
        exchange.getResponseHeaders().set("Location", redirectTo);
        exchange.sendResponseHeaders(302, -1);
      }
      case HANG -> ConsumerStub.await(closing, ConsumerStub.HOLD_LIMIT_SECONDS);
    }
  }

  /** Lets every held answer go (the stub is closing). */
  void releaseAll() {
    CountDownLatch held = barrier;
    while (held != null && held.getCount() > 0) {
      held.countDown();
    }
  }

  private static String crcToken(String rawQuery) {
    if (rawQuery == null) {
      return null;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.startsWith("crc_token=")) {
        return URLDecoder.decode(pair.substring("crc_token=".length()), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  private static String responseToken(Hmac key, String token) {
    return "{\"response_token\":\"" + key.sign(token) + "\"}";
  }
}
