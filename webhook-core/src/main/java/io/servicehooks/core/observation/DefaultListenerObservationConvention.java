package io.servicehooks.core.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.servicehooks.core.observation.ServicehooksObservation.HighCardinalityKeys;
import io.servicehooks.core.observation.ServicehooksObservation.LowCardinalityKeys;

/**
 * The key values of {@code servicehooks.listener}: outcome, capped event type and the listener's
 * pattern (low cardinality), the event id (high).
 */
public class DefaultListenerObservationConvention
    implements ObservationConvention<ListenerObservationContext> {

  /** Makes the convention; it keeps no state. */
  public DefaultListenerObservationConvention() {}

  @Override
  public String getName() {
    return ServicehooksObservation.LISTENER.getName();
  }

  /** {@code listener <pattern>}, such as {@code listener post.create}: the span's name. */
  @Override
  public String getContextualName(ListenerObservationContext context) {
    return "listener " + context.listener();
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(ListenerObservationContext context) {
    return KeyValues.of(
        LowCardinalityKeys.OUTCOME.withValue(context.getError() == null ? "success" : "failure"),
        LowCardinalityKeys.EVENT_TYPE.withValue(context.eventType()),
        LowCardinalityKeys.LISTENER.withValue(context.listener()));
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(ListenerObservationContext context) {
    return KeyValues.of(HighCardinalityKeys.EVENT_ID.withValue(context.event().id()));
  }

  @Override
  public boolean supportsContext(Observation.Context context) {
    return context instanceof ListenerObservationContext;
  }
}
