#!/usr/bin/env python3
"""The cells of benchmarks/startup.sh: time from `java -jar` to the first event handled, and the
resident memory (VmRSS) idle and after a load, for the standalone consumer with each JVM option
set; and the wall time of one short CLI command with each option set. Rounds alternate the
order; medians are printed with every round's figure.

The consumer reads the stream fake (fake_stream.py) in DELIVERY=stream, twice per option set: once
on a fake that sends 10 events and then only keep-alives ("first event" from the launch to its
first "Handled " line, "RSS idle" two seconds after the tenth), once on a fake that sends EVENTS
("RSS loaded" once they are handled).
"""
import os
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def consumer_cell(jar, flags, events, cpu, settle=0.0):
    fake = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_stream.py"), str(events), "4096"],
                            stdout=subprocess.PIPE, text=True)
    port = int(fake.stdout.readline().split()[1])
    env = {**os.environ, "DELIVERY": "stream", "SERVICE_API_BASE_URL": f"http://127.0.0.1:{port}",
           "SERVICE_BEARER_TOKEN": "bench-token", "SERVICE_CONSUMER_SECRET": "s" * 40, "PORT": "0"}
    t0 = time.monotonic()
    p = subprocess.Popen(["taskset", "-c", cpu, "java"] + flags + ["-jar", jar],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    first = idle = loaded = None
    handled = 0
    warnings = []
    try:
        deadline = t0 + 120
        for line in p.stdout:
            if b"[warning]" in line or b"[error]" in line:
                warnings.append(line.decode(errors="replace").strip())
            if b"Handled " in line:
                handled += 1
                if first is None:
                    first = time.monotonic() - t0
                    idle_at = time.monotonic() + 1.0
                if idle is None and time.monotonic() >= idle_at:
                    idle = rss_mb(p.pid)
                if handled >= events:
                    time.sleep(settle)
                    loaded = rss_mb(p.pid)
                    break
            if time.monotonic() > deadline:
                break
        if idle is None and first is not None:
            time.sleep(max(0.0, idle_at - time.monotonic()))
            idle = rss_mb(p.pid)
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
        fake.kill()
        fake.wait()
    return first, idle, loaded, warnings


def cli_cell(jar, flags, args):
    t0 = time.monotonic()
    r = subprocess.run(["java"] + flags + ["-jar", jar] + args, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return time.monotonic() - t0, r.returncode


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")


def main():
    rounds = int(os.environ.get("ROUNDS", "5"))
    events = int(os.environ.get("EVENTS", "200000"))
    cpu = os.environ.get("CLIENT_CPU", "0")
    jar = os.environ["CONSUMER_JAR"]
    jsa = os.environ["CONSUMER_JSA"]
    cli = os.environ.get("CLI_JAR")
    sets = {
        "default": [],
        "cds (the build's archive)": [f"-XX:SharedArchiveFile={jsa}"],
        "C1 only (-XX:TieredStopAtLevel=1)": ["-XX:TieredStopAtLevel=1"],
    }
    results = {name: [] for name in sets}
    for r in range(rounds):
        order = list(sets) if r % 2 == 0 else list(reversed(sets))
        for name in order:
            first, _, idle, warnings = consumer_cell(jar, sets[name], 10, cpu, settle=2.0)
            _, _, loaded, _ = consumer_cell(jar, sets[name], events, cpu)
            results[name].append((first, idle, loaded))
            note = f"  ({warnings[0]})" if warnings else ""
            print(f"round {r + 1} consumer {name}: first event {first * 1000:.0f} ms, RSS idle"
                  f" {idle:.0f} MB, loaded {loaded:.0f} MB{note}", flush=True)
    print("\n| standalone consumer, DELIVERY=stream | first event handled (median) | RSS idle | RSS after"
          f" {events:,} events |\n|---|---:|---:|---:|")
    for name, rows in results.items():
        print(f"| {name} | {median([x[0] for x in rows]) * 1000:.0f} ms"
              f" ({', '.join(f'{x[0] * 1000:.0f}' for x in rows)}) | {median([x[1] for x in rows]):.0f} MB"
              f" | {median([x[2] for x in rows]):.0f} MB |")
    if cli:
        args = os.environ.get("CLI_ARGS", "--help").split()
        cli_sets = {"default": [], "C1 only (-XX:TieredStopAtLevel=1)": ["-XX:TieredStopAtLevel=1"],
                    "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC": ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]}
        cli_results = {name: [] for name in cli_sets}
        for r in range(rounds):
            for name in (list(cli_sets) if r % 2 == 0 else list(reversed(cli_sets))):
                cli_results[name].append(cli_cell(cli, cli_sets[name], args)[0])
        print(f"\n| `servicehooks {' '.join(args)}` | wall time (median) |\n|---|---:|")
        for name, rows in cli_results.items():
            print(f"| {name} | {median(rows) * 1000:.0f} ms ({', '.join(f'{x * 1000:.0f}' for x in rows)}) |")


if __name__ == "__main__":
    main()
