package io.servicehooks.core.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.servicehooks.core.observation.ServicehooksObservation.HighCardinalityKeys;
import io.servicehooks.core.observation.ServicehooksObservation.LowCardinalityKeys;

/**
 * The key values of {@code servicehooks.inbox.process}: outcome and capped event type (low
 * cardinality), the event id (high).
 */
public class DefaultInboxProcessObservationConvention
    implements ObservationConvention<InboxProcessObservationContext> {

  /** Makes the convention; it keeps no state. */
  public DefaultInboxProcessObservationConvention() {}

  @Override
  public String getName() {
    return ServicehooksObservation.INBOX_PROCESS.getName();
  }

  /** {@code inbox process}: the span's name. */
  @Override
  public String getContextualName(InboxProcessObservationContext context) {
    return "inbox process";
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(InboxProcessObservationContext context) {
    return KeyValues.of(
        LowCardinalityKeys.OUTCOME.withValue(context.getError() == null ? "success" : "failure"),
        LowCardinalityKeys.EVENT_TYPE.withValue(context.eventType()));
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(InboxProcessObservationContext context) {
    return KeyValues.of(HighCardinalityKeys.EVENT_ID.withValue(context.event().id()));
  }

  @Override
  public boolean supportsContext(Observation.Context context) {
    return context instanceof InboxProcessObservationContext;
  }
}
