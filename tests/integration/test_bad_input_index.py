"""Files that do not parse (issue 14, "Bad input"): syntax errors, a huge minified line, 100k-deep nesting, a
binary file with a code extension and a parse over the time limit. A real index run (SQLite file, in process
and with parser worker subprocesses) never crashes or hangs on them; each stays searchable as text and is
counted (a parse error, or a skipped binary file)."""

from __future__ import annotations

from pathlib import Path

import pytest

import trifecta
from trifecta.infrastructure import code_parser, treesitter_parser

DEEP = 100_000


def _write(root: Path, rel: str, data: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    _write(root, "ok.go", "package ok\n\n// Fine is fine.\nfunc Fine() int { return 1 }\n")
    _write(root, "src/broken.ts", "export function quokkaBroken( {\n  let = = ;\n}}}\nclass {\n")
    minified = "var quokkaminified=1;" + "".join(f"function f{i}(a){{return a+{i}}}" for i in range(20_000))
    _write(root, "web/app.min.js", minified + "\n")  # one line of ~600 KB
    _write(root, "deep.ts", "// quokkadeepts\nlet x = " + "[" * DEEP + "]" * DEEP + ";\n")
    _write(root, "deep.py", "# quokkadeeppy\nx = " + "(" * DEEP + ")" * DEEP + "\n")
    _write(root, "deep.rs", "// quokkadeeprs\nfn f() {" + "{" * DEEP + "}" * DEEP + "}\n")
    _write(root, "bin/blob.rs", b"\x7fELF\x02\x01\x01\x00\x00" + bytes(range(256)) * 40)
    # no NUL byte: read as text (undecodable bytes replaced), parsed, and kept searchable
    _write(
        root, "bin/noise.go", bytes(range(0x80, 0x100)) * 40 + b"\nquokkanoise\n" + bytes(range(1, 32)) * 8
    )
    return root


def _paths(engine: trifecta.Engine, query: str) -> set[str]:
    return {hit["path"] for hit in engine.search(query).to_dict()["data"]["hits"]}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [1, 2])
def test_files_that_do_not_parse_are_indexed_as_text_and_counted(
    repo: Path, tmp_path: Path, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(code_parser, "PARALLEL_MIN_CHARS", 1_000)  # workers=2 really starts two workers
    with trifecta.open(repo, db_path=tmp_path / f"index-{workers}.db", workers=workers) as engine:
        report = engine.index(full=True)
        assert report.files_indexed == 7 and report.skipped.get("binary") == 1
        errors = set(report.parse_error_files)
        assert {"src/broken.ts", "web/app.min.js", "deep.py"} <= errors
        assert report.parse_errors == len(errors) and "ok.go" not in errors
        assert _paths(engine, "quokkaminified") == {"web/app.min.js"}
        assert _paths(engine, "quokkaBroken") == {"src/broken.ts"}
        for word, path in (
            ("quokkadeepts", "deep.ts"),
            ("quokkadeeppy", "deep.py"),
            ("quokkadeeprs", "deep.rs"),
        ):
            assert _paths(engine, word) == {path}
        assert _paths(engine, "quokkanoise") == {"bin/noise.go"}
        assert _paths(engine, "Fine") == {"ok.go"}
        status = engine.status().to_dict()["data"]
        assert status["files"] == 7


@pytest.mark.timeout(120)
def test_a_parse_over_the_time_limit_is_cut_short_counted_and_searchable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    big = "".join(
        f"export function quokka{i}(a: number): number {{ return a + {i} }}\n" for i in range(8_000)
    )
    _write(root, "big.ts", big)
    _write(root, "small.ts", "export function small(): void {}\n")
    treesitter_parser._compiled.cache_clear()  # the parsers are made with the limit
    monkeypatch.setattr(treesitter_parser, "PARSE_SECONDS", 0.001)
    try:
        with trifecta.open(root, db_path=tmp_path / "index.db", workers=1) as engine:
            report = engine.index(full=True)
            assert report.parse_error_files == ("big.ts",) and report.files_indexed == 2
            assert _paths(engine, "quokka7999") == {"big.ts"}  # ~450 KB: far over 1 ms
            symbols = engine.symbols("sym://typescript/mod/small").to_dict()["data"]["symbols"]
            assert [s["name"] for s in symbols] == ["small"]  # the next file parses afresh
    finally:
        treesitter_parser._compiled.cache_clear()
