#!/usr/bin/env python3
"""Runs the stream cells of benchmarks/stream.sh and prints one line per cell.

For each round and each client, alternating: start the fake (fake_stream.py, pinned to FAKE_CPU),
start the client pinned to CLIENT_CPU with its stdout to a file, and follow that file: the CPU of
the client process (utime + stime of all its threads, /proc/<pid>/stat) is read when the first
"Handled " line appears, at EVENTS/2 and at EVENTS. CPU per event is over the lines between the
first and the last (start-up excluded); the warm half is over the second half only. events/s is
wall clock over the same lines. For a JVM, the part of that CPU its JIT compiler threads (C1 and
C2) spent over the same lines is printed beside it. With COMPILATIONS=1 each JVM records its
JIT compilations (compilations.jfc) and a second line says what C2 compiled between the first and
the last line (compilations.py).
"""
import os
import signal
import subprocess
import sys
import time

import compilations

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def start_fake(events, fake_cpu):
    fake = subprocess.Popen(
        ["taskset", "-c", fake_cpu, sys.executable, os.path.join(HERE, "fake_stream.py"), str(events)],
        stdout=subprocess.PIPE, text=True)
    line = fake.stdout.readline().split()
    assert line[0] == "port", line
    return fake, int(line[1])


def per_thread(pid, file, read):
    """Sums read(text of /proc/<pid>/task/<tid>/<file>) per thread name, the trailing number of a
    pool's threads dropped; read gives a tuple, so several counts are summed at once."""
    out = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/{file}") as f:
                name, values = read(f.read())
        except OSError:
            continue
        name = name.rstrip("0123456789-")
        out[name] = tuple(a + b for a, b in zip(out.get(name, (0,) * len(values)), values))
    return out


def threads(pid):
    """CPU seconds per thread name (threads of one name summed), for THREADS=1."""
    def cpu(stat):
        fields = stat.rsplit(")", 1)[1].split()
        return stat[stat.index("(") + 1:stat.rindex(")")], ((int(fields[11]) + int(fields[12])) / TICK,)
    return {name: v[0] for name, v in per_thread(pid, "stat", cpu).items()}


def switches(pid):
    """Voluntary and involuntary context switches per thread name, for THREADS=1: a hand-off that
    parks and wakes a thread shows as voluntary switches of both sides."""
    def counts(text):
        status = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        return status["Name"].strip(), (int(status["voluntary_ctxt_switches"]),
                                        int(status["nonvoluntary_ctxt_switches"]))
    return per_thread(pid, "status", counts)


def compiler_seconds(pid):
    """CPU seconds of the JVM's JIT compiler threads (C1 and C2); 0 for a process without them."""
    return sum(v for k, v in threads(pid).items() if k.startswith(("C1 CompilerThre", "C2 CompilerThre")))


def follow(path, pid, events, timeout):
    """Counts "Handled " lines as the file grows; returns the samples (t, cpu, jit cpu) at first,
    half and last."""
    seen, marks, tail = 0, {}, b""
    targets = {1: "first", events // 2: "half", events: "last"}
    deadline = time.monotonic() + timeout
    with open(path, "rb") as f:
        while time.monotonic() < deadline:
            data = f.read(1 << 20)
            if not data:
                time.sleep(0.005)
                continue
            data = tail + data
            cut = data.rfind(b"\n") + 1
            tail = data[cut:]
            before = seen
            seen += data[:cut].count(b"Handled ")
            for target in [t for t in targets if before < t <= seen]:
                marks[targets[target]] = (time.monotonic(), cpu_seconds(pid), compiler_seconds(pid),
                                          time.time())
            if seen >= events:
                if os.environ.get("THREADS"):
                    top = sorted(threads(pid).items(), key=lambda kv: -kv[1])[:8]
                    sw = switches(pid)
                    print("  threads (CPU, voluntary/involuntary switches): " + ", ".join(
                        f"{k} {v:.2f}s {'{:,}/{:,}'.format(*sw.get(k, (0, 0)))}" for k, v in top),
                        flush=True)
                return marks, seen
    return marks, seen


def run_cell(name, command, env, events, client_cpu, fake_cpu, out_dir, timeout):
    fake, port = start_fake(events, fake_cpu)
    base = f"http://127.0.0.1:{port}"
    log_path = os.path.join(out_dir, f"{name}.log")
    recording = os.path.join(out_dir, f"{name}.jfr")
    if os.path.exists(recording):
        os.remove(recording)
    with open(log_path, "wb") as log:
        client = subprocess.Popen(
            ["taskset", "-c", client_cpu]
            + [c.replace("{base}", base).replace("{recording}", recording) for c in command],
            stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, **{k: v.replace("{base}", base) for k, v in env.items()}})
    try:
        marks, seen = follow(log_path, client.pid, events, timeout)
    finally:
        client.send_signal(signal.SIGTERM)
        try:
            client.wait(20)
        except subprocess.TimeoutExpired:
            client.kill()
        fake.kill()
        fake.wait()
    if "last" not in marks:
        return f"{name}: only {seen} of {events} events within {timeout} s (see {log_path})"
    (t0, c0, j0, w0), (th, ch, jh, _), (t1, c1, j1, w1) = marks["first"], marks["half"], marks["last"]
    n, half = events - 1, events - events // 2
    jit = f", JIT {1e6 * (j1 - j0) / n:.2f} of it" if j1 > j0 else ""
    line = (f"{name}: {n / (t1 - t0):,.0f} events/s, {1e6 * (c1 - c0) / n:.2f} us CPU/event{jit}"
            f" (warm half {1e6 * (c1 - ch) / half:.2f}), wall {t1 - t0:.1f} s")
    if os.path.exists(recording):  # written by the JVM as it exits
        try:
            line += "\n  " + compilations.summary(recording, w0, w1)
        except (subprocess.CalledProcessError, ValueError, KeyError) as unreadable:
            line += f"\n  no compilations read from {recording}: {unreadable}"
    return line


def main():
    events = int(os.environ.get("EVENTS", "1000000"))
    rounds = int(os.environ.get("ROUNDS", "3"))
    client_cpu = os.environ.get("CLIENT_CPU", "0")
    fake_cpu = os.environ.get("FAKE_CPU", "1")
    out_dir = os.environ.get("OUT_DIR", "/tmp/servicehooks-stream-bench")
    timeout = float(os.environ.get("CELL_TIMEOUT", "300"))
    os.makedirs(out_dir, exist_ok=True)
    jar = os.environ["CONSUMER_JAR"]
    jvm = os.environ.get("JVM_FLAGS", "").split()
    if os.environ.get("COMPILATIONS") == "1":
        jvm.append("-XX:StartFlightRecording=filename={recording},settings="
                   + os.path.join(HERE, "compilations.jfc"))
    clients = {
        "servicehooks": (["java"] + jvm + ["-jar", jar], {
            "DELIVERY": "stream", "SERVICE_API_BASE_URL": "{base}",
            "SERVICE_BEARER_TOKEN": "bench-token", "SERVICE_CONSUMER_SECRET": "bench-secret",
            "PORT": "0"}),
        "tweepy": (["/usr/bin/python3", os.path.join(HERE, "tweepy_peer.py"), "{base}"], {}),
    }
    extra = os.environ.get("EXTRA_CONSUMER_JAR")  # a second build, measured in the same run
    if extra:
        clients["servicehooks-prev"] = (["java"] + jvm + ["-jar", extra], clients["servicehooks"][1])
    only = os.environ.get("CLIENTS")
    names = only.split() if only else list(clients)
    for r in range(1, rounds + 1):
        for name in (names if r % 2 else list(reversed(names))):
            command, env = clients[name]
            print(f"round {r} " + run_cell(f"{name}-r{r}", command, env, events, client_cpu,
                                           fake_cpu, out_dir, timeout), flush=True)


if __name__ == "__main__":
    main()
