"""structural_candidates on a real SQLite file: the symbols_shape index a run makes finds what the table
scan found, for every shape of look-up, and an index made before it answers the same."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from trifecta.application.ports import FileUpdate
from trifecta.domain.code import FileState
from trifecta.infrastructure.code_parser import parse_item
from trifecta.infrastructure.sqlite_store import SqliteIndex

CLASSES = ("class Base(Exception):\n    pass\n\n", "class Pool:\n    def get(self):\n        pass\n\n")
FILES = {
    f"pkg{n % 3}/m{n}.py": "".join(
        [
            CLASSES[n % 2],
            f"class E{n}(ValueError, Base):\n    async def run(self):\n        pass\n\n",
            f"@dataclass\nclass D{n}(Pool):\n    x: int = {n}\n\n",
            f"@register('x')\ndef f{n}(a, b):\n    return a\n\n",
        ]
    )
    for n in range(12)
}
LOOKUPS = [
    {"bases": ("Exception",)},
    {"bases": ("Exception",), "kinds": ("class",)},
    {"bases": ("Error", "Pool"), "kinds": ("class", "struct")},
    {"decorator": "dataclass", "kinds": ("class",)},
    {"decorator": "*register"},
    {"bases": ("Pool",), "decorator": "dataclass"},
    {"bases": ("Base",), "path_words": ("pkg1",)},
    {"parent": "Pool", "kinds": ("method",)},
    {"kinds": ("class",), "exported": True},
    {"is_async": True, "kinds": ("method",)},
    {"bases": ("Exception",), "limit": 3},
]


def update(path: str, text: str) -> FileUpdate:
    _, parsed = parse_item((path, text))
    return FileUpdate(
        state=FileState(path=path, size=len(text), mtime_ns=0, sha256=str(hash(text))),
        parsed=parsed,
        n_lines=text.count("\n"),
    )


def answers(index: SqliteIndex) -> list[list[tuple[str, str]]]:
    index._forget()
    return [[(p, s.qualname) for p, s in index.structural_candidates(**k)] for k in LOOKUPS]  # type: ignore[arg-type]


@pytest.mark.timeout(60)
def test_the_shape_index_finds_what_the_table_scan_found(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    index = SqliteIndex(db)
    index.apply([update(p, t) for p, t in FILES.items()], [], [])
    scanned = answers(index)  # before the run's end: no symbols_shape yet
    assert all(scanned[:7]) and len(scanned[-1]) == 3
    index.finish_run("now")
    assert index._has_shape_index()
    sql = index._conn.execute(
        "EXPLAIN QUERY PLAN SELECT rowid FROM symbols INDEXED BY symbols_shape WHERE kind IN ('class') AND "
        "bases LIKE '%Exception%'"
    ).fetchall()
    assert "COVERING INDEX symbols_shape" in " ".join(str(r[-1]) for r in sql)
    assert answers(index) == scanned
    index.close()
    older = sqlite3.connect(db)  # as an index made before it
    older.execute("DROP INDEX symbols_shape")
    older.commit()
    older.close()
    index = SqliteIndex(db)
    assert not index._has_shape_index()
    assert answers(index) == scanned
    index.close()
