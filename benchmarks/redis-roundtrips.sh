#!/usr/bin/env bash
# Redis round trips per event of the d-redis consumer (issue 11, point 9), from INFO commandstats.
# Run from the repository root after benchmarks/load.sh built the jars (or with BUILD=1):
#
#   benchmarks/redis-roundtrips.sh            # N=2000 CONCURRENCY=16
#
# It starts a redis-server of its own on a free port (REDIS_URL=... uses that server instead, but
# any other client of it then adds to the counts), starts the consumer as load.sh's d-redis does
# (TunedConsumer, worker mode, one no-op listener, REDIS_URL, a fresh REDIS_PREFIX), sends 50
# deliveries to warm the script cache, then N new deliveries and the same N again (duplicates),
# from CONCURRENCY client threads, reading INFO commandstats before and after each phase. Every
# Redis command the store sends is one round trip (EVALSHA; EVAL when the server lost its script
# cache), so (calls after - calls before) / N is the round trips per event. It deletes its keys
# and stops what it started.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
N=${N:-2000}
CONCURRENCY=${CONCURRENCY:-16}
PORT=${PORT:-18090}
BUILD=${BUILD:-0}
SECRET=bench-consumer-secret-0123456789abcdef # not a real secret
BENCH_JAR=$ROOT/benchmarks/target/benchmarks.jar
say() { echo "[roundtrips] $*" >&2; }

if [ "$BUILD" = 1 ] || [ ! -f "$BENCH_JAR" ]; then
  say "building benchmarks and samples/consumer"
  ./mvnw -q -B -DskipTests package -pl benchmarks -am
fi

REDIS_PID="" CONSUMER_PID=""
cleanup() {
  [ -n "$CONSUMER_PID" ] && kill "$CONSUMER_PID" 2>/dev/null && wait "$CONSUMER_PID" 2>/dev/null
  if [ -n "${PREFIX:-}" ] && [ -n "${CLI:-}" ]; then
    $CLI --scan --pattern "$PREFIX:*" | xargs -r -n 500 $CLI unlink >/dev/null || true
  fi
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null
  true
}
trap cleanup EXIT INT TERM

if [ -z "${REDIS_URL:-}" ]; then
  RPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
    >"$ROOT/benchmarks/target/roundtrips-redis.log" 2>&1 &
  REDIS_PID=$!
  REDIS_URL=redis://127.0.0.1:$RPORT
  for _ in $(seq 1 50); do redis-cli -p "$RPORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
CLI="redis-cli -u $REDIS_URL"
PREFIX=servicehooks-bench:roundtrips:$(date -u +%Y%m%dT%H%M%SZ):$$
say "Redis $($CLI INFO server | sed -n 's/^redis_version:\(.*\)\r$/\1/p') at ${REDIS_URL%%@*}..., prefix $PREFIX"

env SERVICE_CONSUMER_SECRET=$SECRET PORT="$PORT" LISTENER_MODE=worker NOOP_LISTENER=true \
  REDIS_URL="$REDIS_URL" REDIS_PREFIX="$PREFIX" \
  java -Xmx512m -cp "$BENCH_JAR" io.servicehooks.benchmarks.TunedConsumer \
  >"$ROOT/benchmarks/target/roundtrips-consumer.log" 2>&1 &
CONSUMER_PID=$!
for _ in $(seq 1 300); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.2
done

URL=http://127.0.0.1:$PORT/webhooks
send() { java -cp "$BENCH_JAR" io.servicehooks.benchmarks.SendDeliveries "$URL" "$1" "$2" "$CONCURRENCY" "$SECRET"; }
# "name calls" for every command
stats() {
  $CLI INFO commandstats | tr -d '\r' \
    | sed -n 's/^cmdstat_\([a-z_|]*\):calls=\([0-9]*\),.*/\1 \2/p' | sort
}
calls() { awk -v c="$2" '$1==c {print $2}' <<<"$1" | head -1; }
diff_of() {
  local a b
  a=$(calls "$2" "$3")
  b=$(calls "$1" "$3")
  echo $((${a:-0} - ${b:-0}))
}
# Round trips are the commands the client sent: the scripts (EVALSHA, EVAL; the _ro forms). Redis
# also counts the SET, GET, PEXPIRE and DEL a script runs inside it in commandstats; those are
# listed, but they cost no round trip.
delta() {
  local before=$1 after=$2 trips=0 line="" inside=""
  for cmd in evalsha eval evalsha_ro eval_ro; do
    local d
    d=$(diff_of "$before" "$after" "$cmd")
    [ "$d" -ne 0 ] && line="$line $cmd=$d" && trips=$((trips + d))
  done
  for cmd in set get pexpire del; do
    local d
    d=$(diff_of "$before" "$after" "$cmd")
    [ "$d" -ne 0 ] && inside="$inside $cmd=$d"
  done
  echo "$trips|sent:${line} | inside the scripts:${inside}"
}

send 1000000 50 >/dev/null # warm-up: the scripts get cached (a first EVALSHA may answer NOSCRIPT)
s0=$(stats)
new=$(send 0 "$N")
s1=$(stats)
dup=$(send 0 "$N")
s2=$(stats)

d_new=$(delta "$s0" "$s1")
d_dup=$(delta "$s1" "$s2")
all_new=${d_new%%|*}
all_dup=${d_dup%%|*}
d_new=${d_new#*|}
d_dup=${d_dup#*|}
echo "N=$N CONCURRENCY=$CONCURRENCY Redis ${REDIS_URL%%@*}"
echo "new events:  answers: $(tr '\n' ';' <<<"$new") commands: $d_new"
echo "             round trips per new event: $(awk -v a="$all_new" -v n="$N" 'BEGIN {printf "%.3f", a/n}')"
echo "duplicates:  answers: $(tr '\n' ';' <<<"$dup") commands: $d_dup"
echo "             round trips per duplicate: $(awk -v a="$all_dup" -v n="$N" 'BEGIN {printf "%.3f", a/n}')"
echo "keys under the prefix: $($CLI --scan --pattern "$PREFIX:*" | wc -l) (deleted on exit)"
