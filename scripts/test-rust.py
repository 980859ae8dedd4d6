#!/usr/bin/env python3
"""Runs every Rust test binary of the workspace, two at a time.

`cargo test` runs its test binaries one after another, and on this 2-core machine they kept
two thirds of one core busy between them: the real window's tests (tests/agent_ui.rs and
tests/app.rs, about 130 s) mostly wait for WebKit and the scripted model. Here two workers
share the list: one starts with the window's binaries (they take one app at a time, so they
stay in one worker), the other with the rest, and each takes the next binary when it is free;
the doc tests are one more item. Each binary runs as `cargo test` runs it: from its package's
folder, with the package's CARGO_* variables, and all of them even after a failure (as
`--no-fail-fast`). A binary's output is printed whole when it ends, so lines never mix.

Usage: scripts/test-rust.py [cargo options such as --features X]
"""

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

# Test targets of the `e2e` package that drive the real app.
WINDOW_TESTS = {"agent_ui", "app"}


def packages():
    """Each workspace package's runtime variables, as cargo sets them for its tests."""
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--no-deps", "--format-version", "1"],
            stdout=subprocess.PIPE,
            check=True,
            text=True,
        ).stdout
    )
    found = {}
    for p in meta["packages"]:
        major, minor, patch = (p["version"].split("-")[0].split(".") + ["0", "0"])[:3]
        found[p["id"]] = {
            "CARGO_MANIFEST_DIR": str(Path(p["manifest_path"]).parent),
            "CARGO_MANIFEST_PATH": p["manifest_path"],
            "CARGO_PKG_NAME": p["name"],
            "CARGO_PKG_VERSION": p["version"],
            "CARGO_PKG_VERSION_MAJOR": major,
            "CARGO_PKG_VERSION_MINOR": minor,
            "CARGO_PKG_VERSION_PATCH": patch,
            "CARGO_PKG_DESCRIPTION": p.get("description") or "",
            "CARGO_PKG_LICENSE": p.get("license") or "",
            "CARGO_PKG_RUST_VERSION": p.get("rust_version") or "",
        }
    return found


def test_binaries(cargo_args):
    """(target, kind, executable, package variables) of each test binary `cargo test` runs."""
    cmd = ["cargo", "test", "--workspace", *cargo_args, "--no-run", "--message-format=json-render-diagnostics"]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True, text=True).stdout
    vars_of = packages()
    found = []
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if not msg["profile"]["test"]:
            continue
        target = msg["target"]
        found.append((target["name"], target["kind"][0], msg["executable"], vars_of[msg["package_id"]]))
    return found


def run_binary(binary, log):
    """Runs one test binary as cargo test does; True when it passed."""
    name, kind, exe, variables = binary
    label = "unittests" if kind in ("lib", "bin") else f"tests/{name}.rs"
    print(f"     Running {label} ({exe})", file=log, flush=True)
    env = {**os.environ, **variables, "CARGO": os.environ.get("CARGO", "cargo")}
    code = subprocess.run([exe], cwd=variables["CARGO_MANIFEST_DIR"], env=env, stdout=log, stderr=subprocess.STDOUT).returncode
    if code != 0:
        rerun = "--lib" if kind == "lib" else f"--{kind} {name}"
        print(f"error: test failed, to rerun pass `{rerun}`", file=log, flush=True)
    return code == 0


def run_doc_tests(cargo_args, log):
    return subprocess.run(["cargo", "test", "--workspace", *cargo_args, "--doc"], stdout=log, stderr=subprocess.STDOUT).returncode == 0


def main():
    cargo_args = sys.argv[1:]
    binaries = test_binaries(cargo_args)
    window = [b for b in binaries if b[0] in WINDOW_TESTS and b[1] == "test"]
    if not window:
        sys.exit("test-rust: the window's test binaries (tests/agent_ui.rs, tests/app.rs) were not built")
    shared = queue.Queue()
    for b in binaries:
        if b not in window:
            shared.put(("binary", b))
    shared.put(("doc", None))

    failed = []
    print_lock = threading.Lock()

    def run_item(kind, item):
        with tempfile.TemporaryFile(mode="w+") as log:
            ok = run_binary(item, log) if kind == "binary" else run_doc_tests(cargo_args, log)
            log.seek(0)
            with print_lock:
                sys.stdout.write(log.read())
                sys.stdout.flush()
                if not ok:
                    failed.append(item[0] if kind == "binary" else "doc tests")

    def worker(first):
        for b in first:
            run_item("binary", b)
        while True:
            try:
                kind, item = shared.get_nowait()
            except queue.Empty:
                return
            run_item(kind, item)

    workers = [threading.Thread(target=worker, args=(window,)), threading.Thread(target=worker, args=([],))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if failed:
        print(f"\ntest-rust: failed: {', '.join(failed)}", flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
