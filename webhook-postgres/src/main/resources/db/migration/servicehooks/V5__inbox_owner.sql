-- servicehooks durable inbox, version 5: the inbox processes that lease rows. Each process holds a
-- session-level advisory lock on hashtextextended(token, 0) for as long as it lives, on one
-- connection of its own, and writes its token here once it holds the lock; the rows it leases carry
-- the same token in leased_by. PostgreSQL releases a session's locks when the session ends, so an
-- owner whose lock is free is gone (killed, crashed, or cut off long enough for the server to end
-- its session): every instance looks for such owners every 2 s and makes their running rows due in
-- one statement, instead of their waiting for the lease to end. Same placeholders as V1. Idempotent.
--
-- Upgrading from V4: a new table, nothing else changes. Instances of the previous version neither
-- read nor write it; their rows are never found here and wait for their lease, as before.

CREATE TABLE IF NOT EXISTS ${schema}.${table}_owner (
    -- As in leased_by: "<label>/<16 hex digits>", the label being the instance name or pid@host.
    token      text        PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now()
);
