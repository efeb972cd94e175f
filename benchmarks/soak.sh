#!/usr/bin/env bash
# Soak: a small fleet at a steady rate for a long time, sampled every 10 s. Run from the repository
# root:
#
#   benchmarks/soak.sh                  # 30 minutes
#   SOAK_MINUTES=5 benchmarks/soak.sh   # a shorter run
#
# Starts its own redis-server (no persistence, noeviction, port SOAK_REDIS_PORT, so its memory is
# the soak's alone) and four consumers (benchmarks' TunedConsumer, the standalone consumer with a
# no-op listener and FAIL_PERCENT=1: a listener that throws in 1% of its runs):
#   redis-a, redis-b      synchronous mode, dedup shared on that Redis
#   durable-a, durable-b  durable mode on one inbox (BENCH_DATABASE_URL, a fresh schema, dropped after)
# The driver (io.servicehooks.benchmarks.Soak) sends SOAK_RATE deliveries a second to each pair,
# 10% of them a copy of an earlier event sent to the other instance, and every 10 s writes one line
# of RSS, heap after a full GC, threads and open files per process, inbox pending rows and lag,
# Redis memory and the p99 answer time to benchmarks/results/soak-<time>.csv; gnuplot (installed
# with apt-get when missing) draws benchmarks/results/soak-<time>.png. The run holds (exit 0) when,
# after the warm-up (SOAK_WARMUP_MINUTES, default a third of the run), heap after GC and RSS grow
# less than 1 MiB per 10 minutes, the inbox lag stays under 1 s and no answer is an error (500
# listener_failed, the failing listeners' answer in synchronous mode, is not an error).
#
# The consumers run as docs/production.md ("Memory: a flat RSS") says to run them: heap fixed and
# touched at start (-Xms = -Xmx, AlwaysPreTouch), freed native memory given back to the system
# (TrimNativeHeapInterval) and at most two glibc malloc arenas (MALLOC_ARENA_MAX=2). Without them
# RSS climbs for an hour and more while heap after GC is flat: memory the JVM freed (the JIT's
# arenas, mostly) that glibc keeps in per-thread arenas (measured: jcmd System.trim_native_heap gave
# back 20-30 MiB of a process after 10 minutes, more than RSS had grown), and heap pages touched
# for the first time.
#
# Settings: SOAK_MINUTES=30 SOAK_WARMUP_MINUTES SOAK_RATE=50 SOAK_REDIS_PORT=16390 SKIP_BUILD=0
#   BENCH_DATABASE_URL=jdbc:postgresql://127.0.0.1:5432/test?user=postgres
#   SOAK_JVM_FLAGS="-Xms128m -Xmx128m -XX:+AlwaysPreTouch -XX:+UseSerialGC
#     -XX:TrimNativeHeapInterval=30000"   SOAK_MALLOC_ARENA_MAX=2
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
SOAK_MINUTES=${SOAK_MINUTES:-30}
SOAK_WARMUP_MINUTES=${SOAK_WARMUP_MINUTES:-$(awk "BEGIN { print $SOAK_MINUTES / 3 }")}
SOAK_RATE=${SOAK_RATE:-50}
SOAK_REDIS_PORT=${SOAK_REDIS_PORT:-16390}
BENCH_DATABASE_URL=${BENCH_DATABASE_URL:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}
read -r -a JVM <<<"${SOAK_JVM_FLAGS:--Xms128m -Xmx128m -XX:+AlwaysPreTouch -XX:+UseSerialGC -XX:TrimNativeHeapInterval=30000}"
SOAK_MALLOC_ARENA_MAX=${SOAK_MALLOC_ARENA_MAX:-2}
BENCH_JAR=$ROOT/benchmarks/target/benchmarks.jar
SECRET=soak-consumer-secret
STAMP=$(date -u +%Y%m%d-%H%M)
OUT=$ROOT/benchmarks/results
CSV=$OUT/soak-$STAMP.csv
PNG=$OUT/soak-$STAMP.png
LOGS=$(mktemp -d /tmp/servicehooks-soak.XXXXXX)
SCHEMA=soak_$$
mkdir -p "$OUT"

# chart CSV PNG TITLE: the soak's PNG (four panels) from its CSV.
chart() {
  gnuplot <<EOF
set datafile separator ","
set terminal pngcairo size 1200,1100 font ",10" noenhanced
set output "$2"
set key autotitle columnhead outside right
set xlabel "seconds"
set multiplot layout 4,1 title "servicehooks soak $3"
set ylabel "MiB"
set title "RSS"
plot for [c in "2 6 10 14"] "$1" using 1:int(c) with lines
set title "heap after a full GC"
set yrange [0:*]
plot for [c in "3 7 11 15"] "$1" using 1:int(c) with lines
set ylabel "ms"
set title "p99 answer (last 10 s), inbox lag"
plot "$1" using 1:"p99_ms" with lines, "" using 1:"inbox_lag_ms" with lines
set ylabel ""
set title "threads, open files, inbox pending, Redis used MiB"
plot for [c in "4 5 8 9 12 13 16 17"] "$1" using 1:int(c) with lines, \\
  "" using 1:"inbox_pending" with lines, "" using 1:"redis_used_mib" with lines
unset multiplot
EOF
}

if [ -n "${SOAK_CHART_ONLY:-}" ]; then  # redraw the chart of an earlier run: SOAK_CHART_ONLY=x.csv
  command -v gnuplot >/dev/null || apt-get install -y -q gnuplot-nox >/dev/null
  chart "$SOAK_CHART_ONLY" "${SOAK_CHART_ONLY%.csv}.png" "$(basename "${SOAK_CHART_ONLY%.csv}")"
  exit 0
fi

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  ./mvnw -q -B -DskipTests package -pl benchmarks -am
fi
if ! command -v gnuplot >/dev/null; then
  echo "installing gnuplot-nox (Debian) for the chart" >&2
  apt-get install -y -q gnuplot-nox >/dev/null
fi
command -v redis-server >/dev/null || { echo "soak.sh: needs redis-server" >&2; exit 2; }

PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  DATABASE_URL=$BENCH_DATABASE_URL java -cp "$BENCH_JAR" io.servicehooks.benchmarks.BenchDatabase \
    drop "$SCHEMA" >/dev/null 2>&1 || true
}
trap cleanup EXIT

redis-server --port "$SOAK_REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no \
  --maxmemory-policy noeviction >"$LOGS/redis.log" 2>&1 &
PIDS+=($!)

declare -A PORT=([redis-a]=18191 [redis-b]=18192 [durable-a]=18193 [durable-b]=18194)
TARGETS=""
PROCS=""
for name in redis-a redis-b durable-a durable-b; do
  common=(SERVICE_CONSUMER_SECRET=$SECRET PORT=${PORT[$name]} NOOP_LISTENER=true FAIL_PERCENT=1
    WORKER_THREADS=4 IO_THREADS=1)
  if [[ $name == redis-* ]]; then
    extra=(REDIS_URL=redis://127.0.0.1:$SOAK_REDIS_PORT REDIS_PREFIX=soak)
  else
    extra=(DATABASE_URL=$BENCH_DATABASE_URL DATABASE_SCHEMA=$SCHEMA WORKER_THREADS=2
      INBOX_RETRY_BASE_MS=200)
  fi
  env MALLOC_ARENA_MAX="$SOAK_MALLOC_ARENA_MAX" "${common[@]}" "${extra[@]}" java "${JVM[@]}" -cp "$BENCH_JAR" \
    io.servicehooks.benchmarks.TunedConsumer >"$LOGS/$name.log" 2>&1 &
  PIDS+=($!)
  TARGETS+="${TARGETS:+,}$name=http://127.0.0.1:${PORT[$name]}/webhooks"
  PROCS+="${PROCS:+,}$name=$!"
  # one at a time: two schema creations at once would race
  for _ in $(seq 1 120); do
    curl -fs "http://127.0.0.1:${PORT[$name]}/health" >/dev/null 2>&1 && break
    sleep 1
  done
  curl -fs "http://127.0.0.1:${PORT[$name]}/health" >/dev/null || {
    echo "soak.sh: $name did not start; its log:" >&2
    cat "$LOGS/$name.log" >&2
    exit 2
  }
done

echo "soak: ${SOAK_MINUTES} min (warm-up ${SOAK_WARMUP_MINUTES}), ${SOAK_RATE}/s per pair -> $CSV" >&2
set +e
SOAK_TARGETS=$TARGETS SOAK_PIDS=$PROCS SOAK_MINUTES=$SOAK_MINUTES \
  SOAK_WARMUP_MINUTES=$SOAK_WARMUP_MINUTES SOAK_RATE=$SOAK_RATE SOAK_CSV=$CSV \
  SERVICE_CONSUMER_SECRET=$SECRET DATABASE_URL=$BENCH_DATABASE_URL DATABASE_SCHEMA=$SCHEMA \
  SOAK_REDIS_PORT=$SOAK_REDIS_PORT \
  java -Xmx128m -cp "$BENCH_JAR" io.servicehooks.benchmarks.Soak | tee "$OUT/soak-$STAMP.txt"
held=${PIPESTATUS[0]}
set -e

chart "$CSV" "$PNG" "$STAMP: ${SOAK_MINUTES} min, ${SOAK_RATE}/s per pair, 10% copies, 1% failing listeners"
echo "soak: $CSV, $PNG, verdict in $OUT/soak-$STAMP.txt" >&2
exit "$held"
