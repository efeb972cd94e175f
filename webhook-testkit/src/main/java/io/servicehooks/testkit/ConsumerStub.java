package io.servicehooks.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tiny real webhook consumer for tests, the counterpart of {@link PlatformSimulator}: a JDK
 * {@code HttpServer} on 127.0.0.1, port 0, that answers CRC checks (correctly, or wrongly on
 * demand), records every delivery with whether its signature verified, and can hold answers back so
 * a test can make the platform wait. Its HMAC is the testkit's own (see {@link TestSigner}),
 * independent of the code under test. Every path is served the same way.
 *
 * <pre>{@code
 * try (PlatformSimulator platform = PlatformSimulator.builder().localMode(true).build().start();
 *     ConsumerStub consumer = ConsumerStub.start(platform.consumerSecret())) {
 *   // register consumer.url() with the client under test; the simulator's CRC check passes
 *   platform.deliver(Events.postCreate("2244994945", "1876", "hello"));
 *   await().until(() -> consumer.deliveries().size() == 1);
 *   assertThat(consumer.deliveries().get(0).signatureValid()).isTrue();
 * }
 * }</pre>
 */
public final class ConsumerStub implements AutoCloseable {

  // Upper bound on any held answer, so a forgotten release never keeps a thread forever.
  static final long HOLD_LIMIT_SECONDS = 60;

  /** How the stub answers CRC checks ({@code GET ?crc_token=...}). */
  public enum CrcAnswer {
    /** 200 with the right {@code response_token}. */
    CORRECT,
    /** 200 with a {@code response_token} keyed with another secret. */
    WRONG_TOKEN,
    /** 500. */
    SERVER_ERROR,
    /** 302 to itself. */
    REDIRECT,
    /** No answer until the stub closes. */
    HANG
  }

  /**
   * One delivery (POST) as received.
   *
   * @param body the raw body bytes
   * @param signature the {@code x-service-webhooks-signature} header, or null
   * @param contentType the {@code Content-Type} header, or null
   * @param signatureValid whether the signature matches the body under the stub's consumer secret
   */
  public record Delivery(
      byte[] body, String signature, String contentType, boolean signatureValid) {

    /** Copies the body, so a delivery is immutable. */
    public Delivery {
      body = body.clone();
    }

    /** The raw body bytes (a copy). */
    @Override
    public byte[] body() {
      return body.clone();
    }

    /** The body as UTF-8 text. */
    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Delivery d
          && Arrays.equals(body, d.body)
          && Objects.equals(signature, d.signature)
          && Objects.equals(contentType, d.contentType)
          && signatureValid == d.signatureValid;
    }

    @Override
    public int hashCode() {
      return Objects.hash(Arrays.hashCode(body), signature, contentType, signatureValid);
    }

    @Override
    public String toString() {
      return "Delivery[body="
          + bodyText()
          + ", signature="
          + signature
          + ", contentType="
          + contentType
          + ", signatureValid="
          + signatureValid
          + "]";
    }
  }

  private final Hmac hmac;
  private final CrcResponder crc;
  private final HttpServer server;
  private final ExecutorService executor =
      Executors.newCachedThreadPool(
          r -> {
            Thread thread = new Thread(r, "consumer-stub");
            thread.setDaemon(true);
            return thread;
          });
  private final CountDownLatch closing = new CountDownLatch(1);
  private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
  private final Deque<Integer> nextStatuses = new ArrayDeque<>(); // guarded by itself
  private volatile int deliveryStatus = 200;
  private final AtomicInteger deliveriesToHold = new AtomicInteger();
  private volatile CountDownLatch deliveryRelease = new CountDownLatch(0);

  private ConsumerStub(String consumerSecret) throws IOException {
    Objects.requireNonNull(consumerSecret, "consumerSecret");
    if (consumerSecret.isEmpty()) {
      throw new IllegalArgumentException("consumerSecret must not be empty");
    }
    hmac = new Hmac(consumerSecret);
    crc = new CrcResponder(consumerSecret);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  /**
   * Starts a stub on a free loopback port whose CRC answers and signature checks are keyed with
   * {@code consumerSecret}.
   */
  public static ConsumerStub start(String consumerSecret) throws IOException {
    return new ConsumerStub(consumerSecret);
  }

  /** {@code http://127.0.0.1:<port>/webhook}. */
  public String url() {
    return url("/webhook");
  }

  /** {@code http://127.0.0.1:<port><path>}; every path is served the same way. */
  public String url(String path) {
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with / but was " + path);
    }
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** How the next CRC checks are answered; default {@link CrcAnswer#CORRECT}. */
  public void crcAnswer(CrcAnswer answer) {
    crc.answer(answer);
  }

  /**
   * Holds every CRC answer until {@code checks} checks are in flight at once (or a few seconds
   * passed), e.g. 2 to make two concurrent registrations overlap.
   */
  public void holdCrcAnswersUntil(int checks) {
    crc.holdUntil(checks);
  }

  /** The status every delivery gets from now on, unless queued by {@link #answerDeliveriesWith}. */
  public void deliveryStatus(int status) {
    deliveryStatus = status;
  }

  /** Statuses for the next deliveries, in order; afterwards {@link #deliveryStatus(int)}. */
  public void answerDeliveriesWith(int... statuses) {
    synchronized (nextStatuses) {
      for (int status : statuses) {
        nextStatuses.add(status);
      }
    }
  }

  /**
   * The next {@code count} deliveries are recorded but not answered until {@link
   * #releaseDeliveries()} or {@link #close()}.
   */
  public void holdDeliveries(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative but was " + count);
    }
    deliveryRelease = new CountDownLatch(1);
    deliveriesToHold.set(count);
  }

  /** Answers the deliveries held by {@link #holdDeliveries(int)} and stops holding. */
  public void releaseDeliveries() {
    deliveriesToHold.set(0);
    deliveryRelease.countDown();
  }

  /** Every delivery received so far, in arrival order; an immutable snapshot. */
  public List<Delivery> deliveries() {
    return List.copyOf(deliveries);
  }

  /** The bodies of {@link #deliveries()} as UTF-8 text. */
  public List<String> deliveryBodies() {
    return deliveries.stream().map(Delivery::bodyText).toList();
  }

  /** How many CRC checks (GETs with a {@code crc_token}) arrived so far. */
  public int crcRequests() {
    return crc.requests();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      byte[] body = exchange.getRequestBody().readAllBytes();
      if ("POST".equals(exchange.getRequestMethod())) {
        receive(exchange, body);
      } else {
        crc.respond(exchange, url(), closing);
      }
    } finally {
      exchange.close();
    }
  }

  private void receive(HttpExchange exchange, byte[] body) throws IOException {
    String signature = exchange.getRequestHeaders().getFirst(TestSigner.SIGNATURE_HEADER);
    deliveries.add(
        new Delivery(
            body,
            signature,
            exchange.getRequestHeaders().getFirst("Content-Type"),
            hmac.matches(body, signature)));
    if (deliveriesToHold.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      await(deliveryRelease, HOLD_LIMIT_SECONDS);
    }
    Integer status;
    synchronized (nextStatuses) {
      status = nextStatuses.poll();
    }
    json(exchange, status == null ? deliveryStatus : status, "{\"received\":true}");
  }

  static void await(CountDownLatch latch, long seconds) {
    try {
      latch.await(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void json(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** Releases every held answer and stops the server. */
  @Override
  public void close() {
    closing.countDown();
    deliveryRelease.countDown();
    crc.releaseAll();
    server.stop(0);
    executor.shutdownNow();
  }

  @Override
  public String toString() {
    return "ConsumerStub[" + url() + "]";
  }
}
