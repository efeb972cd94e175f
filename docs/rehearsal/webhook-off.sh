#!/usr/bin/env bash
# The rehearsal of docs/rehearsal.md section 3, as run (from the repository root): the platform switches the webhook off,
# the consumer notices and revalidates it on its own. Needs the two jars built.
set -u
REPO=${REPO:-$(pwd)}
OUT=${OUT:-/tmp/servicehooks-rehearsal-off}
mkdir -p "$OUT"; rm -f "$OUT"/*
servicehooks() { java -jar "$REPO/webhook-cli/target/servicehooks-cli.jar" "$@"; }
say() { echo; echo "### $(date -u +%H:%M:%S) $*"; }
CPORT=18081
SPORT=19001
JSON='Content-Type: application/json'

say "1. simulate (checks every webhook hourly, as the platform does)"
java -jar "$REPO/webhook-cli/target/servicehooks-cli.jar" simulate --port $SPORT > "$OUT/simulate.out" 2> "$OUT/simulate.log" &
SIM=$!
until grep -q SERVICE_CONSUMER_SECRET "$OUT/simulate.out" 2>/dev/null; do sleep 0.2; done
eval "$(grep '^export ' "$OUT/simulate.out")"

say "2. the consumer with WEBHOOK_URL: registers itself and checks the webhook every 5 s"
SERVICE_CONSUMER_SECRET=$SERVICE_CONSUMER_SECRET PORT=$CPORT \
WEBHOOK_URL=http://127.0.0.1:$CPORT/webhooks ALLOW_INSECURE_URL=true WEBHOOK_CHECK_INTERVAL_MS=5000 \
  java -jar "$REPO/samples/consumer/target/servicehooks-consumer.jar" > "$OUT/consumer.log" 2>&1 &
CONSUMER=$!
until curl -sf http://127.0.0.1:$CPORT/health > /dev/null; do sleep 0.2; done
until servicehooks webhooks list 2>/dev/null | grep -q true; do sleep 0.5; done
servicehooks webhooks list
curl -s http://127.0.0.1:$CPORT/health; echo
curl -s http://127.0.0.1:$CPORT/metrics | grep '^webhook_crc_last_answered_seconds'

say "3. the platform switches the webhook off (as after a failed CRC check); a trigger reaches nobody"
curl -s -X POST -H "$JSON" $SERVICE_API_BASE_URL/_sim/faults/webhook/invalidate; echo
servicehooks trigger post.mention.create

say "4. within the check interval the consumer notices and revalidates it"
until grep -q 'revalidated' "$OUT/consumer.log"; do sleep 0.5; done
grep -E 'WebhookWatch' "$OUT/consumer.log" | cut -c1-260
servicehooks webhooks list
curl -s http://127.0.0.1:$CPORT/metrics | grep '^webhook_registration_revalidations_total'

say "5. events flow again"
servicehooks trigger post.mention.create
sleep 2
grep -o 'Handled .*' "$OUT/consumer.log"

say "6. clean up"
kill -TERM $CONSUMER $SIM; wait 2>/dev/null
