-- servicehooks durable inbox, version 4: each row keeps the W3C Trace Context `traceparent` of the
-- delivery that stored it (the servicehooks.inbox.store span), so the worker that runs its
-- listeners minutes later continues the same trace. Written only when the consumer was given an
-- ObservationRegistry with tracing; NULL otherwise. Same placeholders as V1. Idempotent.
--
-- Upgrading from V3: rows written before keep a NULL traceparent and their processing starts a
-- trace of its own. ADD COLUMN without a default changes only the catalog (a short ACCESS
-- EXCLUSIVE lock, no rewrite). Instances still running the previous version ignore the column and
-- write NULL: they may run beside upgraded ones.

-- "00-<32 hex>-<16 hex>-<2 hex>", 55 characters; a later version of the header may be longer.
ALTER TABLE ${schema}.${table} ADD COLUMN IF NOT EXISTS traceparent text;
