package io.servicehooks.registration;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that moves only when the client "sleeps", so retry tests never wait for real. */
final class FakeTime extends Clock implements WebhookClient.Sleeper {

  private final AtomicReference<Instant> now;
  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

  FakeTime(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  @Override
  public void sleep(Duration duration) {
    sleeps.add(duration);
    now.updateAndGet(t -> t.plus(duration));
  }

  List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
