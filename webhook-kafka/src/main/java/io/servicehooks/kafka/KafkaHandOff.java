package io.servicehooks.kafka;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.EventInbox;
import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.StoredEvent;
import io.servicehooks.core.WebhookEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link EventInbox} that hands every verified event to a Kafka topic and lets the delivery be
 * answered 200 only once the brokers acknowledged every record of it ({@code acks=all}, idempotent
 * producer). When they do not within the {@linkplain Builder#sendTimeout send time-out} the stage
 * fails and the consumer answers 503 {@code inbox_unavailable} with {@code Retry-After}, so the
 * platform delivers again; a time-out is never answered 2xx.
 *
 * <p>One record per event (a legacy account-activity batch gives one per item). Its key is the
 * event's {@code for_user_id} by default, so one user's events keep their order in one partition;
 * its value is the event's JSON as received: the whole envelope for an activity event, the item for
 * a batch item. Its headers name the event: {@link #EVENT_ID_HEADER}, {@link #EVENT_TYPE_HEADER},
 * {@link #ORIGINAL_TYPE_HEADER} (only when the type was renamed), {@link #FAMILY_HEADER}, {@link
 * #FOR_USER_ID_HEADER} (a batch item's) and {@link #TRACEPARENT_HEADER} when the delivery carried a
 * trace context.
 *
 * <p>A topic keeps copies, so this inbox does not {@linkplain #deduplicates() deduplicate}: the
 * consumer claims each event in its {@code Deduplicator} (in memory, or on Redis for several edge
 * instances) before handing it in, marks it done after the acknowledgement and releases it when the
 * hand-off fails; a copy that arrives while the first is being sent is answered 503 {@code
 * in_flight}. What can still repeat in the topic is an event whose acknowledgement came but whose
 * done mark was lost (a crash between the two, an acknowledgement that came after the answer's
 * time-out, or the acknowledged events of a delivery whose other events failed, all sent again with
 * the platform's retry): readers deduplicate by the {@link #EVENT_ID_HEADER}.
 *
 * <p>Sends run on one thread of the hand-off's own, never the server's IO thread; the producer's
 * callback completes the stage. Use it with {@code WebhookConsumer.builder().inbox(KafkaHandOff
 * .builder(servers, topic).build())}; the consumer closes it, which flushes within {@link
 * Builder#closeTimeout}.
 */
public final class KafkaHandOff implements EventInbox {

  /** The header with the event's id ({@link WebhookEvent#id()}), UTF-8. */
  public static final String EVENT_ID_HEADER = "servicehooks-event-id";

  /** The header with the event's current type name, UTF-8. */
  public static final String EVENT_TYPE_HEADER = "servicehooks-event-type";

  /** The header with the type name as it arrived, present only when it differs from the type. */
  public static final String ORIGINAL_TYPE_HEADER = "servicehooks-original-type";

  /** The header with the event's payload family ({@code ACTIVITY}, {@code ACCOUNT_ACTIVITY}...). */
  public static final String FAMILY_HEADER = "servicehooks-family";

  /** The header with a batch item's {@code for_user_id}, absent for other events. */
  public static final String FOR_USER_ID_HEADER = "servicehooks-for-user-id";

  /** The W3C Trace Context header of the delivery that brought the event, when it had one. */
  public static final String TRACEPARENT_HEADER = "traceparent";

  /** How long a delivery waits for the brokers' acknowledgements by default: 5 s. */
  public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(5);

  /** How long a send may wait for metadata or buffer space by default ({@code max.block.ms}). */
  public static final Duration DEFAULT_MAX_BLOCK = Duration.ofSeconds(2);

  /** How long {@link #close()} waits for records still being sent by default. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(KafkaHandOff.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Producer<String, byte[]> producer;
  private final String topic;
  private final Function<String, String> topicForType;
  private final Function<WebhookEvent, String> key;
  private final Duration sendTimeout;
  private final Duration closeTimeout;
  private final ExecutorService sender;
  private final HandOffMeters meters;

  private KafkaHandOff(Builder b) {
    this.meters = b.meters;
    this.topic = b.topic;
    this.topicForType = b.topicForType;
    this.key = b.key;
    this.sendTimeout = b.sendTimeout;
    this.closeTimeout = b.closeTimeout;
    this.producer = new KafkaProducer<>(b.producerProperties());
    this.sender =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "servicehooks-kafka-send");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * A builder for a hand-off to {@code topic} on the cluster at {@code bootstrapServers}.
   *
   * @param bootstrapServers the producer's {@code bootstrap.servers}, e.g. {@code
   *     "broker-1:9092,broker-2:9092"}
   * @param topic where every event goes unless {@link Builder#topicForType} names another
   */
  public static Builder builder(String bootstrapServers, String topic) {
    return new Builder(bootstrapServers, topic);
  }

  /** {@code false}: a topic keeps copies too; the consumer claims each event before (see above). */
  @Override
  public boolean deduplicates() {
    return false;
  }

  /**
   * {@code false}: {@link #store} only queues the records; the brokers' acknowledgements complete
   * it.
   */
  @Override
  public boolean mayBlock() {
    return false;
  }

  @Override
  public CompletionStage<List<InboxOutcome>> store(List<StoredEvent> events) {
    List<ProducerRecord<String, byte[]>> records = new ArrayList<>(events.size());
    try {
      for (StoredEvent event : events) {
        records.add(record(event));
      }
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (records.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    CompletableFuture<List<InboxOutcome>> stage = new CompletableFuture<>();
    try {
      sender.execute(() -> send(records, stage));
    } catch (RuntimeException e) {
      stage.completeExceptionally(e);
    }
    return stage.orTimeout(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Sends the records of one delivery in order; the last acknowledgement completes {@code stage}.
   */
  private void send(
      List<ProducerRecord<String, byte[]>> records, CompletableFuture<List<InboxOutcome>> stage) {
    if (stage.isDone()) {
      return; // answered 503 already: the platform's retry sends these records
    }
    int[] pending = {records.size()};
    List<InboxOutcome> stored = Collections.nCopies(records.size(), InboxOutcome.STORED);
    for (ProducerRecord<String, byte[]> record : records) {
      long started = System.nanoTime();
      meters.sending();
      try {
        producer.send(
            record,
            (metadata, failure) -> {
              meters.sent(outcome(failure), System.nanoTime() - started);
              if (failure != null) {
                stage.completeExceptionally(failure);
                return;
              }
              boolean last;
              synchronized (pending) {
                last = --pending[0] == 0;
              }
              if (last) {
                stage.complete(stored);
              }
            });
      } catch (RuntimeException e) {
        // max.block.ms passed without metadata or buffer space, or the producer is closed.
        meters.sent(outcome(e), System.nanoTime() - started);
        stage.completeExceptionally(e);
        return;
      }
    }
  }

  /** The {@code outcome} tag of a send that ended with {@code failure} (null: acknowledged). */
  private static String outcome(Exception failure) {
    if (failure == null) {
      return "acked";
    }
    return failure instanceof org.apache.kafka.common.errors.TimeoutException
        ? "timeout"
        : "failed";
  }

  private ProducerRecord<String, byte[]> record(StoredEvent event) {
    boolean batchItem = event.forUserId() != null;
    String json =
        batchItem || event.deliveryJson() == null ? event.payloadJson() : event.deliveryJson();
    byte[] value = json == null ? null : json.getBytes(StandardCharsets.UTF_8);
    String to = topicForType.apply(event.type());
    RecordHeaders headers = new RecordHeaders();
    headers.add(EVENT_ID_HEADER, utf8(event.id()));
    headers.add(EVENT_TYPE_HEADER, utf8(event.type()));
    if (!event.originalType().equals(event.type())) {
      headers.add(ORIGINAL_TYPE_HEADER, utf8(event.originalType()));
    }
    headers.add(FAMILY_HEADER, utf8(event.family().name()));
    if (batchItem) {
      headers.add(FOR_USER_ID_HEADER, utf8(event.forUserId()));
    }
    if (event.traceparent() != null) {
      headers.add(TRACEPARENT_HEADER, utf8(event.traceparent()));
    }
    String k = key.apply(WebhookEvent.restore(event, MAPPER));
    return new ProducerRecord<>(to == null ? topic : to, null, k, value, headers);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Nothing to start: the listeners run where the topic is read, not here. */
  @Override
  public void start(InboxProcessor processor) {}

  /** Stops taking events and sends what is queued, waiting at most the close time-out. */
  @Override
  public void close() {
    sender.shutdown();
    try {
      if (!sender.awaitTermination(closeTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("Kafka hand-off: sends still queued after {}", closeTimeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(closeTimeout);
  }

  @Override
  public String toString() {
    return "KafkaHandOff[topic=" + topic + "]";
  }

  /** Settings of a {@link KafkaHandOff}; every one has a default but the servers and the topic. */
  public static final class Builder {
    private final String bootstrapServers;
    private final String topic;
    private Function<String, String> topicForType = type -> null;
    private Function<WebhookEvent, String> key = event -> event.forUserId().orElse(null);
    private Duration sendTimeout = DEFAULT_SEND_TIMEOUT;
    private Duration maxBlock = DEFAULT_MAX_BLOCK;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private final Map<String, Object> properties = new HashMap<>();
    private HandOffMeters meters = HandOffMeters.NONE;

    private Builder(String bootstrapServers, String topic) {
      this.bootstrapServers = requireText(bootstrapServers, "bootstrapServers");
      this.topic = requireText(topic, "topic");
    }

    /**
     * Chooses the topic by event type: {@code topicForType} gets the current type name ({@code
     * post.create}) and returns a topic, or {@code null} for the default one.
     */
    public Builder topicForType(Function<String, String> topicForType) {
      this.topicForType = Objects.requireNonNull(topicForType, "topicForType");
      return this;
    }

    /**
     * Chooses the record key; the default is the event's {@code for_user_id} (a batch's, or the
     * envelope filter's {@code user_id}), {@code null} when it has none.
     */
    public Builder key(Function<WebhookEvent, String> key) {
      this.key = Objects.requireNonNull(key, "key");
      return this;
    }

    /**
     * How long a delivery waits for every record's acknowledgement (default 5 s); also the
     * producer's {@code delivery.timeout.ms}. Keep it below the consumer's {@code inboxTimeout} and
     * well below the platform's 10 s answer budget.
     */
    public Builder sendTimeout(Duration sendTimeout) {
      this.sendTimeout = positive(sendTimeout, "sendTimeout");
      if (sendTimeout.toMillis() < 1000) {
        throw new IllegalArgumentException("sendTimeout must be at least 1 s");
      }
      return this;
    }

    /** The producer's {@code max.block.ms}: the longest wait for metadata (default 2 s). */
    public Builder maxBlock(Duration maxBlock) {
      this.maxBlock = positive(maxBlock, "maxBlock");
      return this;
    }

    /** How long {@link KafkaHandOff#close()} waits for records being sent (default 5 s). */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = positive(closeTimeout, "closeTimeout");
      return this;
    }

    /**
     * Other producer properties (security, SASL, compression, client id...). They may not weaken
     * {@code acks=all} or {@code enable.idempotence=true}, and the serializers are the hand-off's.
     */
    public Builder producerProperties(Map<String, ?> properties) {
      Objects.requireNonNull(properties, "properties");
      Object acks = properties.get(ProducerConfig.ACKS_CONFIG);
      if (acks != null && !"all".equals(acks.toString()) && !"-1".equals(acks.toString())) {
        throw new IllegalArgumentException(
            "acks must stay all: an event is acknowledged only once every in-sync replica has it");
      }
      Object idempotence = properties.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
      if (idempotence != null && !"true".equals(idempotence.toString())) {
        throw new IllegalArgumentException("enable.idempotence must stay true");
      }
      this.properties.putAll(properties);
      return this;
    }

    /**
     * Records the hand-off's meters in {@code registry}: the timer {@code webhook.kafka.send} (one
     * per record, tag {@code outcome} = {@code acked}, {@code failed} or {@code timeout}) and the
     * gauge {@code webhook.kafka.in.flight} (records sent and not yet answered). Without it nothing
     * is recorded and Micrometer need not be present.
     */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
      Objects.requireNonNull(registry, "registry");
      this.meters = new MicrometerHandOffMeters(registry);
      return this;
    }

    /** Builds the hand-off and its producer (which connects on the first send). */
    public KafkaHandOff build() {
      return new KafkaHandOff(this);
    }

    Map<String, Object> producerProperties() {
      Map<String, Object> p = new HashMap<>(properties);
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      p.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) maxBlock.toMillis());
      long send = sendTimeout.toMillis();
      p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
      p.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) (send * 3 / 4));
      p.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) send);
      return p;
    }

    private static String requireText(String value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isBlank()) {
        throw new IllegalArgumentException(name + " is empty");
      }
      return value;
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive");
      }
      return d;
    }
  }
}
