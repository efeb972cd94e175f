#!/usr/bin/env bash
# Load harness: servicehooks against what a user would write instead. Run from the repository root:
#
#   benchmarks/load.sh
#
# It builds what it needs, installs wrk (Debian package) if missing, writes a pool of pre-signed
# deliveries once, then for ROUNDS rounds, alternating servers, measures each (server, workload,
# connections) cell on a freshly started server: WARMUP seconds of load, then DURATION seconds
# measured. Servers run pinned to CPU $SERVER_CPU, wrk (one thread) to CPU $LOAD_CPU, all on
# 127.0.0.1. The medians go to stdout and to benchmarks/results/latest.md.
#
# Servers:  a         raw Undertow: reads the body, answers 200 (GET: a fixed CRC-sized answer)
#           b         hand-written Undertow: HMAC, Jackson tree, Caffeine put-if-absent, on the IO thread
#           c         hand-written Spring Boot 4 (Tomcat) controller doing the same checks
#           d-inline  samples/consumer/target/servicehooks-consumer.jar, LISTENER_MODE=inline
#           d-worker  the same jar, LISTENER_MODE=worker (its default); with LOG_EVENTS=false it has
#                     no listener, so nothing is handed to a worker
#           d-noop    the consumer with one no-op listener, worker mode: every new event is handed off
#           d-noop-prev  d-noop on the benchmarks jar PREV_BENCH_JAR (a copy of an earlier build's
#                     benchmarks/target/benchmarks.jar), to measure a change in the same run
#           d-redis   d-noop with dedup on Redis: REDIS_URL=$BENCH_REDIS_URL (default
#                     redis://127.0.0.1:6379, the local server, not pinned) and a fresh REDIS_PREFIX
#                     per cell (keys deleted after it); each new event costs a claim and a markDone
#                     round trip, a duplicate a claim (benchmarks/redis-roundtrips.sh counts them)
#           e         samples/spring-bot/target/servicehooks-spring-bot.jar (skipped if not built)
#           d-durable the consumer in durable mode (DATABASE_URL=$BENCH_DATABASE_URL), one no-op
#                     listener: each delivery answered once committed to the inbox, then processed by
#                     its workers; a fresh schema per cell, dropped after; while wrk measures, the
#                     inbox (pending rows, age of the oldest, /metrics gauges) is sampled every 5 s
#                     into the cell's .inbox.txt log
#           b-durable hand-written Undertow worker: HMAC, Jackson tree, one INSERT ... ON CONFLICT DO
#                     NOTHING on its own connection from a HikariCP pool (POOL_SIZE=8), commit, 200;
#                     a fresh schema per cell, dropped after
#           b-redis   hand-written Undertow + Lettuce: HMAC, Jackson tree, SET key c NX PX 30000, then
#                     SET key d PX 86400000, 200 (B_REDIS_MODE=sync: on a worker thread, Lettuce's
#                     synchronous API, the default; async: on the IO thread); a fresh prefix per cell
#           d-worker-redis    the consumer jar exactly as d-worker (LISTENER_MODE=worker
#                     LOG_EVENTS=false) with REDIS_URL=$BENCH_REDIS_URL and a fresh REDIS_PREFIX
#           d-worker-redis-prev  d-worker-redis on the jar PREV_CONSUMER_JAR (a copy of an earlier
#                     build), to measure a change in the same run as what it changed
#           d-worker-durable  the consumer jar exactly as d-worker with DATABASE_URL=$BENCH_DATABASE_URL
#                     and a fresh DATABASE_SCHEMA (durable mode, no listener)
#           d-worker-durable-prev  d-worker-durable on the jar PREV_CONSUMER_JAR
#   A suffix @ioN / @wN / @ioNwM sets Undertow IO / worker threads: for a and b through their env,
#   for d-* through the consumer's IO_THREADS / WORKER_THREADS. Example: SERVERS="b@io1 d-inline@io1".
# Workloads: new    every delivery a new event (each request of a run is distinct: see load.lua)
#            dup10  every 10th delivery repeats one sent 64..5000 requests earlier
#            crc    GET ?crc_token=<uuid-like>, on CRC_SERVERS only
#
# Settings (environment): ROUNDS=3 WARMUP=10 DURATION=10 CONNECTIONS="16 64" WORKLOADS="new dup10"
#   SERVERS="a b c d-inline d-worker d-noop e" CRC_SERVERS="a d-worker" DUP_SERVERS=(all of SERVERS)
#   PORT=18080 SERVER_CPU=0 LOAD_CPU=1
#   JVM_FLAGS (below) WARM_POOL=300000 MEASURE_POOL=1500000 SKIP_BUILD=0 E_LOG_LEVEL=WARN
#   BENCH_DATABASE_URL=jdbc:postgresql://127.0.0.1:5432/test?user=postgres POOL_SIZE=8
#   (durable cells run CHECKPOINT between warm-up and measured run: the user needs the right to)
# The durable pair: SERVERS="b-durable d-durable" WORKLOADS=new CONNECTIONS=64 CRC_SERVERS= benchmarks/load.sh
#   BENCH_REDIS_URL=redis://127.0.0.1:6379 (d-redis only)
#           d-kafka   the consumer jar exactly as d-worker (LISTENER_MODE=worker LOG_EVENTS=false) in
#                     Kafka mode: KAFKA_BOOTSTRAP_SERVERS (the run's broker) and a fresh KAFKA_TOPIC
#                     per cell; each delivery answered 200 once the broker acknowledged its record
#           b-kafka   hand-written Undertow + kafka-clients: HMAC, Jackson tree, one
#                     producer.send(record).get() per event on a worker thread (acks=all,
#                     idempotence, Kafka's default batching), no dedup; the same fresh topic per cell
#   The Kafka cells share one broker for the run, in its own process
#   (servicehooks-kafka-broker/target/kafka-broker.jar, Kafka's own KRaft server, one node, its data
#   under benchmarks/target/load-logs/<stamp>/kafka-broker), pinned to BROKER_CPU when set (default:
#   not pinned, like Redis); KAFKA_PARTITIONS=4 per topic; the records in each cell's topic are
#   counted after it (the .kafka.txt log) and the topic deleted. Its CPU is the cells' store CPU.
# A smoke run: ROUNDS=1 WARMUP=1 DURATION=3 CONNECTIONS=64 MEASURE_POOL=400000 benchmarks/load.sh
#
# PRESET=kafka: the Kafka mode (issue 34): SERVERS="d-worker d-kafka b-kafka" WORKLOADS=new
#   CONNECTIONS=64 CRC_SERVERS= WARMUP=20 DURATION=10 ROUNDS=3 JVM_FLAGS="-Xms256m -Xmx256m"
#   WARM_POOL=600000 MEASURE_POOL=600000 (each still overridable). Its source half is
#   KafkaSourceBench (benchmarks/RESULTS.md, "Kafka mode").
#
# PRESET=stores: the store paths as issue 24 measured them independently (the consumer jar as
#   shipped, no listener): SERVERS="d-worker d-worker-redis b-redis b-durable d-worker-durable"
#   WORKLOADS=new CONNECTIONS=64 CRC_SERVERS= WARMUP=20 DURATION=10 ROUNDS=3
#   JVM_FLAGS="-Xms256m -Xmx256m" WARM_POOL=600000 MEASURE_POOL=600000 (each still overridable).
#
# PRESET=durable: the durable pair as an outside harness measures it (issue 35): SERVERS="b-durable
#   d-worker-durable" WORKLOADS=new CONNECTIONS=64 CRC_SERVERS= WARMUP=20 DURATION=10 ROUNDS=3
#   JVM_FLAGS= (empty: the JVM picks GC and heap itself, as `java -jar` does) FRESH_DATABASE=1
#   CHECKPOINT=0 WARM_POOL=600000 MEASURE_POOL=600000 (each still overridable).
#
# Durable cells (b-durable, d-durable, d-worker-durable) in every preset:
#   FRESH_DATABASE=1  each server run gets a database of its own (CREATE DATABASE bench_<stamp>_<n>
#                     on BENCH_DATABASE_URL's server, DROP DATABASE ... WITH (FORCE) after it)
#                     instead of a fresh schema in BENCH_DATABASE_URL's database (0, the default)
#   CHECKPOINT=1      (the default) CHECKPOINT between warm-up and measured run; 0: none
#   and each cell's .pg.txt log holds PostgreSQL's counters (BenchDatabase pgstat: checkpoints,
#   WAL records / full-page images / bytes / syncs, the cell database's commits and rows) before
#   and after the measured run and their difference per request.
# RATIO="NUM/DEN ..." (default: each durable cell run over b-durable): the per-round ratio of NUM's
#   req/s to DEN's, printed after each round and appended to the report.
# GC_LOG=1: each JVM server also writes -Xlog:gc to its cell's .gc.log (the GC it chose, every pause).
#
# Every cell also reports CPU per request: the server's utime+stime from /proc/<pid>/stat, read when
# wrk has loaded its records (load.lua writes a marker) and again when wrk ends, divided by the
# requests wrk completed; and the same for the store (every redis-server process for the Redis
# cells, every postgres process for the durable ones: shared with anything else using them).
set -euo pipefail

if [ "${PRESET:-}" = stores ]; then
  SERVERS=${SERVERS:-"d-worker d-worker-redis b-redis b-durable d-worker-durable"}
  WORKLOADS=${WORKLOADS:-new}
  CONNECTIONS=${CONNECTIONS:-64}
  CRC_SERVERS=${CRC_SERVERS:-}
  WARMUP=${WARMUP:-20}
  DURATION=${DURATION:-10}
  JVM_FLAGS=${JVM_FLAGS:-"-Xms256m -Xmx256m"}
  WARM_POOL=${WARM_POOL:-600000}
  MEASURE_POOL=${MEASURE_POOL:-600000}
elif [ "${PRESET:-}" = kafka ]; then
  # The Kafka mode: the edge against a hand-written edge and against the in-memory mode, one run.
  SERVERS=${SERVERS:-"d-worker d-kafka b-kafka"}
  WORKLOADS=${WORKLOADS:-new}
  CONNECTIONS=${CONNECTIONS:-64}
  CRC_SERVERS=${CRC_SERVERS:-}
  WARMUP=${WARMUP:-20}
  DURATION=${DURATION:-10}
  JVM_FLAGS=${JVM_FLAGS:-"-Xms256m -Xmx256m"}
  WARM_POOL=${WARM_POOL:-600000}
  MEASURE_POOL=${MEASURE_POOL:-600000}
elif [ "${PRESET:-}" = durable ]; then
  # The durable pair as an outside harness measures it: the JVM's own defaults (JVM_FLAGS empty),
  # each server run on a database of its own, no CHECKPOINT before the measured run.
  SERVERS=${SERVERS:-"b-durable d-worker-durable"}
  WORKLOADS=${WORKLOADS:-new}
  CONNECTIONS=${CONNECTIONS:-64}
  CRC_SERVERS=${CRC_SERVERS:-}
  WARMUP=${WARMUP:-20}
  DURATION=${DURATION:-10}
  JVM_FLAGS=${JVM_FLAGS-}
  WARM_POOL=${WARM_POOL:-600000}
  MEASURE_POOL=${MEASURE_POOL:-600000}
  FRESH_DATABASE=${FRESH_DATABASE:-1}
  CHECKPOINT=${CHECKPOINT:-0}
elif [ -n "${PRESET:-}" ]; then
  echo "[load] unknown PRESET=$PRESET (known: stores, kafka, durable)" >&2
  exit 2
fi

cd "$(dirname "$0")/.."
ROOT=$(pwd)

ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-10}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-"16 64"}
WORKLOADS=${WORKLOADS:-"new dup10"}
SERVERS=${SERVERS:-"a b c d-inline d-worker d-noop e"}
CRC_SERVERS=${CRC_SERVERS-"a d-worker"}  # set empty for no CRC cells
DUP_SERVERS=${DUP_SERVERS:-$SERVERS}
PORT=${PORT:-18080}
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
# The same for every server. GC set explicitly: a JVM pinned to one core would pick SerialGC.
# Set but empty (JVM_FLAGS=): no flags, the JVM's own choice.
JVM_FLAGS=${JVM_FLAGS-"-XX:+UseParallelGC -Xms1g -Xmx1g -XX:+AlwaysPreTouch"}
FRESH_DATABASE=${FRESH_DATABASE:-0}
CHECKPOINT=${CHECKPOINT:-1}
GC_LOG=${GC_LOG:-0}
RATIO=${RATIO:-}
WARM_POOL=${WARM_POOL:-300000}
MEASURE_POOL=${MEASURE_POOL:-1500000}
SKIP_BUILD=${SKIP_BUILD:-0}
E_LOG_LEVEL=${E_LOG_LEVEL:-WARN}
BENCH_DATABASE_URL=${BENCH_DATABASE_URL:-"jdbc:postgresql://127.0.0.1:5432/test?user=postgres"}
POOL_SIZE=${POOL_SIZE:-8}
BENCH_REDIS_URL=${BENCH_REDIS_URL:-redis://127.0.0.1:6379}
KAFKA_PARTITIONS=${KAFKA_PARTITIONS:-4}
BROKER_CPU=${BROKER_CPU:-}

SECRET=bench-consumer-secret-0123456789abcdef # the pool is signed with it; not a real secret
BENCH_JAR=$ROOT/benchmarks/target/benchmarks.jar
SPRING_JAR=$ROOT/benchmarks/spring-baseline/target/spring-baseline.jar
CONSUMER_JAR=${CONSUMER_JAR:-$ROOT/samples/consumer/target/servicehooks-consumer.jar}
PREV_CONSUMER_JAR=${PREV_CONSUMER_JAR:-} # d-worker-redis-prev: another build of the jar (before a change)
PREV_BENCH_JAR=${PREV_BENCH_JAR:-} # d-noop-prev: another build of the benchmarks jar
BOT_JAR=$ROOT/samples/spring-bot/target/servicehooks-spring-bot.jar
BROKER_JAR=$ROOT/servicehooks-kafka-broker/target/kafka-broker.jar
LUA=$ROOT/benchmarks/load.lua
URL=http://127.0.0.1:$PORT/webhooks
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
LOGS=$ROOT/benchmarks/target/load-logs/$STAMP
RESULTS=$ROOT/benchmarks/results
RAW=$RESULTS/raw-$STAMP.tsv
mkdir -p "$LOGS" "$RESULTS"

say() { echo "[load] $*" >&2; }

# ---- build ---------------------------------------------------------------------------------------
if [ "$SKIP_BUILD" != 1 ]; then
  modules=benchmarks,benchmarks/spring-baseline,samples/consumer
  if grep -q '<module>spring-bot</module>' samples/pom.xml 2>/dev/null; then
    modules=$modules,samples/spring-bot
  fi
  say "building $modules"
  ./mvnw -q -B -DskipTests package -pl "$modules" -am
fi

# ---- wrk -----------------------------------------------------------------------------------------
if ! command -v wrk >/dev/null; then
  say "installing wrk from Debian packages"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq wrk
  else
    sudo apt-get update -qq && sudo apt-get install -y -qq wrk
  fi
fi

# ---- servers -------------------------------------------------------------------------------------
SERVERS_RUN=""
for s in $SERVERS; do
  if [ "${s%%@*}" = e ] && [ ! -f "$BOT_JAR" ]; then
    say "SKIPPING (e): $BOT_JAR does not exist (samples/spring-bot not built or not in the reactor yet)"
    continue
  fi
  if [ "${s%%@*}" = e ] && ! grep -q '<module>spring-bot</module>' samples/pom.xml; then
    say "NOTE (e): samples/spring-bot is not in the reactor yet; using the jar already there ($(date -r "$BOT_JAR" -u +%FT%TZ))"
  fi
  if [ "${s%%@*}" = d-noop-prev ]; then
    if [ ! -f "$PREV_BENCH_JAR" ]; then
      say "SKIPPING ($s): PREV_BENCH_JAR is not a file"
      continue
    fi
  elif [[ ${s%%@*} == *-prev ]] && [ ! -f "$PREV_CONSUMER_JAR" ]; then
    say "SKIPPING ($s): PREV_CONSUMER_JAR is not a file"
    continue
  fi
  if [[ " d-redis d-worker-redis d-worker-redis-prev b-redis " == *" ${s%%@*} "* ]] && ! redis-cli -u "$BENCH_REDIS_URL" ping >/dev/null 2>&1; then
    say "SKIPPING ($s): no Redis answers at ${BENCH_REDIS_URL%%@*} (set BENCH_REDIS_URL)"
    continue
  fi
  SERVERS_RUN="$SERVERS_RUN $s"
done

if [ -z "$RATIO" ] && [[ " $SERVERS_RUN " == *" b-durable "* ]]; then
  for s in d-worker-durable d-worker-durable-prev d-durable; do
    [[ " $SERVERS_RUN " == *" $s "* ]] && RATIO="$RATIO $s/b-durable"
  done
fi
RATIOS=$LOGS/ratios.md

# d-redis: the prefix of the cell being measured; its keys are deleted when the cell ends.
REDIS_PREFIX_NOW=""
drop_redis_keys() {
  if [ -n "$REDIS_PREFIX_NOW" ]; then
    redis-cli -u "$BENCH_REDIS_URL" --scan --pattern "$REDIS_PREFIX_NOW:*" \
      | xargs -r -n 1000 redis-cli -u "$BENCH_REDIS_URL" unlink >/dev/null || true
    REDIS_PREFIX_NOW=""
  fi
}

# The run's Kafka broker (Kafka cells only), in its own process; the topic of the current cell.
BROKER_PID=""
BOOTSTRAP=""
KAFKA_TOPIC_NOW=""
KAFKA_LOG_NOW=""
start_broker() {
  local dir=$LOGS/kafka-broker
  mkdir -p "$dir"
  local -a pin=()
  [ -n "$BROKER_CPU" ] && pin=(taskset -c "$BROKER_CPU")
  "${pin[@]}" java -Xms512m -Xmx512m -XX:+UseParallelGC -jar "$BROKER_JAR" --dir "$dir" >"$LOGS/kafka-broker.out" 2>"$LOGS/kafka-broker.log" </dev/null &
  BROKER_PID=$!
  for _ in $(seq 1 600); do
    if [ -s "$LOGS/kafka-broker.out" ]; then
      BOOTSTRAP=$(head -1 "$LOGS/kafka-broker.out")
      say "Kafka broker (pid $BROKER_PID) at $BOOTSTRAP, data in $dir"
      return 0
    fi
    if ! kill -0 "$BROKER_PID" 2>/dev/null; then
      say "the Kafka broker exited; its log ($LOGS/kafka-broker.log):"
      tail -20 "$LOGS/kafka-broker.log" >&2
      exit 1
    fi
    sleep 0.2
  done
  say "the Kafka broker did not answer within 120 s"
  exit 1
}
stop_broker() {
  if [ -n "$BROKER_PID" ] && kill -0 "$BROKER_PID" 2>/dev/null; then
    kill -TERM "$BROKER_PID" 2>/dev/null || true
    for _ in $(seq 1 150); do
      kill -0 "$BROKER_PID" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$BROKER_PID" 2>/dev/null || true
    wait "$BROKER_PID" 2>/dev/null || true
  fi
  BROKER_PID=""
}
bench_kafka() {
  KAFKA_BOOTSTRAP_SERVERS=$BOOTSTRAP java -Xmx128m -XX:TieredStopAtLevel=1 -cp "$BENCH_JAR" io.servicehooks.benchmarks.BenchKafka "$@"
}
# drop_topic: counts the cell's records into its .kafka.txt log, then deletes its topic.
drop_topic() {
  if [ -n "$KAFKA_TOPIC_NOW" ]; then
    echo "records in $KAFKA_TOPIC_NOW: $(bench_kafka count "$KAFKA_TOPIC_NOW" 2>&1 | tail -1)" >>"${KAFKA_LOG_NOW:-/dev/null}"
    bench_kafka delete "$KAFKA_TOPIC_NOW" >&2 || true
    KAFKA_TOPIC_NOW=""
  fi
}

SERVER_PID=""
SCHEMA="" # the durable servers' schema of the current cell
CELL_DB=""  # FRESH_DATABASE=1: the current cell's database
CELL_DATABASE_URL=$BENCH_DATABASE_URL
CELLS_STARTED=0
bench_database() {
  DATABASE_URL=$BENCH_DATABASE_URL taskset -c "$LOAD_CPU" java -Xmx64m -XX:TieredStopAtLevel=1 -cp "$BENCH_JAR" \
    io.servicehooks.benchmarks.BenchDatabase "$@"
}
# new_durable_store: a fresh schema for the next durable cell, in a fresh database with FRESH_DATABASE=1.
new_durable_store() {
  SCHEMA=bench_$(date +%s%N)
  CELL_DATABASE_URL=$BENCH_DATABASE_URL
  if [ "$FRESH_DATABASE" = 1 ]; then
    CELLS_STARTED=$((CELLS_STARTED + 1))
    CELL_DB=bench_${STAMP,,}_$CELLS_STARTED
    bench_database create-db "$CELL_DB" >&2
    local base=${BENCH_DATABASE_URL%%\?*}
    CELL_DATABASE_URL=${base%/*}/$CELL_DB${BENCH_DATABASE_URL#"$base"}
  fi
}
drop_schema() {
  if [ -n "$CELL_DB" ]; then
    bench_database drop-db "$CELL_DB" >&2 || say "could not drop database $CELL_DB"
    CELL_DB=""
    SCHEMA=""
  fi
  if [ -n "$SCHEMA" ]; then
    DATABASE_URL=$BENCH_DATABASE_URL java -cp "$BENCH_JAR" io.servicehooks.benchmarks.BenchDatabase drop "$SCHEMA" >&2 || true
  fi
  SCHEMA=""
}
stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
  drop_schema
  drop_redis_keys
  drop_topic
}
trap 'stop_server; stop_broker' EXIT INT TERM

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

# start_server SPEC LOGFILE: starts the server pinned to SERVER_CPU and waits for its port.
start_server() {
  local spec=$1 log=$2 base=${1%%@*} tune="" io="" workers=""
  [[ $spec == *@* ]] && tune=${spec#*@}
  [[ $tune =~ io([0-9]+) ]] && io=${BASH_REMATCH[1]}
  [[ $tune =~ w([0-9]+) ]] && workers=${BASH_REMATCH[1]}
  local -a envs=("SERVICE_CONSUMER_SECRET=$SECRET" "PORT=$PORT")
  local -a cmd
  # shellcheck disable=SC2206
  local -a jvm=($JVM_FLAGS)
  [ "$GC_LOG" = 1 ] && jvm+=("-Xlog:gc:file=${log%.server.log}.gc.log")
  case $base in
    a | b)
      local main=RawServer
      [ "$base" = b ] && main=HandWrittenServer
      envs+=("IO_THREADS=$io" "WORKER_THREADS=$workers")
      cmd=(java "${jvm[@]}" -cp "$BENCH_JAR" "io.servicehooks.benchmarks.$main") ;;
    c)
      envs+=("SERVER_ADDRESS=127.0.0.1")
      cmd=(java "${jvm[@]}" -jar "$SPRING_JAR") ;;
    d-inline | d-worker)
      # The consumer jar as shipped (LOG_EVENTS=false leaves it no listener: nothing to hand off).
      envs+=("LISTENER_MODE=${base#d-}" "LOG_EVENTS=false" "HOST=127.0.0.1" "WEBHOOK_PATH=/webhooks")
      [ -n "$io" ] && envs+=("IO_THREADS=$io")
      [ -n "$workers" ] && envs+=("WORKER_THREADS=$workers")
      cmd=(java "${jvm[@]}" -jar "$CONSUMER_JAR") ;;
    d-noop | d-noop-prev)
      # The same consumer with one no-op listener in worker mode: every new event is handed to a
      # worker thread, which is what the default safe dispatch costs.
      local bench=$BENCH_JAR
      [ "$base" = d-noop-prev ] && bench=$PREV_BENCH_JAR
      envs+=("LISTENER_MODE=worker" "NOOP_LISTENER=true" "IO_THREADS=${io:-0}" "WORKER_THREADS=${workers:-0}")
      cmd=(java "${jvm[@]}" -cp "$bench" io.servicehooks.benchmarks.TunedConsumer) ;;
    b-durable)
      new_durable_store
      envs+=("IO_THREADS=$io" "WORKER_THREADS=$workers" "DATABASE_URL=$CELL_DATABASE_URL" "DATABASE_SCHEMA=$SCHEMA" "POOL_SIZE=$POOL_SIZE")
      cmd=(java "${jvm[@]}" -cp "$BENCH_JAR" io.servicehooks.benchmarks.DurableBaselineServer) ;;
    d-durable)
      # The consumer with DATABASE_URL, as the jar reads it, and one no-op listener (run by the
      # inbox's workers, WORKER_THREADS of them).
      new_durable_store
      envs+=("LISTENER_MODE=worker" "NOOP_LISTENER=true" "IO_THREADS=${io:-0}" "WORKER_THREADS=${workers:-0}" "DATABASE_URL=$CELL_DATABASE_URL" "DATABASE_SCHEMA=$SCHEMA")
      cmd=(java "${jvm[@]}" -cp "$BENCH_JAR" io.servicehooks.benchmarks.TunedConsumer) ;;
    d-worker-redis | d-worker-redis-prev | d-worker-durable | d-worker-durable-prev)
      # d-worker exactly (the jar as shipped, no listener), with its store.
      envs+=("LISTENER_MODE=worker" "LOG_EVENTS=false" "HOST=127.0.0.1" "WEBHOOK_PATH=/webhooks")
      [ -n "$io" ] && envs+=("IO_THREADS=$io")
      [ -n "$workers" ] && envs+=("WORKER_THREADS=$workers")
      if [[ $base != d-worker-durable* ]]; then
        REDIS_PREFIX_NOW="servicehooks-bench:$STAMP:$(basename "$log" .server.log)"
        envs+=("REDIS_URL=$BENCH_REDIS_URL" "REDIS_PREFIX=$REDIS_PREFIX_NOW")
      else
        new_durable_store
        envs+=("DATABASE_URL=$CELL_DATABASE_URL" "DATABASE_SCHEMA=$SCHEMA")
      fi
      local jar=$CONSUMER_JAR
      [[ $base == *-prev ]] && jar=$PREV_CONSUMER_JAR
      cmd=(java "${jvm[@]}" -jar "$jar") ;;
    b-redis)
      REDIS_PREFIX_NOW="servicehooks-bench:$STAMP:$(basename "$log" .server.log)"
      envs+=("IO_THREADS=$io" "WORKER_THREADS=$workers" "REDIS_URL=$BENCH_REDIS_URL" "REDIS_PREFIX=$REDIS_PREFIX_NOW" "B_REDIS_MODE=${B_REDIS_MODE:-sync}")
      cmd=(java "${jvm[@]}" -cp "$BENCH_JAR" io.servicehooks.benchmarks.RedisBaselineServer) ;;
    d-redis)
      # d-noop exactly, with the memory of handled events on Redis under a prefix of this cell's.
      REDIS_PREFIX_NOW="servicehooks-bench:$STAMP:$(basename "$log" .server.log)"
      envs+=("LISTENER_MODE=worker" "NOOP_LISTENER=true" "IO_THREADS=${io:-0}" "WORKER_THREADS=${workers:-0}")
      envs+=("REDIS_URL=$BENCH_REDIS_URL" "REDIS_PREFIX=$REDIS_PREFIX_NOW")
      cmd=(java "${jvm[@]}" -cp "$BENCH_JAR" io.servicehooks.benchmarks.TunedConsumer) ;;
    d-kafka)
      # d-worker exactly (the jar as shipped, no listener), handing every event to Kafka.
      KAFKA_TOPIC_NOW="bench-$STAMP-$(basename "$log" .server.log)"
      bench_kafka create "$KAFKA_TOPIC_NOW" "$KAFKA_PARTITIONS" >&2
      envs+=("LISTENER_MODE=worker" "LOG_EVENTS=false" "HOST=127.0.0.1" "WEBHOOK_PATH=/webhooks")
      envs+=("KAFKA_BOOTSTRAP_SERVERS=$BOOTSTRAP" "KAFKA_TOPIC=$KAFKA_TOPIC_NOW")
      [ -n "$io" ] && envs+=("IO_THREADS=$io")
      [ -n "$workers" ] && envs+=("WORKER_THREADS=$workers")
      cmd=(java "${jvm[@]}" -jar "$CONSUMER_JAR") ;;
    b-kafka)
      KAFKA_TOPIC_NOW="bench-$STAMP-$(basename "$log" .server.log)"
      bench_kafka create "$KAFKA_TOPIC_NOW" "$KAFKA_PARTITIONS" >&2
      envs+=("IO_THREADS=$io" "WORKER_THREADS=$workers" "KAFKA_BOOTSTRAP_SERVERS=$BOOTSTRAP" "KAFKA_TOPIC=$KAFKA_TOPIC_NOW")
      cmd=(java "${jvm[@]}" -cp "$BENCH_JAR" io.servicehooks.benchmarks.KafkaBaselineServer) ;;
    e)
      # The bot logs every post it handles at INFO (text included); E_LOG_LEVEL=WARN is its
      # equivalent of the consumer jar's LOG_EVENTS=false. E_LOG_LEVEL=INFO measures it as shipped.
      envs+=("SERVER_ADDRESS=127.0.0.1" "LOGGING_LEVEL_IO_SERVICEHOOKS=$E_LOG_LEVEL")
      cmd=(java "${jvm[@]}" -jar "$BOT_JAR") ;;
    *) say "unknown server $spec"; exit 2 ;;
  esac
  if port_open; then
    say "something already listens on 127.0.0.1:$PORT; set PORT to a free one"
    exit 2
  fi
  env "${envs[@]}" taskset -c "$SERVER_CPU" "${cmd[@]}" >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 300); do
    if port_open; then
      return 0
    fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      say "server $spec exited; its log ($log):"
      tail -20 "$log" >&2
      exit 1
    fi
    sleep 0.2
  done
  say "server $spec did not open port $PORT within 60 s"
  exit 1
}

if [[ " $SERVERS_RUN " == *" d-kafka"* || " $SERVERS_RUN " == *" b-kafka"* ]]; then
  start_broker
fi

# ---- the pool of pre-signed deliveries -----------------------------------------------------------
POOL=$ROOT/benchmarks/target/pool/pool-$PORT-$((WARM_POOL + MEASURE_POOL)).bin
if [ ! -f "$POOL" ] || [ "$BENCH_JAR" -nt "$POOL" ]; then
  mkdir -p "$(dirname "$POOL")"
  rm -f "$ROOT"/benchmarks/target/pool/pool-*.bin
  say "writing $((WARM_POOL + MEASURE_POOL)) pre-signed deliveries to $POOL"
  java -Xmx512m -cp "$BENCH_JAR" io.servicehooks.benchmarks.PoolGenerator \
    "$POOL" $((WARM_POOL + MEASURE_POOL)) "127.0.0.1:$PORT" /webhooks "$SECRET" >&2
fi

# run_wrk MODE CONNS SECONDS FIRST COUNT LOG [MARKER]: one wrk run; prints its RESULT line.
run_wrk() {
  taskset -c "$LOAD_CPU" wrk -t1 -c"$2" -d"$3"s --latency -s "$LUA" "$URL" -- "$1" "$POOL" "$4" "$5" "${7:-}" >"$6" 2>&1 || {
    say "wrk failed, see $6"
    tail -5 "$6" >&2
    return 1
  }
  grep '^RESULT ' "$6"
}

# watch_inbox SCHEMA FILE: one JVM that writes a line every 5 s until killed: the table's pending
# rows and the age of the oldest not yet done (read directly). One JVM for the whole cell, started
# before the warm-up: a JVM per sample would take CPU from the server measured.
watch_inbox() {
  exec env DATABASE_URL="$CELL_DATABASE_URL" taskset -c "$LOAD_CPU" java -Xmx64m -XX:TieredStopAtLevel=1 -cp "$BENCH_JAR" \
    io.servicehooks.benchmarks.BenchDatabase watch "$1" 5 >>"$2" 2>&1
}
# sample_inbox_once SCHEMA FILE LABEL: one more line, and the consumer's gauges from /metrics
# (refreshed every 15 s), after the measured run.
sample_inbox_once() {
  local db gauges
  db=$(DATABASE_URL=$CELL_DATABASE_URL timeout 8 java -cp "$BENCH_JAR" io.servicehooks.benchmarks.BenchDatabase inbox "$1" 2>&1 | tail -1)
  gauges=$(curl -s --max-time 2 "http://127.0.0.1:$PORT/metrics" | grep -E '^webhook_inbox_(pending|lag_seconds)' | sed 's/{[^}]*}//' | tr '\n' ' ')
  echo "$(date -u +%T) $3 $db gauges: $gauges" >>"$2"
}

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# CPU time (clock ticks, utime + stime) of the processes given; 0 for none.
CLK_TCK=$(getconf CLK_TCK)
cpu_ticks() {
  local total=0 pid t
  for pid in "$@"; do
    # fields after the ")" that ends the command name: 12 = utime, 13 = stime
    t=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13}') || t=0
    total=$((total + ${t:-0}))
  done
  echo "$total"
}
# user_sys_ticks PID: "<utime> <stime>" of one process, in clock ticks.
user_sys_ticks() {
  local t
  t=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12, $13}') || t=""
  echo "${t:-0 0}"
}
# thread_ticks PID: "<thread name> <utime+stime>" for each thread of one process, the names as the
# kernel keeps them (15 characters) with trailing digits dropped, so a pool's threads add up.
thread_ticks() {
  local stat
  for stat in /proc/"$1"/task/*/stat; do
    cat "$stat" 2>/dev/null
    echo
  done | awk 'NF { name = $0; sub(/^[^(]*\(/, "", name); sub(/\).*/, "", name); gsub(/[0-9]+$/, "", name)
      gsub(/ /, "_", name); rest = $0; sub(/.*\) /, "", rest); split(rest, f, " ")
      t[name] += f[12] + f[13] } END { for (n in t) print n, t[n] }'
}
# core_ticks CPU: "<all> <idle> <steal>" clock ticks of one core since boot (/proc/stat). Over a
# measured run, idle is the server's core waiting, and steal is time the hypervisor gave the
# core to another guest: neither shows in the server's CPU, and both lower its req/s.
core_ticks() {
  awk -v c="cpu$1" '$1 == c { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $5 + $6, $9 }' /proc/stat
}
# percent PART WHOLE: PART as a percentage of WHOLE, one decimal; nan when WHOLE is 0.
percent() { awk -v p="$1" -v w="$2" 'BEGIN { if (w > 0) printf "%.1f", 100 * p / w; else print "nan" }'; }
# store_pids SERVER: the store processes whose CPU a cell of SERVER adds (none for in-memory ones).
store_pids() {
  case ${1%%@*} in
    d-redis | d-worker-redis | d-worker-redis-prev | b-redis) pgrep -x redis-server || true ;;
    d-durable | d-worker-durable | d-worker-durable-prev | b-durable) pgrep -x postgres || true ;;
    d-kafka | b-kafka) if [ -n "$BROKER_PID" ]; then echo "$BROKER_PID"; fi ;;
  esac
}
# per_request TICKS REQUESTS: microseconds of CPU per request, one decimal.
per_request() { awk -v t="$1" -v n="$2" -v hz="$CLK_TCK" 'BEGIN { if (n > 0) printf "%.1f", t * 1e6 / hz / n; else print "nan" }'; }
# pg_delta BEFORE AFTER REQUESTS: BenchDatabase pgstat's counters, the checkpoints as differences,
# the rest per request.
pg_delta() {
  awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN {
    split(a, x, " "); split(b, y, " ")
    for (i in x) { split(x[i], kv, "="); v0[kv[1]] = kv[2] }
    out = ""
    for (i = 1; i in y; i++) {
      split(y[i], kv, "="); d = kv[2] - v0[kv[1]]
      if (kv[1] ~ /^ckpt/) out = out sprintf("%s=%d ", kv[1], d)
      else if (n > 0) out = out sprintf("%s=%.3g ", kv[1], d / n)
    }
    print out
  }'
}

# ---- header --------------------------------------------------------------------------------------
CPU_MODEL=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
JAVA_VERSION=$(java -version 2>&1 | head -1)
WRK_VERSION=$(wrk -v 2>&1 | head -1 || true)
HEADER=(
  "# Load results $STAMP"
  ""
  "Machine: $(nproc) CPUs ($CPU_MODEL), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); $JAVA_VERSION; ${WRK_VERSION%% Copyright*}."
  "Servers pinned with \`taskset -c $SERVER_CPU\`, wrk with \`taskset -c $LOAD_CPU\` (\`wrk -t1 --latency\`), 127.0.0.1 only."
  "JVM flags, every server: \`$JVM_FLAGS\`. (d) with LOG_EVENTS=false; (e) with logging.level.io.servicehooks=$E_LOG_LEVEL."
  "$(if [ -n "$BROKER_PID" ]; then echo "Kafka cells: one KRaft broker (Kafka 4.1.1, servicehooks-kafka-broker, -Xmx512m) in its own process, $(if [ -n "$BROKER_CPU" ]; then echo "pinned to CPU $BROKER_CPU"; else echo "not pinned"; fi), a fresh topic of $KAFKA_PARTITIONS partitions per cell; store CPU = the broker's."; fi)"
  "$(if [[ " $SERVERS_RUN " == *"redis"* ]]; then echo "d-redis: Redis $(redis-cli -u "$BENCH_REDIS_URL" INFO server | tr -d '\r' | sed -n 's/^redis_version://p') at ${BENCH_REDIS_URL##*@} (not pinned), a fresh prefix per cell. Load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."; else echo "Load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."; fi)"
  "Each cell: a fresh server, ${WARMUP} s warm-up (pool records 0..$WARM_POOL, wrapping), then ${DURATION} s measured on"
  "records $WARM_POOL.. (up to $MEASURE_POOL distinct pre-signed 1.5 KB deliveries, so no request repeats within a measured run"
  "unless 'pool wrapped' says so). Rounds: $ROUNDS, servers alternating within each round; medians reported."
  "CPU per request: the server's utime+stime (/proc/<pid>/stat) from the moment wrk has loaded its records to its end, over the requests wrk completed; store CPU the same for every redis-server (Redis cells) or postgres (durable cells) process, shared with whatever else uses them; for the Kafka cells, the run's broker. JIT: the server's C1 and C2 compiler threads, part of its CPU. Server core stolen: the share of the server's core's time (/proc/stat) the hypervisor gave to other guests over the same span, time in which the server neither ran nor shows CPU."
  "Durable cells: $(if [ "$FRESH_DATABASE" = 1 ]; then echo "a fresh database per server run (CREATE DATABASE, dropped after)"; else echo "a fresh schema per server run in the database of BENCH_DATABASE_URL"; fi); $(if [ "$CHECKPOINT" = 1 ]; then echo "CHECKPOINT before each measured run"; else echo "no CHECKPOINT before the measured run"; fi); HikariCP pool of b-durable: $POOL_SIZE."
  "Run: \`PRESET=${PRESET:-} ROUNDS=$ROUNDS WARMUP=$WARMUP DURATION=$DURATION CONNECTIONS=\"$CONNECTIONS\" WORKLOADS=\"$WORKLOADS\" SERVERS=\"$SERVERS\" CRC_SERVERS=\"$CRC_SERVERS\" DUP_SERVERS=\"$DUP_SERVERS\" benchmarks/load.sh\`"
)

# ---- measure -------------------------------------------------------------------------------------
printf 'round\tserver\tworkload\tconnections\trps\tp50_us\tp99_us\terrors\twrapped\tcpu_us\tstore_cpu_us\tloadavg\tjit_us\tcore_idle_pct\tcore_steal_pct\n' >"$RAW"
for round in $(seq 1 "$ROUNDS"); do
  for workload in $WORKLOADS crc; do
    servers=$SERVERS_RUN
    [ "$workload" = crc ] && servers=$CRC_SERVERS
    [ "$workload" = dup10 ] && servers=$(for s in $SERVERS_RUN; do if [[ " $DUP_SERVERS " == *" $s "* ]]; then echo -n "$s "; fi; done)
    for conns in $CONNECTIONS; do
      for server in $servers; do
        tag="r$round-$workload-c$conns-${server//@/_}"
        KAFKA_LOG_NOW=$LOGS/$tag.kafka.txt
        start_server "$server" "$LOGS/$tag.server.log"
        sampler=""
        if [ "${server%%@*}" = d-durable ]; then
          watch_inbox "$SCHEMA" "$LOGS/$tag.inbox.txt" &
          sampler=$!
        fi
        run_wrk "$workload" "$conns" "$WARMUP" 0 "$WARM_POOL" "$LOGS/$tag.warmup.txt" >/dev/null
        durable=0
        [[ " b-durable d-durable d-worker-durable d-worker-durable-prev " == *" ${server%%@*} "* ]] && durable=1
        if [ "$durable" = 1 ] && [ "$CHECKPOINT" = 1 ]; then
          # A checkpoint between the warm-up and the measured run: each durable cell is measured
          # from the same state of PostgreSQL's WAL, not during a checkpoint the WAL of the cells
          # before it set off (max_wal_size; seen as a dip in whichever cell it hit).
          bench_database checkpoint >&2 || say "CHECKPOINT failed; measuring anyway"
        fi
        pg0=""
        [ "$durable" = 1 ] && pg0=$(bench_database pgstat "${CELL_DB:-none}" 2>&1 | tail -1)
        echo "$(date -u +%T) measured run starts" >>"$LOGS/$tag.inbox.txt"
        marker=$LOGS/$tag.loaded
        rm -f "$marker"
        run_wrk "$workload" "$conns" "$DURATION" "$WARM_POOL" "$MEASURE_POOL" "$LOGS/$tag.wrk.txt" "$marker" >"$LOGS/$tag.result" &
        wrk_pid=$!
        for _ in $(seq 1 1200); do
          [ -f "$marker" ] && break
          kill -0 "$wrk_pid" 2>/dev/null || break
          sleep 0.05
        done
        mapfile -t spids < <(store_pids "$server")
        read -r user0 sys0 <<<"$(user_sys_ticks "$SERVER_PID")"
        cpu0=$((user0 + sys0))
        threads0=$(thread_ticks "$SERVER_PID")
        read -r core0 idle0 steal0 <<<"$(core_ticks "$SERVER_CPU")"
        declare -A stick0=()
        for p in "${spids[@]}"; do stick0[$p]=$(cpu_ticks "$p"); done
        wait "$wrk_pid"
        read -r user1 sys1 <<<"$(user_sys_ticks "$SERVER_PID")"
        cpu1=$((user1 + sys1))
        threads1=$(thread_ticks "$SERVER_PID")
        read -r core1 idle1 steal1 <<<"$(core_ticks "$SERVER_CPU")"
        # Only store processes alive at both ends: one that exited meanwhile (a backend of a
        # closing pool) would count its whole CPU time as negative.
        sdelta=0
        for p in "${spids[@]}"; do
          [ -e "/proc/$p/stat" ] && sdelta=$((sdelta + $(cpu_ticks "$p") - ${stick0[$p]}))
        done
        loadavg=$(cut -d' ' -f1 /proc/loadavg)
        line=$(cat "$LOGS/$tag.result")
        requests=$(field requests "$line")
        if [ -n "$pg0" ]; then
          pg1=$(bench_database pgstat "${CELL_DB:-none}" 2>&1 | tail -1)
          { echo "before $pg0"; echo "after  $pg1"; echo "per request (requests=$requests): $(pg_delta "$pg0" "$pg1" "$requests")"; } >"$LOGS/$tag.pg.txt"
          say "PostgreSQL during $tag: $(pg_delta "$pg0" "$pg1" "$requests")"
        fi
        cpu_us=$(per_request $((cpu1 - cpu0)) "$requests")
        # The server's CPU split into user and kernel time: hand-offs between threads cost system
        # calls (futex, eventfd, epoll), whose price differs from one machine to the next.
        echo "user_us=$(per_request $((user1 - user0)) "$requests") sys_us=$(per_request $((sys1 - sys0)) "$requests")" >"$LOGS/$tag.cpu.txt"
        # And per thread (threads that ended during the run are not counted), busiest first.
        per_thread=$(awk -v n="$requests" -v hz="$CLK_TCK" 'FNR == NR { before[$1] = $2; next }
            { d = $2 - before[$1]; if (d > 0 && n > 0) printf "%s_us=%.1f\n", $1, d * 1e6 / hz / n }' \
          <(echo "$threads0") <(echo "$threads1") | sort -t= -k2 -rn)
        [ -n "$per_thread" ] && echo "$per_thread" >>"$LOGS/$tag.cpu.txt"
        # The JIT's part of the server's CPU (C1 and C2 threads): compiling still going on in the
        # measured run is CPU that neither the warm server nor the event path spends.
        jit_us=$(awk -F= -v n="$requests" '$1 ~ /^C[12]_CompilerThre_us$/ { s += $2 }
            END { if (n > 0) printf "%.1f", s; else print "nan" }' <<<"$per_thread")
        core_idle=$(percent $((idle1 - idle0)) $((core1 - core0)))
        core_steal=$(percent $((steal1 - steal0)) $((core1 - core0)))
        store_cpu_us=nan
        [ "${#spids[@]}" -gt 0 ] && store_cpu_us=$(per_request "$sdelta" "$requests")
        if [ -n "$sampler" ]; then
          kill "$sampler" 2>/dev/null || true
          wait "$sampler" 2>/dev/null || true
          sample_inbox_once "$SCHEMA" "$LOGS/$tag.inbox.txt" end
          say "inbox during $tag (pending rows, age of the oldest; the last line with the gauges):"
          cat "$LOGS/$tag.inbox.txt" >&2
        fi
        stop_server
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$server" "$workload" "$conns" \
          "$(field rps "$line")" "$(field p50_us "$line")" "$(field p99_us "$line")" \
          "$(field errors "$line")" "$(field wrapped "$line")" "$cpu_us" "$store_cpu_us" "$loadavg" \
          "$jit_us" "$core_idle" "$core_steal" >>"$RAW"
        say "round $round $workload c=$conns $server: $(field rps "$line") req/s, $cpu_us us CPU/req (JIT $jit_us; store $store_cpu_us), server core idle $core_idle%, stolen $core_steal%, p50 $(field p50_us "$line") us, p99 $(field p99_us "$line") us, errors $(field errors "$line"), wrapped $(field wrapped "$line"), load $loadavg"
      done
      for pair in $RATIO; do
        r=$(awk -F'\t' -v r="$round" -v w="$workload" -v c="$conns" -v num="${pair%%/*}" -v den="${pair#*/}" '
          $1 == r && $3 == w && $4 == c && $2 == num { a = $5; ca = $10; la = $12; ja = $13; sa = $15 }
          $1 == r && $3 == w && $4 == c && $2 == den { b = $5; cb = $10; jb = $13; sb = $15 }
          END { if (a != "" && b > 0) printf "| %s | %s / %s | %s | %d | %.0f | %.0f | **%.2f** | %s / %s | %s / %s | %s / %s | %s |", r, num, den, w, c, a, b, a / b, ca, cb, ja, jb, sa, sb, la }' "$RAW")
        if [ -n "$r" ]; then
          echo "$r" >>"$RATIOS"
          say "ratio round $round: $r"
        fi
      done
    done
  done
done

{
  java -cp "$BENCH_JAR" io.servicehooks.benchmarks.LoadReport "$RAW" "${HEADER[@]}" "" "Raw: benchmarks/results/raw-$STAMP.tsv; wrk and server logs: benchmarks/target/load-logs/$STAMP/. Load average at end: $(cut -d' ' -f1-3 /proc/loadavg)."
  if [ -s "$RATIOS" ]; then
    echo
    echo "Ratios, round by round (the same run):"
    echo
    echo "| round | ratio of | workload | conns | req/s | req/s | ratio | server CPU µs/req | of it JIT | server core stolen, % | load |"
    echo "|---:|---|---|---:|---:|---:|---:|---|---|---|---:|"
    cat "$RATIOS"
  fi
} | tee "$RESULTS/latest.md"
