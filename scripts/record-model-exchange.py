#!/usr/bin/env python3
"""Records a real model server's answers, to replay them in tests without the model.

Sits between Tandem and an OpenAI-compatible (or Anthropic) server on this machine: every
request is forwarded unchanged, every answer is passed back as it streams and saved, byte for
byte, as OUT/NN.sse (with the request beside it as OUT/NN.request.json). When it stops
(Ctrl-C, or SIGTERM), it writes OUT/scenario.json: a script for tests/model-server whose turns
replay those files in order (`sse_file`).

    scripts/record-model-exchange.py --upstream http://127.0.0.1:8083 --port 8090 \\
        --out tests/recordings/my-run --name "what this run shows"
    tandem-cli run --provider openai --base-url http://127.0.0.1:8090/v1 --model local "…"

Only the standard library: nothing to install.
"""

import argparse
import http.client
import http.server
import json
import pathlib
import signal
import sys
import threading
import urllib.parse


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True, help="the real server, e.g. http://127.0.0.1:8083")
    ap.add_argument("--port", type=int, default=8090, help="where Tandem connects (127.0.0.1)")
    ap.add_argument("--out", required=True, help="folder for the recording")
    ap.add_argument("--name", default="a recorded exchange with a real model server")
    ap.add_argument("--format", choices=["openai", "anthropic"], default="openai")
    args = ap.parse_args()

    up = urllib.parse.urlparse(args.upstream)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lock = threading.Lock()
    recorded: list[str] = []

    class Proxy(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):  # quiet: the recording is the log
            pass

        def forward(self, method: str) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            conn = http.client.HTTPConnection(up.hostname, up.port or 80, timeout=600)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
            conn.request(method, self.path, body=body, headers=headers)
            resp = conn.getresponse()
            streamed = method == "POST" and resp.status == 200
            if streamed:
                with lock:
                    n = len(recorded) + 1
                    name = f"{n:02}.sse"
                    recorded.append(name)
                (out / f"{n:02}.request.json").write_bytes(body)
            self.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(k, v)
            self.send_header("connection", "close")
            self.end_headers()
            saved = bytearray()
            while True:
                chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
                if not chunk:
                    break
                saved.extend(chunk)
                self.wfile.write(chunk)
                self.wfile.flush()
            if streamed:
                (out / name).write_bytes(bytes(saved))
            self.close_connection = True

        def do_GET(self):
            self.forward("GET")

        def do_POST(self):
            self.forward("POST")

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Proxy)

    def finish(*_):
        threading.Thread(target=server.shutdown).start()

    signal.signal(signal.SIGTERM, finish)
    signal.signal(signal.SIGINT, finish)
    print(f"recording {args.upstream} on http://127.0.0.1:{args.port} into {out}", file=sys.stderr)
    server.serve_forever()
    scenario = {
        "name": args.name,
        "format": args.format,
        "turns": [{"sse_file": f} for f in recorded],
    }
    (out / "scenario.json").write_text(json.dumps(scenario, indent=2) + "\n")
    print(f"{len(recorded)} answers recorded; scenario in {out / 'scenario.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
