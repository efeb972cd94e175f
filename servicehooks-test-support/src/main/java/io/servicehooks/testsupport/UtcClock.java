package io.servicehooks.testsupport;

import java.time.Clock;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock in UTC that stays in UTC: the zone part of the test clocks. */
abstract class UtcClock extends Clock {

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
