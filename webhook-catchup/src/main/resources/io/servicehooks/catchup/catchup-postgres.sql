-- servicehooks catch-up state, format 1: one row per consumer (name), created by
-- HeartbeatStore.postgres(..., createTable = true) with the configured table name, or by a DBA.
-- The job columns are NULL unless a replay job is in progress; times are UTC instants.
CREATE TABLE IF NOT EXISTS servicehooks_catchup (
  name          text PRIMARY KEY,
  heartbeat_at  timestamptz,
  job_key       text,
  job_id        text,
  job_from      timestamptz,
  job_until     timestamptz,
  job_attempt   integer,
  job_asked_at  timestamptz,
  job_retry_at  timestamptz
);
