package io.servicehooks.registration;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;

/**
 * {@link WebhookWatch}'s revalidations as Micrometer counters; loaded only when a registry was
 * given, so the module runs without Micrometer.
 */
final class MicrometerRevalidations implements WebhookWatch.Revalidations {

  private final Map<WebhookWatch.Outcome, Counter> counters =
      new EnumMap<>(WebhookWatch.Outcome.class);

  private MicrometerRevalidations(MeterRegistry registry) {
    for (WebhookWatch.Outcome outcome : WebhookWatch.Outcome.values()) {
      counters.put(
          outcome,
          Counter.builder("webhook.registration.revalidations")
              .description(
                  "Revalidations of a webhook the platform had switched off (or no longer had)")
              .tag("outcome", outcome.tag)
              .register(registry));
    }
  }

  static MicrometerRevalidations of(MeterRegistry registry) {
    return new MicrometerRevalidations(registry);
  }

  @Override
  public void count(WebhookWatch.Outcome outcome) {
    counters.get(outcome).increment();
  }
}
