#!/usr/bin/env python3
"""The built-in model (crates/builtin, in-process llama.cpp) against llama-server on the same
model and the same prompts, measured in the same run; `make bench-builtin`.

Runs the `bench` example (two turns of an agent task: system prompt with three tools, then
the first call's result), then starts llama-server and sends each turn's exact rendered prompt
to its /completion endpoint (greedy, same n_predict, prompt cache on, so its second turn also
reuses the shared beginning). With --write, replaces the section in docs/benchmarks.md.
"""
import argparse, json, os, re, subprocess, sys, tempfile, time, urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
DATA = Path(os.environ.get("TANDEM_DATA_DIR") or Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local/share")) / "tandem")
MODEL = Path(os.environ.get("TANDEM_MODEL_PATH", DATA / "models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"))
SERVER = os.environ.get("LLAMA_SERVER", "/work/scratch/llm/llama.cpp/build2/bin/llama-server")
PORT = int(os.environ.get("BENCH_PORT", "8097"))
N_PREDICT = 128
START, END = "<!-- bench-builtin:start -->", "<!-- bench-builtin:end -->"


def post(path, body, timeout=600):
    req = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.load(r)


def hwm_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return 0


def builtin(out):
    exe = TARGET / "debug/examples/bench"
    r = subprocess.run([str(exe), str(MODEL), str(out)], capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def server(out):
    started = time.time()
    p = subprocess.Popen([SERVER, "-m", str(MODEL), "--host", "127.0.0.1", "--port", str(PORT), "-t", "2", "-c", "8192", "-np", "1", "--no-webui"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except Exception:
                pass
            if p.poll() is not None or time.time() - started > 120:
                sys.exit("llama-server did not start")
            time.sleep(0.1)
        load = time.time() - started
        turns = []
        for n in (1, 2):
            prompt = (out / f"turn{n}.txt").read_text()
            t0 = time.time()
            r = post("/completion", {"prompt": prompt, "n_predict": N_PREDICT, "temperature": 0, "cache_prompt": True})
            wall = time.time() - t0
            t = r["timings"]
            turns.append({"turn": n, "evaluated": t["prompt_n"], "prompt_tok_per_s": t["prompt_per_second"],
                          "generated_tokens": t["predicted_n"], "generation_tok_per_s": t["predicted_per_second"], "wall_s": wall})
        return {"load_s": load, "rss_peak_mb": hwm_mb(p.pid), "turns": turns}
    finally:
        p.terminate()
        p.wait(timeout=30)


def table(b, s):
    rows = [
        "| | built-in (llama-cpp-2, in-process) | llama-server (same model, same prompts) |",
        "|---|---|---|",
        f"| load (to ready) | {b['load_s']:.2f} s | {s['load_s']:.2f} s (process start to /health) |",
        f"| peak resident memory | {b['rss_peak_mb']} MB | {s['rss_peak_mb']} MB |",
    ]
    for bt, st in zip(b["turns"], s["turns"]):
        n = bt["turn"]
        evaluated = bt["prompt_tokens"] - bt["reused_tokens"]
        rows += [
            f"| turn {n}: prompt tokens evaluated (of {bt['prompt_tokens']}) | {evaluated} | {st['evaluated']} |",
            f"| turn {n}: prompt tok/s | {bt['prompt_tok_per_s']:.1f} | {st['prompt_tok_per_s']:.1f} |",
            f"| turn {n}: generation tok/s ({bt['generated_tokens']} / {st['generated_tokens']} tokens) | {bt['generation_tok_per_s']:.1f} | {st['generation_tok_per_s']:.1f} |",
            f"| turn {n}: time to the end of its tool call | {bt['tool_call_s']:.2f} s | {st['wall_s']:.2f} s (whole reply) |",
        ]
    rows.append(f"| Stop during a prompt batch: the model's thread free after | {b['stop_ms']:.1f} ms | — |")
    calls = "; ".join(f"turn {t['turn']}: `{json.dumps(t['call'])}`" for t in b["turns"])
    return "\n".join(rows) + f"\n\nThe built-in model's calls: {calls}.\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        b = builtin(out)
        s = server(out)
    text = table(b, s)
    print(text)
    print(json.dumps({"builtin": b, "server": s}, indent=1), file=sys.stderr)
    if args.write:
        doc = ROOT / "docs/benchmarks.md"
        body = doc.read_text()
        block = f"{START}\n{text}{END}"
        body = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, body, flags=re.S) if START in body else body + "\n" + block + "\n"
        doc.write_text(body)


if __name__ == "__main__":
    main()
