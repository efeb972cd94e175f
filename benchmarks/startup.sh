#!/usr/bin/env bash
# Start-up and footprint of the standalone consumer (and the CLI's short commands), with what the
# JDK offers and no new dependency: the class-data sharing archive the build writes beside the jar
# (samples/consumer/target/servicehooks-consumer.jsa, from a training run of --demo), and C1 only.
# Run from the repository root:
#
#   benchmarks/startup.sh
#
# Each round starts, per option set, a fresh consumer in DELIVERY=stream on the stream fake
# (benchmarks/stream/fake_stream.py), pinned to CPU $CLIENT_CPU: time from the launch to its first
# handled event, VmRSS one second later and after EVENTS events. Then the CLI's CLI_ARGS (default
# --help) per option set. Settings: ROUNDS=5 EVENTS=200000 CLIENT_CPU=0 CLI_ARGS=--help SKIP_BUILD=0
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  ./mvnw -q -B package -pl samples/consumer,webhook-cli -am -DskipTests
fi
export CONSUMER_JAR="$PWD/samples/consumer/target/servicehooks-consumer.jar"
export CONSUMER_JSA="$PWD/samples/consumer/target/servicehooks-consumer.jsa"
export CLI_JAR="$PWD/webhook-cli/target/servicehooks-cli.jar"
exec python3 benchmarks/stream/startup.py
