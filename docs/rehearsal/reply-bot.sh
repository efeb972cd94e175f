#!/usr/bin/env bash
# The reply bot against `servicehooks simulate`: sign the bot's user in, subscribe it, trigger a
# mention, watch the reply arrive back as the bot's own post.create, not answered.
set -u
REPO=${REPO:-$(pwd)}
OUT=${OUT:-/tmp/servicehooks-reply-bot}
mkdir -p "$OUT"; rm -rf "${OUT:?}"/*
# The bot's user keeps its credentials under this HOME, as `auth login` would under yours.
export HOME="$OUT/home"; mkdir -p "$HOME"
servicehooks() { java -jar "$REPO/webhook-cli/target/servicehooks-cli.jar" "$@"; }
say() { echo; echo "### $(date -u +%H:%M:%S) $*"; }

say "simulate"
servicehooks simulate --port 19002 > "$OUT/simulate.out" 2> "$OUT/simulate.log" &
SIM=$!
BOTPID=
trap 'kill $SIM $BOTPID 2>/dev/null' EXIT
until grep -q SERVICE_CONSUMER_SECRET "$OUT/simulate.out" 2>/dev/null; do sleep 0.2; done
eval "$(grep '^export ' "$OUT/simulate.out")"

say "auth login: the bot's user (the simulator's demo user) authorizes the app; the PIN from the page"
coproc LOGIN { servicehooks auth login 2> "$OUT/login.err"; }
until grep -q 'oauth_token=' "$OUT/login.err" 2>/dev/null; do sleep 0.2; done
URL=$(grep -o 'http[^ ]*/oauth/authorize?oauth_token=[^ ]*' "$OUT/login.err")
PIN=$(curl -s --data "oauth_token=${URL##*oauth_token=}" "${URL%%\?*}" | grep -o 'oauth_pin">[0-9]*' | grep -o '[0-9]*$')
echo "$PIN" >&"${LOGIN[1]}"
wait "$LOGIN_PID"
tail -1 "$OUT/login.err"
BOT=$(servicehooks auth status --json | jq -r '.user_id')

say "subscribe the bot's user to its mentions and its own posts, on the activity stream"
for type in post.mention.create post.create; do
  servicehooks subscriptions create --as-user --event-type "$type" --user-id "$BOT"
done

say "the reply bot, on the stream"
DELIVERY=stream PORT=18082 DEDUP_FILE="$OUT/bot.db" \
  java -jar "$REPO/samples/reply-bot/target/servicehooks-reply-bot.jar" > "$OUT/bot.log" 2>&1 &
BOTPID=$!
until [ "$(curl -s "$SERVICE_API_BASE_URL/_sim/state" | jq '.data.streams | length')" = 1 ]; do sleep 0.2; done

say "trigger: another user mentions the bot's user"
servicehooks trigger post.mention.create --user-id "$BOT"
sleep 3
echo "--- the bot"; grep -o 'Replied .*\|Handled .*' "$OUT/bot.log"
echo "--- its reply came back to it as its own post.create: counted, not answered"
curl -s http://127.0.0.1:18082/metrics | grep '^webhook_events_total'
echo "--- posts by the bot's user"
curl -s "$SERVICE_API_BASE_URL/_sim/posts?author_id=$BOT" | jq -c .
REPLY=$(grep -o 'Replied to [0-9]* with post [0-9]*' "$OUT/bot.log" | grep -o '[0-9]*$')

say "the reply, looked up with its author"
servicehooks posts get "$REPLY" --post-fields author_id,in_reply_to_user_id,referenced_posts --expansions author_id

say "SIGTERM"
kill -TERM $BOTPID; wait $BOTPID; echo "bot exited $?"
kill -TERM $SIM; wait 2>/dev/null
