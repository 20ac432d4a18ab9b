"""What LLM query rewriting costs a search, against a stand-in chat-completions server on 127.0.0.1.

No model runs here: the stand-in answers at once (or late, or never), so the figures are Trifecta's own
overhead around a model call, and the bound a dead or hanging model puts on a search. A real model adds its
own answer time (qwen2.5:3b on a laptop CPU: roughly 0.5-3 s) to the "fresh rewrite" row only.

    python bench/bench_rewrite.py [--tree PATH] [--runs 3] [--timeout 1.0] [--json PATH]

The tree (default: email/, json/, http/, logging/ and unittest/ of this interpreter's standard library) is
copied into a temp dir and indexed there. Searches run in process with auto_refresh off, so each row is the
search plus what rewriting adds:

* plain: ``rewrite=False``;
* fresh rewrite: forced, a model name per run so the cache never answers: vocabulary, HTTP round trip,
  parsing, the extra lexical ranking and the fusion;
* cached rewrite: forced again, answered from the ``rewrite_cache`` table in the index file;
* server down (connection refused), failing (HTTP 500), slow (answers after 3x the timeout) and endless
  (streams forever): forced, each must end within the timeout plus the plain search time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import sys
import sysconfig
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import trifecta

QUESTIONS = [
    "how is a header line parsed into a name and a value",
    "where does the logger decide which handlers get a record",
    "how are test cases collected from a module",
    "what happens when a json document has a trailing comma",
    "how does the http client read a chunked response body",
    "where is the charset of a message part decided",
    "how are log files rotated when they get too big",
    "which function turns a python object into json text",
]
TERMS = ["parse", "header", "handler", "decode", "loader"]


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client hanging up on an endless stream is expected here, not worth a traceback


def stand_in(timeout: float) -> tuple[ThreadingHTTPServer, threading.Event]:
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()  # headers and body go out as separate writes: no Nagle wait between them
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            behaviour = self.path.strip("/").split("/")[0]
            if behaviour == "slow":
                stop.wait(timeout * 3)
            if behaviour == "endless":
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                end = time.monotonic() + 30
                try:
                    while not stop.is_set() and time.monotonic() < end:
                        self.wfile.write(b"1\r\n \r\n")
                        self.wfile.flush()
                        time.sleep(0.05)
                except OSError:
                    pass
                return
            status = 500 if behaviour == "failing" else 200
            content = json.dumps({"terms": TERMS, "focus": "implementation"})
            body = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = QuietServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    return httpd, stop


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="trifecta-bench-rewrite-"))
    seg = tmp / "seg"
    if args.tree:
        shutil.copytree(args.tree, seg, ignore=shutil.ignore_patterns("__pycache__", "site-packages"))
    else:
        stdlib = Path(sysconfig.get_paths()["stdlib"])
        for name in ("email", "json", "http", "logging", "unittest"):
            shutil.copytree(stdlib / name, seg / name, ignore=shutil.ignore_patterns("__pycache__"))
    httpd, stop = stand_in(args.timeout)
    port = httpd.server_address[1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    url = {
        b: f"http://127.0.0.1:{port}/{b}/v1/chat/completions" for b in ("good", "failing", "slow", "endless")
    }
    url["down"] = f"http://127.0.0.1:{closed}/v1/chat/completions"
    rows: dict[str, list[float]] = {}
    extra: dict[str, Any] = {}
    try:
        with trifecta.open(str(seg), auto_refresh=False) as engine:
            report = engine.index()
            extra["files"], extra["symbols"] = report.files_indexed, engine.status().data["symbols"]
            started = time.perf_counter()
            engine._app.store.vocabulary(60)
            extra["vocabulary_ms"] = (time.perf_counter() - started) * 1000

        def run(name: str, behaviour: str, model: str | None = None, repeat: int = args.runs) -> None:
            times = rows.setdefault(name, [])
            for r in range(repeat):
                options: dict[str, Any] = {"rewrite_api_url": url[behaviour], "rewrite_timeout": args.timeout}
                options["rewrite_model"] = model or f"bench-{name}-{r}-{time.time_ns()}"
                with trifecta.open(str(seg), auto_refresh=False, **options) as engine:
                    engine.search("warm up", rewrite=False)
                    for q in QUESTIONS:
                        started = time.perf_counter()
                        data = engine.search(q, rewrite=behaviour != "plain").to_dict()["data"]
                        times.append((time.perf_counter() - started) * 1000)
                        status = data["plan"]["rewrite"]["status"]
                        expected = "tried" if behaviour == "good" else "failed"
                        if name != "plain" and status != expected:
                            raise SystemExit(f"{name}: {q!r} gave {data['plan']['rewrite']}")

        url["plain"] = url["good"]
        run("plain", "plain")
        run("fresh rewrite", "good")
        run("cached rewrite", "good", model="bench-cached", repeat=1)  # fills the cache
        rows["cached rewrite"] = []
        run("cached rewrite", "good", model="bench-cached")
        run("server down", "down")
        run("HTTP 500", "failing")
        run("slow server", "slow", repeat=1)
        run("endless stream", "endless", repeat=1)
    finally:
        stop.set()
        httpd.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)

    bound = args.timeout * 1000 + max(rows["plain"])  # the timeout plus the slowest plain search
    print(
        f"# rewrite overhead: {extra['files']} files, {extra['symbols']} symbols; timeout {args.timeout:g} s; "
        f"vocabulary read {extra['vocabulary_ms']:.1f} ms; load {os.getloadavg()[0]:.1f}"
    )
    print("| search | n | p50 ms | p95 ms | max ms | bound |")
    print("|---|---|---|---|---|---|")
    for name, times in rows.items():
        slow = name in ("slow server", "endless stream", "server down", "HTTP 500")
        verdict = ("met" if max(times) <= bound else "**missed**") if slow else ""
        print(
            f"| {name} | {len(times)} | {statistics.median(times):.1f} | {pct(times, 0.95):.1f} | "
            f"{max(times):.1f} | {f'< {bound:.0f} ms: {verdict}' if slow else ''} |"
        )
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, **extra, "timeout": args.timeout}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
