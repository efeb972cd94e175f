package io.servicehooks.core.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.servicehooks.core.observation.ServicehooksObservation.HighCardinalityKeys;
import io.servicehooks.core.observation.ServicehooksObservation.LowCardinalityKeys;

/**
 * The key values of {@code servicehooks.delivery}: outcome, acknowledgement mode, capped event type
 * and source (low cardinality), the event count (high). Extend it to add values.
 */
public class DefaultDeliveryObservationConvention
    implements ObservationConvention<DeliveryObservationContext> {

  /** Makes the convention; it keeps no state. */
  public DefaultDeliveryObservationConvention() {}

  @Override
  public String getName() {
    return ServicehooksObservation.DELIVERY.getName();
  }

  /** {@code webhook delivery} or {@code stream delivery}: the span's name. */
  @Override
  public String getContextualName(DeliveryObservationContext context) {
    return context.source() + " delivery";
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(DeliveryObservationContext context) {
    return KeyValues.of(
        LowCardinalityKeys.OUTCOME.withValue(context.outcome()),
        LowCardinalityKeys.ACKNOWLEDGEMENT.withValue(context.acknowledgement()),
        LowCardinalityKeys.EVENT_TYPE.withValue(context.eventType()),
        LowCardinalityKeys.SOURCE.withValue(context.source()));
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(DeliveryObservationContext context) {
    return KeyValues.of(
        HighCardinalityKeys.EVENT_COUNT.withValue(Integer.toString(context.eventCount())));
  }

  @Override
  public boolean supportsContext(Observation.Context context) {
    return context instanceof DeliveryObservationContext;
  }
}
