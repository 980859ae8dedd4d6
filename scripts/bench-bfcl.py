#!/usr/bin/env python3
"""The call layer on the Berkeley function-calling suite (`bfcl-eval` on PyPI, pinned below):
the simple (Python) and multiple categories. The built-in model answers through
crates/builtin/examples/bfcl.rs (the agent's reply path: lazy call grammar, calls read from the
text); llama-server with the same GGUF answers the same questions through its own tool calling
(`--jinja`, /v1/chat/completions with `tools`), in the same run.

Each answer is checked as BFCL's AST checker does for these categories: one call, the expected
function, every required argument present, no unknown argument, each value among the allowed
ones (strings compared without case, spaces and punctuation; an integer accepted for a float;
lists and dicts element by element).

  scripts/bench-bfcl.py --bfcl-bin target/debug/examples/bfcl [--every 5 | --part 1/4] [--write]

LLAMA_SERVER=path runs the second column.

The whole suite (600 questions) takes about 2.5 h per column on two cores. `--part K/N` runs the
K-th of N interleaved parts of it (questions K-1, K-1+N, ...), both columns in one run, and
`--write` keeps each part's result in bench/bfcl/parts.json with the call layer it measured (the
git trees of crates/builtin, crates/llm, crates/protocol, Cargo.lock and this script's code that
asks and checks; build the bfcl example from that tree first, as `make bench-bfcl` does). The
table shows the whole suite once every part of one call layer is there, and the parts so far
until then; a part of another call layer is never added to them.
"""

import argparse
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "benchmarks.md"
WORK = REPO / "target" / "bench-bfcl"
PARTS = REPO / "bench" / "bfcl" / "parts.json"
# What an answer depends on: the model's call layer, the wire types, the pinned crates (and, in
# call_layer, this script's questions, request and checker).
CALL_LAYER = ["crates/builtin", "crates/llm", "crates/protocol", "Cargo.lock"]
WHEEL = ("https://files.pythonhosted.org/packages/ba/41/ed458527c770c50225b60bae3b0c3444b26804ee455fa2d8f187018d2cb2/"
         "bfcl_eval-2026.3.23-py3-none-any.whl")
WHEEL_SHA = "3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a"
CATEGORIES = {"simple": "BFCL_v4_simple_python.json", "multiple": "BFCL_v4_multiple.json"}
SYSTEM = "You are a helpful assistant. Answer the user's request by calling one of the functions."


def fetch_data() -> Path:
    WORK.mkdir(parents=True, exist_ok=True)
    whl = WORK / "bfcl_eval.whl"
    if not whl.is_file() or hashlib.sha256(whl.read_bytes()).hexdigest() != WHEEL_SHA:
        data = urllib.request.urlopen(WHEEL, timeout=120).read()
        if hashlib.sha256(data).hexdigest() != WHEEL_SHA:
            raise SystemExit("bench-bfcl: the bfcl-eval wheel has the wrong checksum")
        whl.write_bytes(data)
    out = WORK / "data"
    with zipfile.ZipFile(whl) as z:
        for cat, name in CATEGORIES.items():
            for sub in ("", "possible_answer/"):
                member = f"bfcl_eval/data/{sub}{name}"
                (out / sub).mkdir(parents=True, exist_ok=True)
                (out / sub / name).write_bytes(z.read(member))
    return out


def json_schema(p):
    """BFCL's parameter types (Python-flavoured) as JSON schema."""
    if isinstance(p, list):
        return [json_schema(x) for x in p]
    if not isinstance(p, dict):
        return p
    out = {}
    for k, v in p.items():
        if k == "properties" and isinstance(v, dict):
            # Parameter names, not keywords: a parameter may be called `type`.
            out[k] = {name: json_schema(sub) for name, sub in v.items()}
        elif k == "type" and isinstance(v, str):
            t = {"dict": "object", "float": "number", "tuple": "array", "any": None}.get(v, v)
            if t is not None:
                out["type"] = t
        elif k == "optional":
            continue
        else:
            out[k] = json_schema(v)
    return out


def load(data: Path, every: int, part=(1, 1)):
    """Every `every`-th question of each category, or the `part` (K, N): the K-th of N."""
    k, n = part
    entries = []
    for cat, name in CATEGORIES.items():
        answers = {}
        for line in (data / "possible_answer" / name).read_text().splitlines():
            a = json.loads(line)
            answers[a["id"]] = a["ground_truth"]
        for i, line in enumerate((data / name).read_text().splitlines()):
            if i % every or i % n != k - 1:
                continue
            q = json.loads(line)
            entries.append({
                "id": q["id"], "category": cat,
                "question": q["question"][0][-1]["content"],
                "functions": [{"name": f["name"], "description": f.get("description", ""),
                               "parameters": json_schema(f["parameters"])} for f in q["function"]],
                "truth": answers[q["id"]],
            })
    return entries


def norm_str(s: str) -> str:
    return re.sub(r"[ ,./\-_*^]", "", s).lower()


def same(value, allowed) -> bool:
    if isinstance(allowed, str):
        return isinstance(value, str) and norm_str(value) == norm_str(allowed)
    if isinstance(allowed, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(allowed, bool) and value == allowed
    if isinstance(allowed, (int, float)):
        return isinstance(value, (int, float)) and float(value) == float(allowed)
    if isinstance(allowed, list):
        return isinstance(value, list) and len(value) == len(allowed) and all(same(v, a) for v, a in zip(value, allowed))
    if isinstance(allowed, dict):
        if not isinstance(value, dict):
            return False
        for k, options in allowed.items():
            opts = options if isinstance(options, list) else [options]
            if k not in value:
                if "" not in opts:
                    return False
                continue
            if not any(same(value[k], o) for o in opts if o != ""):
                return False
        return all(k in allowed for k in value)
    return value == allowed


def correct(calls, truth) -> bool:
    if len(calls) != 1 or len(truth) != 1:
        return False
    (fname, params), = truth[0].items()
    call = calls[0]
    if call.get("name") != fname:
        return False
    args = call.get("arguments") or {}
    if not isinstance(args, dict):
        return False
    for k in args:
        if k not in params:
            return False
    for k, allowed in params.items():
        if k not in args:
            if "" not in allowed:
                return False
            continue
        if args[k] == "" and "" in allowed:
            continue
        if not any(same(args[k], a) for a in allowed if a != ""):
            return False
    return True


def run_builtin(binary: str, model: Path, entries):
    feed = "".join(json.dumps({"id": e["id"], "system": SYSTEM, "question": e["question"],
                               "functions": e["functions"]}) + "\n" for e in entries)
    started = time.monotonic()
    r = subprocess.run([binary, str(model)], input=feed, capture_output=True, text=True, check=True)
    wall = time.monotonic() - started
    return {json.loads(l)["id"]: json.loads(l) for l in r.stdout.splitlines() if l.strip()}, wall


def calls_in_text(text: str):
    """A call written as a ```json block (or bare JSON) with `name` and `arguments`."""
    m = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    blob = m.group(1) if m else text.strip()
    try:
        v = json.loads(blob)
    except ValueError:
        return []
    if isinstance(v, dict) and "name" in v:
        return [{"name": v["name"], "arguments": v.get("arguments", v.get("parameters", {}))}]
    return []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_server(binary: str, model: Path, entries):
    port = free_port()
    proc = subprocess.Popen([binary, "-m", str(model), "--port", str(port), "-t", "2", "-c", "8192", "-np", "1",
                             "--jinja"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        out = {}
        started = time.monotonic()
        for e in entries:
            body = {"model": "local", "temperature": 0, "max_tokens": 512,
                    "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": e["question"]}],
                    "tools": [{"type": "function", "function": f} for f in e["functions"]]}
            req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions",
                                         data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
            try:
                resp = json.loads(urllib.request.urlopen(req, timeout=600).read())
                msg = resp["choices"][0]["message"]
                calls = []
                for c in msg.get("tool_calls") or []:
                    try:
                        args = json.loads(c["function"]["arguments"])
                    except ValueError:
                        args = None
                    calls.append({"name": c["function"]["name"], "arguments": args})
                text = msg.get("content") or ""
                # Qwen2.5-Coder writes its call as a ```json block, which llama-server leaves in
                # the text: read like that, as Tandem reads the built-in model's text.
                if not calls:
                    calls = calls_in_text(text)
                    lenient = bool(calls)
                else:
                    lenient = False
                out[e["id"]] = {"calls": calls, "text": text, "from_text": lenient}
            except Exception as ex:  # a failed request is a wrong answer, said in the results
                out[e["id"]] = {"calls": [], "error": str(ex)}
        return out, time.monotonic() - started
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def score(entries, answers):
    per = {}
    for e in entries:
        a = answers.get(e["id"], {"calls": []})
        ok = correct(a.get("calls", []), e["truth"])
        c = per.setdefault(e["category"], [0, 0])
        c[0] += ok
        c[1] += 1
    return per


def call_layer() -> str:
    """What the answers and their judging depend on — the git trees of CALL_LAYER and this
    script's code that asks and checks (not the code that writes the table) — as a short hash;
    empty when CALL_LAYER has uncommitted changes."""
    try:
        dirty = subprocess.run(["git", "status", "--porcelain", "--", *CALL_LAYER], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""  # not a git checkout: the layer cannot be named
    if dirty:
        return ""
    trees = subprocess.run(["git", "rev-parse", *[f"HEAD:{p}" for p in CALL_LAYER]], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split()
    import inspect
    asks_and_checks = [SYSTEM, *(inspect.getsource(f) for f in (
        json_schema, load, norm_str, same, correct, calls_in_text, run_builtin, run_server))]
    return hashlib.sha256("\n".join([*trees, *asks_and_checks]).encode()).hexdigest()[:12]


def parse_part(text: str):
    m = re.fullmatch(r"(\d+)/(\d+)", text)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise argparse.ArgumentTypeError(f"--part takes K/N with 1 <= K <= N (e.g. 1/4), not {text!r}")
    return int(m.group(1)), int(m.group(2))


def table(rows_of, wall_b, wall_s, server: bool) -> list:
    """The table's rows: per category, right answers of entries, for both columns."""
    rows = ["| category (entries) | built-in model, Tandem's call layer | llama-server `--jinja`, same GGUF (its tool_calls, else a ```json call in its text) |", "|---|---|---|"]
    for cat in CATEGORIES:
        b, s = rows_of[cat]
        n = b[1]
        srv = f"{s[0]} ({100 * s[0] / n:.0f} %)" if server else "not run"
        rows.append(f"| {cat} ({n}) | {b[0]} ({100 * b[0] / n:.0f} %) | {srv} |")
    rows.append(f"| wall time | {wall_b:.0f} s | " + (f"{wall_s:.0f} s" if server else "—") + " |")
    return rows


def parts_text(parts: list, layer: str, of: int) -> str:
    """The whole suite from its parts measured on `layer`, or the parts so far."""
    mine = {p["part"]: p for p in parts if p["layer"] == layer and p["of"] == of}
    sums = {cat: ([0, 0], [0, 0]) for cat in CATEGORIES}
    for p in mine.values():
        for cat in CATEGORIES:
            for col, key in ((0, "builtin"), (1, "llama_server")):
                sums[cat][col][0] += p[key][cat][0]
                sums[cat][col][1] += p[key][cat][1]
    rows = table(sums, sum(p["wall"]["builtin"] for p in mine.values()),
                 sum(p["wall"]["llama_server"] for p in mine.values()), True)
    done = sorted(mine)
    dates = sorted({p["date"] for p in mine.values()})
    if len(done) == of:
        head = (f"The whole suite, run in {of} parts (each both columns in one run), call layer "
                f"`{layer}`, {', '.join(dates)}:")
    else:
        which = f"Part {done[0]}" if len(done) == 1 else f"Parts {', '.join(map(str, done))}"
        head = (f"{which} of {of} of the whole suite so far (each part both columns in one run), "
                f"call layer `{layer}`, {', '.join(dates)}; the whole suite is not yet measured:")
    return head + "\n\n" + "\n".join(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bfcl-bin", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--every", type=int, default=1, help="take every Nth entry of each category")
    ap.add_argument("--part", type=parse_part, default=None,
                    help="K/N: the K-th of N interleaved parts of the whole suite")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    if a.part and a.every != 1:
        ap.error("--part splits the whole suite; it does not take --every")
    server = os.environ.get("LLAMA_SERVER")
    # Only a part is kept with its call layer (git): a plain run needs no repository.
    layer = call_layer() if a.part else ""
    if a.part and a.write and not (server and layer):
        ap.error("--part --write keeps a part of the whole suite: it needs LLAMA_SERVER (both "
                 "columns) and a git checkout without uncommitted changes in its call layer (" + ", ".join(CALL_LAYER) + ")")
    data = fetch_data()
    entries = load(data, a.every, a.part or (1, 1))
    model = Path(a.model)
    builtin, b_wall = run_builtin(a.bfcl_bin, model, entries)
    # Kept at once: a second column that fails (a server that cannot start) loses nothing.
    (WORK / "results.json").write_text(json.dumps({"builtin": builtin, "llama_server": {}}, indent=1))
    print(f"built-in model: {score(entries, builtin)} in {b_wall:.0f} s", flush=True)
    served, s_wall = run_server(server, model, entries) if server else ({}, 0)
    (WORK / "results.json").write_text(json.dumps({"builtin": builtin, "llama_server": served}, indent=1))
    b, s = score(entries, builtin), score(entries, served) if server else {}
    rows_of = {cat: (b[cat], s[cat] if server else [0, b[cat][1]]) for cat in CATEGORIES}
    text = "\n".join(table(rows_of, b_wall, s_wall, bool(server)))
    print(text)
    if a.part:
        k, n = a.part
        wrong = {key: sorted(e["id"] for e in entries
                             if not correct(answers.get(e["id"], {}).get("calls", []), e["truth"]))
                 for key, answers in (("builtin", builtin), ("llama_server", served))}
        print(f"part {k}/{n}, call layer {layer or '(uncommitted changes)'}; wrong: {json.dumps(wrong)}")
        if a.write:
            parts = json.loads(PARTS.read_text()) if PARTS.is_file() else []
            parts = [p for p in parts if not (p["layer"] == layer and p["of"] == n and p["part"] == k)]
            parts.append({"part": k, "of": n, "layer": layer, "date": time.strftime("%Y-%m-%d"),
                          "builtin": b, "llama_server": s,
                          "wall": {"builtin": round(b_wall), "llama_server": round(s_wall)},
                          "wrong": wrong})
            parts.sort(key=lambda p: (p["layer"], p["of"], p["part"]))
            PARTS.parent.mkdir(parents=True, exist_ok=True)
            PARTS.write_text(json.dumps(parts, indent=1) + "\n")
            text = parts_text(parts, layer, n)
    if a.write:
        doc = DOC.read_text()
        start, end = "<!-- bench-bfcl:start -->", "<!-- bench-bfcl:end -->"
        before, rest = doc.split(start, 1)
        _, after = rest.split(end, 1)
        DOC.write_text(f"{before}{start}\n{text}\n{end}{after}")


if __name__ == "__main__":
    main()
