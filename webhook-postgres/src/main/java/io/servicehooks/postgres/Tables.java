package io.servicehooks.postgres;

import java.util.regex.Pattern;

/**
 * The inbox's qualified names and every statement on them, built once. Names are plain lower-case
 * identifiers, checked here, so they are written into SQL unquoted and never carry an injection.
 */
final class Tables {

  private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,47}");

  /**
   * A one-row FROM item that turns off waiting for the WAL flush for the statement's own
   * (auto-commit) transaction. Only the insert must be durable before its delivery is answered; a
   * lease or an outcome lost in a database crash only runs the event once more, and without the
   * wait a worker's statements take a round trip instead of a disk flush.
   */
  private static final String NO_FLUSH_WAIT =
      "(SELECT set_config('synchronous_commit', 'off', true)) AS no_flush_wait";

  /**
   * Asks the statement's own transaction to compress the values it moves out of line with lz4
   * instead of the server's default (pglz, unless a DBA changed it): about a fifth of PostgreSQL's
   * CPU per stored event goes into pglz on the two JSON columns (benchmarks/RESULTS.md, "Durable
   * mode"). A column given a compression of its own keeps it. PostgreSQL 13 and older, or a server
   * built without lz4, refuse the setting, and {@link GroupInsert} then uses {@link #insert}.
   */
  private static final String LZ4 =
      "(SELECT set_config('default_toast_compression', 'lz4', true)) AS lz4";

  /**
   * Columns a worker reads to rebuild an event, after {@code id, attempts}; {@code traceparent}
   * (schema version 4) is the delivery's trace context, or NULL.
   */
  private static final String EVENT_COLUMNS =
      "dedup_key, event_id, event_type, original_type, family, for_user_id, tag, filter_json,"
          + " payload_json, delivery_json, traceparent";

  /** How many text columns {@link #EVENT_COLUMNS} names. */
  static final int EVENT_COLUMN_COUNT = 11;

  final String schema;
  final String table;
  final String qualified;
  final String bodies;
  final String owners;

  final String insert;
  final String insertLz4;
  final String claim;
  final String markDone;
  final String markFailed;
  final String gauges;
  final String stats;
  final String list;
  final String retry;
  final String retryAllDead;
  final String purge;
  final String sweepBodies;
  final String insertBody;
  final String dropUnusedBodies;
  final String readBodies;
  final String markUnreadable;
  final String takeOwnerLock;
  final String takeBack;

  Tables(String schema, String table) {
    this.schema = checkName("schema", schema);
    this.table = checkName("table", table);
    this.qualified = schema + "." + table;
    this.bodies = qualified + "_body";
    this.owners = qualified + "_owner";
    String t = qualified;
    // One statement stores a whole group: eleven text arrays, one element per event, the batch
    // body ids, and a last array that says which rows are leased to this instance at once (the hot
    // path: its workers have room
    // and take them from memory after the commit, with no claim statement).
    this.insert = insert(t, "");
    this.insertLz4 = insert(t, ", " + LZ4);
    // A running row's due_at is the end of its lease: a row whose worker died is due again.
    this.claim =
        "WITH due AS (SELECT id FROM "
            + t
            + " WHERE status IN ('pending', 'running') AND due_at <= now()"
            + " ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED)"
            + " UPDATE "
            + t
            + " AS r SET status = 'running', attempts = r.attempts + 1, leased_by = ?,"
            + " due_at = now() + ? * interval '1 millisecond'"
            + " FROM due, "
            + NO_FLUSH_WAIT
            + " WHERE r.id = due.id RETURNING r.id, r.attempts, "
            + prefixed("r.", EVENT_COLUMNS)
            + ", r.body_id";
    // Successful rows are marked in batches, one statement each. The fence is this instance's
    // lease at the attempt it ran: a row taken again after its lease ended (by anyone, attempts +
    // 1)
    // or ended otherwise (leased_by cleared) is not returned. No condition on status: it would let
    // the planner answer from the partial due index, where every row leaves a dead entry until
    // vacuum, so each batch would cost more as the table grows; the semi-join on (id, attempts)
    // keeps it at one primary-key lookup per row.
    this.markDone =
        "UPDATE "
            + t
            + " AS r SET status = 'done', done_at = now(), leased_by = NULL FROM "
            + NO_FLUSH_WAIT
            + " WHERE (r.id, r.attempts) IN (SELECT * FROM unnest(?::bigint[], ?::integer[]))"
            + " AND r.leased_by = ? RETURNING r.id, r.attempts";
    this.markFailed =
        "UPDATE "
            + t
            + " SET status = CASE WHEN attempts >= ? THEN 'dead' ELSE 'pending' END,"
            // a dead row is due never: its due_at stays at the moment it died, not in the future
            + " due_at = now() + CASE WHEN attempts >= ? THEN 0 ELSE ? END * interval '1 millisecond',"
            + " leased_by = NULL, last_error = ?"
            + " FROM "
            + NO_FLUSH_WAIT
            + " WHERE id = ? AND status = 'running' AND attempts = ? RETURNING status";
    // Each count runs on a partial index; done rows (the bulk) are never counted here. A pending
    // row that still names a lease owner was taken back from an owner that is gone (takeBack) and
    // has not run again yet: the orphaned count.
    this.gauges =
        "SELECT (SELECT count(*) FROM "
            + t
            + " WHERE status IN ('pending', 'running')),"
            + " (SELECT count(*) FROM "
            + t
            + " WHERE status = 'pending' AND leased_by IS NOT NULL),"
            + " (SELECT count(*) FROM "
            + t
            + " WHERE status = 'dead'),"
            + " (SELECT coalesce(extract(epoch FROM now() - min(due_at)), 0) FROM "
            + t
            + " WHERE status IN ('pending', 'running') AND due_at <= now())";
    this.stats =
        "SELECT count(*) FILTER (WHERE status = 'pending'),"
            + " count(*) FILTER (WHERE status = 'running'),"
            + " count(*) FILTER (WHERE status = 'done'),"
            + " count(*) FILTER (WHERE status = 'dead'),"
            + " coalesce(extract(epoch FROM now() - min(due_at) FILTER"
            + " (WHERE status IN ('pending', 'running') AND due_at <= now())), 0)"
            + " FROM "
            + t;
    this.list =
        "SELECT id, event_id, event_type, status, attempts, received_at, due_at, done_at,"
            + " last_error FROM "
            + t
            + " WHERE status = ? ORDER BY id LIMIT ?";
    this.retry =
        "UPDATE "
            + t
            + " SET status = 'pending', attempts = 0, due_at = now(), leased_by = NULL"
            + " WHERE id = ? AND status IN ('dead', 'pending')";
    this.retryAllDead =
        "UPDATE "
            + t
            + " SET status = 'pending', attempts = 0, due_at = now(), leased_by = NULL"
            + " WHERE status = 'dead'";
    // Done rows by age, skipping rows another instance's purge holds, so instances share the work
    // instead of queueing on the same oldest rows. A batch body goes with the last row using it;
    // the rows deleted by this statement are still visible to its own NOT EXISTS (one snapshot),
    // hence the NOT IN.
    this.purge =
        "WITH gone AS (DELETE FROM "
            + t
            + " WHERE id IN (SELECT id FROM "
            + t
            + " WHERE status = 'done' AND done_at < now() - ? * interval '1 millisecond'"
            + " ORDER BY done_at LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING id, body_id),"
            + " used AS (DELETE FROM "
            + bodies
            + " b WHERE b.id IN (SELECT body_id FROM gone WHERE body_id IS NOT NULL)"
            + " AND NOT EXISTS (SELECT 1 FROM "
            + t
            + " r WHERE r.body_id = b.id AND r.id NOT IN (SELECT id FROM gone)))"
            + " SELECT count(*) FROM gone";
    // Two purges deleting the last rows of one body at once each still see the other's rows: the
    // body stays. This finds such bodies, older than the retention, used by no row.
    this.sweepBodies =
        "DELETE FROM "
            + bodies
            + " WHERE id IN (SELECT b.id FROM "
            + bodies
            + " b WHERE b.stored_at < now() - ? * interval '1 millisecond' AND NOT EXISTS"
            + " (SELECT 1 FROM "
            + t
            + " r WHERE r.body_id = b.id) LIMIT ? FOR UPDATE SKIP LOCKED)";
    this.insertBody = "INSERT INTO " + bodies + " (body) VALUES (?) RETURNING id";
    // In the storing transaction: a body none of whose events was new (a retried delivery) goes.
    this.dropUnusedBodies =
        "DELETE FROM "
            + bodies
            + " b WHERE b.id = ANY(?::bigint[]) AND NOT EXISTS (SELECT 1 FROM "
            + t
            + " r WHERE r.body_id = b.id)";
    this.readBodies = "SELECT id, body FROM " + bodies + " WHERE id = ANY(?::bigint[])";
    // A taken row that cannot be turned back into an event: a dead letter at once, fenced as a
    // failed attempt is.
    this.markUnreadable =
        "UPDATE "
            + t
            + " SET status = 'dead', leased_by = NULL, last_error = ? FROM "
            + NO_FLUSH_WAIT
            + " WHERE id = ? AND status = 'running' AND attempts = ?";
    this.takeOwnerLock = takeOwnerLock(owners);
    // The owners whose lock no session holds are gone: their process ended, and its session with
    // it. Probing with a transaction-level lock both tests the key and holds it until this
    // statement commits, so two instances sweeping at once never both take an owner, and a live
    // owner (its session holds the key) is never taken. The caller's own token is excluded: its
    // session holds the key, and a lock is re-entrant within a session. One statement deletes the
    // gone owners and makes their running rows due: pending, due since their lease began (so the
    // lag gauge counts the time they waited), leased_by kept to say whose they were until a
    // poller takes them (a late done mark of their owner, cut off but alive, still lands). Only
    // rows whose lease has not ended are looked at (a range of the due index, whose predicate is
    // the first condition); the others are due already. A row another instance took meanwhile
    // names that instance: the join skips it.
    this.takeBack =
        "WITH gone AS (DELETE FROM "
            + owners
            + " o WHERE o.token <> ? AND pg_try_advisory_xact_lock(hashtextextended(o.token, 0))"
            + " RETURNING o.token),"
            + " taken AS (UPDATE "
            + t
            + " AS r SET status = 'pending',"
            + " due_at = least(now(), r.due_at - ? * interval '1 millisecond')"
            + " FROM gone WHERE r.status IN ('pending', 'running') AND r.status = 'running'"
            + " AND r.due_at > now() AND r.leased_by = gone.token RETURNING r.leased_by)"
            + " SELECT g.token, (SELECT count(*) FROM taken k WHERE k.leased_by = g.token)"
            + " FROM gone g";
  }

  /**
   * Takes this process's owner lock, a session-level advisory lock on its token's 64-bit hash, and,
   * once held, records the token among the owners; answers whether it is held, the session's
   * backend pid and how many seconds ago the server started. The lock CTE holds a volatile
   * function, so it runs once, before the insert reads it. A session lock outlives a failed
   * statement, which is why the caller drops the session then.
   */
  private static String takeOwnerLock(String owners) {
    return "WITH lock AS (SELECT pg_try_advisory_lock(hashtextextended(?, 0)) AS held),"
        + " registered AS (INSERT INTO "
        + owners
        + " (token) SELECT ? FROM lock WHERE held ON CONFLICT (token) DO NOTHING)"
        + " SELECT held, pg_backend_pid(),"
        + " extract(epoch FROM now() - pg_postmaster_start_time()) FROM lock";
  }

  static String checkName(String what, String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what
              + " must be a lower-case identifier ([a-z_][a-z0-9_]*, at most 48 characters), was "
              + name);
    }
    return name;
  }

  /** The group insert; {@code also} is another FROM item (empty, or {@link #LZ4}). */
  private static String insert(String t, String also) {
    return "INSERT INTO "
        + t
        + " ("
        + EVENT_COLUMNS
        + ", body_id, status, attempts, leased_by, due_at) SELECT "
        + prefixed("u.", EVENT_COLUMNS)
        + ", u.body_id, CASE WHEN u.leased THEN 'running' ELSE 'pending' END,"
        + " CASE WHEN u.leased THEN 1 ELSE 0 END, CASE WHEN u.leased THEN ?::text END,"
        + " CASE WHEN u.leased THEN now() + ? * interval '1 millisecond' ELSE now() END"
        + " FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
        + " ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::boolean[])"
        + " AS u("
        + EVENT_COLUMNS
        + ", body_id, leased)"
        + also
        + " ON CONFLICT (dedup_key) DO NOTHING RETURNING id, dedup_key, attempts";
  }

  private static String prefixed(String prefix, String columns) {
    return prefix + columns.replace(", ", ", " + prefix);
  }

  @Override
  public String toString() {
    return qualified;
  }
}
