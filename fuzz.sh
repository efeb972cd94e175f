#!/usr/bin/env bash
# Fuzzes one Jazzer @FuzzTest for a while: ./fuzz.sh CLASS#METHOD [DURATION]
#   ./fuzz.sh PayloadParserFuzzTest#handle 5m
#   ./fuzz.sh ResponsesFuzzTest#body 30s
# Without this script (plain `./mvnw verify`) the same tests only replay their committed inputs in
# src/test/resources/<package>/<Class>Inputs/<method>/. A finding is written there as crash-<sha1>:
# fix the bug, keep the file, commit both. libFuzzer's own corpus goes to <module>/.cifuzz-corpus/
# (ignored by git, kept between runs so the next run starts where this one stopped).
set -euo pipefail
cd "$(dirname "$0")"

if [[ $# -lt 1 || "$1" != *"#"* ]]; then
  echo "usage: $0 CLASS#METHOD [DURATION, e.g. 90s, 5m, 1h; default 5m]" >&2
  echo "targets:" >&2
  grep -l '@FuzzTest' -r --include='*FuzzTest.java' . | grep -v /target/ | sort | while read -r f; do
    class=$(basename "$f" .java)
    grep -A1 '@FuzzTest' "$f" | grep -oE 'void [A-Za-z0-9_]+' | sed "s/void /  $class#/"
  done >&2
  exit 2
fi
target=$1
duration=${2:-5m}
source=$(grep -l "final class ${target%%#*} " -r --include='*.java' . | grep -v /target/ | head -1)
if [[ -z "$source" ]]; then
  echo "no test class ${target%%#*}" >&2
  exit 2
fi
module=${source%%/src/test/*}
module=${module#./}

# Instrument Jackson too: the parsers are mostly Jackson, and coverage of it guides the fuzzer.
JAZZER_FUZZ=1 exec ./mvnw -B -pl "$module" -am test \
  -Dtest="$target" -Dsurefire.failIfNoSpecifiedTests=false \
  -Djazzer.max_duration="$duration" \
  -Djazzer.instrument='io.servicehooks.**,com.fasterxml.jackson.core.**'
