"""An English phrase that code spells as one word ("command line" -> cli) is searched by that word, against a
real index."""

from __future__ import annotations

from pathlib import Path

import pytest

import trifecta

CLI = """
def parse_cli(argv):
    options, rest = {}, []
    for arg in argv:
        if arg.startswith("--"):
            options[arg[2:]] = True
        else:
            rest.append(arg)
    return options, rest
"""

HEADERS = """
def parse_header(line):
    name, _, value = line.partition(":")
    return name.strip().lower(), value.strip()


def read_command(stream):
    return stream.readline().split()
"""

OTHER = "".join(f"def helper_{i}(value):\n    return value + {i}\n\n\n" for i in range(20))


@pytest.fixture
def engine(tmp_path: Path):
    pkg = tmp_path / "tool"
    pkg.mkdir()
    (pkg / "cli.py").write_text(CLI)
    (pkg / "headers.py").write_text(HEADERS)
    for name in ("helpers", "globals", "signals"):
        (pkg / f"{name}.py").write_text(OTHER)
    engine = trifecta.open(str(tmp_path))
    engine.index()
    yield engine
    engine.close()


@pytest.mark.timeout(60)
def test_command_line_is_searched_as_cli(engine) -> None:
    hits = engine.search("where is the command line parsed", limit=5).to_dict()["data"]["hits"]
    assert hits and hits[0]["symbol"] == "parse_cli", [h["symbol"] for h in hits]
