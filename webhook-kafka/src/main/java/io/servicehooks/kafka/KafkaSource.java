package io.servicehooks.kafka;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.core.Deduplicator;
import io.servicehooks.core.EventInbox;
import io.servicehooks.core.InboxOutcome;
import io.servicehooks.core.InboxProcessor;
import io.servicehooks.core.StoredEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the consumer's listeners from a Kafka topic that {@link KafkaHandOff} writes, as one member
 * of a consumer group: the same listeners, typed payloads, metrics and error handler as a delivery
 * would run, on the source's own threads. It is an {@link EventInbox} that takes no deliveries:
 * give it to {@code
 * WebhookConsumer.builder().acknowledgement(Acknowledgement.DURABLE).inbox(source)}; the consumer
 * {@linkplain #start starts} it and closes it.
 *
 * <p>For each record it rebuilds the event the edge had (value and headers, see {@link
 * KafkaHandOff}), claims it in its {@link Deduplicator} under the event's dedup key (scoped by the
 * group), runs the listeners and marks it done, and commits the partition's offset past it only
 * after that. A platform copy that the edge wrote twice is claimed as done and not run again.
 *
 * <p>Order: the records of one partition run one after another, on one worker at a time; several
 * partitions run side by side on {@link Builder#workers} threads. Each partition is fetched ahead
 * of its worker, at most about {@value #LANE_HIGH_WATER} records plus one poll's, and paused at the
 * consumer above that. A record whose listeners fail blocks its partition while it waits for its
 * back-off ({@link Builder#retryBase}, doubling up to five minutes, with jitter); the other
 * partitions go on. After {@link Builder#maxAttempts} failed attempts the record is written to the
 * {@linkplain Builder#deadLetterTopic dead-letter topic} with its key, value and headers and the
 * reason headers ({@link #DEAD_LETTER_REASON_HEADER}, {@link #DEAD_LETTER_ATTEMPTS_HEADER}, {@link
 * #DEAD_LETTER_TOPIC_HEADER}, {@link #DEAD_LETTER_PARTITION_HEADER}, {@link
 * #DEAD_LETTER_OFFSET_HEADER}); once the brokers acknowledged it the {@link
 * KafkaDeadLetterListener}s are called and the partition goes on past it. A record that is not one
 * of the edge's (no event headers, a value that is not JSON) is dead-lettered at once.
 *
 * <p>Offsets are committed every {@code commitInterval} (one second), and synchronously before a
 * partition is handed over in a rebalance and when the source closes, after waiting for the record
 * being run (bounded by {@link Builder#closeTimeout}). A finished record is therefore never run
 * again by the group, except in one window: a member that dies (killed, or its session times out)
 * after records finished but before their offsets were committed, at most one commit interval of
 * them per partition. Its successor finds them done in the {@link Deduplicator} when the members
 * share one (webhook-redis's); with the default, in each member's memory, they run once more. A
 * record whose listeners had not returned when its partition was handed over or the source closed
 * was not committed and runs again on the next owner. The attempt count of a failing record is each
 * member's own.
 *
 * <p>Meters (with {@link Builder#meterRegistry}): {@code webhook.kafka.records}, tag {@code
 * outcome} = {@code handled}, {@code duplicate}, {@code retried} (a failed attempt that will be
 * retried) or {@code dead_lettered}, tags {@code topic} and {@code group}.
 */
public final class KafkaSource implements EventInbox {

  /** The dead-letter header with the last failure's class and message, UTF-8. */
  public static final String DEAD_LETTER_REASON_HEADER = "servicehooks-dead-letter-reason";

  /** The dead-letter header with the number of failed attempts, in decimal. */
  public static final String DEAD_LETTER_ATTEMPTS_HEADER = "servicehooks-dead-letter-attempts";

  /** The dead-letter header with the topic the record was read from. */
  public static final String DEAD_LETTER_TOPIC_HEADER = "servicehooks-dead-letter-topic";

  /** The dead-letter header with the partition the record was read from, in decimal. */
  public static final String DEAD_LETTER_PARTITION_HEADER = "servicehooks-dead-letter-partition";

  /** The dead-letter header with the record's offset there, in decimal. */
  public static final String DEAD_LETTER_OFFSET_HEADER = "servicehooks-dead-letter-offset";

  /** The consumer group by default. */
  public static final String DEFAULT_GROUP_ID = "servicehooks";

  /** Attempts before a record is dead-lettered by default: the durable inbox's, 10. */
  public static final int DEFAULT_MAX_ATTEMPTS = 10;

  /** The first back-off by default, doubling each attempt: the durable inbox's, 2 s. */
  public static final Duration DEFAULT_RETRY_BASE = Duration.ofSeconds(2);

  /** The longest back-off: 5 minutes, as the durable inbox's. */
  public static final Duration DEFAULT_RETRY_MAX = Duration.ofMinutes(5);

  /** Threads running listeners by default (at most one per partition at a time). */
  public static final int DEFAULT_WORKERS = 4;

  /** How long {@link #close()} and a hand-over wait for running listeners by default. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);

  /** The suffix of the dead-letter topic's name by default: {@code <topic>.dead}. */
  public static final String DEAD_LETTER_SUFFIX = ".dead";

  private static final Logger log = LoggerFactory.getLogger(KafkaSource.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration POLL = Duration.ofMillis(100);

  /**
   * Records pending in a partition's lane at which the partition is paused at the consumer: with
   * one poll's records on top, the most the source holds of a partition (besides the consumer's own
   * fetch buffer, bounded by its {@code fetch.max.bytes}).
   */
  static final int LANE_HIGH_WATER = 1_000;

  /** Records pending in a paused lane at which it is fetched again (and the poll thread woken). */
  static final int LANE_LOW_WATER = 500;

  private static final int REASON_MAX = 1000;

  private final Builder settings;
  private final String topic;
  private final String groupId;
  private final RecordEvents events = new RecordEvents(MAPPER);
  private final Map<TopicPartition, PartitionLane> lanes = new ConcurrentHashMap<>();
  private final AtomicInteger threadIds = new AtomicInteger();
  private final LongSupplier clock;
  private final SourceMeters meters;
  private final AtomicBoolean refillAsked = new AtomicBoolean();

  private volatile InboxProcessor processor;
  private volatile boolean stopping;
  private volatile boolean killed;
  private volatile KafkaConsumer<String, byte[]> polled; // for refill(): its wakeup() only
  private Thread pollThread;
  private ExecutorService workers;
  private ScheduledExecutorService renewals;
  private KafkaProducer<String, byte[]> deadLetters;
  private long lastCommit;

  private KafkaSource(Builder b) {
    this.settings = b;
    this.topic = b.topic;
    this.groupId = b.groupId;
    this.clock = b.clock;
    this.meters = b.meters == null ? SourceMeters.NONE : b.meters.apply(topic, groupId);
  }

  /**
   * A builder for a source reading {@code topic} on the cluster at {@code bootstrapServers}.
   *
   * @param bootstrapServers the consumer's {@code bootstrap.servers}, e.g. {@code
   *     "broker-1:9092,broker-2:9092"}
   * @param topic the topic {@link KafkaHandOff} writes
   */
  public static Builder builder(String bootstrapServers, String topic) {
    return new Builder(bootstrapServers, topic);
  }

  /**
   * Refused: a source reads a topic and takes no deliveries. The stage completes exceptionally with
   * an {@link UnsupportedOperationException}.
   */
  @Override
  public CompletionStage<List<InboxOutcome>> store(List<StoredEvent> events) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException(
            "KafkaSource reads topic "
                + topic
                + " and takes no deliveries: receive them with KafkaHandOff"));
  }

  /** {@code false}: {@link #store} refuses at once. */
  @Override
  public boolean mayBlock() {
    return false;
  }

  /**
   * {@code true}: the source takes no deliveries, and it deduplicates the topic's records itself in
   * its own {@link Builder#deduplicator}, so the consumer's is not used.
   */
  @Override
  public boolean deduplicates() {
    return true;
  }

  /** Joins the group and starts running {@code processor} on the records, on threads of its own. */
  @Override
  public synchronized void start(InboxProcessor processor) {
    Objects.requireNonNull(processor, "processor");
    if (this.processor != null) {
      throw new IllegalStateException("KafkaSource already started");
    }
    if (stopping) {
      throw new IllegalStateException("KafkaSource closed");
    }
    this.processor = processor;
    this.deadLetters = new KafkaProducer<>(settings.producerProperties());
    this.workers =
        Executors.newFixedThreadPool(
            settings.workers, daemon("servicehooks-kafka-worker-" + groupId + "-"));
    this.renewals = Executors.newSingleThreadScheduledExecutor(daemon("servicehooks-kafka-lease-"));
    KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(settings.consumerProperties());
    this.polled = consumer;
    pollThread = new Thread(() -> pollLoop(consumer), "servicehooks-kafka-source-" + groupId);
    pollThread.setDaemon(true);
    pollThread.start();
  }

  private java.util.concurrent.ThreadFactory daemon(String prefix) {
    return r -> {
      Thread t = new Thread(r, prefix + threadIds.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  // ---------------------------------------------------------------- the poll thread

  private void pollLoop(KafkaConsumer<String, byte[]> consumer) {
    try {
      consumer.subscribe(List.of(topic), new Handover(consumer));
      lastCommit = clock.getAsLong();
      String lastProblem = null;
      while (!stopping) {
        try {
          pollOnce(consumer);
          lastProblem = null;
        } catch (org.apache.kafka.common.errors.InterruptException e) {
          break;
        } catch (WakeupException refill) {
          // A lane's refill landed outside poll (a commit, a rebalance callback): poll again.
        } catch (RuntimeException e) {
          // Authorization, a deleted topic, a coordinator that cannot be reached...: the source
          // keeps trying, as the brokers' problem may be fixed without restarting the consumer.
          if (!e.toString().equals(lastProblem)) {
            log.error("Kafka source for topic {}: {}; polling again", topic, e.toString(), e);
            lastProblem = e.toString();
          }
          pause(Duration.ofSeconds(1));
        }
      }
    } catch (RuntimeException e) {
      if (!stopping) {
        log.error("Kafka source for topic {} stopped: {}", topic, e.toString(), e);
      }
    } finally {
      finish(consumer);
    }
  }

  private void pollOnce(KafkaConsumer<String, byte[]> consumer) {
    ConsumerRecords<String, byte[]> records;
    try {
      records = consumer.poll(POLL);
    } catch (WakeupException refill) {
      records = ConsumerRecords.empty(); // a lane drained: resume it below
    }
    // Cleared before the lanes are read: a lane that drains from here on wakes the next poll.
    refillAsked.set(false);
    for (TopicPartition tp : records.partitions()) {
      PartitionLane lane = lanes.get(tp);
      if (lane != null) {
        lane.add(records.records(tp));
      }
    }
    long now = clock.getAsLong();
    startDue(now);
    pauseAndResume(consumer);
    if (now - lastCommit >= settings.commitInterval.toNanos()) {
      commitAsync(consumer);
      lastCommit = now;
    }
  }

  /**
   * A worker: a paused lane drained to its low-water mark. Wakes the poll thread (the consumer's
   * one thread-safe call) so that it resumes the partition now rather than after its poll time-out;
   * at most one wake-up per poll. A wake-up that lands elsewhere than in {@code poll} is absorbed
   * there ({@link #commitSync}).
   */
  private void refill() {
    KafkaConsumer<String, byte[]> c = polled;
    if (c != null && !stopping && refillAsked.compareAndSet(false, true)) {
      c.wakeup();
    }
  }

  /** {@code commitSync} that a worker's wake-up does not cut short. */
  private void commitSync(
      KafkaConsumer<String, byte[]> consumer,
      Map<TopicPartition, OffsetAndMetadata> offsets,
      long deadlineNanos) {
    while (true) {
      try {
        consumer.commitSync(
            offsets, Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())));
        return;
      } catch (WakeupException refill) {
        if (deadlineNanos - System.nanoTime() <= 0) {
          throw refill;
        }
      }
    }
  }

  private void pause(Duration d) {
    long end = System.nanoTime() + d.toNanos();
    while (!stopping && System.nanoTime() < end) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void startDue(long now) {
    for (PartitionLane lane : lanes.values()) {
      if (lane.startIfDue(now)) {
        try {
          workers.execute(() -> runLane(lane));
        } catch (RuntimeException rejected) {
          lane.abandon(clock.getAsLong(), 0);
        }
      }
    }
  }

  private void pauseAndResume(KafkaConsumer<String, byte[]> consumer) {
    Set<TopicPartition> paused = consumer.paused();
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    for (PartitionLane lane : lanes.values()) {
      boolean wants = lane.wantsRecords();
      boolean isPaused = paused.contains(lane.partition());
      if (wants && isPaused) {
        resume.add(lane.partition());
      } else if (!wants && !isPaused) {
        pause.add(lane.partition());
      }
    }
    if (!pause.isEmpty()) {
      consumer.pause(pause);
    }
    if (!resume.isEmpty()) {
      consumer.resume(resume);
    }
  }

  private Map<TopicPartition, OffsetAndMetadata> finishedOffsets(Collection<PartitionLane> of) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (PartitionLane lane : of) {
      long offset = lane.committable();
      if (offset >= 0) {
        offsets.put(lane.partition(), new OffsetAndMetadata(offset));
      }
    }
    return offsets;
  }

  private void commitAsync(KafkaConsumer<String, byte[]> consumer) {
    Map<TopicPartition, OffsetAndMetadata> offsets = finishedOffsets(lanes.values());
    if (offsets.isEmpty()) {
      return;
    }
    consumer.commitAsync(
        offsets,
        (committed, failure) -> {
          if (failure != null) {
            log.debug("Kafka source: commit failed, retried with the next: {}", failure.toString());
            return;
          }
          committed.forEach(
              (tp, o) -> {
                PartitionLane lane = lanes.get(tp);
                if (lane != null) {
                  lane.committed(o.offset());
                }
              });
        });
  }

  /** Stops the lanes, waits for their running records (bounded) and commits what finished. */
  private void handOver(KafkaConsumer<String, byte[]> consumer, Collection<PartitionLane> of) {
    if (of.isEmpty()) {
      return;
    }
    of.forEach(PartitionLane::stop);
    long deadline = System.nanoTime() + settings.closeTimeout.toNanos();
    for (PartitionLane lane : of) {
      try {
        if (!lane.awaitIdle(deadline)) {
          log.warn(
              "Kafka source: a listener on {} still runs after {}; its record runs again on the"
                  + " partition's next owner",
              lane.partition(),
              settings.closeTimeout);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = finishedOffsets(of);
    if (offsets.isEmpty()) {
      return;
    }
    try {
      commitSync(consumer, offsets, System.nanoTime() + settings.closeTimeout.toNanos());
      offsets.forEach(
          (tp, o) ->
              of.forEach(
                  l -> {
                    if (l.partition().equals(tp)) {
                      l.committed(o.offset());
                    }
                  }));
    } catch (RuntimeException e) {
      log.warn(
          "Kafka source: could not commit before handing partitions over ({}); their last"
              + " finished records run again unless the deduplicator remembers them",
          e.toString());
    }
  }

  private void finish(KafkaConsumer<String, byte[]> consumer) {
    try {
      if (!killed) {
        handOver(consumer, new ArrayList<>(lanes.values()));
      } else {
        lanes.values().forEach(PartitionLane::stop);
      }
      lanes.clear();
    } finally {
      try {
        consumer.close(killed ? Duration.ZERO : settings.closeTimeout);
      } catch (RuntimeException e) {
        log.debug("Kafka source: consumer close: {}", e.toString());
      }
    }
  }

  /** Hands partitions over on a rebalance; runs on the poll thread, inside {@code poll}. */
  private final class Handover implements ConsumerRebalanceListener {
    private final KafkaConsumer<String, byte[]> consumer;

    Handover(KafkaConsumer<String, byte[]> consumer) {
      this.consumer = consumer;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      List<PartitionLane> revoked = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        PartitionLane lane = lanes.get(tp);
        if (lane != null) {
          revoked.add(lane);
        }
      }
      if (killed) {
        revoked.forEach(PartitionLane::stop);
      } else {
        handOver(consumer, revoked);
      }
      partitions.forEach(lanes::remove);
      log.debug("Kafka source: partitions revoked {}", partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      for (TopicPartition tp : partitions) {
        lanes.computeIfAbsent(
            tp,
            p ->
                new PartitionLane(
                    p, settings.laneHighWater, settings.laneLowWater, KafkaSource.this::refill));
      }
      log.debug("Kafka source: partitions assigned {}", partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      for (TopicPartition tp : partitions) {
        PartitionLane lane = lanes.remove(tp);
        if (lane != null) {
          lane.stop();
        }
      }
      log.warn(
          "Kafka source: partitions lost {}; their unfinished records run elsewhere", partitions);
    }
  }

  // ---------------------------------------------------------------- the workers

  /** Runs the lane's records in order until it is empty, waits for a back-off, or stops. */
  private void runLane(PartitionLane lane) {
    PartitionLane.Attempt attempt;
    try {
      while ((attempt = lane.next()) != null) {
        attempt(lane, attempt);
      }
    } catch (RuntimeException | Error e) {
      log.error("Kafka source: worker on {} failed: {}", lane.partition(), e.toString(), e);
      lane.abandon(clock.getAsLong(), settings.retryBase.toNanos());
      if (e instanceof VirtualMachineError) {
        throw e;
      }
    }
  }

  private void attempt(PartitionLane lane, PartitionLane.Attempt attempt) {
    ConsumerRecord<String, byte[]> record = attempt.record();
    StoredEvent event;
    try {
      event = events.event(record.headers(), record.value());
    } catch (IllegalArgumentException notAnEvent) {
      // Not one of the edge's records: no attempt can do better.
      deadLetter(lane, attempt, null, attempt.failures() + 1, notAnEvent.getMessage());
      return;
    }
    String key = "kafka:" + groupId + ":" + event.dedupKey();
    if (attempt.failures() >= settings.maxAttempts) {
      // Failed often enough already; only writing the dead letter failed so far.
      deadLetter(lane, attempt, event, attempt.failures(), attempt.lastFailure());
      return;
    }
    Deduplicator.Claim claim;
    try {
      claim =
          settings
              .deduplicator
              .claim(key, settings.claimLease)
              .toCompletableFuture()
              .get(settings.closeTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      lane.abandon(clock.getAsLong(), settings.retryBase.toNanos());
      return;
    } catch (Exception e) {
      log.warn(
          "Kafka source: deduplicator unavailable ({}); record of {} waits",
          e.toString(),
          record.topic() + "-" + record.partition());
      lane.report(
          attempt,
          PartitionLane.Report.DEFERRED,
          clock.getAsLong(),
          settings.retryBase.toNanos(),
          null);
      return;
    }
    switch (claim.status()) {
      case DONE -> {
        meters.record(SourceMeters.DUPLICATE);
        lane.report(attempt, PartitionLane.Report.FINISHED, clock.getAsLong(), 0, null);
        return;
      }
      case RUNNING_ELSEWHERE -> {
        long wait =
            Math.min(
                Math.max(claim.remainingLease().toNanos(), 50_000_000L),
                settings.retryBase.toNanos() * 4);
        lane.report(attempt, PartitionLane.Report.DEFERRED, clock.getAsLong(), wait, null);
        return;
      }
      case CLAIMED -> {
        // below
      }
    }
    String token = claim.token();
    Exception failure = run(event, key, token);
    if (failure == null) {
      settle(settings.deduplicator.markDone(key, token), "mark an event done");
      meters.record(SourceMeters.HANDLED);
      lane.report(attempt, PartitionLane.Report.FINISHED, clock.getAsLong(), 0, null);
      return;
    }
    int failures = attempt.failures() + 1;
    String reason = reason(failure);
    settle(settings.deduplicator.release(key, token), "release a claim");
    if (failures >= settings.maxAttempts) {
      deadLetter(lane, attempt, event, failures, reason);
      return;
    }
    meters.record(SourceMeters.RETRIED);
    long delay =
        TimeUnit.MILLISECONDS.toNanos(
            settings.backoffMillis(failures, ThreadLocalRandom.current().nextDouble()));
    // The consumer's error handler has reported the failure itself.
    log.debug(
        "Kafka source: {} event {}: attempt {} of {} failed; retried in {} ms",
        logSafe(event.type()),
        logSafe(event.id()),
        failures,
        settings.maxAttempts,
        TimeUnit.NANOSECONDS.toMillis(delay));
    lane.report(attempt, PartitionLane.Report.FAILED, clock.getAsLong(), delay, reason);
  }

  /** Runs the listeners, renewing the claim while they run; the failure, or null. */
  private Exception run(StoredEvent event, String key, String token) {
    long every = Math.max(settings.claimLease.toMillis() / 3, 10);
    ScheduledFuture<?> renewal =
        renewals.scheduleAtFixedRate(
            () -> settings.deduplicator.renew(key, token, settings.claimLease),
            every,
            every,
            TimeUnit.MILLISECONDS);
    try {
      processor.process(event);
      return null;
    } catch (Exception e) {
      return e;
    } catch (VirtualMachineError e) {
      settle(settings.deduplicator.release(key, token), "release a claim");
      throw e;
    } catch (Error e) {
      return new InboxProcessor.ListenerError(e);
    } finally {
      renewal.cancel(false);
    }
  }

  /**
   * Waits (bounded) for a deduplicator call whose answer does not change what happens next, so that
   * it took effect before the offset is committed; a failure is logged.
   */
  private void settle(CompletionStage<?> stage, String what) {
    try {
      stage.toCompletableFuture().get(settings.closeTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log.warn("Kafka source: could not {} in the deduplicator: {}", what, e.toString());
    }
  }

  /** Writes the dead letter; the lane goes on past the record once the brokers have it. */
  private void deadLetter(
      PartitionLane lane,
      PartitionLane.Attempt attempt,
      StoredEvent event,
      int attempts,
      String reason) {
    ConsumerRecord<String, byte[]> record = attempt.record();
    String why = reason == null ? "unknown" : reason;
    RecordHeaders headers = new RecordHeaders();
    for (Header h : record.headers()) {
      headers.add(h);
    }
    headers.add(DEAD_LETTER_REASON_HEADER, utf8(why));
    headers.add(DEAD_LETTER_ATTEMPTS_HEADER, utf8(Integer.toString(attempts)));
    headers.add(DEAD_LETTER_TOPIC_HEADER, utf8(record.topic()));
    headers.add(DEAD_LETTER_PARTITION_HEADER, utf8(Integer.toString(record.partition())));
    headers.add(DEAD_LETTER_OFFSET_HEADER, utf8(Long.toString(record.offset())));
    try {
      deadLetters
          .send(
              new ProducerRecord<>(
                  settings.deadLetterTopic, null, record.key(), record.value(), headers))
          .get(settings.closeTimeout.toMillis() * 3, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      lane.abandon(clock.getAsLong(), settings.retryBase.toNanos());
      return;
    } catch (Exception e) {
      Throwable cause = e.getCause() == null || e instanceof TimeoutException ? e : e.getCause();
      log.warn(
          "Kafka source: could not write a dead letter to {} ({}); the record waits",
          settings.deadLetterTopic,
          cause.toString());
      // Counted as failed often enough: the next attempt only writes the dead letter.
      lane.owesDeadLetter(attempt, Math.max(attempts, settings.maxAttempts));
      lane.report(
          attempt,
          PartitionLane.Report.DEFERRED,
          clock.getAsLong(),
          settings.retryBase.toNanos(),
          why);
      return;
    }
    String eventId = event != null ? event.id() : headerOr(record, KafkaHandOff.EVENT_ID_HEADER);
    String type = event != null ? event.type() : headerOr(record, KafkaHandOff.EVENT_TYPE_HEADER);
    if (event != null) {
      settle(
          settings.deduplicator.claimDone(
              "kafka:" + groupId + ":" + event.dedupKey(), settings.claimLease),
          "mark a dead letter done");
    }
    meters.record(SourceMeters.DEAD_LETTERED);
    log.error(
        "Kafka source: {} event {} dead-lettered to {} after {} attempts: {}",
        logSafe(type),
        logSafe(eventId),
        settings.deadLetterTopic,
        attempts,
        logSafe(why));
    KafkaDeadLetter letter =
        new KafkaDeadLetter(
            eventId,
            type,
            record.topic(),
            record.partition(),
            record.offset(),
            settings.deadLetterTopic,
            attempts,
            why);
    for (KafkaDeadLetterListener listener : settings.deadLetterListeners) {
      try {
        listener.deadLettered(letter);
      } catch (RuntimeException e) {
        log.warn("Kafka source: dead-letter listener failed: {}", e.toString());
      }
    }
    lane.report(attempt, PartitionLane.Report.FINISHED, clock.getAsLong(), 0, null);
  }

  private static String headerOr(ConsumerRecord<String, byte[]> record, String name) {
    String v = RecordEvents.header(record.headers(), name);
    return v == null ? "unknown" : v;
  }

  private static String reason(Throwable failure) {
    Throwable t =
        failure instanceof InboxProcessor.ListenerError && failure.getCause() != null
            ? failure.getCause()
            : failure;
    String text = t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    return text.length() > REASON_MAX ? text.substring(0, REASON_MAX) : text;
  }

  /** A value from a record, for a log line: control characters escaped, at most 200 characters. */
  static String logSafe(String value) {
    StringBuilder b = new StringBuilder(Math.min(value.length(), 200) + 8);
    for (int i = 0; i < value.length() && i < 200; i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return value.length() > 200 ? b.append("...").toString() : b.toString();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  // ---------------------------------------------------------------- closing

  /**
   * Leaves the group: stops polling, waits for the records being run (at most the close time-out),
   * commits what finished and closes the clients, returning within about three close time-outs
   * (listeners, the last commit, leaving the group) however the brokers behave. A record whose
   * listener has not returned by then is not committed and runs again on the partition's next
   * owner; its worker is interrupted.
   */
  @Override
  public void close() {
    stop(false);
  }

  /**
   * As a member that dies: stops at once and commits nothing more. What finished since the last
   * commit runs again on the next owner unless the deduplicator remembers it. For tests.
   */
  void kill() {
    stop(true);
  }

  private void stop(boolean kill) {
    Thread poller;
    synchronized (this) {
      if (stopping) {
        return;
      }
      killed = kill;
      stopping = true;
      poller = pollThread;
    }
    if (poller == null) {
      return;
    }
    if (kill) {
      workers.shutdownNow();
    }
    try {
      // The running listeners, the last commit and leaving the group: a close time-out each.
      poller.join(settings.closeTimeout.toMillis() * 3 + 5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (poller.isAlive()) {
      log.warn("Kafka source: the poll thread did not stop in time");
    }
    workers.shutdownNow();
    renewals.shutdownNow();
    deadLetters.close(kill ? Duration.ZERO : settings.closeTimeout);
  }

  @Override
  public String toString() {
    return "KafkaSource[topic=" + topic + ", group=" + groupId + "]";
  }

  // ---------------------------------------------------------------- settings

  /** Settings of a {@link KafkaSource}; every one has a default but the servers and the topic. */
  public static final class Builder {
    private final String bootstrapServers;
    private final String topic;
    private String groupId = DEFAULT_GROUP_ID;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration retryBase = DEFAULT_RETRY_BASE;
    private Duration retryMax = DEFAULT_RETRY_MAX;
    private String deadLetterTopic;
    private final List<KafkaDeadLetterListener> deadLetterListeners = new ArrayList<>();
    private Deduplicator deduplicator;
    private int workers = DEFAULT_WORKERS;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private Duration claimLease = Deduplicator.DEFAULT_LEASE;
    private Duration commitInterval = Duration.ofSeconds(1);
    private int laneHighWater = LANE_HIGH_WATER;
    private int laneLowWater = LANE_LOW_WATER;
    private LongSupplier clock = System::nanoTime;
    private java.util.function.BiFunction<String, String, SourceMeters> meters;
    private final Map<String, Object> consumerProperties = new HashMap<>();
    private final Map<String, Object> producerProperties = new HashMap<>();

    private Builder(String bootstrapServers, String topic) {
      this.bootstrapServers = requireText(bootstrapServers, "bootstrapServers");
      this.topic = requireText(topic, "topic");
    }

    /** The consumer group (default {@value KafkaSource#DEFAULT_GROUP_ID}). */
    public Builder groupId(String groupId) {
      this.groupId = requireText(groupId, "groupId");
      return this;
    }

    /** Attempts at a record's listeners before it is dead-lettered (default 10). */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1");
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * The wait after a record's first failure (default 2 s); it doubles with every failure up to
     * five minutes, with jitter (at least half of it).
     */
    public Builder retryBase(Duration retryBase) {
      this.retryBase = positive(retryBase, "retryBase");
      return this;
    }

    /** Where records go after {@link #maxAttempts} failures (default {@code <topic>.dead}). */
    public Builder deadLetterTopic(String deadLetterTopic) {
      this.deadLetterTopic = requireText(deadLetterTopic, "deadLetterTopic");
      return this;
    }

    /** Adds a callback for each record written to the dead-letter topic. */
    public Builder onDeadLetter(KafkaDeadLetterListener listener) {
      deadLetterListeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Where the source remembers which events ran (default {@link Deduplicator#inMemory()}, this
     * member's memory). Give every member of the group the same shared one (webhook-redis's) so
     * that a member's successor knows what it finished; keys are prefixed with {@code
     * kafka:<group>:}.
     */
    public Builder deduplicator(Deduplicator deduplicator) {
      this.deduplicator = Objects.requireNonNull(deduplicator, "deduplicator");
      return this;
    }

    /** Threads running listeners (default 4); a partition runs on at most one at a time. */
    public Builder workers(int workers) {
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be at least 1");
      }
      this.workers = workers;
      return this;
    }

    /**
     * How long {@link KafkaSource#close()} and a partition hand-over wait for running listeners
     * (default 10 s); keep it well below the consumer's {@code max.poll.interval.ms}.
     */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = positive(closeTimeout, "closeTimeout");
      return this;
    }

    /**
     * Records that run Micrometer meters ({@code webhook.kafka.records}); without it nothing is
     * recorded and Micrometer need not be present.
     */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
      Objects.requireNonNull(registry, "registry");
      this.meters = (topic, group) -> new MicrometerSourceMeters(registry, topic, group);
      return this;
    }

    /**
     * Other consumer properties (security, SASL, client id, {@code max.poll.records}...). The
     * group, the deserializers and {@code enable.auto.commit=false} are the source's.
     */
    public Builder consumerProperties(Map<String, ?> properties) {
      Objects.requireNonNull(properties, "properties");
      Object autoCommit = properties.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
      if (autoCommit != null && !"false".equals(autoCommit.toString())) {
        throw new IllegalArgumentException(
            "enable.auto.commit must stay false: offsets are committed after the listeners ran");
      }
      consumerProperties.putAll(properties);
      return this;
    }

    /** Other properties of the dead-letter producer (security, SASL, client id...). */
    public Builder producerProperties(Map<String, ?> properties) {
      Objects.requireNonNull(properties, "properties");
      producerProperties.putAll(properties);
      return this;
    }

    /** How long a claim in the deduplicator lasts before it is renewed (tests shorten it). */
    Builder claimLease(Duration claimLease) {
      this.claimLease = positive(claimLease, "claimLease");
      return this;
    }

    /** How often finished offsets are committed while running (tests lengthen it). */
    Builder commitInterval(Duration commitInterval) {
      this.commitInterval = positive(commitInterval, "commitInterval");
      return this;
    }

    /**
     * A lane's water marks, pending records at which it is paused and resumed (tests lower them).
     */
    Builder laneWaterMarks(int highWater, int lowWater) {
      if (highWater < 1 || lowWater < 0 || lowWater >= highWater) {
        throw new IllegalArgumentException("need 0 <= lowWater < highWater");
      }
      this.laneHighWater = highWater;
      this.laneLowWater = lowWater;
      return this;
    }

    /** The longest back-off (tests shorten it). */
    Builder retryMax(Duration retryMax) {
      this.retryMax = positive(retryMax, "retryMax");
      return this;
    }

    /** The monotonic clock, in nanoseconds, the back-offs are measured on. */
    Builder clock(LongSupplier clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Builds the source; it connects when the consumer {@linkplain KafkaSource#start starts} it.
     */
    public KafkaSource build() {
      if (deadLetterTopic == null) {
        deadLetterTopic = topic + DEAD_LETTER_SUFFIX;
      }
      if (deadLetterTopic.equals(topic)) {
        throw new IllegalArgumentException("the dead-letter topic must differ from the topic");
      }
      if (deduplicator == null) {
        deduplicator = Deduplicator.inMemory();
      }
      return new KafkaSource(this);
    }

    long backoffMillis(int failures, double random) {
      long base = retryBase.toMillis();
      long max = Math.max(retryMax.toMillis(), base);
      int shift = Math.min(Math.max(failures - 1, 0), 30);
      long full = base > (max >> shift) ? max : Math.min(max, base << shift);
      // "Equal jitter": at least half the delay, so retries stay spread but never bunch at zero.
      return full / 2 + (long) (random * (full - full / 2));
    }

    Map<String, Object> consumerProperties() {
      Map<String, Object> p = new HashMap<>(consumerProperties);
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      p.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      return p;
    }

    Map<String, Object> producerProperties() {
      Map<String, Object> p = new HashMap<>(producerProperties);
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      p.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
      p.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
      p.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
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
