"""What a one-shot `trifecta ctx search` process imports: nothing that only navigation, the language
servers, telemetry stats or a shared PostgreSQL index need, and the lexicon from its cache once written.
Each check runs the CLI in a real subprocess and reads that process's own sys.modules."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# modules a plain search never touches (built or imported on first use: bootstrap.App's tools, facade methods)
LAZY = (
    "trifecta.application.call_graph",
    "trifecta.application.navigation",
    "trifecta.application.stats",
    "trifecta.infrastructure.lazy_language_server",
    "trifecta.infrastructure.language_servers",
    "trifecta.infrastructure.lsp_client",
    "trifecta.infrastructure.postgres_store",
    "trifecta.infrastructure.parse_pool",  # a refresh that finds nothing changed starts no parser pool
    "httpx",
    "mcp",
    "pygls",
    "psycopg",
    "onnxruntime",
)

# runs `trifecta ARGS...` in this process, then writes the modules it imported to the first argument's file
_CHILD = """
import json, os, sys
out = sys.argv.pop(1)
sys.argv[0] = "trifecta"
from trifecta.interfaces.cli.main import main
try:
    main()
except SystemExit as stop:
    code = stop.code
else:
    code = 0
with open(out, "w") as fh:
    blas = os.environ.get("OPENBLAS_NUM_THREADS")
    json.dump({"code": code, "modules": sorted(sys.modules), "blas": blas}, fh)
"""


def _cli(
    tmp_path: Path, *args: str, cache: Path, blas: str | None = None
) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env["TRIFECTA_CACHE_HOME"] = str(cache)
    if blas is not None:
        env["OPENBLAS_NUM_THREADS"] = blas
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(out), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.exists(), proc.stderr
    return proc, json.loads(out.read_text())


@pytest.mark.timeout(240)
def test_a_search_imports_none_of_the_lazy_modules(sample_repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _cli(tmp_path, "index", str(sample_repo), cache=cache)
    proc, seen = _cli(
        tmp_path,
        "ctx",
        "search",
        "-s",
        str(sample_repo),
        "calcular el valor total del inventario",
        "--json",
        cache=cache,
    )
    assert seen["code"] == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "ok"
    assert "trifecta.application.search" in seen["modules"]  # the check sees the search's own imports
    imported = [name for name in LAZY if name in seen["modules"]]
    assert imported == []
    assert list(cache.glob("lexicon-*.marshal"))  # the lexicon was cached for the next process


@pytest.mark.timeout(240)
def test_stats_still_builds_its_use_case_on_first_use(sample_repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _cli(tmp_path, "index", str(sample_repo), cache=cache)
    proc, seen = _cli(tmp_path, "ctx", "stats", "-s", str(sample_repo), "--json", cache=cache)
    assert seen["code"] == 0, proc.stderr
    assert "trifecta.application.stats" in seen["modules"]


@pytest.mark.timeout(240)
def test_numpy_gets_one_blas_thread_unless_the_user_chose(sample_repo: Path, tmp_path: Path) -> None:
    """numpy's import starts an OpenBLAS thread per core (~50 ms of a search over stored postings)."""
    cache = tmp_path / "cache"
    _cli(tmp_path, "index", str(sample_repo), cache=cache)
    search = ("ctx", "search", "-s", str(sample_repo), "total value", "--json")
    assert _cli(tmp_path, *search, cache=cache)[1]["blas"] == "1"
    assert _cli(tmp_path, *search, cache=cache, blas="3")[1]["blas"] == "3"


def _run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    from trifecta.interfaces.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(args)
    out, err = capsys.readouterr()
    out = re.sub(r'"(took_ms|latency_ms|lexical|structural)": [0-9.]+', "T", out)  # timings
    return stop.value.code, re.sub(r" in [0-9.]+ ms", " in T ms", out), err


@pytest.mark.timeout(240)
def test_the_search_only_app_answers_as_the_full_one(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ctx search` runs in an app holding only that command: help, usage errors, envelopes and exit codes
    are those of the full app."""
    from trifecta.interfaces.cli import main as cli

    assert cli._app_for(["ctx", "search", "q"]) is not cli.app  # the fast path is taken
    repo = str(sample_repo)
    _run_main(["index", repo], capsys)  # every search below finds the index current
    cases = [
        ["ctx", "search", "--help"],
        ["ctx", "search"],
        ["ctx", "search", "--json"],
        ["ctx", "search", "--bogus", "x", "--json"],
        ["ctx", "search", "--bogus", "x"],
        ["ctx", "search", "-n", "0", "x", "--json"],
        ["ctx", "search", "-q", "a", "b", "--json"],
        ["ctx", "search", "--version"],
        ["ctx", "search", "-s", repo, "total value", "--json"],
        ["ctx", "search", "-s", repo, "total value"],
        ["ctx", "search", "-s", repo, "total value", "--json", "--profile", "nope"],
    ]
    for args in cases:
        fast = _run_main(args, capsys)
        with monkeypatch.context() as patch:
            patch.setattr(cli, "_app_for", lambda _args: cli.app)
            full = _run_main(args, capsys)
        assert fast == full, args
        assert fast[1] or fast[2], args  # something was said


def test_the_refs_limit_is_navigations() -> None:
    from trifecta.application import navigation
    from trifecta.interfaces import arguments

    assert arguments.MAX_REFS_LIMIT == navigation.MAX_REFS_LIMIT
