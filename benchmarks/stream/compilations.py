#!/usr/bin/env python3
"""What the JIT compiled while a stream cell handled its events, from the cell's JFR recording
(benchmarks/stream.sh with COMPILATIONS=1 records jdk.Compilation at a 0 ms threshold, see
compilations.jfc).

Prints one line: the C2 (tier 4) compilations that started between the cell's first and last
handled event, their wall time (the compiler thread shares the pinned core with the consumer, so
this is more than its CPU time), the part of it spent on io.servicehooks classes, and the largest
compilations with the bytecode bytes each inlined.

usage: compilations.py RECORDING.jfr FIRST_EPOCH_S LAST_EPOCH_S
       compilations.py RECORDING.jfr     (the whole recording, and the largest io.servicehooks
                                          compilations one per line: FirstMillion's)
"""
import json
import re
import subprocess
import sys
from datetime import datetime, timezone

TOP = 5


def seconds(duration):
    """An ISO-8601 duration as JFR prints it (PT0.012S, PT1M2.5S) in seconds."""
    m = re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", duration)
    if not m:
        raise ValueError(f"not a JFR duration: {duration}")
    h, mins, s = m.groups()
    return int(h or 0) * 3600 + int(mins or 0) * 60 + float(s or 0)


def epoch(instant):
    """A JFR instant (2026-11-28T00:36:02.063137819Z) in epoch seconds."""
    whole, _, fraction = instant.rstrip("Z").partition(".")
    start = datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return start.timestamp() + (float("0." + fraction) if fraction else 0.0)


def class_name(jfr_type):
    """A JFR type name as Java spells it; a lambda's hidden class (JFR gives
    io/x/Feed$$Lambda$83+0x00007f8c8c007a08/1545242146) as its outer class's name and $$Lambda."""
    return re.sub(r"\$\$Lambda\$.*$", "$$Lambda", jfr_type).replace("/", ".")


def compilations(recording):
    printed = subprocess.run(
        ["jfr", "print", "--json", "--events", "jdk.Compilation", recording],
        check=True, capture_output=True, text=True).stdout
    for event in json.loads(printed)["recording"]["events"]:
        v = event["values"]
        method = v["method"]
        yield {
            "start": epoch(v["startTime"]),
            "seconds": seconds(v["duration"]),
            "level": v["compileLevel"],
            "name": class_name(method["type"]["name"]) + "." + method["name"],
            "inlined": v.get("inlinedBytes") or 0,
        }


def summary(recording, first, last):
    c2 = [c for c in compilations(recording) if c["level"] == 4 and first <= c["start"] <= last]
    total = sum(c["seconds"] for c in c2)
    own = sum(c["seconds"] for c in c2 if c["name"].startswith("io.servicehooks."))
    largest = sorted(c2, key=lambda c: -c["seconds"])[:TOP]
    top = "; ".join(f"{'.'.join(c['name'].split('.')[-2:])} {1000 * c['seconds']:.0f} ms"
                    f" ({c['inlined']:,} bytes inlined)" for c in largest)
    return (f"C2 during the events: {len(c2)} compilations, {total:.2f} s wall"
            f" ({own:.2f} s on io.servicehooks); largest: {top}")


def whole(recording, top=10):
    """Every C2 compilation of the recording, and the largest of io.servicehooks, one per line."""
    c2 = [c for c in compilations(recording) if c["level"] == 4]
    own = [c for c in c2 if c["name"].startswith("io.servicehooks.")]
    lines = [f"C2: {len(c2)} compilations, {sum(c['seconds'] for c in c2):.2f} s wall;"
             f" io.servicehooks: {len(own)}, {sum(c['seconds'] for c in own):.2f} s,"
             f" {sum(c['inlined'] for c in own):,} bytes inlined"]
    for c in sorted(own, key=lambda c: -c["seconds"])[:top]:
        lines.append(f"  {1000 * c['seconds']:6.0f} ms {c['inlined']:7,} bytes inlined"
                     f"  {'.'.join(c['name'].split('.')[-2:])}")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) == 2:
        print(whole(sys.argv[1]))
    elif len(sys.argv) == 4:
        print(summary(sys.argv[1], float(sys.argv[2]), float(sys.argv[3])))
    else:
        sys.exit(__doc__)
