package io.servicehooks.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Assembles a consumer's steps from its settings, in the order they depend on each other: the dedup
 * gate and its store, the meters (no dedup meters when a durable inbox is the dedup), the {@link
 * ListenerThreads} (the one thread policy), the acknowledgement mode (starting the inbox in durable
 * mode), then the CRC responder and the delivery path. Read once, by the consumer's constructor.
 */
final class ConsumerWiring {

  final SignatureVerifier verifier;
  final CrcResponder crc;
  final AcknowledgementMode acknowledgementMode;
  final DeliveryPath delivery;

  /** The Deduplicator, or in durable mode the inbox, described once for toString(). */
  final String dedupStore;

  ConsumerWiring(ConsumerSettings s, AtomicBoolean closed) {
    RefusalLog refusals = new RefusalLog(s.refusalLogTicker, s.refusalLogInterval);
    this.verifier = new SignatureVerifier(s.secrets, refusals);
    EventTypeNames names = new EventTypeNames(s.aliases);
    ObjectMapper mapper = s.mapperOrDefault();
    PayloadParser parser = new PayloadParser(mapper, names);
    Deduplicator store = s.store();
    DedupGate gate =
        new DedupGate(
            store,
            s.inFlightWait,
            s.dedupLease,
            s.dedupTimeout,
            s.failOpen,
            s.dedupScheduler,
            s.leaseTicker);
    // In durable mode an inbox that deduplicates is the dedup: the gate's and the store's meters
    // could never move, so they are not registered (a dashboard would show flat zeros as if dedup
    // worked). One that does not is fed through the gate like the other modes.
    boolean inboxDedups = s.acknowledgement == Acknowledgement.DURABLE && s.inbox.deduplicates();
    boolean dedupMeters = !inboxDedups;
    boolean inboxMayBlock = s.inbox != null && s.inbox.mayBlock();
    boolean storeMayBlock = inboxDedups ? inboxMayBlock : store.mayBlock() || inboxMayBlock;
    // Described once: toString() stays the same while the consumer runs (the in-memory store's own
    // toString() shows its size).
    String deduplicator =
        store instanceof InMemoryDeduplicator ? "InMemoryDeduplicator" : String.valueOf(store);
    this.dedupStore =
        inboxDedups
            ? "inbox " + s.inbox
            : s.inbox != null ? "inbox " + s.inbox + " claimed in " + deduplicator : deduplicator;
    Metrics metrics = s.metricsBinder.metrics(dedupMeters ? gate : null);
    gate.metrics(metrics);
    if (dedupMeters && store instanceof MeteredStore metered) {
      metered.bindTo(s.metricsBinder);
    }
    this.crc = new CrcResponder(verifier.current(), metrics, refusals, s.wallClock);
    s.metricsBinder.crcLastAnswered(crc::lastAnsweredEpochSeconds);
    Answers answers = new Answers(metrics);
    ListenerThreads threads =
        new ListenerThreads(
            s.listenersNonBlocking,
            storeMayBlock,
            inboxMayBlock,
            new HandOff(gate, answers, s.queueingDeadline, s.nanoTime),
            answers);
    // MicrometerObservations is loaded only when a registry was given.
    Observations observations =
        s.observationRegistry == null
            ? Observations.NONE
            : MicrometerObservations.of(s.observationRegistry, s.acknowledgement);
    Dispatcher dispatcher =
        new Dispatcher(s.router(names), s.errorHandler, metrics, observations, s.ignoreOwnEvents);
    this.acknowledgementMode =
        acknowledgementMode(
            s,
            inboxDedups ? null : gate,
            dispatcher,
            metrics,
            answers,
            threads,
            mapper,
            closed,
            observations);
    this.delivery =
        new DeliveryPath(
            closed,
            s.maxBodyBytes,
            verifier,
            parser,
            threads,
            acknowledgementMode,
            answers,
            metrics,
            refusals,
            s.observers,
            observations);
  }

  /**
   * The mode the settings chose; a durable one has its inbox started on it. {@code gate} is null in
   * durable mode when the inbox is the dedup.
   */
  private static AcknowledgementMode acknowledgementMode(
      ConsumerSettings s,
      DedupGate gate,
      Dispatcher dispatcher,
      Metrics metrics,
      Answers answers,
      ListenerThreads threads,
      ObjectMapper mapper,
      AtomicBoolean closed,
      Observations observations) {
    switch (s.acknowledgement) {
      case DURABLE:
        DurableAcknowledgement durable =
            new DurableAcknowledgement(
                s.inbox,
                gate,
                threads,
                dispatcher,
                metrics,
                answers,
                mapper,
                s.inboxTimeout,
                observations,
                s.nanoTime);
        s.inbox.start(durable.processor());
        return durable;
      case ASYNCHRONOUS:
        return new AsynchronousAcknowledgement(
            gate, dispatcher, metrics, answers, closed, threads, s);
      default:
        return new SynchronousAcknowledgement(gate, dispatcher, metrics, answers, threads);
    }
  }

  @Override
  public String toString() {
    return "ConsumerWiring[" + acknowledgementMode + "]";
  }
}
