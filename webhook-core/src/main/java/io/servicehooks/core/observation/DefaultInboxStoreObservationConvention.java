package io.servicehooks.core.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.servicehooks.core.observation.ServicehooksObservation.HighCardinalityKeys;
import io.servicehooks.core.observation.ServicehooksObservation.LowCardinalityKeys;

/**
 * The key values of {@code servicehooks.inbox.store}: outcome and capped event type (low
 * cardinality), the event count (high).
 */
public class DefaultInboxStoreObservationConvention
    implements ObservationConvention<InboxStoreObservationContext> {

  /** Makes the convention; it keeps no state. */
  public DefaultInboxStoreObservationConvention() {}

  @Override
  public String getName() {
    return ServicehooksObservation.INBOX_STORE.getName();
  }

  /** {@code inbox store}: the span's name. */
  @Override
  public String getContextualName(InboxStoreObservationContext context) {
    return "inbox store";
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(InboxStoreObservationContext context) {
    return KeyValues.of(
        LowCardinalityKeys.OUTCOME.withValue(context.outcome()),
        LowCardinalityKeys.EVENT_TYPE.withValue(context.eventType()));
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(InboxStoreObservationContext context) {
    return KeyValues.of(
        HighCardinalityKeys.EVENT_COUNT.withValue(Integer.toString(context.eventCount())));
  }

  @Override
  public boolean supportsContext(Observation.Context context) {
    return context instanceof InboxStoreObservationContext;
  }
}
