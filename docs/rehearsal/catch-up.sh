#!/usr/bin/env bash
# The rehearsal of docs/rehearsal.md, as run (from the repository root): simulate, trigger, stop the consumer, watch retries
# and drops, restart, watch catch-up heal it. Needs the two jars built and Redis on 127.0.0.1:6379.
set -u
REPO=${REPO:-$(pwd)}
OUT=${OUT:-/tmp/servicehooks-rehearsal}
mkdir -p "$OUT"; rm -f "$OUT"/*
servicehooks() { java -jar "$REPO/webhook-cli/target/servicehooks-cli.jar" "$@"; }
say() { echo; echo "### $(date -u +%H:%M:%S) $*"; }
CPORT=18080
PREFIX="servicehooks:rehearsal-$$"

say "1. simulate, with the retry schedule compressed to 2s,4s,8s and a CRC check every minute"
java -jar "$REPO/webhook-cli/target/servicehooks-cli.jar" simulate --port 19000 --retries 2s,4s,8s --recheck-every PT1M > "$OUT/simulate.out" 2> "$OUT/simulate.log" &
SIM=$!
until grep -q SERVICE_CONSUMER_SECRET "$OUT/simulate.out" 2>/dev/null; do sleep 0.2; done
cat "$OUT/simulate.out"
eval "$(grep '^export ' "$OUT/simulate.out")"

start_consumer() {
  SERVICE_CONSUMER_SECRET=$SERVICE_CONSUMER_SECRET PORT=$CPORT \
  CATCH_UP=true WEBHOOK_URL=http://127.0.0.1:$CPORT/webhooks ALLOW_INSECURE_URL=true \
  CATCH_UP_FILE="$OUT/heartbeat" REDIS_URL=redis://127.0.0.1:6379 REDIS_PREFIX=$PREFIX \
    java -jar "$REPO/samples/consumer/target/servicehooks-consumer.jar" > "$OUT/$1" 2>&1 &
  CONSUMER=$!
  until curl -sf http://127.0.0.1:$CPORT/health > /dev/null; do sleep 0.2; done
}

say "2. the consumer (catch-up on, dedup on Redis), registered with the simulator"
start_consumer consumer-1.log
servicehooks webhooks ensure http://127.0.0.1:$CPORT/webhooks --allow-insecure-url

say "3. trigger three events: handled at once"
servicehooks trigger post.mention.create --count 3
sleep 2
grep -o 'Handled .*' "$OUT/consumer-1.log"

say "4. stop the consumer, trigger two more: retried after 2s, 4s, 8s, then dropped"
kill -TERM $CONSUMER; wait $CONSUMER 2>/dev/null
STOPPED=$(date +%s)
servicehooks trigger post.mention.create --count 2 | tee "$OUT/dropped.txt"
sleep 16
grep -E 'dropped after' "$OUT/simulate.log"
curl -s http://127.0.0.1:19000/_sim/state | jq -c '{attempts: .data.attempts, dropped: .data.dropped}'

say "5. stay down past catch-up's 2-minute gap threshold"
while [ $(( $(date +%s) - STOPPED )) -lt 135 ]; do sleep 5; done

say "6. restart: catch-up asks for the replay of the gap; the two dropped events are handled"
start_consumer consumer-2.log
for id in $(grep -o 'event [0-9-]*' "$OUT/dropped.txt" | cut -d' ' -f2); do
  until grep -q "event $id" "$OUT/consumer-2.log"; do sleep 0.5; done
done
sleep 3
grep -iE 'replay|catch' "$OUT/consumer-2.log" | cut -c1-220
grep -o 'Handled .*' "$OUT/consumer-2.log"
grep -E 'replay job' "$OUT/simulate.log" | cut -c1-200
curl -s http://127.0.0.1:19000/_sim/state | jq -c '{attempts: .data.attempts, dropped: .data.dropped}'

say "7. clean up"
kill -TERM $CONSUMER $SIM; wait 2>/dev/null
redis-cli --scan --pattern "$PREFIX*" | xargs -r redis-cli del > /dev/null
