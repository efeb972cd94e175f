package io.servicehooks.registration;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.servicehooks.core.WebhookEvent;
import java.io.IOException;

/**
 * Observes each call an answer makes as {@code servicehooks.answer}, a child of the current
 * observation (the listener's, inside the delivery's). The only class of this module that names
 * Micrometer's observation types, loaded only when {@link Answering} was given a registry.
 */
final class AnswerObservations implements CallObserver {

  /** The observation's name. */
  static final String NAME = "servicehooks.answer";

  private final ObservationRegistry registry;
  private final WebhookEvent event;

  private AnswerObservations(ObservationRegistry registry, WebhookEvent event) {
    this.registry = registry;
    this.event = event;
  }

  static CallObserver of(Object registry, WebhookEvent event) {
    return new AnswerObservations((ObservationRegistry) registry, event);
  }

  @Override
  public ApiResponse observe(String name, Call call) throws IOException {
    Observation parent = registry.getCurrentObservation();
    Observation observation =
        Observation.createNotStarted(NAME, registry)
            .contextualName(name)
            .lowCardinalityKeyValue("servicehooks.answer.call", name)
            .highCardinalityKeyValue("servicehooks.event.id", event.id());
    if (parent != null) {
      observation.parentObservation(parent);
    }
    observation.start();
    try (Observation.Scope scope = observation.openScope()) {
      ApiResponse response = call.run();
      observation.lowCardinalityKeyValue("servicehooks.outcome", "success");
      return response;
    } catch (IOException | RuntimeException | Error e) {
      observation.lowCardinalityKeyValue("servicehooks.outcome", "failure");
      observation.error(e);
      throw e;
    } finally {
      observation.stop();
    }
  }
}
