#!/usr/bin/env bash
# What a remembered event id costs in Redis memory: writes N done keys exactly as RedisDeduplicator
# leaves them (key "<prefix>:{e:<event id>}", value "d", TTL = the window), reads MEMORY USAGE of
# one and the used_memory delta over all N, then deletes them (SCAN + DEL of its own prefix only;
# never FLUSHALL). Usage: webhook-redis/memory.sh [host] [port] [N]   (defaults 127.0.0.1 6379 100000)
set -euo pipefail
HOST=${1:-127.0.0.1}
PORT=${2:-6379}
N=${3:-100000}
# Same length as the default prefix "servicehooks:default" (20 characters), unique per run.
PREFIX=$(printf "servicehooks:m%06d" $(( (RANDOM * 32768 + RANDOM) % 1000000 )))
cli() { redis-cli -h "$HOST" -p "$PORT" "$@"; }

used() { cli INFO memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r'; }

cli MEMORY PURGE >/dev/null 2>&1 || true
before=$(used)
# Event ids like the platform's: a signed 64-bit number, so keys are ~45 bytes with the default-length prefix.
cli EVAL "
for i = 1, tonumber(ARGV[2]) do
  local id = '-7' .. string.format('%018d', i)
  redis.call('SET', ARGV[1] .. ':{e:' .. id .. '}', 'd', 'PX', 86400000)
end
return 1" 0 "$PREFIX" "$N" >/dev/null
after=$(used)
sample="$PREFIX:{e:-7000000000000000001}"
echo "redis $(cli INFO server | awk -F: '/^redis_version:/ {print $2}' | tr -d '\r')"
echo "key example: $sample ($(printf %s "$sample" | wc -c) bytes)"
echo "MEMORY USAGE of one done key: $(cli MEMORY USAGE "$sample") bytes"
echo "keys written: $(cli --scan --pattern "$PREFIX:*" | wc -l)"
echo "used_memory delta over $N keys: $((after - before)) bytes = $(( (after - before) / N )) bytes per id"
# Clean up our prefix only.
cli --scan --pattern "$PREFIX:*" | xargs -r -n 1000 redis-cli -h "$HOST" -p "$PORT" DEL >/dev/null
echo "left under the prefix: $(cli --scan --pattern "$PREFIX:*" | wc -l)"
