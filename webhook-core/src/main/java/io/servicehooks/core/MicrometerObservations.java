package io.servicehooks.core;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.servicehooks.core.observation.DefaultDeliveryObservationConvention;
import io.servicehooks.core.observation.DefaultInboxProcessObservationConvention;
import io.servicehooks.core.observation.DefaultInboxStoreObservationConvention;
import io.servicehooks.core.observation.DefaultListenerObservationConvention;
import io.servicehooks.core.observation.DeliveryObservationContext;
import io.servicehooks.core.observation.InboxProcessObservationContext;
import io.servicehooks.core.observation.InboxStoreObservationContext;
import io.servicehooks.core.observation.ListenerObservationContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Observations} on a Micrometer {@link ObservationRegistry}: the only class of the core
 * package that names Micrometer's observation types, loaded only when the user gives the builder a
 * registry. A {@code GlobalObservationConvention} registered for one of the contexts wins over the
 * default convention, as Micrometer documents.
 *
 * <p>A failing observation handler must never fail a delivery (whose future never completes
 * exceptionally) or a listener's outcome: stopping an observation is guarded, and logged at DEBUG.
 */
final class MicrometerObservations implements Observations {

  private static final Logger log = LoggerFactory.getLogger(WebhookConsumer.class);

  private static final DefaultDeliveryObservationConvention DELIVERY =
      new DefaultDeliveryObservationConvention();
  private static final DefaultListenerObservationConvention LISTENER =
      new DefaultListenerObservationConvention();
  private static final DefaultInboxStoreObservationConvention INBOX_STORE =
      new DefaultInboxStoreObservationConvention();
  private static final DefaultInboxProcessObservationConvention INBOX_PROCESS =
      new DefaultInboxProcessObservationConvention();

  private final ObservationRegistry registry;
  private final String acknowledgement;
  private final TypeTagCap types;

  /** The observations on {@code registry}, an {@link ObservationRegistry} held untyped. */
  static Observations of(Object registry, Acknowledgement acknowledgement) {
    return new MicrometerObservations((ObservationRegistry) registry, acknowledgement);
  }

  MicrometerObservations(ObservationRegistry registry, Acknowledgement acknowledgement) {
    this(registry, acknowledgement, new TypeTagCap(WebhookConsumer.MAX_TYPE_TAGS));
  }

  MicrometerObservations(
      ObservationRegistry registry, Acknowledgement acknowledgement, TypeTagCap types) {
    this.registry = registry;
    this.acknowledgement = acknowledgement.name().toLowerCase(java.util.Locale.ROOT);
    this.types = types;
  }

  @Override
  public Delivery delivery(String source) {
    DeliveryObservationContext context = new DeliveryObservationContext(acknowledgement, source);
    Observation observation =
        Observation.createNotStarted(null, DELIVERY, () -> context, registry).start();
    if (observation.isNoop()) {
      return Delivery.NONE;
    }
    return new Delivery() {
      @Override
      public Object parent() {
        return observation;
      }

      @Override
      public void events(List<WebhookEvent> events) {
        context.events(typeOf(events), events.size());
      }

      @Override
      public void answered(WebhookResponse response) {
        context.answered(outcome(response), response.status());
        stop(observation);
      }
    };
  }

  /** The capped type of a delivery's events: one type, {@code mixed} or {@code none}. */
  private String typeOf(List<WebhookEvent> events) {
    if (events.isEmpty()) {
      return "none";
    }
    String type = events.get(0).type();
    for (int i = 1; i < events.size(); i++) {
      if (!events.get(i).type().equals(type)) {
        return "mixed";
      }
    }
    return types.tag(type);
  }

  @Override
  public Listener listener(Object parent, WebhookEvent event, String pattern) {
    ListenerObservationContext context =
        new ListenerObservationContext(event, types.tag(event.type()), pattern);
    Observation observation = Observation.createNotStarted(null, LISTENER, () -> context, registry);
    startUnder(observation, parent);
    if (observation.isNoop()) {
      return Listener.NONE;
    }
    Observation.Scope scope = observation.openScope();
    return new Listener() {
      @Override
      public void failed(Throwable failure) {
        observation.error(failure);
      }

      @Override
      public void close() {
        try {
          scope.close();
        } catch (RuntimeException e) {
          log.debug("Closing an observation scope failed", e);
        }
        stop(observation);
      }
    };
  }

  @Override
  public InboxStore inboxStore(Object parent, List<WebhookEvent> events) {
    InboxStoreObservationContext context =
        new InboxStoreObservationContext(typeOf(events), events.size());
    Observation observation =
        Observation.createNotStarted(null, INBOX_STORE, () -> context, registry);
    startUnder(observation, parent); // a propagating handler writes the carrier here
    if (observation.isNoop()) {
      return InboxStore.NONE;
    }
    return new InboxStore() {
      @Override
      public String traceparent() {
        return context.traceparent();
      }

      @Override
      public void stopped(List<InboxOutcome> outcomes, Throwable failure) {
        if (failure != null) {
          context.outcome("failure");
          observation.error(failure);
        } else {
          context.outcome(
              outcomes != null && !outcomes.contains(InboxOutcome.STORED) ? "duplicate" : "stored");
        }
        stop(observation);
      }
    };
  }

  @Override
  public InboxProcess inboxProcess(StoredEvent event) {
    InboxProcessObservationContext context =
        new InboxProcessObservationContext(event, types.tag(event.type()));
    // No parent in this process: the remote one comes from the carrier.
    Observation observation =
        Observation.createNotStarted(null, INBOX_PROCESS, () -> context, registry);
    observation.parentObservation(null);
    observation.start();
    if (observation.isNoop()) {
      return InboxProcess.NONE;
    }
    Observation.Scope scope = observation.openScope();
    return new InboxProcess() {
      @Override
      public Object parent() {
        return observation;
      }

      @Override
      public void close(Throwable failure) {
        if (failure != null) {
          observation.error(failure);
        }
        try {
          scope.close();
        } catch (RuntimeException e) {
          log.debug("Closing an observation scope failed", e);
        }
        stop(observation);
      }
    };
  }

  /**
   * Starts {@code observation} as a child of {@code parent} (an {@link Observation}, or {@code
   * null}: the thread's current one). The parent's scope is open while it starts: a tracing handler
   * takes the thread's current span over the parent observation's when they differ, and a listener
   * that runs on the stream's thread (inside the stream event's scope) must still be the delivery's
   * child.
   */
  private static void startUnder(Observation observation, Object parent) {
    if (!(parent instanceof Observation p)) {
      observation.start();
      return;
    }
    observation.parentObservation(p);
    try (Observation.Scope scope = p.openScope()) {
      observation.start();
    }
  }

  private static void stop(Observation observation) {
    try {
      observation.stop();
    } catch (RuntimeException e) {
      log.debug("Stopping an observation failed; the outcome stands", e);
    }
  }

  /**
   * The answer's outcome: the value of the first key of the core's own JSON answer, {@code
   * {"status":"accepted",...}} or {@code {"error":"busy",...}}, which comes from a fixed set.
   */
  static String outcome(WebhookResponse response) {
    byte[] body = response.body();
    int colon = indexOf(body, (byte) ':', 0);
    if (colon < 0 || colon + 1 >= body.length || body[colon + 1] != '"') {
      return "status_" + response.status();
    }
    int end = indexOf(body, (byte) '"', colon + 2);
    if (end < 0 || end - colon - 2 > 40) {
      return "status_" + response.status();
    }
    return new String(body, colon + 2, end - colon - 2, StandardCharsets.UTF_8);
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public String toString() {
    return "MicrometerObservations[" + registry.getClass().getSimpleName() + "]";
  }
}
