#!/usr/bin/env bash
# Local development without a public URL: simulate, a consumer, listen --forward-to, trigger.
set -u
REPO=${REPO:-$(pwd)}
OUT=${OUT:-/tmp/servicehooks-listen}
mkdir -p "$OUT"; rm -f "$OUT"/*
servicehooks() { java -jar "$REPO/webhook-cli/target/servicehooks-cli.jar" "$@"; }
say() { echo; echo "### $(date -u +%H:%M:%S) $*"; }

say "simulate; a consumer on 18081 that no platform can reach (no webhook registered)"
java -jar "$REPO/webhook-cli/target/servicehooks-cli.jar" simulate --port 19001 > "$OUT/simulate.out" 2> "$OUT/simulate.log" &
SIM=$!
until grep -q SERVICE_CONSUMER_SECRET "$OUT/simulate.out" 2>/dev/null; do sleep 0.2; done
eval "$(grep '^export ' "$OUT/simulate.out")"
SERVICE_CONSUMER_SECRET=$SERVICE_CONSUMER_SECRET PORT=18081 \
  java -jar "$REPO/samples/consumer/target/servicehooks-consumer.jar" > "$OUT/consumer.log" 2>&1 &
CONSUMER=$!
until curl -sf http://127.0.0.1:18081/health > /dev/null; do sleep 0.2; done

say "listen --events post.*,dm.* --forward-to the consumer"
# Started as from a terminal: a background job of a script has SIGINT ignored, so undo that
# before exec, and Ctrl-C below is a real SIGINT.
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
  java -jar "$REPO/webhook-cli/target/servicehooks-cli.jar" \
  listen --events 'post.*,dm.*' --forward-to http://127.0.0.1:18081/webhooks \
  > "$OUT/listen.out" 2> "$OUT/listen.err" &
LISTEN=$!
until [ "$(curl -s $SERVICE_API_BASE_URL/_sim/state | jq '.data.streams | length')" = 1 ]; do sleep 0.2; done
servicehooks connections list

say "trigger: a post, a like (filtered out by --events), a DM twice"
servicehooks trigger post.mention.create
servicehooks trigger like.create
servicehooks trigger dm.received --duplicate
sleep 3
echo "--- listen (stdout)"; cat "$OUT/listen.out"
echo "--- listen (stderr)"; cat "$OUT/listen.err"
echo "--- consumer"; grep -o 'Handled .*' "$OUT/consumer.log"

say "the platform drops the stream: listen reconnects at once, with backfill"
curl -s -X POST -H "Content-Type: application/json" $SERVICE_API_BASE_URL/_sim/faults/stream/drop; echo
until [ "$(curl -s $SERVICE_API_BASE_URL/_sim/state | jq '.data.streams | length')" = 1 ]; do sleep 0.2; done
servicehooks trigger post.mention.create
sleep 2
echo "--- listen (stderr)"; cat "$OUT/listen.err"
echo "--- listen (stdout, last 3)"; tail -3 "$OUT/listen.out"
echo "--- consumer: each event handled once, backfill repeats absorbed by dedup"; grep -o 'Handled .*' "$OUT/consumer.log"

say "Ctrl-C"
kill -INT $LISTEN; wait $LISTEN; echo "listen exited $?"
tail -1 "$OUT/listen.err"
kill -TERM $CONSUMER $SIM; wait 2>/dev/null
