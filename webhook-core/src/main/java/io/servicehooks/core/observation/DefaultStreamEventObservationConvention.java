package io.servicehooks.core.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.servicehooks.core.observation.ServicehooksObservation.HighCardinalityKeys;
import io.servicehooks.core.observation.ServicehooksObservation.LowCardinalityKeys;

/**
 * The key values of {@code servicehooks.stream.event}: the outcome (low cardinality), the
 * connection number (high). The event's type is on the delivery it becomes, its child.
 */
public class DefaultStreamEventObservationConvention
    implements ObservationConvention<StreamEventObservationContext> {

  /** Makes the convention; it keeps no state. */
  public DefaultStreamEventObservationConvention() {}

  @Override
  public String getName() {
    return ServicehooksObservation.STREAM_EVENT.getName();
  }

  /** {@code stream event}: the span's name. */
  @Override
  public String getContextualName(StreamEventObservationContext context) {
    return "stream event";
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(StreamEventObservationContext context) {
    return KeyValues.of(LowCardinalityKeys.OUTCOME.withValue(context.outcome()));
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(StreamEventObservationContext context) {
    return KeyValues.of(
        HighCardinalityKeys.CONNECTION.withValue(Long.toString(context.connection())));
  }

  @Override
  public boolean supportsContext(Observation.Context context) {
    return context instanceof StreamEventObservationContext;
  }
}
