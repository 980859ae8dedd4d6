#!/usr/bin/env python3
"""Startup benchmark: time from exec to an interactive window, and resident memory of all the
app's processes (the Rust process and WebKit's web and network processes), for Tandem and for an
empty Tauri 2 app built the same way (release, embedded frontend). Runs under the current
DISPLAY (use xvfb-run). Prints a Markdown table and, with --write, puts it in docs/benchmarks.md
between the startup markers.

Each app runs RUNS times in a fresh config/data folder; the medians are reported. The page cache
is warm after the first run (dropping it needs root), so this is a warm start; the first run's
time is shown too."""

import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 11
SETTLE_S = 1.5


def children(pid):
    """All descendants of pid, from /proc."""
    by_parent = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        by_parent.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in by_parent.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_once(binary, args, env):
    start = time.monotonic()
    proc = subprocess.Popen([binary, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
                            start_new_session=True)
    ready_ms = None
    deadline = start + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("READY"):
            ready_ms = (time.monotonic() - start) * 1000
            break
    if ready_ms is None:
        proc.kill()
        raise SystemExit(f"{binary} never reported READY")
    time.sleep(SETTLE_S)
    pids = [proc.pid, *children(proc.pid)]
    total = sum(rss_kib(p) for p in pids)
    # The whole group: WebKit's processes too, before their folders are removed.
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    time.sleep(0.3)
    return ready_ms, total / 1024, len(pids)


def measure(name, binary, args, extra_env=None):
    times, mems, nprocs = [], [], 0
    for _ in range(RUNS):
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
            env = dict(os.environ, **(extra_env or {}), TANDEM_BENCH_READY="1", TANDEM_CONFIG_DIR=f"{tmp}/config",
                       TANDEM_DATA_DIR=f"{tmp}/data", TANDEM_NO_KEYCHAIN="1", HOME=tmp)
            t, m, n = run_once(binary, args, env)
            times.append(t)
            mems.append(m)
            nprocs = n
    return {"name": name, "first": times[0], "median": statistics.median(times), "rss": statistics.median(mems), "procs": nprocs,
            "all": sorted(round(t) for t in times)}


def main():
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    tandem = os.path.join(target, "release", "tandem")
    empty = os.path.join(target, "release", "empty-tauri-app")
    project = tempfile.mkdtemp(prefix="tandem-bench-")
    with open(os.path.join(project, "README.md"), "w") as f:
        f.write("# bench\n")
    env_preset = ["--project", project]
    os.environ.update(TANDEM_PROVIDER="openai", TANDEM_BASE_URL="http://127.0.0.1:9/v1", TANDEM_MODEL="none")
    rows = [
        measure("empty Tauri 2 app", empty, []),
        measure("Tandem (a project open)", tandem, env_preset),
        # For comparison: Tandem forced to keep WebKit's GL compositing even without a GPU.
        measure("Tandem, GL compositing forced on (TANDEM_GPU=1)", tandem, env_preset, {"TANDEM_GPU": "1"}),
    ]
    base = rows[0]
    lines = [
        "| app | interactive, median of %d (ms) | first run (ms) | resident memory, all processes (MiB) | processes |" % RUNS,
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append("| %s | %.0f | %.0f | %.0f | %d |" % (r["name"], r["median"], r["first"], r["rss"], r["procs"]))
    t = rows[1]
    lines.append("")
    for r in rows:
        lines.append("- %s, every run (ms): %s" % (r["name"], ", ".join(str(x) for x in r["all"])))
    lines.append("")
    lines.append("Ratio Tandem / empty: start %.2f×, memory %.2f× (goal ≤ 1.3× on both)." % (t["median"] / base["median"], t["rss"] / base["rss"]))
    table = "\n".join(lines)
    print(table)
    if "--write" in sys.argv:
        path = "docs/benchmarks.md"
        text = open(path).read()
        block = "<!-- startup:begin -->\n" + table + "\n<!-- startup:end -->"
        if "<!-- startup:begin -->" in text:
            text = re.sub(r"<!-- startup:begin -->.*?<!-- startup:end -->", lambda _: block, text, flags=re.S)
        else:
            text += "\n## Desktop app: startup and memory\n\n`make bench-startup` (release builds, under Xvfb, this machine).\n\n" + block + "\n"
        open(path, "w").write(text)


if __name__ == "__main__":
    main()
