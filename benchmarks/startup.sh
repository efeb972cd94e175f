#!/usr/bin/env bash
# Start-up and footprint of the standalone consumer, the Spring bot and the CLI (`listen` and a
# short command), with what the JDK offers and no new dependency: the class-data sharing archives
# the build writes (samples/consumer/target/servicehooks-consumer.jsa from a training run of --demo;
# samples/spring-bot/target/servicehooks-spring-bot.jsa for the extracted jar under
# target/extracted/), and C1 only. Run from the repository root:
#
#   benchmarks/startup.sh
#
# What each cell measures: benchmarks/stream/startup.py. Per round and option set, a fresh process
# pinned to CPU $CLIENT_CPU: the time from `java -jar` to its first handled event, VmRSS idle and
# under load (the stream fake's EVENTS events, or LOAD_SECONDS of wrk with benchmarks/load.lua's
# pre-signed deliveries, wrk pinned to LOAD_CPU), and the CLI's CLI_ARGS (default --help).
# Settings: ROUNDS=5 CELLS="stream webhook bot listen help" EVENTS=200000 CLIENT_CPU=0 LOAD_CPU=1
#   LOAD_SECONDS=15 CONNECTIONS=16 PORT=18091 POOL_SIZE=400000 CLI_ARGS=--help SKIP_BUILD=0
#   CLI_JSA (a CDS archive of the CLI for the listen and help cells; by default one training run of
#   `listen` on the fake writes it to benchmarks/target/servicehooks-cli.jsa)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  ./mvnw -q -B package -pl samples/consumer,samples/spring-bot,webhook-cli,benchmarks -am -DskipTests
fi
if ! command -v wrk >/dev/null; then
  echo "[startup] wrk is needed for the webhook and bot cells (Debian: apt-get install wrk)" >&2
  exit 2
fi
export CONSUMER_JAR="$PWD/samples/consumer/target/servicehooks-consumer.jar"
export CONSUMER_JSA="$PWD/samples/consumer/target/servicehooks-consumer.jsa"
export CLI_JAR="$PWD/webhook-cli/target/servicehooks-cli.jar"
export BOT_JAR="$PWD/samples/spring-bot/target/servicehooks-spring-bot.jar"
export BOT_EXTRACTED_JAR="$PWD/samples/spring-bot/target/extracted/servicehooks-spring-bot.jar"
export BOT_JSA="$PWD/samples/spring-bot/target/servicehooks-spring-bot.jsa"
export LOAD_LUA="$PWD/benchmarks/load.lua"
export PORT=${PORT:-18091}
POOL_SIZE=${POOL_SIZE:-400000}
export POOL="$PWD/benchmarks/target/pool/startup-$PORT-$POOL_SIZE.bin"
if [ ! -f "$POOL" ] || [ benchmarks/target/benchmarks.jar -nt "$POOL" ]; then
  mkdir -p "$(dirname "$POOL")"
  java -Xmx512m -cp benchmarks/target/benchmarks.jar io.servicehooks.benchmarks.PoolGenerator \
    "$POOL" "$POOL_SIZE" "127.0.0.1:$PORT" /webhooks bench-consumer-secret-0123456789abcdef >&2
fi
export CLI_JSA=${CLI_JSA:-$PWD/benchmarks/target/servicehooks-cli.jsa}
if [ ! -f "$CLI_JSA" ] || [ "$CLI_JAR" -nt "$CLI_JSA" ]; then
  python3 benchmarks/stream/startup.py train-cli "$CLI_JSA"
fi
echo "[startup] $(uptime)" >&2
exec python3 benchmarks/stream/startup.py
