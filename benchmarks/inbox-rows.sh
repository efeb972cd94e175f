#!/usr/bin/env bash
# PostgreSQL's own work per stored event for the durable inbox's row layouts, without the consumer:
# pgbench runs what the inbox's statements do (a group of GROUP rows inserted leased to one
# instance, then marked done in a second transaction without waiting for the flush; the mark here
# takes the group's id range, where the inbox's marker looks each row up by id and attempt) against
#
#   shipped   the inbox's table as the V1-V5 scripts make it: payload_json and delivery_json both
#             held, so a 1.5 KB delivery's row is over 2 KB and both are compressed (lz4) and moved
#             out of line (toast_tuple_target = 128)
#   once      the same table with the payload kept once, as its place in delivery_json: the row
#             (about 1.7 KB) stays whole, nothing is compressed or moved out of line
#   once-ff50 "once" with fillfactor 50: the done mark's new row version fits on its page
#   inline    "shipped" with the default toast_tuple_target: both columns compressed in the row,
#             nothing moved out of line unless the compressed row is still over about 2 KB
#   external  "shipped" with both columns stored out of line uncompressed (STORAGE EXTERNAL)
#   insert-only "shipped" without the done mark: the insert's share of the work, and so the mark's
#   dedup-apart the dedup keys in a narrow table of their own (key, time), the inbox table without
#             its unique key, and a done row deleted instead of updated: no done row kept
#   hot-ff80  "shipped" without the three partial indexes (their predicates read status, and
#   hot-ff90  done_idx indexes done_at) and with fillfactor 80 or 90: nothing indexed changes when a
#             row is marked done, so the mark can be a HOT update (no index entry written)
#
# and prints, per event, the CPU of every PostgreSQL process over the measured seconds, the WAL
# bytes and the bytes of the layout's tables (as left without vacuum). The bodies are 1.5 KB
# post.create envelopes like Payloads.envelope, made from constant parts and the event id. Run from
# the repository root; it needs psql and pgbench (Debian: postgresql-client) and a PostgreSQL it
# may create a database on (PGHOST, PGPORT, PGUSER; default 127.0.0.1:5432, postgres). It creates
# the database bench_inbox_rows_<pid> and drops it at the end.
#
#   benchmarks/inbox-rows.sh                     # CLIENTS=2 GROUP=30 SECONDS_MEASURED=10
#   LAYOUTS="shipped insert-only" benchmarks/inbox-rows.sh   # default: shipped once once-ff50
set -euo pipefail

cd "$(dirname "$0")/.."
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
CLIENTS=${CLIENTS:-2}
GROUP=${GROUP:-30}
SECONDS_MEASURED=${SECONDS_MEASURED:-10}
LAYOUTS=${LAYOUTS:-"shipped once once-ff50"}
KNOWN="shipped once once-ff50 inline external insert-only dedup-apart hot-ff80 hot-ff90"
for layout in $LAYOUTS; do
  if [[ " $KNOWN " != *" $layout "* ]]; then
    echo "[inbox-rows] unknown layout '$layout' ($KNOWN)" >&2
    exit 2
  fi
done
DB=bench_inbox_rows_$$
WORK=$(mktemp -d)
say() { echo "[inbox-rows] $*" >&2; }

if ! command -v pgbench >/dev/null; then
  say "installing pgbench (postgresql-client)"
  apt-get install -y -q postgresql-client >/dev/null
fi

cleanup() {
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

psql -qX -d postgres -c "CREATE DATABASE $DB"
q() { psql -qXAt -d "$DB" -c "$1"; }

# The envelope of Payloads.envelope (benchmarks/src/.../Payloads.java), 1,536 characters, and its
# payload: everything but the event id is made once here, so env(k) is two concatenations and pay()
# a constant, and building them costs PostgreSQL next to nothing.
q "CREATE TABLE parts AS SELECT h, rpad('', 1536 - 23 - 19 - length(h) - length(t), 'Shipping the new webhook consumer today: verified, deduplicated, routed. Benchmarks to follow, numbers in the thread below. ') || t AS rest
FROM (SELECT '\",\"event_type\":\"post.create\",\"filter\":{\"user_id\":\"2244994945\"},\"tag\":\"my-subscription\",\"payload\":{\"id\":\"1876543210987654321\",\"author_id\":\"2244994945\",\"created_at\":\"2026-03-18T12:34:56.000Z\",\"lang\":\"en\",\"conversation_id\":\"1876543210987654321\",\"reply_settings\":\"everyone\",\"public_metrics\":{\"retweet_count\":12,\"reply_count\":3,\"like_count\":87,\"quote_count\":1,\"bookmark_count\":4,\"impression_count\":2048},\"entities\":{\"hashtags\":[{\"start\":10,\"end\":18,\"tag\":\"webhooks\"}],\"mentions\":[{\"start\":0,\"end\":8,\"username\":\"service\",\"id\":\"783214\"}]},\"text\":\"' AS h,
 '\"},\"includes\":{\"users\":[{\"id\":\"2244994945\",\"name\":\"Service Dev\",\"username\":\"servicedev\",\"verified\":true,\"created_at\":\"2013-12-14T04:35:55.000Z\",\"description\":\"The voice of the platform''s developer community.\",\"public_metrics\":{\"followers_count\":513958,\"following_count\":2039,\"tweet_count\":3635,\"listed_count\":1672}},{\"id\":\"783214\",\"name\":\"Service\",\"username\":\"service\",\"verified\":true}],\"posts\":[{\"id\":\"1876543210987654300\",\"text\":\"The post this one replies to.\",\"author_id\":\"783214\"}]}}}' AS t) x"
head=$(q "SELECT replace(h, '''', '''''') FROM parts")
rest=$(q "SELECT replace(rest, '''', '''''') FROM parts")
q "CREATE FUNCTION env(k text) RETURNS text LANGUAGE sql IMMUTABLE AS \$f\$ SELECT '{\"data\":{\"event_uuid\":\"' || k || '$head$rest' \$f\$"
payload=$(q "SELECT replace(substr(b, strpos(b, '\"payload\":') + 10, strpos(b, ',\"includes\"') - strpos(b, '\"payload\":') - 10), '''', '''''') FROM (SELECT env('1000000000000000001') AS b) x")
q "CREATE FUNCTION pay() RETURNS text LANGUAGE sql IMMUTABLE AS \$f\$ SELECT '$payload' \$f\$"
q "SELECT CASE WHEN length(env('1000000000000000001')) = 1536 AND (env('1000000000000000001')::json -> 'data' ->> 'event_uuid') = '1000000000000000001' THEN 'ok' ELSE 'the envelope is not 1,536 characters of JSON' END" | grep -qx ok

MIGRATIONS=webhook-postgres/src/main/resources/db/migration/servicehooks
for layout in $LAYOUTS; do
  schema=${layout//-/_}
  q "CREATE SCHEMA $schema"
  for f in "$MIGRATIONS"/V[1-5]__*.sql; do
    sed "s/\${schema}/$schema/g; s/\${table}/webhook_inbox/g" "$f" | psql -qX -d "$DB" >/dev/null
  done
  # The column payload_json: the payload as shipped, NULL where the row keeps it once.
  payload_column="pay()"
  mark=1
  case $layout in
    once) payload_column=NULL ;;
    once-ff50) payload_column=NULL; q "ALTER TABLE $schema.webhook_inbox SET (fillfactor = 50)" ;;
    inline) q "ALTER TABLE $schema.webhook_inbox RESET (toast_tuple_target)" ;;
    external) q "ALTER TABLE $schema.webhook_inbox ALTER COLUMN payload_json SET STORAGE EXTERNAL,
                 ALTER COLUMN delivery_json SET STORAGE EXTERNAL" ;;
    insert-only) mark=0 ;;
    hot-ff80|hot-ff90)
      q "DROP INDEX $schema.webhook_inbox_due_idx, $schema.webhook_inbox_done_idx, $schema.webhook_inbox_dead_idx"
      q "ALTER TABLE $schema.webhook_inbox SET (fillfactor = ${layout#hot-ff})" ;;
    dedup-apart)
      q "CREATE TABLE $schema.webhook_dedup (dedup_key text PRIMARY KEY, stored_at timestamptz NOT NULL DEFAULT now())"
      q "ALTER TABLE $schema.webhook_inbox DROP CONSTRAINT webhook_inbox_dedup_key_key" ;;
  esac
  rows="SELECT 'e:' || k AS key, k, env(k) AS d FROM (SELECT (:base::bigint * 1000 + g)::text AS k FROM generate_series(1, $GROUP) g) a"
  columns="dedup_key, event_id, event_type, original_type, family, filter_json, tag, payload_json, delivery_json, status, attempts, leased_by, due_at"
  values="r.key, r.k, 'post.create', 'post.create', 'ACTIVITY', '{\"user_id\":\"2244994945\"}', 'my-subscription', $payload_column, r.d, 'running', 1, 'c' || :client_id, now() + interval '60 s'"
  if [ "$layout" = dedup-apart ]; then
    insert="WITH r AS ($rows), fresh AS (INSERT INTO $schema.webhook_dedup (dedup_key) SELECT key FROM r ON CONFLICT DO NOTHING RETURNING dedup_key), ins AS (INSERT INTO $schema.webhook_inbox ($columns) SELECT $values FROM r JOIN fresh ON fresh.dedup_key = r.key RETURNING id)"
    done_mark="DELETE FROM $schema.webhook_inbox WHERE id BETWEEN :lo AND :hi AND leased_by = 'c' || :client_id;"
  else
    insert="WITH ins AS (INSERT INTO $schema.webhook_inbox ($columns) SELECT $values FROM ($rows) r ON CONFLICT (dedup_key) DO NOTHING RETURNING id)"
    done_mark="UPDATE $schema.webhook_inbox SET status = 'done', done_at = now(), leased_by = NULL WHERE id BETWEEN :lo AND :hi AND leased_by = 'c' || :client_id;"
  fi
  # A group whose base was drawn before (about once in fifty runs) inserts nothing and marks nothing.
  cat >"$WORK/$layout.sql" <<EOF
\set base random(1, 10000000000)
BEGIN;
SELECT set_config('default_toast_compression', 'lz4', true) AS lz4 \gset
$insert SELECT coalesce(min(id), 0) AS lo, coalesce(max(id), -1) AS hi FROM ins \gset
COMMIT;
BEGIN;
SET LOCAL synchronous_commit = off;
\\if $mark
$done_mark
\\endif
COMMIT;
EOF
done

# utime + stime of every postgres process, in clock ticks.
pg_ticks() {
  local total=0 stat
  for pid in $(pgrep -x postgres); do
    stat=$(cut -d')' -f2- "/proc/$pid/stat" 2>/dev/null) || continue
    set -- $stat
    total=$((total + ${12} + ${13}))
  done
  echo "$total"
}

hz=$(getconf CLK_TCK)
printf '%-12s %10s %14s %14s %14s %10s\n' layout events/s "pg CPU us/ev" "WAL bytes/ev" "table bytes/ev" "HOT marks"
for layout in $LAYOUTS; do
  schema=${layout//-/_}
  table=$schema.webhook_inbox
  # Events stored: the id sequence, which a deleted row does not move back.
  stored="pg_sequence_last_value(pg_get_serial_sequence('$table', 'id'))"
  # Bytes kept: every table of the layout's schema, with its TOAST and indexes.
  bytes="(SELECT sum(pg_total_relation_size(oid)) FROM pg_class WHERE relnamespace = '$schema'::regnamespace AND relkind = 'r')"
  # Each layout starts just after a checkpoint, so none pays for the WAL of the one before.
  q "CHECKPOINT"
  pgbench -n -M prepared -c "$CLIENTS" -j 1 -T $((SECONDS_MEASURED + 6)) -f "$WORK/$layout.sql" "$DB" \
    >"$WORK/$layout.log" 2>&1 &
  bench=$!
  sleep 3
  t0=$(pg_ticks)
  r0=$(q "SELECT coalesce($stored, 0)")
  l0=$(q "SELECT pg_current_wal_lsn()")
  s0=$(date +%s.%N)
  sleep "$SECONDS_MEASURED"
  t1=$(pg_ticks)
  r1=$(q "SELECT coalesce($stored, 0)")
  l1=$(q "SELECT pg_current_wal_lsn()")
  s1=$(date +%s.%N)
  wait "$bench" || { cat "$WORK/$layout.log" >&2; exit 1; }
  sleep 1 # pgbench's sessions have ended and handed in their statistics
  # The share of done marks PostgreSQL made as HOT updates (no index entry written).
  hot="(SELECT round(100.0 * n_tup_hot_upd / greatest(n_tup_upd, 1)) || '%' FROM pg_stat_user_tables WHERE relid = '$table'::regclass)"
  q "SELECT '$layout',
      round(($r1 - $r0) / ($s1 - $s0)),
      round(($t1 - $t0) * 1000000.0 / $hz / ($r1 - $r0), 1),
      round(pg_wal_lsn_diff('$l1', '$l0') / ($r1 - $r0)),
      round($bytes / greatest($stored, 1)),
      $hot" |
    awk -F'|' '{ printf "%-12s %10s %14s %14s %14s %10s\n", $1, $2, $3, $4, $5, $6 }'
done
