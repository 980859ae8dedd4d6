#!/usr/bin/env python3
"""How soon a new session's first answer comes with the built-in model, and the process's peak
memory (issue 48: the first call ≤ 10 s on an idle 2-core machine, also when the task names
files; memory ≤ 1.6 GB).

Runs `tandem-cli run --provider builtin` on copies of make bench-agent's tasks (bench/agent/tasks),
each in a new session with its own project but one shared data folder, as a person's sessions
share theirs: the first run fills the saved beginnings of conversations (the KV cache), the
runs after it are the ones a person meets on any later day. For each: seconds from the start
of the process to the first sign of the answer (the draft's file being written, as the window
shows it), the same less the model's load (the window loads the model while the person types),
to the model's first reply done (for a task naming files, the whole-file draft), to the end of
the run, and the peak resident memory (/usr/bin/time).

  scripts/bench-first-answer.py --tandem-cli target/debug/tandem-cli [--tasks py-add,js-sum,sh-max]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TASKS = REPO / "bench" / "agent" / "tasks"
MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def default_model() -> Path:
    data = os.environ.get("TANDEM_DATA_DIR") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "tandem")
    return Path(data) / "models" / MODEL_NAME


def run_one(cli: str, model: Path, task_id: str, data: Path, work: Path) -> dict:
    task = json.loads((TASKS / task_id / "task.json").read_text())
    proj = work / task_id
    shutil.copytree(TASKS / task_id / "project", proj)
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    env = {**os.environ, "TANDEM_DATA_DIR": str(data), "TANDEM_CONFIG_DIR": str(work / "config"),
           "TANDEM_NO_KEYCHAIN": "1", "TANDEM_LOG": "builtin=info"}
    cmd = ["/usr/bin/time", "-f", "maxrss_kb=%M", str(cli), "run", "--project", str(proj),
           "--provider", "builtin", "--model-path", str(model), "--mode", "full_auto",
           "--approve", "all", "--max-steps", "3", "--json", task["prompt"]]
    started = time.monotonic()
    first = None
    # The first sign of the answer in the window: the draft's file being written (or words).
    shown = None
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        # The first model reply is done when its usage is counted (the files a task names are
        # read before it, as calls of their own: not the model's answer).
        if first is None and event.get("type") == "usage":
            first = time.monotonic() - started
        if shown is None and event.get("type") in ("tool_call_writing", "text_delta"):
            shown = time.monotonic() - started
    _, err = proc.communicate()
    err = re.sub(r"\x1b\[[0-9;]*m", "", err or "")
    total = time.monotonic() - started
    rss = re.search(r"maxrss_kb=(\d+)", err or "")
    # The first reply's own numbers, as the model's worker logs them: how much of the prompt
    # was read (not kept from a saved beginning), and when its first token came.
    reply = re.search(r"prompt_tokens=(\d+).*?reused_tokens=(\d+).*?restored_tokens=(\d+).*?"
                      r"generated_tokens=(\d+).*?first_token_ms=(\d+)", err or "")
    # The model's load (the window loads it ahead, while the person types: see
    # config::load_builtin_if_default).
    load = re.search(r"built-in model loaded.*?load_ms=(\d+)", err or "")
    load_s = int(load.group(1)) / 1000 if load else None
    return {"task": task_id, "first_call_s": round(first, 1) if first is not None else None,
            "first_shown_s": round(shown, 1) if shown is not None else None,
            "load_s": load_s,
            "first_shown_loaded_s": round(shown - load_s, 1) if shown is not None and load_s else None,
            "first_reply": None if not reply else {
                "prompt_tokens": int(reply.group(1)), "restored_tokens": int(reply.group(3)),
                "generated_tokens": int(reply.group(4)), "first_token_s": round(int(reply.group(5)) / 1000, 1)},
            "run_s": round(total, 1), "peak_mb": round(int(rss.group(1)) / 1024) if rss else None}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tandem-cli", required=True)
    ap.add_argument("--model", default=str(default_model()))
    ap.add_argument("--tasks", default="py-add,js-sum,sh-max,rs-clamp")
    a = ap.parse_args()
    model = Path(a.model)
    if not model.is_file():
        raise SystemExit(f"bench-first-answer: no model at {model} (make model)")
    with tempfile.TemporaryDirectory(prefix="tandem-first-answer-") as tmp:
        work = Path(tmp)
        data = work / "data"
        (data / "models").mkdir(parents=True)
        rows = []
        for i, t in enumerate(a.tasks.split(",")):
            r = run_one(a.tandem_cli, model, t, data, work)
            r["kv_cache"] = "empty (first session ever)" if i == 0 else "saved by earlier sessions"
            rows.append(r)
            print(json.dumps(r), flush=True)
    print("| task | KV cache | first sign (process start) | first sign (model loaded ahead) | first reply done | prompt (restored) | written | whole run | peak memory |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        f = r["first_reply"] or {}
        print(f"| {r['task']} | {r['kv_cache']} | {r['first_shown_s']} s | {r['first_shown_loaded_s']} s | "
              f"{r['first_call_s']} s | "
              f"{f.get('prompt_tokens')} ({f.get('restored_tokens')}) | {f.get('generated_tokens')} tokens | "
              f"{r['run_s']} s | {r['peak_mb']} MB |")


if __name__ == "__main__":
    sys.exit(main())
