#!/usr/bin/env python3
"""The peer of benchmarks/stream.sh: tweepy's StreamingClient (Debian's python3-tweepy), as a
Python bot would write it, with a handler that dedups by event id and logs one line per event, as
the standalone consumer does ("Handled <type> event <id>"), to stdout.

usage: tweepy_peer.py BASE_URL     (the fake's http://127.0.0.1:<port>)
"""
import json
import logging
import sys

import tweepy
from tweepy.streaming import BaseStream

logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format="%(asctime)s %(levelname)-5s %(name)s - %(message)s")
log = logging.getLogger("bot")


class Bot(tweepy.StreamingClient):
    def __init__(self, base_url):
        super().__init__("bench-token", wait_on_rate_limit=True)
        self.base_url = base_url
        self.seen = set()

    def _connect(self, method, endpoint, **kwargs):
        # StreamingClient builds api.twitter.com's address; the fake stands at base_url.
        self.session.headers["Authorization"] = f"Bearer {self.bearer_token}"
        BaseStream._connect(self, method, f"{self.base_url}/2/activity/stream", **kwargs)

    def on_data(self, raw_data):
        data = json.loads(raw_data)["data"]
        event_id = data["event_uuid"]
        if event_id in self.seen:
            return
        self.seen.add(event_id)
        log.info("Handled %s event %s", data["event_type"], event_id)


if __name__ == "__main__":
    Bot(sys.argv[1]).filter()
