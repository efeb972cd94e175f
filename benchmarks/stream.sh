#!/usr/bin/env bash
# Stream harness: the standalone consumer in DELIVERY=stream against tweepy's StreamingClient
# (Debian's python3-tweepy 4.12.1, the client a Python bot picks), both reading the same fast fake
# of the activity stream. Run from the repository root:
#
#   benchmarks/stream.sh
#
# The fake (benchmarks/stream/fake_stream.py) is a separate process on CPU $FAKE_CPU that writes
# EVENTS prepared lines of ~190 bytes, each a new event with a 19-digit id like the platform's
# event_uuid (IDS=padded: 12-digit zero-padded ids, a string to a consumer), in 64 KB chunks; the
# client runs pinned to CPU $CLIENT_CPU with its stdout (one "Handled <type> event <id>" line per
# event, dedup on: the consumer's in-memory Deduplicator, tweepy's handler a set) going to a file.
# CPU per event is the client process's utime+stime from its first handled line to its last
# (start-up excluded), the warm half over the second half only, the JIT's part (a JVM's C1 and C2
# threads) beside it; events/s is wall clock over the same lines. Rounds alternate the order.
# EXTRA_CONSUMER_JAR measures a second build in the same run (a before/after).
#
# Settings: EVENTS=1000000 ROUNDS=3 CLIENT_CPU=0 FAKE_CPU=1 JVM_FLAGS= THREADS= (1: print CPU and
#   context switches per thread name) CLIENTS="servicehooks tweepy" EXTRA_CONSUMER_JAR= IDS=platform
#   SKIP_BUILD=0
#   COMPILATIONS= (1: each JVM records its JIT compilations, and what C2 compiled while the events
#   were handled is printed under its cell: benchmarks/stream/compilations.py)
# A profile: JVM_FLAGS="-XX:StartFlightRecording=filename=/tmp/stream.jfr,settings=profile"
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import tweepy' 2>/dev/null; then
  echo "installing python3-tweepy (Debian)" >&2
  if [ "$(id -u)" = 0 ]; then apt-get install -y -q python3-tweepy >/dev/null; else sudo apt-get install -y -q python3-tweepy >/dev/null; fi
fi
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  ./mvnw -q -B package -pl samples/consumer -am -DskipTests
fi
export CONSUMER_JAR="${CONSUMER_JAR:-samples/consumer/target/servicehooks-consumer.jar}"
if [ -n "${CLIENTS:-}" ] && [ -n "${EXTRA_CONSUMER_JAR:-}" ]; then
  case " $CLIENTS " in *" servicehooks-prev "*) ;; *) CLIENTS="$CLIENTS servicehooks-prev" ;; esac
fi
export CLIENTS="${CLIENTS:-servicehooks tweepy${EXTRA_CONSUMER_JAR:+ servicehooks-prev}}"
exec python3 benchmarks/stream/stream_bench.py
