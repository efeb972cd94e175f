package io.servicehooks.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A clock and a nanosecond ticker that move only when the test moves them, so that no test waits
 * for real time. {@link #instant()} and {@link #nanos()} move together: {@link #advance} moves
 * both, {@link #sleep} moves both and records the sleep (pass {@code clock::sleep} where the code
 * under test takes a sleeper), {@link #nanos()} fits a {@code LongSupplier} ({@code clock::nanos}).
 */
public final class FakeClock extends UtcClock {

  private final AtomicReference<Instant> now;
  private final AtomicLong nanos;
  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

  private FakeClock(Instant start, long startNanos) {
    this.now = new AtomicReference<>(start);
    this.nanos = new AtomicLong(startNanos);
  }

  /** A clock at {@code start} whose ticker reads 0. */
  public static FakeClock at(Instant start) {
    return new FakeClock(start, 0);
  }

  /** A clock at an arbitrary fixed instant whose ticker reads {@code startNanos}. */
  public static FakeClock ticker(long startNanos) {
    return new FakeClock(Instant.parse("2026-01-01T00:00:00Z"), startNanos);
  }

  /**
   * A read-only UTC clock that reads {@code source} (a platform simulator's own clock, say), for
   * code that takes a {@link Clock}.
   */
  public static Clock following(Supplier<Instant> source) {
    return new Following(source);
  }

  /** Moves the clock and the ticker forward by {@code duration}. */
  public void advance(Duration duration) {
    now.updateAndGet(t -> t.plus(duration));
    long add;
    try {
      add = duration.toNanos();
    } catch (ArithmeticException e) {
      add = Long.MAX_VALUE; // a wait "until the end of time": the ticker saturates
    }
    long delta = add;
    nanos.updateAndGet(
        n -> {
          long sum = n + delta;
          return ((n ^ sum) & (delta ^ sum)) < 0 ? Long.MAX_VALUE : sum;
        });
  }

  /** As {@link #advance}, and records {@code duration} in {@link #sleeps()}. */
  public void sleep(Duration duration) {
    sleeps.add(duration);
    advance(duration);
  }

  /** Every duration passed to {@link #sleep}, in order. */
  public List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }

  /** The ticker's reading in nanoseconds. */
  public long nanos() {
    return nanos.get();
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  private static final class Following extends UtcClock {
    private final Supplier<Instant> source;

    Following(Supplier<Instant> source) {
      this.source = source;
    }

    @Override
    public Instant instant() {
      return source.get();
    }
  }
}
