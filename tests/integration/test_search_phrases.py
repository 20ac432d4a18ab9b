"""An English phrase that code spells as one word ("command line" -> cli) is searched by that word, against a
real index."""

from __future__ import annotations

import pytest

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


@pytest.fixture
def engine(index_files):
    return index_files(
        {"tool/cli.py": CLI, "tool/headers.py": HEADERS},
        fillers=("tool/helpers.py", "tool/globals.py", "tool/signals.py"),
    )


@pytest.mark.timeout(60)
def test_command_line_is_searched_as_cli(engine) -> None:
    hits = engine.search("where is the command line parsed", limit=5).to_dict()["data"]["hits"]
    assert hits and hits[0]["symbol"] == "parse_cli", [h["symbol"] for h in hits]
