"""structural_candidates on a real SQLite file: a substring of the decorators alone is looked for among the
decorated symbols (the symbols_decorated index a run makes), with the same answers as a scan of every symbol;
an index made before it gets it from its next run."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from trifecta.application.ports import FileUpdate
from trifecta.domain.code import FileState
from trifecta.infrastructure.code_parser import parse_item
from trifecta.infrastructure.sqlite_store import SqliteIndex

FILES = {
    f"m{n}.py": "".join(
        [
            "import functools, dataclasses\n\n",
            "@dataclasses.dataclass\nclass Point(object):\n    x: int\n\n",
            "class Plain:\n    pass\n\n",
            "@functools.lru_cache\ndef cached(a):\n    return a\n\n",
            "def bare(b):\n    return b\n\n",
            f"@register_{n}\nclass Registered(Base):\n    @property\n    def name(self):\n        return 1\n\n",
        ]
    )
    for n in range(6)
}
TYPES = ("class", "struct", "interface", "enum", "trait", "type", "impl")


def update(path: str, text: str) -> FileUpdate:
    _, parsed = parse_item((path, text))
    return FileUpdate(
        state=FileState(path=path, size=len(text), mtime_ns=0, sha256=str(hash(text))),
        parsed=parsed,
        n_lines=text.count("\n"),
    )


def answers(index: SqliteIndex) -> list[list[tuple[str, str]]]:
    asked = [
        {"decorator": "dataclass", "kinds": TYPES},
        {"decorator": "register_3", "kinds": TYPES},
        {"decorator": "lru_cache"},
        {"decorator": "property", "kinds": ("method",)},
        {"decorator": "_", "kinds": TYPES},  # a wildcard alone: every type, undecorated too (the scan)
        {"decorator": "Exception", "kinds": TYPES},
    ]
    return [[(p, s.qualname) for p, s in index.structural_candidates(**a)] for a in asked]


def test_decorators_are_looked_for_among_the_decorated_symbols_with_the_same_answers(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    index = SqliteIndex(db)
    index.apply([update(p, t) for p, t in FILES.items()], [], [])
    index.finish_run("now")
    assert index.has_completed_run()
    plans: list[str] = []
    index._conn.set_trace_callback(plans.append)
    found = answers(index)
    index._conn.set_trace_callback(None)
    assert sum("INDEXED BY symbols_decorated" in sql for sql in plans) == 5  # all but the wildcard
    assert found[0] == [(f"m{n}.py", "Point") for n in range(6)]
    assert found[1] == [("m3.py", "Registered")]
    assert len(found[2]) == 6 and len(found[3]) == 6 and len(found[4]) == 18 and found[5] == []
    index.close()
    older = sqlite3.connect(db)  # as a version before the index left it
    older.execute("DROP INDEX symbols_decorated")
    older.commit()
    older.close()
    index = SqliteIndex(db)
    assert answers(index) == found  # read by the scan of every symbol's shape
    assert not index.has_completed_run()  # so its next run ends as a full one does, no file changed
    index.finish_run("later")
    assert index._has_index("symbols_decorated") and answers(index) == found
    index.close()
