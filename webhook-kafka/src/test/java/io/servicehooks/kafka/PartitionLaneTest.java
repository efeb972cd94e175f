package io.servicehooks.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.servicehooks.kafka.PartitionLane.Attempt;
import io.servicehooks.kafka.PartitionLane.Report;
import io.servicehooks.kafka.PartitionLane.State;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** One partition's states and commits, on a fake clock: no broker, no waiting. */
final class PartitionLaneTest {

  private static final TopicPartition TP = new TopicPartition("t", 0);
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  private static List<ConsumerRecord<String, byte[]>> records(long... offsets) {
    return java.util.Arrays.stream(offsets)
        .mapToObj(o -> new ConsumerRecord<String, byte[]>("t", 0, o, "k", new byte[0]))
        .toList();
  }

  @Test
  void recordsRunInOrder_andTheCommittableOffsetFollowsTheFinishedOnes() {
    PartitionLane lane = new PartitionLane(TP);
    assertThat(lane.wantsRecords()).isTrue();
    assertThat(lane.startIfDue(0)).isFalse();
    lane.add(records(5, 6, 7));
    assertThat(lane.wantsRecords()).as("paused while records are pending").isFalse();
    assertThat(lane.startIfDue(0)).isTrue();
    assertThat(lane.startIfDue(0)).as("one worker per partition").isFalse();

    Attempt first = lane.next();
    assertThat(first.record().offset()).isEqualTo(5);
    assertThat(lane.committable()).isEqualTo(-1);
    lane.report(first, Report.FINISHED, 0, 0, null);
    assertThat(lane.committable()).isEqualTo(6);
    lane.committed(6);
    assertThat(lane.committable()).as("nothing new").isEqualTo(-1);
    lane.report(lane.next(), Report.FINISHED, 0, 0, null);
    lane.report(lane.next(), Report.FINISHED, 0, 0, null);
    assertThat(lane.next()).isNull();
    assertThat(lane.state()).isEqualTo(State.IDLE);
    assertThat(lane.committable()).isEqualTo(8);
    assertThat(lane.wantsRecords()).isTrue();
  }

  @Test
  void failedRecord_waitsForItsBackOff_thenRunsFirstAgain_withItsAttemptsCounted() {
    PartitionLane lane = new PartitionLane(TP);
    lane.add(records(0, 1));
    lane.startIfDue(0);
    Attempt a = lane.next();
    lane.report(a, Report.FAILED, 100, 2 * SECOND, "boom");
    assertThat(lane.state()).isEqualTo(State.WAITING);
    assertThat(lane.next()).as("the worker ends while the record waits").isNull();
    assertThat(lane.startIfDue(100 + SECOND)).isFalse();
    assertThat(lane.committable()).isEqualTo(-1);

    assertThat(lane.startIfDue(100 + 2 * SECOND)).isTrue();
    Attempt again = lane.next();
    assertThat(again.record().offset()).isZero();
    assertThat(again.failures()).isEqualTo(1);
    assertThat(again.lastFailure()).isEqualTo("boom");
    lane.report(again, Report.DEFERRED, 0, 1, null);
    lane.startIfDue(1);
    Attempt deferred = lane.next();
    assertThat(deferred.failures()).as("a deferral counts no attempt").isEqualTo(1);
    lane.report(deferred, Report.FINISHED, 1, 0, null);
    Attempt next = lane.next();
    assertThat(next.record().offset()).isEqualTo(1);
    assertThat(next.failures()).isZero();
  }

  @Test
  void stop_letsTheRunningRecordFinishAndCount_thenNothingStarts() throws Exception {
    PartitionLane lane = new PartitionLane(TP);
    lane.add(records(0, 1, 2));
    lane.startIfDue(0);
    Attempt running = lane.next();

    lane.stop();
    CompletableFuture<Boolean> idle =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return lane.awaitIdle(System.nanoTime() + 30 * SECOND);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    lane.report(running, Report.FINISHED, 0, 0, null);
    assertThat(lane.next()).as("the worker ends").isNull();
    assertThat(idle.get(30, TimeUnit.SECONDS)).isTrue();
    assertThat(lane.state()).isEqualTo(State.STOPPED);
    assertThat(lane.committable()).as("the record that finished is committed").isEqualTo(1);
    lane.add(records(3));
    assertThat(lane.startIfDue(Long.MAX_VALUE)).isFalse();
    assertThat(lane.wantsRecords()).isFalse();
  }

  @Test
  void stop_givesUpOnAListenerPastTheDeadline_andIgnoresItsLateReport() throws Exception {
    PartitionLane lane = new PartitionLane(TP);
    lane.add(records(0));
    lane.startIfDue(0);
    Attempt running = lane.next();
    lane.stop();
    assertThat(lane.awaitIdle(System.nanoTime())).isFalse();
    lane.report(running, Report.FINISHED, 0, 0, null);
    assertThat(lane.committable()).as("finished after the hand-over: not ours").isEqualTo(-1);
  }

  @Test
  void fetchesAheadToTheHighWaterMark_andAsksForOneRefillWhenItDrainsToTheLowOne() {
    AtomicInteger refills = new AtomicInteger();
    PartitionLane lane = new PartitionLane(TP, 4, 2, refills::incrementAndGet);
    lane.add(records(0, 1, 2));
    assertThat(lane.wantsRecords()).as("below the high-water mark: fetched on").isTrue();
    assertThat(lane.startIfDue(0)).isTrue();
    lane.add(records(3, 4)); // polled while the worker runs
    assertThat(lane.wantsRecords()).as("at the high-water mark: paused").isFalse();

    lane.report(lane.next(), Report.FINISHED, 0, 0, null); // 4 pending
    lane.report(lane.next(), Report.FINISHED, 0, 0, null); // 3 pending
    assertThat(lane.wantsRecords()).as("paused down to the low-water mark").isFalse();
    assertThat(refills).hasValue(0);
    lane.report(lane.next(), Report.FINISHED, 0, 0, null); // 2 pending
    assertThat(refills).as("drained to the low-water mark while paused").hasValue(1);
    lane.report(lane.next(), Report.FINISHED, 0, 0, null); // 1 pending
    assertThat(refills).as("once per pause").hasValue(1);
    assertThat(lane.wantsRecords()).as("fetched again").isTrue();

    lane.add(records(5, 6, 7)); // the refill arrives while the worker still runs: 4 pending
    assertThat(lane.state()).isEqualTo(State.RUNNING);
    assertThat(lane.wantsRecords()).isFalse();
    List<Long> ran = new ArrayList<>();
    Attempt a;
    while ((a = lane.next()) != null) {
      ran.add(a.record().offset());
      lane.report(a, Report.FINISHED, 0, 0, null);
    }
    assertThat(ran).as("in order, one worker run").containsExactly(4L, 5L, 6L, 7L);
    assertThat(refills).as("a second pause, a second refill").hasValue(2);
    assertThat(lane.state()).isEqualTo(State.IDLE);
    assertThat(lane.committable()).isEqualTo(8);
    assertThat(lane.wantsRecords()).isTrue();
  }

  @Test
  void waitingLane_isFetchedNoFurtherThanTheHighWaterMark_andAsksNoRefillUntilItRuns() {
    AtomicInteger refills = new AtomicInteger();
    PartitionLane lane = new PartitionLane(TP, 3, 1, refills::incrementAndGet);
    lane.add(records(0, 1));
    lane.startIfDue(0);
    lane.report(lane.next(), Report.FAILED, 0, 2 * SECOND, "boom");
    assertThat(lane.state()).isEqualTo(State.WAITING);
    assertThat(lane.wantsRecords()).as("two pending, below the mark").isTrue();
    lane.add(records(2));
    assertThat(lane.wantsRecords()).as("three pending behind a failing record: paused").isFalse();
    assertThat(lane.startIfDue(SECOND)).isFalse();
    assertThat(lane.wantsRecords()).isFalse();
    assertThat(refills).hasValue(0);

    assertThat(lane.startIfDue(2 * SECOND)).isTrue();
    Attempt again = lane.next();
    assertThat(again.record().offset()).isEqualTo(0);
    assertThat(again.failures()).isEqualTo(1);
    lane.report(again, Report.FINISHED, 2 * SECOND, 0, null);
    assertThat(refills).hasValue(0);
    lane.report(lane.next(), Report.FINISHED, 2 * SECOND, 0, null);
    assertThat(refills).as("down to the low-water mark").hasValue(1);
    assertThat(lane.committable()).isEqualTo(2);
  }

  @Test
  void stoppedLane_isPaused_andAsksNoRefill() {
    AtomicInteger refills = new AtomicInteger();
    PartitionLane lane = new PartitionLane(TP, 2, 0, refills::incrementAndGet);
    lane.add(records(0, 1));
    assertThat(lane.wantsRecords()).isFalse();
    lane.startIfDue(0);
    Attempt running = lane.next();
    lane.stop();
    lane.report(running, Report.FINISHED, 0, 0, null);
    assertThat(lane.next()).isNull();
    assertThat(lane.state()).isEqualTo(State.STOPPED);
    assertThat(lane.wantsRecords()).isFalse();
    assertThat(refills).hasValue(0);
    assertThat(lane.committable()).isEqualTo(1);
  }

  @Test
  void waterMarks_mustLeaveRoomBetweenThem() {
    assertThatThrownBy(() -> new PartitionLane(TP, 2, 2, () -> {}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PartitionLane(TP, 0, 0, () -> {}))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
