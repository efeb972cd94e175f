-- servicehooks durable inbox, version 1.
-- Placeholders (Flyway syntax): ${schema} is the schema, ${table} the inbox table; both plain
-- lower-case identifiers. Defaults: servicehooks and webhook_inbox. The schema must exist (Flyway
-- creates it with flyway.schemas / createSchemas; PostgresInbox with createSchema(true) does too).
-- Idempotent: every statement is IF NOT EXISTS, so it may run again.

CREATE TABLE IF NOT EXISTS ${schema}.${table} (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The dedup: one row per event; a copy's INSERT ... ON CONFLICT (dedup_key) DO NOTHING writes nothing.
    dedup_key     text        NOT NULL,
    event_id      text        NOT NULL,
    event_type    text        NOT NULL,
    original_type text        NOT NULL,
    family        text        NOT NULL,
    for_user_id   text,
    tag           text,
    -- JSON exactly as received (slices of the verified body), kept as text, never re-encoded.
    filter_json   text,
    payload_json  text,
    delivery_json text        NOT NULL,
    -- pending: waiting until due_at; running: leased until due_at; done: kept for the dedup
    -- window, then purged; dead: failed every attempt, kept until retried or deleted by a person.
    status        text        NOT NULL DEFAULT 'pending'
                              CHECK (status IN ('pending', 'running', 'done', 'dead')),
    attempts      integer     NOT NULL DEFAULT 0,
    received_at   timestamptz NOT NULL DEFAULT now(),
    due_at        timestamptz NOT NULL DEFAULT now(),
    done_at       timestamptz,
    leased_by     text,
    last_error    text,
    CONSTRAINT ${table}_dedup_key_key UNIQUE (dedup_key)
);

-- What workers pick (FOR UPDATE SKIP LOCKED, oldest due first) and what the lag gauge reads.
CREATE INDEX IF NOT EXISTS ${table}_due_idx ON ${schema}.${table} (due_at)
    WHERE status IN ('pending', 'running');

-- What retention purges, in small batches.
CREATE INDEX IF NOT EXISTS ${table}_done_idx ON ${schema}.${table} (done_at)
    WHERE status = 'done';

-- Dead letters, for the dead gauge and for listing them.
CREATE INDEX IF NOT EXISTS ${table}_dead_idx ON ${schema}.${table} (id)
    WHERE status = 'dead';
