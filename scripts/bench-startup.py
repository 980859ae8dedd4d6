#!/usr/bin/env python3
"""Startup benchmark: time from exec to an interactive window, and the memory of all the app's
processes (the Rust process and WebKit's web and network processes), for Tandem and for an
empty Tauri 2 app built the same way (release, embedded frontend). Runs under the current
DISPLAY (use xvfb-run). Prints Markdown and, with --write, puts it in docs/benchmarks.md between
the startup markers.

The two apps run in turn (empty, Tandem, empty, ...) RUNS times each, each run in a fresh
config/data folder, so the machine's noise falls on both; medians are reported and every run is
listed. Memory is given two ways: PSS (proportional: a page shared by WebKit's processes counts
once in total) and RSS (what `ps` shows: a shared page counts once per process). Tandem also
prints where its start went (`MARK` lines: the Rust side's moments and the window's, on one
clock); their medians make the breakdown table. The page cache is warm after the first run
(dropping it needs root), so this is a warm start."""

import http.server
import json
import os
import re
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

RUNS = int(os.environ.get("BENCH_RUNS", "11"))
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


def memory_kib(pid):
    """(PSS, RSS) of one process in KiB, from smaps_rollup."""
    pss = rss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1])
                elif line.startswith("Rss:"):
                    rss = int(line.split()[1])
    except OSError:
        pass
    return pss, rss


def run_once(binary, args, env, after_ready=None):
    start = time.monotonic()
    proc = subprocess.Popen([binary, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                            start_new_session=True)
    ready_ms = None
    marks = {}
    deadline = start + 60
    fd = proc.stdout.fileno()
    pending = b""
    # Raw reads with a deadline: an app that never gets ready must not hang the benchmark (and
    # a buffered reader would hide lines already read from select).
    while ready_ms is None and time.monotonic() < deadline:
        readable, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not readable:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for raw in complete:
            line = raw.decode(errors="replace")
            if line.startswith("MARK "):
                _, at, name = line.split(" ", 2)
                marks.setdefault(name, float(at))
            elif line.startswith("READY"):
                ready_ms = (time.monotonic() - start) * 1000
                break
    if ready_ms is None:
        proc.kill()
        raise SystemExit(f"{binary} never reported READY")
    if after_ready:
        after_ready(proc)
    time.sleep(SETTLE_S)
    pids = [proc.pid, *children(proc.pid)]
    mem = [memory_kib(p) for p in pids]
    # The whole group: WebKit's processes too, before their folders are removed.
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    time.sleep(0.3)
    return {"ms": ready_ms, "pss": sum(m[0] for m in mem) / 1024, "rss": sum(m[1] for m in mem) / 1024,
            "procs": len(pids), "marks": marks}


class ModelServer:
    """A scripted OpenAI-compatible model on loopback: every chat request is answered with the
    same streamed reply (a few paragraphs of text, no tool call), as a real server streams it."""

    REPLY = ("Here is what I found in the project. " * 12 + "\n\n") * 6

    def __init__(self):
        self.answered = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                body = json.dumps({"object": "list", "data": [{"id": "bench-model", "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()

                def event(delta, finish=None, usage=None):
                    chunk = {"id": "bench", "object": "chat.completion.chunk", "created": 0, "model": "bench-model",
                             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                    if usage:
                        chunk["usage"] = usage
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    self.wfile.flush()

                event({"role": "assistant", "content": ""})
                words = server.REPLY.split(" ")
                for i in range(0, len(words), 8):
                    event({"content": " ".join(words[i:i + 8]) + " "})
                    time.sleep(0.005)
                event({}, "stop", {"prompt_tokens": 1200, "completion_tokens": 400, "total_tokens": 1600})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                server.answered.set()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


def xdotool(*args):
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, timeout=10).stdout.strip()


def one_turn(server):
    """Gives the window a task the way a person does (click the composer, type, Enter) and
    returns once the model's reply has streamed and the window has had a moment to show it."""

    def drive(proc):
        server.answered.clear()
        window = None
        for _ in range(50):
            found = xdotool("search", "--onlyvisible", "--pid", str(proc.pid), "--name", ".")
            if found:
                window = found.split()[-1]
                break
            time.sleep(0.1)
        if window is None:
            raise SystemExit("Tandem's window was not found (xdotool)")
        geometry = dict(line.split("=") for line in xdotool("getwindowgeometry", "--shell", window).split())
        width, height = int(geometry["WIDTH"]), int(geometry["HEIGHT"])
        # The composer's text box: the middle column, above the mode and Send rows (the window
        # opens at 1200×780; its bottom 180 px hold the box's lower part and those rows).
        xdotool("mousemove", "--window", window, str(width // 2), str(height - 180), "click", "1")
        xdotool("type", "--delay", "5", "Summarise this project in a few paragraphs")
        xdotool("key", "Return")
        if not server.answered.wait(30):
            raise SystemExit("the window sent no task to the model (the composer was not where the click went?)")
        time.sleep(2)

    return drive


class App:
    def __init__(self, name, binary, args, extra_env=None, after_ready=None):
        self.name, self.binary, self.args, self.extra_env = name, binary, args, extra_env or {}
        self.after_ready = after_ready
        self.runs = []

    def run(self):
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
            env = dict(os.environ, **self.extra_env, TANDEM_BENCH_READY="1", TANDEM_CONFIG_DIR=f"{tmp}/config",
                       TANDEM_DATA_DIR=f"{tmp}/data", TANDEM_NO_KEYCHAIN="1", HOME=tmp)
            self.runs.append(run_once(self.binary, self.args, env, self.after_ready))

    def median(self, key):
        return statistics.median(r[key] for r in self.runs)

    def every(self, key):
        return ", ".join(str(round(x)) for x in sorted(r[key] for r in self.runs))

    def mark_medians(self):
        names = {}
        for r in self.runs:
            for name, at in r["marks"].items():
                names.setdefault(name, []).append(at)
        return sorted(((statistics.median(v), n) for n, v in names.items() if len(v) * 2 > len(self.runs)))


def main():
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    tandem = os.path.join(target, "release", "tandem")
    empty = os.path.join(target, "release", "empty-tauri-app")
    project = tempfile.mkdtemp(prefix="tandem-bench-")
    with open(os.path.join(project, "README.md"), "w") as f:
        f.write("# bench\n")
    os.environ.update(TANDEM_PROVIDER="openai", TANDEM_BASE_URL="http://127.0.0.1:9/v1", TANDEM_MODEL="none")
    base = App("empty Tauri 2 app", empty, [])
    tandem_app = App("Tandem (a project open)", tandem, ["--project", project])
    server = ModelServer()
    # Idle memory once a session has run: one task given and answered, then the same settle.
    after_turn = App("Tandem after one turn (idle)", tandem, ["--project", project],
                     {"TANDEM_BASE_URL": server.url, "TANDEM_MODEL": "bench-model"}, one_turn(server))
    apps = [base, tandem_app, after_turn]
    if "--no-turn" in sys.argv:
        apps.remove(after_turn)
    if "--gl" in sys.argv:
        # For comparison: Tandem forced to keep WebKit's GL compositing even without a GPU.
        apps.append(App("Tandem, GL compositing forced on (TANDEM_GPU=1)", tandem, ["--project", project], {"TANDEM_GPU": "1"}))
    for _ in range(RUNS):
        for app in apps:
            app.run()
    lines = [
        "| app | interactive, median of %d (ms) | first run (ms) | PSS, all processes (MiB) | RSS, all processes (MiB) | processes |" % RUNS,
        "|---|---|---|---|---|---|",
    ]
    for a in apps:
        lines.append("| %s | %.0f | %.0f | %.0f | %.0f | %d |" % (
            a.name, a.median("ms"), a.runs[0]["ms"], a.median("pss"), a.median("rss"), a.runs[-1]["procs"]))
    lines.append("")
    for a in apps:
        lines.append("- %s, every run: interactive (ms) %s; PSS (MiB) %s" % (a.name, a.every("ms"), a.every("pss")))
    lines.append("")
    lines.append("Ratio Tandem / empty: interactive %.2f×, PSS %.2f×, RSS %.2f× (goal ≤ 1.1× for interactive and PSS)." % (
        tandem_app.median("ms") / base.median("ms"), tandem_app.median("pss") / base.median("pss"),
        tandem_app.median("rss") / base.median("rss")))
    if after_turn in apps:
        lines.append("")
        lines.append("After one turn, idle: PSS %.2f×, RSS %.2f× the empty app's (the turn's model is a scripted server "
                     "on loopback; the task is typed into the window with xdotool)." % (
                         after_turn.median("pss") / base.median("pss"), after_turn.median("rss") / base.median("rss")))
    lines.append("")
    lines.append("Where Tandem's start went (median ms after its `main` began, over the runs; exec to `main` is not in it. The empty "
                 "app's page started %.0f ms after its `main`; its interactive median from exec is %.0f ms):" % (dict((n, t) for t, n in base.mark_medians()).get("page: time origin", 0),
                                                              base.median("ms")))
    lines.append("")
    lines.append("| ms | moment |")
    lines.append("|---|---|")
    for at, name in tandem_app.mark_medians():
        lines.append("| %.0f | %s |" % (at, name))
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
