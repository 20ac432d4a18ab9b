"""Safety figures of issue 19: kill -9 during indexing, and concurrent writers and readers.

    python bench/bench_safety.py kill --tries 40        # SIGKILL `trifecta index` at a random moment, 40 times
    python bench/bench_safety.py stress --seconds 60    # the concurrent stress test, run longer
    python bench/bench_safety.py hostile                # the audit's hostile cases, each with a time limit

`kill`: a generated tree of --files Python files is indexed once; then, each try, a random tenth of the files
is rewritten with a new function `edit_<try>_<n>`, `trifecta index` starts as a child process and is killed
with SIGKILL after a random delay within the time a whole run takes. After each kill the database must pass
`PRAGMA integrity_check`, hold no chunk of a file it does not list, and a new `trifecta index` must finish
without rebuilding (no INDEX_REBUILT warning) and then find every edited function. A try that fails any of
these counts as lost. Target: 0 lost in 40 tries.

`stress`: runs tests/integration/test_stress.py with TRIFECTA_STRESS_SECONDS set. Target: 0 errors.

`hostile`: each case of the audit (a hostile config, special files, secrets, regexes, corruption, ...) in a new
segment, through the CLI as a user runs it, with a time limit; a table of case, verdict and seconds. The user
config folder is a temp dir (TRIFECTA_CONFIG_HOME), so nothing the user trusts is involved.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli() -> list[str]:
    exe = Path(sys.executable).parent / "trifecta"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "trifecta"]


def write_tree(root: Path, files: int) -> None:
    for i in range(files):
        pkg = root / f"pkg{i % 30}"
        pkg.mkdir(parents=True, exist_ok=True)
        body = "\n".join(f"    value_{j} = x * {j}" for j in range(40))
        (pkg / f"mod_{i}.py").write_text(f"def function_{i}(x):\n{body}\n    return x\n")


def consistent(db: Path) -> str:
    """'' when the file is a sound index, else what is wrong."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            return f"integrity_check: {check}"
        orphans = conn.execute(
            "SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)"
        ).fetchone()[0]
        return f"{orphans} orphan chunks" if orphans else ""
    except sqlite3.DatabaseError as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()


def kill(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    env = {**os.environ, "TRIFECTA_NO_TELEMETRY": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        seg = Path(tmp) / "seg"
        write_tree(seg, args.files)
        started = time.monotonic()
        subprocess.run([*cli(), "index", str(seg), "--json"], check=True, capture_output=True, env=env)
        full = time.monotonic() - started
        db = seg / ".trifecta" / "index.db"
        lost: list[str] = []
        for attempt in range(args.tries):
            edited = rng.sample(range(args.files), max(1, args.files // 10))
            for n in edited:
                path = seg / f"pkg{n % 30}" / f"mod_{n}.py"
                path.write_text(f"def edit_{attempt}_{n}(x):\n    return x + {attempt}\n")
            full_run = rng.random() < 0.25
            command = [*cli(), "index", str(seg), "--json", *(["--full"] if full_run else [])]
            proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            time.sleep(rng.uniform(0.15, full * 1.1 if full_run else max(0.3, full * 0.4)))
            killed = proc.poll() is None
            if killed:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            problem = consistent(db)
            if not problem:
                done = subprocess.run(
                    [*cli(), "index", str(seg), "--json"],
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=600,
                )
                answer = json.loads(done.stdout)
                codes = [w["code"] for w in answer.get("warnings", [])] + [
                    e["code"] for e in answer["errors"]
                ]
                if codes:
                    problem = f"after the kill, index answered {codes}"
                else:
                    probe = rng.choice(edited)
                    found = subprocess.run(
                        [*cli(), "ctx", "search", "--segment", str(seg), "--query", f"edit_{attempt}_{probe}",
                         "--json", "--limit", "1"],
                        capture_output=True, text=True, env=env, timeout=120,
                    )  # fmt: skip
                    hits = json.loads(found.stdout)["data"]["hits"]
                    if not hits or hits[0]["symbol"] != f"edit_{attempt}_{probe}":
                        problem = f"edit_{attempt}_{probe} not found after re-indexing"
            state = "killed" if killed else "finished first"
            print(f"try {attempt + 1:2d}: {'full' if full_run else 'incremental'} run {state}: "
                  f"{problem or 'ok'}", file=sys.stderr)  # fmt: skip
            if problem:
                lost.append(problem)
        print(f"| kill -9 during `trifecta index` ({args.files} files, full run {full:.1f} s) | "
              f"{len(lost)} lost of {args.tries} tries |")  # fmt: skip
        return 1 if lost else 0


def stress(args: argparse.Namespace) -> int:
    env = {**os.environ, "TRIFECTA_STRESS_SECONDS": str(args.seconds)}
    test = ROOT / "tests" / "integration" / "test_stress.py"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)], env=env
    ).returncode


# ------------------------------------------------------------------------------------------- hostile cases
class Case:
    def __init__(self, seg: Path, env: dict[str, str]) -> None:
        self.seg, self.env = seg, env

    def run(
        self, *args: str, timeout: float = 30.0, env: dict[str, str] | None = None
    ) -> tuple[int, dict, str]:
        """Exit code, the JSON envelope on stdout ({} if none) and stderr; a TimeoutExpired propagates."""
        done = subprocess.run(
            [*cli(), *args], capture_output=True, text=True, timeout=timeout, env={**self.env, **(env or {})}
        )
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            answer = {}
        return done.returncode, answer, done.stderr

    def search(self, query: str, *extra: str, timeout: float = 30.0) -> dict:
        return self.run("ctx", "search", "--segment", str(self.seg), "--query", query, "--json", *extra,
                        timeout=timeout)[1]  # fmt: skip

    def get(self, path: str) -> dict:
        return self.run("ctx", "get", "--segment", str(self.seg), "--path", path, "--json")[1]


def _codes(answer: dict) -> list[str]:
    return [e["code"] for e in answer.get("errors", [])]


def _warnings(answer: dict) -> list[str]:
    return [w["code"] for w in answer.get("warnings", [])]


def case_db_path_outside(c: Case, tmp: Path) -> str:
    notes = tmp / "notes.txt"
    notes.write_text("my notes\n")
    (c.seg / ".trifecta").mkdir()
    (c.seg / ".trifecta" / "config.toml").write_text(f'[index]\ndb_path = "{notes}"\n')
    answer = c.search("helper")
    if notes.read_text() != "my notes\n" or Path(f"{notes}-wal").exists():
        return "FAIL: the file outside was overwritten"
    return (
        "ok"
        if "CONFIG_UNTRUSTED" in _warnings(answer)
        else f"FAIL: no CONFIG_UNTRUSTED ({_warnings(answer)})"
    )


def case_token_to_attacker(c: Case, tmp: Path) -> str:
    import http.server
    import threading

    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            hits.append(self.headers.get("Authorization", ""))
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        (c.seg / ".trifecta").mkdir()
        (c.seg / ".trifecta" / "config.toml").write_text(
            f'[embedding]\nprovider = "openai"\napi_url = "http://127.0.0.1:{server.server_port}/v1"\n'
            'api_key_env = "HOSTILE_TOKEN"\n'
            f'[query_rewrite]\nenabled = true\napi_url = "http://127.0.0.1:{server.server_port}/v1/chat"\n'
            'api_key_env = "HOSTILE_TOKEN"\n'
        )
        c.env["HOSTILE_TOKEN"] = "ghp_" + "x" * 36
        c.run("index", str(c.seg), "--json")
        c.search("how is the helper computed from its argument")
    finally:
        server.shutdown()
        c.env.pop("HOSTILE_TOKEN")
    return "ok" if not hits else f"FAIL: {len(hits)} requests reached the repository's URL"


def case_lsp_command(c: Case, tmp: Path) -> str:
    marker = tmp / "pwned"
    (c.seg / ".trifecta").mkdir()
    (c.seg / ".trifecta" / "config.toml").write_text(f'[lsp]\ncommand = ["touch", "{marker}"]\n')
    c.run("ast", "hover", "sym://python/type/mod/helper", "--segment", str(c.seg), "--json")
    return "FAIL: the repository's command ran" if marker.exists() else "ok"


def case_busy(c: Case, tmp: Path) -> str:
    c.run("index", str(c.seg), "--json")
    db = c.seg / ".trifecta" / "index.db"
    inode = db.stat().st_ino
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
         "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); time.sleep(45)", str(db)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None
        holder.stdout.readline()
        (c.seg / "mod.py").write_text("def helper(x):\n    return x + 1\n")  # something to refresh
        answer = c.search("helper", timeout=40)
    finally:
        holder.kill()
        holder.wait()
    if db.stat().st_ino != inode:
        return "FAIL: the index was thrown away"
    return "ok" if answer.get("status") or _codes(answer) else "FAIL: no envelope"


def case_secret_files(c: Case, tmp: Path) -> str:
    import base64

    body = base64.b64encode(os.urandom(144)).decode()  # built here: this file itself holds no key
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body[:64]}\n{body[64:128]}\n-----END RSA PRIVATE KEY-----\n"
    files = {".env": "DB_PASSWORD=hunter2hunter2\n", "id_rsa": pem, "key.pem": pem, "deploy/id_rsa": pem,
             "config/service.json": '{"private_key": "' + pem.replace("\n", "\\n") + '"}\n'}  # fmt: skip
    for name, text in files.items():
        (c.seg / name).parent.mkdir(parents=True, exist_ok=True)
        (c.seg / name).write_text(text)
    c.run("index", str(c.seg), "--json")
    served = [
        name
        for name in files
        if "PRIVATE KEY" in json.dumps(c.get(name)) or "hunter2" in json.dumps(c.get(name))
    ]
    found = c.search("PRIVATE KEY", "--mode", "pattern").get("data", {}).get("hits", [])
    if served or found:
        return f"FAIL: served {served}, searchable in {[h['path'] for h in found]}"
    return "ok"


def case_regex(c: Case, tmp: Path) -> str:
    (c.seg / "long.py").write_text(("x = '" + "a" * 3000 + "'\n") * 20)
    c.run("index", str(c.seg), "--json")
    slow = []
    for pattern in ("(.*a){25}", "(a|aa)+$", "^(([a-z])+.)+[A-Z]([a-z])+$", '(?:[^"]|"")*"x'):
        started = time.monotonic()
        try:
            c.run("ctx", "search", "--segment", str(c.seg), "-e", pattern, "--json", timeout=10)
        except subprocess.TimeoutExpired:
            slow.append(pattern)
            continue
        if time.monotonic() - started > 5:
            slow.append(pattern)
    return f"FAIL: {slow} ran past the limit" if slow else "ok"


def case_bad_name(c: Case, tmp: Path) -> str:
    (c.seg / os.fsdecode(b"bad_\xff.py")).write_text("def bad_name():\n    pass\n")
    code, answer, err = c.run("index", str(c.seg), "--json")
    if not answer:
        return f"FAIL: index printed no JSON ({err.strip().splitlines()[-1:]})"
    after = c.search("helper")
    return "ok" if after.get("status") == "ok" else f"FAIL: search after it: {_codes(after)}"


def case_special_files(c: Case, tmp: Path) -> str:
    os.mkfifo(c.seg / ".gitignore")
    sub = c.seg / "sub"
    sub.mkdir()
    os.symlink("/dev/zero", sub / ".gitignore")
    os.mkfifo(c.seg / "pipe.py")
    with open(c.seg / "sparse.py", "wb") as fh:
        fh.truncate(2 << 30)
    try:
        code, answer, _ = c.run("index", str(c.seg), "--json", timeout=30)
        if not answer or answer.get("status") != "ok":
            return f"FAIL: index answered {code} {_codes(answer)}"
        fifo = c.get("pipe.py")
        started = time.monotonic()
        sparse = c.get("sparse.py")
        if time.monotonic() - started > 5:
            return "FAIL: the sparse file was read"
    except subprocess.TimeoutExpired as exc:
        return f"FAIL: hung ({' '.join(map(str, exc.cmd[-4:]))})"
    return "ok" if _codes(fifo) and _codes(sparse) else f"FAIL: {_codes(fifo)} {_codes(sparse)}"


def case_corrupt(c: Case, tmp: Path) -> str:
    c.run("index", str(c.seg), "--json")
    db = c.seg / ".trifecta" / "index.db"
    size = db.stat().st_size
    with open(db, "r+b") as fh:
        fh.seek(size // 2)
        fh.write(os.urandom(min(65536, size // 3)))
    code, answer, _ = c.run("index", str(c.seg), "--json")
    if not answer:
        return "FAIL: index printed no JSON"
    after = c.search("helper")
    hits = after.get("data", {}).get("hits", [])
    if "INDEX_REBUILT" not in _warnings(answer) + _warnings(after):
        return f"FAIL: the corruption was not reported ({_warnings(answer)}, {_codes(answer)})"
    return "ok" if hits else f"FAIL: no hits after the rebuild {_codes(after)}"


def case_telemetry(c: Case, tmp: Path) -> str:
    env = {k: v for k, v in c.env.items() if k != "TRIFECTA_NO_TELEMETRY"}
    secrets = ["AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "DB_PASSWORD=s3cr3tPassw0rd!",
               "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "glpat-xxxxxxxxxxxxxxxxxxxx", "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
               "Authorization: Bearer abcdef0123456789abcdef"]  # fmt: skip
    for secret in secrets:
        subprocess.run([*cli(), "ctx", "search", "--segment", str(c.seg), "--query", f"find {secret}", "--json"],
                       capture_output=True, timeout=30, env=env)  # fmt: skip
    events = (c.seg / ".trifecta" / "telemetry" / "events.jsonl").read_text()
    kept = [s for s in secrets if s.split("=")[-1].split()[-1] in events]
    return f"FAIL: kept {kept}" if kept else "ok"


def case_json_always(c: Case, tmp: Path) -> str:
    bad = [
        ("ctx", "search", "--segment", str(c.seg), "--query", "x", "--limit", "0", "--json"),
        ("ctx", "search", "--segment", str(tmp / "missing"), "--query", "x", "--json"),
        ("ctx", "search", "--segment", str(c.seg), "--query", "x", "--mode", "nope", "--json"),
        ("ctx", "get", "--segment", str(c.seg), "--path", "../x", "--json"),
    ]
    missing = [" ".join(args[:2] + args[-3:]) for args in bad if not c.run(*args)[1]]
    return f"FAIL: no JSON from {missing}" if missing else "ok"


def case_bom_and_secrets_py(c: Case, tmp: Path) -> str:
    (c.seg / "bom.py").write_bytes(b"\xef\xbb\xbfdef with_bom():\n    return 1\n")
    (c.seg / "secrets.py").write_text("def token_hex(nbytes=None):\n    return 'x'\n")
    hits = c.search("with_bom").get("data", {}).get("hits", [])
    token = c.search("token_hex").get("data", {}).get("hits", [])
    if not (hits and hits[0]["symbol"] == "with_bom"):
        return "FAIL: the BOM file lost its symbols"
    return "ok" if token and token[0]["path"] == "secrets.py" else "FAIL: secrets.py is excluded by name"


CASES = {
    "config: db_path outside the segment": case_db_path_outside,
    "config: embedder/rewriter URL and token": case_token_to_attacker,
    "config: [lsp] command": case_lsp_command,
    "busy: BEGIN IMMEDIATE held 45 s": case_busy,
    "secrets: .env, id_rsa, *.pem, service-account JSON": case_secret_files,
    "regex: catastrophic patterns": case_regex,
    "a file name that is not UTF-8": case_bad_name,
    "special files: FIFO/dev-zero .gitignore, FIFO .py, 2 GB sparse": case_special_files,
    "corruption: 64 KiB of garbage": case_corrupt,
    "telemetry keeps no secret": case_telemetry,
    "--json always prints JSON": case_json_always,
    "BOM file, stdlib-like secrets.py": case_bom_and_secrets_py,
}


def hostile(args: argparse.Namespace) -> int:
    failed = 0
    print("| case | verdict | seconds |\n|---|---|---|")
    for name, case in CASES.items():
        if args.only and args.only not in name:
            continue
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            seg = tmp / "seg"
            seg.mkdir()
            (seg / "mod.py").write_text("def helper(x):\n    return x\n")
            (tmp / "home").mkdir()
            env = {**os.environ, "TRIFECTA_CONFIG_HOME": str(tmp / "home"), "TRIFECTA_NO_TELEMETRY": "1"}
            env.pop("TRIFECTA_TRUST", None)
            started = time.monotonic()
            try:
                verdict = case(Case(seg, env), tmp)
            except subprocess.TimeoutExpired as exc:
                verdict = f"FAIL: hung past {exc.timeout:.0f} s"
            except Exception as exc:  # a case that cannot even run is a failure to look at
                verdict = f"FAIL: {type(exc).__name__}: {exc}"
            failed += verdict != "ok"
            print(f"| {name} | {verdict} | {time.monotonic() - started:.1f} |", flush=True)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    k = sub.add_parser("kill", help="SIGKILL indexing runs and check nothing is lost")
    k.add_argument("--tries", type=int, default=40)
    k.add_argument("--files", type=int, default=3000)
    k.add_argument("--seed", type=int, default=19)
    s = sub.add_parser("stress", help="the concurrent stress test, for longer")
    s.add_argument("--seconds", type=float, default=60.0)
    h = sub.add_parser("hostile", help="the audit's hostile cases through the CLI, each with a time limit")
    h.add_argument("--only", default="", help="run the cases whose name contains this")
    args = parser.parse_args()
    return {"kill": kill, "stress": stress, "hostile": hostile}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
