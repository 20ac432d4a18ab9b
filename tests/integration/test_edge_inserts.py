"""A file's edges are written many rows to a statement (64, then 8, then one): every row is stored, in the
parser's order, whatever the file's count of edges."""

from __future__ import annotations

from pathlib import Path

import pytest

from trifecta.application.ports import FileUpdate
from trifecta.domain.code import FileState
from trifecta.infrastructure.code_parser import parse_item
from trifecta.infrastructure.sqlite_store import EDGE_ROWS_PER_INSERT, SqliteIndex


def update(path: str, text: str) -> FileUpdate:
    _, parsed = parse_item((path, text))
    return FileUpdate(
        state=FileState(path=path, size=len(text), mtime_ns=0, sha256=str(hash(text))),
        parsed=parsed,
        n_lines=text.count("\n"),
    )


def calls(n: int) -> str:
    """A module whose edges are n calls, a typed receiver and an argument among them."""
    body = "".join(f"    step_{k}(x)\n" if k % 5 else f"    x.run_{k}(Job())\n" for k in range(n))
    return "def work(x: Runner):\n" + (body or "    pass\n")


@pytest.mark.timeout(60)
def test_every_edge_row_is_stored_in_order_whatever_the_files_count(tmp_path: Path) -> None:
    largest, middle = EDGE_ROWS_PER_INSERT
    counts = [
        0,
        1,
        middle - 1,
        middle,
        middle + 1,
        largest - 1,
        largest,
        largest + middle + 3,
        2 * largest + 5,
    ]
    updates = [update(f"m{n}.py", calls(n)) for n in counts]
    index = SqliteIndex(tmp_path / "index.db")
    index.apply(updates, [], [])
    index.finish_run("now")
    for up in updates:
        expected = list(up.parsed.edge_table())
        stored = index._conn.execute(
            "SELECT e.kind, e.caller, e.line, e.col, e.name, e.text, e.alias FROM edges e "
            "JOIN files f ON f.id = e.file_id WHERE f.path = ? ORDER BY e.rowid",
            (up.state.path,),
        ).fetchall()
        assert stored == expected, up.state.path
    assert len(updates[-1].parsed.edge_table()) > 2 * largest + middle  # the three statement sizes were used
    index.close()
