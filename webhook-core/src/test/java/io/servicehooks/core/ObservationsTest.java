package io.servicehooks.core;

import static io.servicehooks.core.Fixtures.SECRET;
import static io.servicehooks.core.Fixtures.envelope;
import static io.servicehooks.core.Fixtures.signed;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.servicehooks.core.observation.DeliveryObservationContext;
import io.servicehooks.core.observation.InboxProcessObservationContext;
import io.servicehooks.core.observation.InboxStoreObservationContext;
import io.servicehooks.core.observation.ListenerObservationContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The consumer's observations on a registry with a recording handler: names, key values, parents,
 * the type cap; tracing itself (spans, the traceparent hop, the MDC) is tested over the real
 * OpenTelemetry bridge in samples/consumer.
 */
final class ObservationsTest {

  /** Keeps every stopped observation's context, in the order they stopped. */
  static final class Recorder implements ObservationHandler<Observation.Context> {
    final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
    final List<Observation.Context> started = new CopyOnWriteArrayList<>();

    @Override
    public void onStart(Observation.Context context) {
      started.add(context);
    }

    @Override
    public void onStop(Observation.Context context) {
      stopped.add(context);
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }

    <T extends Observation.Context> List<T> of(Class<T> type) {
      return stopped.stream().filter(type::isInstance).map(type::cast).toList();
    }
  }

  private final Recorder recorder = new Recorder();
  private final ObservationRegistry registry = registry(recorder);

  private static ObservationRegistry registry(Recorder recorder) {
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(recorder);
    return registry;
  }

  private static Map<String, String> low(Observation.Context context) {
    return context.getLowCardinalityKeyValues().stream()
        .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
  }

  private static Map<String, String> high(Observation.Context context) {
    return context.getHighCardinalityKeyValues().stream()
        .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
  }

  @Test
  void delivery_withRegistry_observesTheDeliveryAndEachListenerAsItsChild() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .observationRegistry(registry)
            .on("post.create", e -> {})
            .on("post.*", e -> {})
            .build();

    assertThat(consumer.handle(signed(SECRET, envelope("7", "post.create"))).join().status())
        .isEqualTo(200);

    DeliveryObservationContext delivery = recorder.of(DeliveryObservationContext.class).get(0);
    assertThat(delivery.getName()).isEqualTo("servicehooks.delivery");
    assertThat(delivery.getContextualName()).isEqualTo("webhook delivery");
    assertThat(low(delivery))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "servicehooks.outcome", "accepted",
                "servicehooks.acknowledgement", "synchronous",
                "servicehooks.event.type", "post.create",
                "servicehooks.source", "webhook"));
    assertThat(high(delivery)).containsEntry("servicehooks.event.count", "1");

    List<ListenerObservationContext> listeners = recorder.of(ListenerObservationContext.class);
    assertThat(listeners)
        .extracting(ListenerObservationContext::listener)
        .containsExactly("post.create", "post.*");
    for (ListenerObservationContext listener : listeners) {
      assertThat(listener.getName()).isEqualTo("servicehooks.listener");
      assertThat(listener.getParentObservation().getContextView()).isSameAs(delivery);
      assertThat(low(listener))
          .containsEntry("servicehooks.outcome", "success")
          .containsEntry("servicehooks.event.type", "post.create");
      assertThat(high(listener)).containsEntry("servicehooks.event.id", "7");
    }
    // The listeners stop before the delivery they belong to is answered.
    assertThat(recorder.stopped.get(recorder.stopped.size() - 1)).isSameAs(delivery);
  }

  @Test
  void listener_throws_itsObservationFailsWithTheErrorAndTheDeliveryReadsListenerFailed() {
    IllegalStateException boom = new IllegalStateException("boom");
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .observationRegistry(registry)
            .on(
                "post.create",
                e -> {
                  throw boom;
                })
            .onError((e, t) -> {})
            .build();

    assertThat(consumer.handle(signed(SECRET, envelope("8", "post.create"))).join().status())
        .isEqualTo(500);

    ListenerObservationContext listener = recorder.of(ListenerObservationContext.class).get(0);
    assertThat(listener.getError()).isSameAs(boom);
    assertThat(low(listener)).containsEntry("servicehooks.outcome", "failure");
    assertThat(low(recorder.of(DeliveryObservationContext.class).get(0)))
        .containsEntry("servicehooks.outcome", "listener_failed");
  }

  @Test
  void delivery_refusedOrMixed_readsItsOutcomeAndTypeWithoutInventingOne() {
    WebhookConsumer consumer =
        WebhookConsumer.builder().consumerSecrets(SECRET).observationRegistry(registry).build();
    String json = envelope("9", "post.create");
    consumer.handle(signed("another-secret", json)).join();
    consumer
        .handle(
            signed(
                SECRET,
                "{\"for_user_id\":\"1\",\"follow_events\":[{\"type\":\"follow\"},{\"type\":\"unfollow\"}]}"))
        .join();

    List<DeliveryObservationContext> deliveries = recorder.of(DeliveryObservationContext.class);
    assertThat(low(deliveries.get(0)))
        .containsEntry("servicehooks.outcome", "invalid_signature")
        .containsEntry("servicehooks.event.type", "none");
    assertThat(low(deliveries.get(1)))
        .containsEntry("servicehooks.outcome", "accepted")
        .containsEntry("servicehooks.event.type", "mixed");
    assertThat(high(deliveries.get(1))).containsEntry("servicehooks.event.count", "2");
  }

  @Test
  void eventType_moreDistinctTypesThanTheCap_laterOnesReadOther() {
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .observationRegistry(registry)
            .onAny(e -> {})
            .build();
    int types = WebhookConsumer.MAX_TYPE_TAGS + 5;
    for (int i = 0; i < types; i++) {
      consumer.handle(signed(SECRET, envelope(String.valueOf(i), "made.up.t" + i))).join();
    }

    List<String> tags =
        recorder.of(ListenerObservationContext.class).stream()
            .map(c -> low(c).get("servicehooks.event.type"))
            .toList();
    assertThat(tags.subList(0, WebhookConsumer.MAX_TYPE_TAGS)).doesNotContain("other");
    assertThat(tags.subList(WebhookConsumer.MAX_TYPE_TAGS, types)).containsOnly("other");
    assertThat(
            recorder.of(DeliveryObservationContext.class).stream()
                .map(c -> low(c).get("servicehooks.event.type"))
                .distinct()
                .count())
        .isEqualTo(WebhookConsumer.MAX_TYPE_TAGS + 1);
  }

  @Test
  void noRegistry_orTheNoopOne_createsNoObservation() {
    ObservationRegistry noop = ObservationRegistry.NOOP;
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .observationRegistry(noop)
            .on("post.create", e -> {})
            .build();
    assertThat(consumer.handle(signed(SECRET, envelope("1", "post.create"))).join().status())
        .isEqualTo(200);
    // A registry whose predicate turns servicehooks' observations off makes none either.
    registry
        .observationConfig()
        .observationPredicate((name, c) -> !name.startsWith("servicehooks"));
    WebhookConsumer off =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .observationRegistry(registry)
            .on("post.create", e -> {})
            .build();
    assertThat(off.handle(signed(SECRET, envelope("2", "post.create"))).join().status())
        .isEqualTo(200);
    assertThat(recorder.started).isEmpty();
  }

  @Test
  void durable_storeThenProcess_observesBoth_listenersUnderTheProcessing() throws Exception {
    DurableAcknowledgementTest.MapInbox inbox = new DurableAcknowledgementTest.MapInbox();
    WebhookConsumer consumer =
        WebhookConsumer.builder()
            .consumerSecrets(SECRET)
            .acknowledgement(Acknowledgement.DURABLE)
            .inbox(inbox)
            .inboxTimeout(Duration.ofSeconds(1))
            .observationRegistry(registry)
            .on("post.create", e -> {})
            .build();

    assertThat(consumer.handle(signed(SECRET, envelope("5", "post.create"))).join().status())
        .isEqualTo(200);
    InboxStoreObservationContext store = recorder.of(InboxStoreObservationContext.class).get(0);
    DeliveryObservationContext delivery = recorder.of(DeliveryObservationContext.class).get(0);
    assertThat(store.getParentObservation().getContextView()).isSameAs(delivery);
    assertThat(low(store))
        .containsEntry("servicehooks.outcome", "stored")
        .containsEntry("servicehooks.event.type", "post.create");
    assertThat(low(delivery)).containsEntry("servicehooks.acknowledgement", "durable");
    // No tracing handler here: nothing wrote a traceparent, and the row has none.
    StoredEvent row = inbox.rows.get("e:5");
    assertThat(row.traceparent()).isNull();

    inbox.processor.process(
        row.withTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));

    InboxProcessObservationContext process =
        recorder.of(InboxProcessObservationContext.class).get(0);
    assertThat(process.getCarrier())
        .containsEntry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assertThat(low(process)).containsEntry("servicehooks.outcome", "success");
    assertThat(high(process)).containsEntry("servicehooks.event.id", "5");
    ListenerObservationContext listener = recorder.of(ListenerObservationContext.class).get(0);
    assertThat(listener.getParentObservation().getContextView()).isSameAs(process);
  }
}
