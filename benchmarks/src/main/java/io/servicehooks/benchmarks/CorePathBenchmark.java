package io.servicehooks.benchmarks;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookRequest;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.core.WebhookSigner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One delivery through {@link WebhookConsumer#handle} (verify, parse, dedup claim and done, route
 * to a no-op listener) against its floor: HMAC-SHA256 with a reused {@link Mac} and Jackson's
 * {@code readTree} over the same bytes. Also a CRC answer and a 10-item account-activity batch.
 *
 * <p>Every delivery carries an id the consumer has not seen: bodies come from a pool signed in
 * setup (signing is not measured), and when the pool wraps the consumer's in-memory dedup store is
 * swapped for an empty one (once per {@value #POOL} deliveries; a few nanoseconds a delivery).
 *
 * <p>Run with {@code -prof gc}: {@code gc.alloc.rate.norm} is the bytes allocated per delivery.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseParallelGC"})
public class CorePathBenchmark {

  static final int POOL = 1 << 17;
  static final int BATCH_POOL = 1 << 13;
  private static final int CRC_POOL = 1 << 10;

  private byte[][] bodies;
  private String[] signatures;
  private byte[][] batches;
  private String[] batchSignatures;
  private String[] crcQueries;
  private int next;
  private int nextBatch;
  private int nextCrc;

  private RenewableDeduplicator dedup;
  private WebhookConsumer consumer;
  private RenewableDeduplicator meteredDedup;
  private WebhookConsumer meteredConsumer;
  private int nextMetered;
  private byte[][] streamLines;
  private RenewableDeduplicator streamDedup;
  private WebhookConsumer streamConsumer;
  private int nextLine;
  private RenewableDeduplicator batchDedup;
  private WebhookConsumer batchConsumer;

  private Mac mac;
  private ObjectMapper mapper;

  @Setup
  public void setUp() throws GeneralSecurityException {
    bodies = new byte[POOL][];
    signatures = new String[POOL];
    for (int i = 0; i < POOL; i++) {
      bodies[i] = Payloads.envelope(Payloads.eventUuid(1, i));
      signatures[i] = WebhookSigner.sign(Payloads.SECRET, bodies[i]);
    }
    batches = new byte[BATCH_POOL][];
    batchSignatures = new String[BATCH_POOL];
    for (int i = 0; i < BATCH_POOL; i++) {
      batches[i] = Payloads.batch(i);
      batchSignatures[i] = WebhookSigner.sign(Payloads.SECRET, batches[i]);
    }
    crcQueries = new String[CRC_POOL];
    for (int i = 0; i < CRC_POOL; i++) {
      crcQueries[i] = "crc_token=" + UUID.randomUUID() + "&nonce=" + i;
    }
    dedup = new RenewableDeduplicator();
    consumer = consumer(dedup).build();
    meteredDedup = new RenewableDeduplicator();
    meteredConsumer =
        consumer(meteredDedup)
            .meterRegistry(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
            .build();
    batchDedup = new RenewableDeduplicator();
    batchConsumer = consumer(batchDedup).build();
    streamLines = new byte[POOL][];
    for (int i = 0; i < POOL; i++) {
      streamLines[i] = Payloads.streamLine(Payloads.eventUuid(2, i));
    }
    streamDedup = new RenewableDeduplicator();
    streamConsumer =
        consumer(streamDedup)
            .meterRegistry(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
            .build();

    mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(Payloads.SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mapper = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    // Fail here, not in a silent benchmark, if the pool is not what the consumer accepts.
    expect(consumer.handle(WebhookRequest.post(signatures[0], bodies[0])).join(), "\"events\":1");
    expect(
        meteredConsumer.handle(WebhookRequest.post(signatures[0], bodies[0])).join(),
        "\"events\":1");
    meteredDedup.renew();
    expect(
        batchConsumer.handle(WebhookRequest.post(batchSignatures[0], batches[0])).join(),
        "\"events\":10");
    expect(streamConsumer.handleFromOwnConnection(streamLines[0]).join(), "\"events\":1");
    streamDedup.renew();
    expect(consumer.handle(WebhookRequest.get(crcQueries[0])).join(), "response_token");
    dedup.renew();
    batchDedup.renew();
  }

  private static WebhookConsumer.Builder consumer(Deduplicator dedup) {
    return WebhookConsumer.builder()
        .consumerSecrets(Payloads.SECRET)
        .deduplicator(dedup)
        .onAny(event -> {})
        .listenersNonBlocking(true);
  }

  private static void expect(WebhookResponse response, String fragment) {
    if (response.status() != 200 || !response.bodyAsString().contains(fragment)) {
      throw new IllegalStateException("unexpected answer in setup: " + response);
    }
  }

  /** The whole core path for one new 1.5 KB envelope. */
  @Benchmark
  public WebhookResponse corePath() {
    int i = next;
    WebhookResponse response =
        consumer.handle(WebhookRequest.post(signatures[i], bodies[i])).join();
    if (++i == POOL) {
      i = 0;
      dedup.renew();
    }
    next = i;
    return response;
  }

  /**
   * One line of the activity stream, as the standalone consumer's stream reader hands it over (no
   * signature, a Prometheus registry, listeners on the calling thread): the consumer's part of
   * {@code benchmarks/stream.sh}'s cost per event, without the connection and the log line.
   */
  @Benchmark
  public WebhookResponse ownConnection() {
    int i = nextLine;
    WebhookResponse response = streamConsumer.handleFromOwnConnection(streamLines[i]).join();
    if (++i == POOL) {
      i = 0;
      streamDedup.renew();
    }
    nextLine = i;
    return response;
  }

  /**
   * The core path with a Prometheus registry, as the standalone consumer runs it: the difference to
   * {@link #corePath()} is what recording the meters costs.
   */
  @Benchmark
  public WebhookResponse corePathPrometheus() {
    int i = nextMetered;
    WebhookResponse response =
        meteredConsumer.handle(WebhookRequest.post(signatures[i], bodies[i])).join();
    if (++i == POOL) {
      i = 0;
      meteredDedup.renew();
    }
    nextMetered = i;
    return response;
  }

  /** Floor: HMAC-SHA256 of the same bytes with a reused Mac. */
  @Benchmark
  public byte[] floorHmac() {
    byte[] body = nextBody();
    return mac.doFinal(body);
  }

  /** Floor: Jackson tree parse of the same bytes. */
  @Benchmark
  public JsonNode floorReadTree() throws IOException {
    return mapper.readTree(nextBody());
  }

  /** Floor: both, what any correct receiver must do. */
  @Benchmark
  public void floorHmacAndReadTree(Blackhole bh) throws IOException {
    byte[] body = nextBody();
    bh.consume(mac.doFinal(body));
    bh.consume(mapper.readTree(body));
  }

  /** A CRC answer: parse the query, check the token, sign it, build the JSON answer. */
  @Benchmark
  public WebhookResponse crc() {
    int i = nextCrc;
    nextCrc = (i + 1) & (CRC_POOL - 1);
    return consumer.handle(WebhookRequest.get(crcQueries[i])).join();
  }

  /** A new 10-item account-activity batch (about 4.5 KB): 10 dedup claims, 10 dispatches. */
  @Benchmark
  public WebhookResponse batch10() {
    int i = nextBatch;
    WebhookResponse response =
        batchConsumer.handle(WebhookRequest.post(batchSignatures[i], batches[i])).join();
    if (++i == BATCH_POOL) {
      i = 0;
      batchDedup.renew();
    }
    nextBatch = i;
    return response;
  }

  private byte[] nextBody() {
    int i = next;
    next = (i + 1) & (POOL - 1);
    return bodies[i];
  }

  /**
   * {@link Deduplicator#inMemory()}, replaced by an empty one on {@link #renew()}, so that a pool
   * of pre-signed bodies can be sent again as new events.
   */
  static final class RenewableDeduplicator implements Deduplicator {
    private Deduplicator current = Deduplicator.inMemory();

    void renew() {
      current = Deduplicator.inMemory();
    }

    @Override
    public CompletionStage<Claim> claim(String key, Duration lease) {
      return current.claim(key, lease);
    }

    @Override
    public CompletionStage<Boolean> markDone(String key, String token) {
      return current.markDone(key, token);
    }

    @Override
    public CompletionStage<Boolean> release(String key, String token) {
      return current.release(key, token);
    }

    @Override
    public CompletionStage<Boolean> renew(String key, String token, Duration lease) {
      return current.renew(key, token, lease);
    }

    @Override
    public boolean mayBlock() {
      return current.mayBlock();
    }
  }
}
