#!/usr/bin/env python3
"""The cells of benchmarks/startup.sh: time from `java -jar` to the first event handled, and the
resident memory (VmRSS) idle and under load, for each program with each JVM option set; and the
wall time of one short CLI command with each option set. Rounds alternate the order of the option
sets; medians are printed with every round's figure, and ratios against the first set (plain
`java -jar`) of the same run.

CELLS (default "stream webhook bot listen help") picks the programs:

stream   the standalone consumer in DELIVERY=stream on the stream fake (fake_stream.py), twice per
         option set: on a fake that sends 10 events, then only keep-alives ("first event": from the
         launch to its first "Handled " line; "RSS idle": two seconds after the tenth), and on one
         that sends EVENTS (VmRSS sampled every 0.25 s while they are handled; the peak is VmHWM).
webhook  the standalone consumer in webhook mode (LOG_EVENTS as shipped: one line per event). A
         prober sends the pool's first signed delivery as soon as the port accepts ("first event":
         from the launch to the "Handled " line); "RSS idle" two seconds later; then wrk
         (benchmarks/load.lua, workload new, CONNECTIONS connections, pinned to LOAD_CPU) sends
         LOAD_SECONDS of further distinct deliveries from the pool, VmRSS sampled every 0.5 s.
bot      samples/spring-bot's jar, measured as the webhook cell (its "Post " log line; logging as
         shipped: INFO, one line per post), as the fat jar, extracted (java -Djarmode=tools ...
         extract), and extracted with its CDS archive.
listen   the CLI's `listen --json` on the stream fake, measured as the stream cell (one stdout line
         per event).
help     the CLI's CLI_ARGS (default --help): wall time.

The programs run pinned to CPU CLIENT_CPU. Settings: ROUNDS=5 EVENTS=200000 CLIENT_CPU=0
LOAD_CPU=1 LOAD_SECONDS=15 CONNECTIONS=16 PORT=18091 CLI_ARGS=--help. Paths (set by startup.sh):
CONSUMER_JAR CONSUMER_JSA CLI_JAR CLI_JSA BOT_JAR BOT_EXTRACTED_JAR BOT_JSA POOL LOAD_LUA.
"""
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SECRET = "bench-consumer-secret-0123456789abcdef"  # the pool is signed with it; not a real secret


def proc_mb(pid, field="VmRSS"):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def cpu_s(pid):
    """CPU time (user + system, every thread) the process has used so far, in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def jvm_notes(text):
    """The JVM's warning or error lines (a CDS archive it could not map prints one)."""
    return [ln.strip() for ln in text.splitlines() if "[warning]" in ln or "[error]" in ln]


def stream_cell(cmd, env, marker, events, cpu):
    """One start on the stream fake: (first event s, CPU s by then, RSS idle, RSS samples, VmHWM,
    notes).

    With events <= 10 it measures the first event and the idle RSS; else the RSS while events are
    handled (samples every 0.25 s) and the peak once they all are.
    """
    fake = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_stream.py"), str(events), "4096"],
                            stdout=subprocess.PIPE, text=True)
    port = int(fake.stdout.readline().split()[1])
    env = {**os.environ, **env, "SERVICE_API_BASE_URL": f"http://127.0.0.1:{port}",
           "SERVICE_BEARER_TOKEN": "bench-token"}
    t0 = time.monotonic()
    p = subprocess.Popen(["taskset", "-c", cpu, "java"] + cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env)
    first = cpu = idle = hwm = None
    samples = []
    handled = 0
    notes = []
    try:
        deadline = t0 + 120
        next_sample = 0.0
        for line in p.stdout:
            if b"[warning]" in line or b"[error]" in line:
                notes.append(line.decode(errors="replace").strip())
            if marker in line:
                handled += 1
                now = time.monotonic()
                if first is None:
                    first = now - t0
                    cpu = cpu_s(p.pid)
                if events > 10 and now >= next_sample:
                    samples.append(proc_mb(p.pid))
                    next_sample = now + 0.25
                if handled >= events:
                    break
            if time.monotonic() > deadline:
                break
        if first is not None and events <= 10:
            time.sleep(max(0.0, t0 + first + 2.0 - time.monotonic()))
            idle = proc_mb(p.pid)
        hwm = proc_mb(p.pid, "VmHWM")
    finally:
        stop(p)
        fake.kill()
        fake.wait()
    return first, cpu, idle, samples, hwm, notes


def pool_record(pool, index):
    with open(pool, "rb") as f:
        header = f.readline()
        size = int(header.split()[2])
        f.seek(len(header) + index * size)
        return f.read(size)


def probe(port, record, stop_at):
    """Sends one signed delivery as soon as the port accepts a connection; its status code."""
    while time.monotonic() < stop_at:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                s.sendall(record)
                return s.recv(64).split(b" ", 2)[1].decode()
        except (ConnectionRefusedError, ConnectionResetError):
            time.sleep(0.005)
        except (OSError, IndexError) as e:
            return f"probe failed: {e}"
    return "probe timed out"


def webhook_cell(cmd, env, marker, cpu, s, workdir):
    """One start in webhook mode: (first s, CPU s by then, RSS idle, RSS samples under load, VmHWM,
    req/s, notes)."""
    log_path = os.path.join(workdir, "server.log")
    env = {**os.environ, **env}
    with open(log_path, "wb") as log:
        t0 = time.monotonic()
        p = subprocess.Popen(["taskset", "-c", cpu, "java"] + cmd, stdout=log, stderr=subprocess.STDOUT,
                             env=env, cwd=workdir)
    first = cpu = idle = hwm = rps = None
    samples = []
    status = []
    try:
        prober = threading.Thread(target=lambda: status.append(
            probe(s["port"], pool_record(s["pool"], 0), t0 + 120)), daemon=True)
        prober.start()
        with open(log_path, "rb") as watch:
            seen = b""
            while first is None and time.monotonic() < t0 + 120 and p.poll() is None:
                chunk = watch.read()
                if chunk:
                    seen = seen[-len(marker):] + chunk
                    if marker in seen:
                        first = time.monotonic() - t0
                        cpu = cpu_s(p.pid)
                        break
                else:
                    time.sleep(0.002)
        if first is None:
            prober.join(1)
            raise RuntimeError(f"no {marker!r} within 120 s (probe: {status}); see {log_path}:\n"
                               + open(log_path, errors="replace").read()[-2000:])
        time.sleep(max(0.0, t0 + first + 2.0 - time.monotonic()))
        idle = proc_mb(p.pid)
        loaded = os.path.join(workdir, "loaded")
        wrk = subprocess.Popen(
            ["taskset", "-c", s["load_cpu"], "wrk", "-t1", f"-c{s['connections']}", f"-d{s['load_seconds']}s",
             "--latency", "-s", s["lua"], f"http://127.0.0.1:{s['port']}/webhooks", "--", "new", s["pool"],
             "1", str(s["pool_count"] - 1), loaded],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        while not os.path.exists(loaded) and wrk.poll() is None:
            time.sleep(0.05)
        while wrk.poll() is None:
            time.sleep(0.5)
            samples.append(proc_mb(p.pid))
        out = wrk.stdout.read()
        result = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
        if not result:
            raise RuntimeError("wrk: " + out[-1000:])
        fields = dict(kv.split("=") for kv in result[0].split()[1:])
        rps = float(fields["rps"])
        if fields["errors"] != "0" or fields["wrapped"] != "0":
            print(f"  note: wrk errors={fields['errors']} wrapped={fields['wrapped']}", flush=True)
        hwm = proc_mb(p.pid, "VmHWM")
    finally:
        stop(p)
    with open(log_path, errors="replace") as f:
        notes = jvm_notes(f.read(200000))
    os.remove(log_path)
    return first, cpu, idle, samples, hwm, rps, notes


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")


def ms(x):
    return f"{x * 1000:,.0f}"


def table(title, load_title, results):
    """results: {set name: [(first s, idle MB, under-load MB, peak MB, CPU s, ...)]} -> markdown,
    with ratios against the first set."""
    names = list(results)
    base = [median([r[i] for r in results[names[0]]]) for i in range(5)]
    lines = [f"| {title} | first event handled (median) | CPU time until then | RSS idle | {load_title}"
             " | peak RSS (VmHWM) |", "|---|---:|---:|---:|---:|---:|"]

    def ratio(name, value, i):
        return "" if name == names[0] else f": {value / base[i]:.2f}×"

    for name in names:
        rows = results[name]
        first, idle, load, peak, cpu = (median([r[i] for r in rows]) for i in range(5))
        lines.append(f"| {name} | {ms(first)} ms ({' · '.join(ms(r[0]) for r in rows)}){ratio(name, first, 0)}"
                     f" | {ms(cpu)} ms{ratio(name, cpu, 4)}"
                     f" | {idle:.0f} MB ({' · '.join(f'{r[1]:.0f}' for r in rows)}){ratio(name, idle, 1)}"
                     f" | {load:.0f} MB ({' · '.join(f'{r[2]:.0f}' for r in rows)}){ratio(name, load, 2)}"
                     f" | {peak:.0f} MB |")
    return "\n".join(lines)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run_rounds(label, sets, rounds, cell):
    """Calls cell(name, flags) per set per round, the order reversed every other round."""
    results = {name: [] for name in sets}
    for r in range(rounds):
        for name in (list(sets) if r % 2 == 0 else list(reversed(sets))):
            row, text = cell(name, sets[name])
            results[name].append(row)
            print(f"round {r + 1} {label} {name}: {text} (load {loadavg()})", flush=True)
    return results


def train_cli(archive):
    """A training run of the CLI's `listen` on the fake (10 events, then SIGTERM), writing its CDS
    archive: the classes a listen that prints events loads."""
    fake = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_stream.py"), "10", "4096"],
                            stdout=subprocess.PIPE, text=True)
    port = int(fake.stdout.readline().split()[1])
    env = {**os.environ, "SERVICE_API_BASE_URL": f"http://127.0.0.1:{port}", "SERVICE_BEARER_TOKEN": "bench-token"}
    p = subprocess.Popen(["java", f"-XX:ArchiveClassesAtExit={archive}", "-jar", os.environ["CLI_JAR"], "listen",
                          "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        handled = 0
        for line in p.stdout:
            if line.startswith(b'{"received_at"'):
                handled += 1
                if handled == 10:
                    break
    finally:
        stop(p)
        fake.kill()
        fake.wait()
    print(f"[startup] wrote {archive}", file=sys.stderr)


def main():
    # Killed: the finally blocks still stop what was started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if sys.argv[1:2] == ["train-cli"]:
        train_cli(sys.argv[2])
        return
    rounds = int(os.environ.get("ROUNDS", "5"))
    events = int(os.environ.get("EVENTS", "200000"))
    cpu = os.environ.get("CLIENT_CPU", "0")
    cells = os.environ.get("CELLS", "stream webhook bot listen help").split()
    s = {"port": int(os.environ.get("PORT", "18091")), "load_cpu": os.environ.get("LOAD_CPU", "1"),
         "connections": int(os.environ.get("CONNECTIONS", "16")),
         "load_seconds": int(os.environ.get("LOAD_SECONDS", "15")), "pool": os.environ.get("POOL"),
         "lua": os.environ.get("LOAD_LUA")}
    if s["pool"]:
        with open(s["pool"], "rb") as f:
            s["pool_count"] = int(f.readline().split()[1])
    jar = os.environ["CONSUMER_JAR"]
    jsa = os.environ["CONSUMER_JSA"]
    cli = os.environ.get("CLI_JAR")
    cli_jsa = os.environ.get("CLI_JSA", "")
    bot = os.environ.get("BOT_JAR")
    workdir = tempfile.mkdtemp(prefix="servicehooks-startup-")
    print(f"load average at start: {loadavg()}", flush=True)
    out = []
    try:
        consumer_sets = {
            "`java -jar`": ["-jar", jar],
            "with the build's CDS archive": [f"-XX:SharedArchiveFile={jsa}", "-jar", jar],
            "C1 only (`-XX:TieredStopAtLevel=1`)": ["-XX:TieredStopAtLevel=1", "-jar", jar],
        }
        stream_env = {"DELIVERY": "stream", "SERVICE_CONSUMER_SECRET": "s" * 40, "PORT": "0"}

        def stream(name, cmd, env=stream_env, marker=b"Handled "):
            first, used, idle, _, _, notes = stream_cell(cmd, env, marker, 10, cpu)
            _, _, _, samples, hwm, _ = stream_cell(cmd, env, marker, events, cpu)
            row = (first, idle, median(samples), hwm, used)
            note = f"  ({notes[0]})" if notes else ""
            return row, (f"first event {ms(first)} ms (CPU {ms(used)} ms), RSS idle {idle:.0f} MB, under load"
                         f" {row[2]:.0f} MB ({len(samples)} samples), peak {hwm:.0f} MB{note}")

        def webhook(env, marker):
            def cell(name, cmd):
                first, used, idle, samples, hwm, rps, notes = webhook_cell(cmd, env, marker, cpu, s, workdir)
                note = f"  ({notes[0]})" if notes else ""
                return (first, idle, median(samples), hwm, used, rps), (
                    f"first event {ms(first)} ms (CPU {ms(used)} ms), RSS idle {idle:.0f} MB, under load {median(samples):.0f} MB"
                    f" ({len(samples)} samples, {rps:,.0f} req/s), peak {hwm:.0f} MB{note}")
            return cell

        if "stream" in cells:
            res = run_rounds("consumer stream", consumer_sets, rounds, stream)
            out.append(table("standalone consumer, `DELIVERY=stream`",
                             f"RSS while {events:,} events are handled", res))
        if "webhook" in cells:
            env = {"PORT": str(s["port"]), "HOST": "127.0.0.1", "SERVICE_CONSUMER_SECRET": SECRET,
                   "IGNORE_OWN_EVENTS": "false"}
            sets = {k: v for k, v in consumer_sets.items() if "C1" not in k}
            res = run_rounds("consumer webhook", sets, rounds, webhook(env, b"Handled "))
            out.append(table("standalone consumer, webhook", f"RSS under load ({s['load_seconds']} s of wrk)", res)
                       + "\n\nwrk req/s (median): "
                       + ", ".join(f"{k} {median([r[5] for r in v]):,.0f}" for k, v in res.items()))
        if "bot" in cells and bot:
            extracted = os.environ.get("BOT_EXTRACTED_JAR", "")
            bot_jsa = os.environ.get("BOT_JSA", "")
            sets = {"`java -jar` (the fat jar)": ["-jar", bot]}
            if os.path.isfile(extracted):
                sets["extracted (`-Djarmode=tools extract`)"] = ["-jar", extracted]
                if os.path.isfile(bot_jsa):
                    sets["extracted, with the build's CDS archive"] = [
                        f"-XX:SharedArchiveFile={bot_jsa}", "-jar", extracted]
            env = {"PORT": str(s["port"]), "SERVER_ADDRESS": "127.0.0.1", "SERVICE_CONSUMER_SECRET": SECRET,
                   "SERVICEHOOKS_WEBHOOK_IGNOREOWNEVENTS": "false"}
            res = run_rounds("spring bot", sets, rounds, webhook(env, b"Post "))
            out.append(table("Spring bot (`servicehooks-spring-bot.jar`)",
                             f"RSS under load ({s['load_seconds']} s of wrk)", res)
                       + "\n\nwrk req/s (median): "
                       + ", ".join(f"{k} {median([r[5] for r in v]):,.0f}" for k, v in res.items()))
        if "listen" in cells and cli:
            sets = {"`java -jar`": ["-jar", cli, "listen", "--json"],
                    "C1 only (`-XX:TieredStopAtLevel=1`)": ["-XX:TieredStopAtLevel=1", "-jar", cli,
                                                            "listen", "--json"]}
            if os.path.isfile(cli_jsa):
                sets["CDS archive"] = [f"-XX:SharedArchiveFile={cli_jsa}", "-jar", cli, "listen", "--json"]
                sets["CDS archive and C1 only"] = [f"-XX:SharedArchiveFile={cli_jsa}", "-XX:TieredStopAtLevel=1",
                                                   "-jar", cli, "listen", "--json"]
            res = run_rounds("cli listen", sets, rounds,
                             lambda name, cmd: stream(name, cmd, {}, b'{"received_at"'))
            out.append(table("`servicehooks listen --json` (CLI jar)",
                             f"RSS while {events:,} events are printed", res))
        if "help" in cells and cli:
            args = os.environ.get("CLI_ARGS", "--help").split()
            sets = {"`java -jar`": [], "C1 only (`-XX:TieredStopAtLevel=1`)": ["-XX:TieredStopAtLevel=1"]}
            if os.path.isfile(cli_jsa):
                sets["CDS archive and C1 only"] = [f"-XX:SharedArchiveFile={cli_jsa}", "-XX:TieredStopAtLevel=1"]

            def help_cell(name, flags):
                t0 = time.monotonic()
                subprocess.run(["java"] + flags + ["-jar", cli] + args, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                wall = time.monotonic() - t0
                return wall, f"{ms(wall)} ms"

            res = run_rounds("cli " + " ".join(args), sets, rounds, help_cell)
            base = median(res["`java -jar`"])
            lines = [f"| `servicehooks {' '.join(args)}` | wall time (median) |", "|---|---:|"]
            for name, rows in res.items():
                ratio = "" if name == "`java -jar`" else f": {median(rows) / base:.2f}×"
                lines.append(f"| {name} | {ms(median(rows))} ms ({' · '.join(ms(x) for x in rows)}){ratio} |")
            out.append("\n".join(lines))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nload average at end: {loadavg()}\n")
    print("\n\n".join(out))


if __name__ == "__main__":
    main()
