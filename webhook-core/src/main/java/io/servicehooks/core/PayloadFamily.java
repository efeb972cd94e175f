package io.servicehooks.core;

/** The two shapes a delivery's body comes in (docs/protocol.md#payload-families). */
public enum PayloadFamily {
  /** The current activity envelope: {@code {"data":{"event_uuid",...}}}, one event per delivery. */
  ACTIVITY,
  /** The legacy account-activity batch: {@code for_user_id} plus arrays of events. */
  ACCOUNT_ACTIVITY
}
