"""Every `--json` call prints exactly one JSON envelope on stdout, whatever goes wrong: typer's own usage
errors (a range, a type, a missing or unknown option, even when `--json` comes after the bad option), a
segment that is not there, a config that cannot be used, an index that cannot be written, an exception that
escapes a command. The message goes to stderr, never a traceback, and the exit code is the documented one
(2 bad input, 1 internal failure). Without `--json` the same failures are one line on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trifecta.domain.contract import Response
from trifecta.interfaces.cli import main as cli

_SCRIPT = Path(sys.executable).parent / "trifecta"
EXE = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "trifecta"]
INTERNAL = {"INTERNAL_ERROR", "INDEX_UNWRITABLE", "INDEX_LOCKED"}


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*EXE, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def one_envelope(proc: subprocess.CompletedProcess[str]) -> dict:
    """stdout is one JSON document, an envelope that decodes into the typed model, with an error."""
    data = json.loads(proc.stdout)  # raises on no JSON, or on anything after the one document
    Response.from_dict(data)
    assert data["status"] == "error" and data["errors"], data
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout.replace('"traceback"', "")
    assert f"error [{data['errors'][0]['code']}]" in proc.stderr  # the message is on stderr too
    return data


@pytest.fixture(scope="module")
def segment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    seg = tmp_path_factory.mktemp("seg")
    (seg / "mod.py").write_text("def parse(line):\n    return line.split(':')\n", encoding="utf-8")
    return seg


BAD_INPUT = [
    # (command line with {seg}, expected code, expected kind)
    ("index {missing} --json", "SEGMENT_NOT_FOUND", "index"),
    ("index {seg} --json --bogus", "INVALID_ARGUMENT", "index"),
    ("status --segment {missing} --json", "SEGMENT_NOT_FOUND", "status"),
    ("ctx search -q parse -s {seg} --limit 0 --json", "INVALID_ARGUMENT", "search"),
    ("ctx search -q parse -s {seg} --limit 100000 --json", "INVALID_ARGUMENT", "search"),
    ("ctx search -q parse -s {seg} --json --limit abc", "INVALID_ARGUMENT", "search"),
    ("ctx search -q parse -s {seg} --mode nope --json", "INVALID_ARGUMENT", "search"),
    ("ctx search -s {seg} --json", "INVALID_ARGUMENT", "search"),
    ("ctx search -q parse --segment {missing} --json", "SEGMENT_NOT_FOUND", "search"),
    ("ctx get -s {seg} --json", "INVALID_ARGUMENT", "source"),
    ("ctx get -s {missing} --path mod.py --json", "SEGMENT_NOT_FOUND", "source"),
    ("ctx lint --json", "INVALID_ARGUMENT", "lint"),
    ("ctx classify --json --nope", "INVALID_ARGUMENT", "classification"),
    ("ctx stats -s {seg} --top 0 --json", "INVALID_ARGUMENT", "stats"),
    ("ast symbols -s {seg} --json", "INVALID_ARGUMENT", "skeleton"),
    ("ast symbols not-a-selector -s {seg} --json", "INVALID_SELECTOR_SYNTAX", "skeleton"),
    ("ast snippet sym://python/type/mod/parse -s {missing} --json", "SEGMENT_NOT_FOUND", "snippet"),
    ("ast hover -s {seg} --json", "INVALID_ARGUMENT", "hover"),
    ("ast refs sym://python/type/mod/parse -s {seg} -n 0 --json", "INVALID_ARGUMENT", "refs"),
    ("ast def -s {seg} --json", "INVALID_ARGUMENT", "def"),
    ("ast def nope -s {seg} --json", "INVALID_ARGUMENT", "def"),
    ("ast callers not-a-selector -s {seg} --json", "INVALID_SELECTOR_SYNTAX", "callers"),
    ("ast callers sym://python/type/mod/parse -s {seg} -n 0 --json", "INVALID_ARGUMENT", "callers"),
    ("ast callees -s {seg} --json", "INVALID_ARGUMENT", "callees"),
    ("ast impact sym://python/type/mod/parse -s {seg} --depth 0 --json", "INVALID_ARGUMENT", "impact"),
    ("eval -s {seg} --json", "INVALID_ARGUMENT", "eval"),
    ("eval -q q.jsonl -s {seg} --k 0 --json", "INVALID_ARGUMENT", "eval"),
    ("init {missing} --json", "SEGMENT_NOT_FOUND", "init"),
    ("init {seg} --json --bogus", "INVALID_ARGUMENT", "init"),
]


@pytest.mark.timeout(150)
@pytest.mark.parametrize(("line", "code", "kind"), BAD_INPUT)
def test_every_command_with_json_and_bad_input_prints_one_envelope(
    segment: Path, tmp_path: Path, line: str, code: str, kind: str
) -> None:
    args = line.format(seg=segment, missing=tmp_path / "nonexistent").split()
    proc = run(*args)
    data = one_envelope(proc)
    assert (data["errors"][0]["code"], data["kind"]) == (code, kind)
    assert proc.returncode == 2


@pytest.mark.timeout(60)
def test_a_typer_range_error_names_the_option(segment: Path) -> None:
    proc = run("ctx", "search", "-q", "parse", "-s", str(segment), "--limit", "0", "--json")
    error = one_envelope(proc)["errors"][0]
    assert error["data"]["argument"] == "--limit" and "0 is not in the range 1<=x<=200" in error["message"]
    assert error["data"]["usage"].startswith("Usage: ")


@pytest.mark.timeout(60)
def test_without_json_a_usage_error_is_typers_own_message(segment: Path) -> None:
    proc = run("ctx", "search", "-q", "parse", "-s", str(segment), "--limit", "0")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Usage: " in proc.stderr and "0 is not in the range" in proc.stderr


@pytest.mark.timeout(60)
def test_a_config_that_cannot_be_used_is_an_envelope(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / ".trifecta").mkdir()
    (tmp_path / ".trifecta" / "config.toml").write_text("[index]\nno_such_setting = 1\n", encoding="utf-8")
    proc = run("ctx", "search", "-q", "x", "-s", str(tmp_path), "--json")
    data = one_envelope(proc)
    assert (
        data["errors"][0]["code"] == "INVALID_ARGUMENT" and "no_such_setting" in data["errors"][0]["message"]
    )
    assert proc.returncode == 2


def _unwritable_cases(tmp_path: Path) -> list[tuple[Path, dict[str, str]]]:
    """Index locations that cannot be created even by root (who ignores permission bits): `.trifecta` is
    a regular file, or TRIFECTA_DB points under a regular file."""
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "mod.py").write_text("def parse():\n    pass\n", encoding="utf-8")
    (blocked / ".trifecta").write_text("not a folder\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mod.py").write_text("def parse():\n    pass\n", encoding="utf-8")
    (tmp_path / "a_file").write_text("x\n", encoding="utf-8")
    return [(blocked, {}), (elsewhere, {"TRIFECTA_DB": str(tmp_path / "a_file" / "index.db")})]


@pytest.mark.timeout(300)
def test_an_index_that_cannot_be_created_never_gives_a_traceback(tmp_path: Path) -> None:
    for seg, env in _unwritable_cases(tmp_path):
        for command in (
            ["index", str(seg)],
            ["index", str(seg), "--full"],
            ["ctx", "search", "-q", "parse", "-s", str(seg)],
            ["status", "-s", str(seg)],
            ["ast", "symbols", "sym://python/mod/mod", "-s", str(seg)],
        ):
            with_json = run(*command, "--json", env=env)
            data = one_envelope(with_json)
            assert with_json.returncode in (1, 2), with_json.stderr
            if with_json.returncode == 1:
                assert data["errors"][0]["code"] in INTERNAL
            plain = run(*command, env=env)
            assert plain.returncode == with_json.returncode and plain.stdout == ""
            assert "Traceback" not in plain.stderr
            assert len(plain.stderr.strip().splitlines()) == 1 and plain.stderr.startswith("error [")


# ------------------------------------------------------------------- failures that escape a command (in-process)
def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        cli.main(list(args))
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


def test_an_exception_escaping_the_engine_is_an_internal_error_envelope(
    segment: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from trifecta.interfaces import facade

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("the disk caught fire")

    monkeypatch.setattr(facade, "open_engine", broken)
    code, out, err = _main(capsys, "ctx", "search", "-q", "parse", "-s", str(segment), "--json")
    data = json.loads(out)
    assert code == 1 and data["kind"] == "search" and data["errors"][0]["code"] == "INTERNAL_ERROR"
    assert "RuntimeError: the disk caught fire" in data["errors"][0]["message"]
    assert "traceback" in data["errors"][0]["data"]
    assert err == "error [INTERNAL_ERROR]: RuntimeError: the disk caught fire\n"
    code, out, err = _main(capsys, "status", "-s", str(segment))
    assert code == 1 and out == "" and err == "error [INTERNAL_ERROR]: RuntimeError: the disk caught fire\n"


def test_index_failing_with_any_exception_still_prints_an_envelope(
    segment: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from trifecta.application.ports import CodedError
    from trifecta.domain.contract import ErrorCode
    from trifecta.interfaces.facade import Engine

    class Unwritable(CodedError):
        code = ErrorCode.INDEX_UNWRITABLE

    def corrupt(self: Engine, *_: object, **__: object) -> None:
        raise Exception("database disk image is malformed")

    def full(self: Engine, *_: object, **__: object) -> None:
        raise Unwritable("the disk is full", data={"reason": "disk_full"})

    monkeypatch.setattr(Engine, "index", corrupt)
    code, out, _ = _main(capsys, "index", str(segment), "--full", "--json")
    assert code == 1 and json.loads(out)["errors"][0]["code"] == "INTERNAL_ERROR"
    monkeypatch.setattr(Engine, "index", full)
    code, out, err = _main(capsys, "index", str(segment), "--json")
    error = json.loads(out)["errors"][0]
    assert code == 1 and (error["code"], error["data"]) == ("INDEX_UNWRITABLE", {"reason": "disk_full"})
    assert "error [INDEX_UNWRITABLE]: the disk is full" in err


def test_help_and_version_still_exit_zero_with_json_on_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "ctx", "search", "--help", "--json")
    assert code == 0 and "--query" in out


def test_the_bad_input_table_covers_every_command_with_json() -> None:
    """A command added later joins BAD_INPUT (mcp speaks the protocol on stdout and has no --json)."""
    groups = {"": cli.app, "ctx ": cli.ctx_app, "ast ": cli.ast_app}
    commands = {
        prefix + (command.name or command.callback.__name__)
        for prefix, group in groups.items()
        for command in group.registered_commands
        if command.callback is not None
        and "as_json" in command.callback.__code__.co_varnames[: command.callback.__code__.co_argcount]
    }
    covered = {
        " ".join(w for w in line.split()[:2] if not w.startswith(("-", "{"))) for line, _, _ in BAD_INPUT
    }
    assert commands and commands <= covered, commands - covered
