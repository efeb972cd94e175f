#!/usr/bin/env bash
# Dedup memory: retained heap per remembered id in Deduplicator.inMemory() at 100,000 and
# 1,000,000 ids (keys as the consumer builds them: "e:" + a 19-digit event_uuid), measured as the
# growth of the used heap after full collections, plus a few other layouts for comparison.
# Run from the repository root:   benchmarks/memory.sh [IDS...]
# Output to stdout and benchmarks/results/memory-latest.md.
set -euo pipefail
cd "$(dirname "$0")/.."
JVM_FLAGS=${JVM_FLAGS:-"-XX:+UseParallelGC -Xms2g -Xmx2g"}
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  ./mvnw -q -B -DskipTests package -pl benchmarks -am
fi
mkdir -p benchmarks/results
{
  echo "# Dedup memory $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "\`java $JVM_FLAGS -cp benchmarks/target/benchmarks.jar io.servicehooks.benchmarks.DedupMemory ${*:-100000 1000000}\` ($(java -version 2>&1 | head -1); compressed oops)"
  echo
  echo '```'
  if [ $# -eq 0 ]; then set -- 100000 1000000; fi
  # shellcheck disable=SC2086
  java $JVM_FLAGS -cp benchmarks/target/benchmarks.jar io.servicehooks.benchmarks.DedupMemory "$@"
  echo '```'
} | tee benchmarks/results/memory-latest.md
