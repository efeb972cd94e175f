package io.servicehooks.kafka;

import java.util.ArrayDeque;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * One assigned partition of a {@link KafkaSource}: the records polled from it and not finished yet,
 * which of them may run, and the offset that may be committed. Every rule of per-partition order,
 * back-off and hand-over lives here.
 *
 * <h2>States</h2>
 *
 * <ul>
 *   <li><b>IDLE</b>: no worker runs the partition and nothing waits for a back-off. When records
 *       are pending the poll thread starts a worker at once ({@link #startIfDue}).
 *   <li><b>RUNNING</b>: one worker runs the pending records in offset order, one at a time ({@link
 *       #next}, then {@link #report}). There is never more than one worker per partition, so order
 *       within a partition is kept.
 *   <li><b>WAITING</b>: the first pending record failed (or could not be claimed or dead-lettered
 *       yet) and waits until {@code dueAt}; the records behind it wait with it. When the time comes
 *       {@link #startIfDue} makes the lane RUNNING again and the same record is tried first.
 *   <li><b>STOPPED</b>: the partition was revoked or lost, or the source closes: nothing is
 *       pending, no record starts any more, and what a worker reports afterwards is ignored.
 *       Terminal.
 * </ul>
 *
 * <p>Orthogonal to these, the lane is <em>fetching</em> or <em>paused</em> (the partition is paused
 * at the consumer), with hysteresis: a fetching lane is paused once {@code highWater} records are
 * pending, and a paused one fetches again once no more than {@code lowWater} are ({@link
 * #wantsRecords}, asked by the poll thread after each poll, decides and remembers). A lane holds
 * therefore fewer than {@code highWater} records plus one poll's ({@code max.poll.records}), in
 * whatever state, and a WAITING partition is fetched no further than that past its failing record
 * while the other partitions go on. The worker keeps the lane fed without waiting for the poll
 * thread's next poll time-out: the record whose FINISHED report brings a paused lane down to {@code
 * lowWater} asks for a <em>refill</em> (once per pause), which the source turns into a wake-up of
 * the poll thread, and the poll thread adds records to a RUNNING lane while its worker runs.
 * Nothing is sought back: the records behind a failing one stay pending here, and after a hand-over
 * the next owner fetches from the committed offset.
 *
 * <pre>
 *   fetching --wantsRecords (stopping, or pending &gt;= highWater)------&gt; paused
 *   paused   --report FINISHED (pending falls to lowWater)------------&gt; paused, refill asked
 *   paused   --wantsRecords (not stopping, pending &lt;= lowWater)------&gt; fetching
 * </pre>
 *
 * <h2>Transitions</h2>
 *
 * <pre>
 *   IDLE    --startIfDue (records pending)--------------------------&gt; RUNNING
 *   RUNNING --next (queue empty)-------------------------------------&gt; IDLE
 *   RUNNING --report FINISHED (handled, duplicate, dead-lettered)----&gt; RUNNING (next record)
 *   RUNNING --report FAILED / DEFERRED, or abandon (worker broke)----&gt; WAITING (until dueAt)
 *   WAITING --startIfDue (now &gt;= dueAt)-----------------------------&gt; RUNNING (same record)
 *   IDLE, WAITING --stop---------------------------------------------&gt; STOPPED
 *   RUNNING --stop: the current record goes on; its report counts,
 *             then next-----------------------------------------------&gt; STOPPED
 *   RUNNING --awaitIdle's deadline passes (a listener still runs)----&gt; STOPPED (its late report
 *                                                                      is ignored)
 * </pre>
 *
 * <p>A FAILED report counts one attempt of the first record; a DEFERRED one (its claim is held by
 * another member, the dedup store or the dead-letter topic cannot be reached) counts none; {@link
 * #owesDeadLetter} records that a record failed often enough and only its dead letter is left to
 * write. The attempt count is this member's: after a hand-over the new owner counts from one again.
 *
 * <h2>Commits</h2>
 *
 * <p>{@link #committable} is the offset after the last finished record, finished meaning its
 * listeners returned, it was a duplicate, or it was written to the dead-letter topic. Records
 * finish in order, so everything below it is finished: committing it never skips an unfinished
 * record, and a record whose listener has not returned is never committed. The source commits it
 * periodically, and synchronously before the partition is handed over ({@link #stop} then {@link
 * #awaitIdle} lets the running record finish, bounded by the close time-out).
 *
 * <p>Threads: the poll thread calls {@link #add}, {@link #wantsRecords}, {@link #startIfDue},
 * {@link #stop}, {@link #awaitIdle} and the commit methods; the lane's worker calls {@link #next},
 * {@link #report}, {@link #owesDeadLetter} and {@link #abandon}. Every method holds the lane's
 * monitor, never while a listener runs nor while the refill is asked for.
 */
final class PartitionLane {

  enum State {
    IDLE,
    RUNNING,
    WAITING,
    STOPPED
  }

  /** What a worker did with the first pending record. */
  enum Report {
    /** Its listeners returned, it was a duplicate, or it is in the dead-letter topic. */
    FINISHED,
    /** Its listeners failed: one attempt counted, retried after the back-off. */
    FAILED,
    /** It could not be tried now (claimed elsewhere, a store unreachable): no attempt counted. */
    DEFERRED
  }

  /** The first pending record and what is known of its earlier attempts. */
  record Attempt(ConsumerRecord<String, byte[]> record, int failures, String lastFailure) {}

  private final TopicPartition partition;
  private final int highWater;
  private final int lowWater;
  private final Runnable refill;
  private final ArrayDeque<ConsumerRecord<String, byte[]>> pending = new ArrayDeque<>();
  private State state = State.IDLE;
  private long dueAt;
  private int failures;
  private String lastFailure;
  private long committable = -1;
  private long committed = -1;
  private boolean stopping;
  private boolean paused;
  private boolean refillAsked;

  /** A lane paused while any record is pending, fetching again once it is empty; no refill. */
  PartitionLane(TopicPartition partition) {
    this(partition, 1, 0, () -> {});
  }

  /**
   * A lane paused once {@code highWater} records are pending and fetching again at {@code
   * lowWater}, which runs {@code refill} (outside the lane's monitor, on the worker) when it falls
   * to {@code lowWater} while paused.
   */
  PartitionLane(TopicPartition partition, int highWater, int lowWater, Runnable refill) {
    if (highWater < 1 || lowWater < 0 || lowWater >= highWater) {
      throw new IllegalArgumentException("need 0 <= lowWater < highWater");
    }
    this.partition = partition;
    this.highWater = highWater;
    this.lowWater = lowWater;
    this.refill = refill;
  }

  TopicPartition partition() {
    return partition;
  }

  /** Poll thread: records just polled for this partition, in offset order. */
  synchronized void add(List<ConsumerRecord<String, byte[]>> records) {
    if (!stopping) {
      pending.addAll(records);
    }
  }

  /**
   * Poll thread: whether the partition is to be fetched (resumed at the consumer) from now on, or
   * paused; the lane remembers the answer. Paused once {@code highWater} records are pending (or
   * stopping), fetching again once no more than {@code lowWater} are.
   */
  synchronized boolean wantsRecords() {
    boolean wants = !stopping && pending.size() < (paused ? lowWater + 1 : highWater);
    if (wants == paused) {
      paused = !wants;
      refillAsked = false;
    }
    return wants;
  }

  /**
   * Poll thread: makes the lane RUNNING when records are pending and no back-off is due later;
   * {@code true} means the caller must start a worker on it.
   */
  synchronized boolean startIfDue(long now) {
    boolean due =
        !stopping
            && ((state == State.IDLE && !pending.isEmpty())
                || (state == State.WAITING && now - dueAt >= 0));
    if (due) {
      state = State.RUNNING;
    }
    return due;
  }

  /** Worker: the record to run next, or {@code null} when the worker must end (IDLE or STOPPED). */
  synchronized Attempt next() {
    if (state != State.RUNNING) {
      return null;
    }
    if (stopping) {
      state = State.STOPPED;
      pending.clear();
      notifyAll();
      return null;
    }
    ConsumerRecord<String, byte[]> head = pending.peekFirst();
    if (head == null) {
      state = State.IDLE;
      return null;
    }
    return new Attempt(head, failures, lastFailure);
  }

  /**
   * Worker: what became of {@code attempt}. For FAILED and DEFERRED, {@code delayNanos} is the wait
   * before the record is tried again (the back-off) and {@code reason} the failure.
   */
  void report(Attempt attempt, Report report, long now, long delayNanos, String reason) {
    if (settle(attempt, report, now, delayNanos, reason)) {
      refill.run();
    }
  }

  /** {@link #report} under the monitor; {@code true} when the refill is to be asked for. */
  private synchronized boolean settle(
      Attempt attempt, Report report, long now, long delayNanos, String reason) {
    if (state != State.RUNNING || pending.peekFirst() != attempt.record()) {
      return false; // given up on by awaitIdle: the partition is someone else's now
    }
    boolean askRefill = false;
    switch (report) {
      case FINISHED -> {
        pending.removeFirst();
        committable = attempt.record().offset() + 1;
        failures = 0;
        lastFailure = null;
        if (paused && !stopping && !refillAsked && pending.size() <= lowWater) {
          refillAsked = true;
          askRefill = true;
        }
      }
      case FAILED, DEFERRED -> {
        if (report == Report.FAILED) {
          failures++;
        }
        if (reason != null) {
          lastFailure = reason;
        }
        dueAt = now + delayNanos;
        state = State.WAITING;
      }
    }
    notifyAll();
    return askRefill;
  }

  /**
   * Worker, before reporting DEFERRED: the record failed {@code failures} times, enough to be
   * dead-lettered; only writing the dead letter is left to do.
   */
  synchronized void owesDeadLetter(Attempt attempt, int failures) {
    if (state == State.RUNNING && pending.peekFirst() == attempt.record()) {
      this.failures = failures;
    }
  }

  /** Worker: the worker ends abnormally; the record is tried again after {@code delayNanos}. */
  synchronized void abandon(long now, long delayNanos) {
    if (state == State.RUNNING) {
      dueAt = now + delayNanos;
      state = State.WAITING;
    }
    notifyAll();
  }

  /**
   * Poll thread: no record starts any more. A worker running a record ends once it reported it;
   * that record still counts as finished if it finishes before {@link #awaitIdle} gives up.
   */
  synchronized void stop() {
    stopping = true;
    if (state != State.RUNNING) {
      state = State.STOPPED;
      pending.clear();
    }
    notifyAll();
  }

  /**
   * Poll thread, after {@link #stop}: waits until no worker runs the lane (or {@code deadlineNanos}
   * passed), then leaves it STOPPED. {@code true} when no worker ran any more.
   */
  synchronized boolean awaitIdle(long deadlineNanos) throws InterruptedException {
    boolean idle = true;
    while (state == State.RUNNING) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        idle = false;
        break;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    state = State.STOPPED;
    pending.clear();
    return idle;
  }

  /** The offset to commit (after the last finished record), or -1 when there is nothing new. */
  synchronized long committable() {
    return committable > committed ? committable : -1;
  }

  /** Poll thread: {@code offset} is committed. */
  synchronized void committed(long offset) {
    committed = Math.max(committed, offset);
  }

  synchronized State state() {
    return state;
  }

  @Override
  public synchronized String toString() {
    return "PartitionLane["
        + partition
        + ", "
        + state
        + (paused ? ", paused" : "")
        + ", pending="
        + pending.size()
        + "]";
  }
}
