package io.servicehooks.stream;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.servicehooks.core.WebhookConsumer;
import io.servicehooks.core.WebhookResponse;
import io.servicehooks.core.observation.DefaultStreamEventObservationConvention;
import io.servicehooks.core.observation.StreamEventObservationContext;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link StreamObservations} on a Micrometer registry; loaded only when one is given. */
final class MicrometerStreamObservations implements StreamObservations {

  private static final Logger log = LoggerFactory.getLogger(ActivityStream.class);
  private static final DefaultStreamEventObservationConvention CONVENTION =
      new DefaultStreamEventObservationConvention();

  private final ObservationRegistry registry;

  MicrometerStreamObservations(ObservationRegistry registry) {
    this.registry = registry;
  }

  @Override
  public CompletableFuture<WebhookResponse> event(
      long connection, WebhookConsumer consumer, byte[] line) {
    StreamEventObservationContext context = new StreamEventObservationContext(connection);
    Observation observation =
        Observation.createNotStarted(null, CONVENTION, () -> context, registry).start();
    CompletableFuture<WebhookResponse> answer;
    try (Observation.Scope scope = observation.openScope()) {
      answer = consumer.handleFromOwnConnection(line);
    } catch (RuntimeException | Error e) {
      observation.error(e);
      context.outcome("failed");
      stop(observation);
      throw e;
    }
    return answer.whenComplete(
        (response, failure) -> {
          if (failure != null) {
            observation.error(failure);
          }
          context.outcome(outcome(response, failure));
          stop(observation);
        });
  }

  /** {@code taken} (2xx), {@code refused} (4xx), {@code not_taken} (503), else {@code failed}. */
  static String outcome(WebhookResponse response, Throwable failure) {
    if (failure != null || response == null) {
      return "failed";
    }
    int status = response.status();
    if (status < 300) {
      return "taken";
    }
    if (status == 503) {
      return "not_taken";
    }
    return status < 500 ? "refused" : "failed";
  }

  private static void stop(Observation observation) {
    try {
      observation.stop();
    } catch (RuntimeException e) {
      log.debug("Stopping an observation failed; the event's outcome stands", e);
    }
  }

  @Override
  public String toString() {
    return "MicrometerStreamObservations[" + registry.getClass().getSimpleName() + "]";
  }
}
