package io.servicehooks.catchup;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One check of {@link CatchUp}, every heartbeat interval: records the heartbeat, or, when there is
 * a gap, takes the store's leadership, reads the store again, records the job and has it asked for;
 * while a job is recorded, has it looked after instead. Called under the {@link CatchUp}'s lock.
 */
final class LeaderLoop {

  private static final Logger log = LoggerFactory.getLogger(CatchUp.class);

  private final HeartbeatStore store;
  private final DowntimeWindow window;
  private final RefusedDeliveries refusals;
  private final ReplayJobs jobs;
  private final CatchUpMetrics metrics;
  private final Duration interval;
  private Instant servingSince;
  private Instant lastCheck;

  LeaderLoop(
      HeartbeatStore store,
      DowntimeWindow window,
      RefusedDeliveries refusals,
      ReplayJobs jobs,
      CatchUpMetrics metrics,
      Duration interval) {
    this.store = store;
    this.window = window;
    this.refusals = refusals;
    this.jobs = jobs;
    this.metrics = metrics;
    this.interval = interval;
  }

  /** This instance answers deliveries from {@code now} on. */
  void serving(Instant now) {
    servingSince = now;
  }

  /** One check at {@code now}. Never throws. */
  void check(Instant now) {
    try {
      check(jobs.webhookId(), now);
    } catch (IOException | RuntimeException e) {
      log.warn("Catch-up check failed, trying again in {}: {}", interval, CatchUp.describe(e));
    } finally {
      lastCheck = now;
    }
  }

  private void check(String id, Instant now) throws IOException {
    HeartbeatStore.Snapshot state = store.read();
    if (state.job() != null) {
      jobs.pending(id, state.job(), now);
      return;
    }
    long refusing = refusals.refusingSince();
    if (refusing != 0) {
      // Every delivery since then was refused: no heartbeat, and no replay yet (it would be
      // refused too); once deliveries are answered again the period is replayed.
      log.debug(
          "Catch-up: deliveries refused since {}; no heartbeat", Instant.ofEpochMilli(refusing));
      return;
    }
    Instant heartbeat = state.heartbeat();
    if (refusals.gapStart() == null
        && (heartbeat == null
            || !window.gap(heartbeat, now)
            || window.answeredThrough(servingSince, lastCheck, heartbeat, now))) {
      store.beat(now);
      return;
    }
    catchUp(id, now);
  }

  private void catchUp(String id, Instant now) throws IOException {
    Optional<HeartbeatStore.Leadership> lead = store.tryLead(CatchUp.LEADER_LEASE);
    if (lead.isEmpty()) {
      log.debug("Catch-up: another instance leads; waiting for its job");
      return;
    }
    try (HeartbeatStore.Leadership held = lead.get()) {
      HeartbeatStore.Snapshot state = store.read(); // again, as leader: another may have done it
      if (state.job() != null) {
        return;
      }
      Instant heartbeat = state.heartbeat();
      Instant since = heartbeat != null && window.gap(heartbeat, now) ? heartbeat : null;
      Instant refused = refusals.gapStart();
      if (refused != null && (since == null || refused.isBefore(since))) {
        since = refused;
      }
      if (since == null) {
        return;
      }
      Instant from = window.from(since, now, id, metrics);
      CatchUpJob job = new CatchUpJob(UUID.randomUUID().toString(), null, from, now, 1, now, null);
      store.putJob(job); // before anything else: a restart finds it and does not ask again
      refusals.covered(since);
      jobs.ask(id, job, now);
    }
  }
}
