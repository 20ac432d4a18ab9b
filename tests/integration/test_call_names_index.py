"""call_names on a real SQLite file: read from the edges_calls index a run makes, the same rows without it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from trifecta.application.ports import FileUpdate
from trifecta.domain.code import FileState
from trifecta.infrastructure.code_parser import parse_item
from trifecta.infrastructure.sqlite_store import SqliteIndex

FILES = {
    f"m{n}.py": "".join(
        f"def f{n}_{k}():\n    helper_{k % 3}()\n    other_{(n + k) % 4}(x)\n    import os\n\n"
        for k in range(6)
    )
    for n in range(8)
}


def update(path: str, text: str) -> FileUpdate:
    _, parsed = parse_item((path, text))
    return FileUpdate(
        state=FileState(path=path, size=len(text), mtime_ns=0, sha256=str(hash(text))),
        parsed=parsed,
        n_lines=text.count("\n"),
    )


def plan(index: SqliteIndex) -> str:
    sql = (
        "EXPLAIN QUERY PLAN SELECT f.path, e.caller, e.name FROM edges e JOIN files f ON f.id = +e.file_id "
        "WHERE e.kind = 'call' AND e.name IN (?, ?) AND f.path IN (?)"
    )
    return " ".join(str(r[-1]) for r in index._conn.execute(sql, ("helper_1", "other_2", "m1.py")))


def test_call_names_read_the_calls_index_a_run_makes_and_an_older_index_gets_it(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    index = SqliteIndex(db)
    index.apply([update(p, t) for p, t in FILES.items()], [], [])
    paths, names = ["m1.py", "m2.py", "m5.py"], ["helper_1", "other_2", "other_3", "absent"]
    found = sorted(index.call_names(paths, names))
    assert found and {n for _, _, n in found} == {"helper_1", "other_2", "other_3"}
    index.finish_run("now")
    assert "edges_calls" in plan(index)
    assert sorted(index.call_names(paths, names)) == found
    expected = sorted((p, e.caller, e.name) for p, e in index.edges(paths=paths, names=names, kinds=["call"]))
    assert found == expected
    index.close()
    older = sqlite3.connect(db)
    older.execute("DROP INDEX edges_calls")
    older.commit()
    older.close()
    index = SqliteIndex(db)
    assert "edges_calls" not in plan(index)
    assert sorted(index.call_names(paths, names)) == found
    index.apply([update("m0.py", FILES["m0.py"] + "def late():\n    helper_1()\n")], [], [])
    index.finish_run("later")
    assert "edges_calls" in plan(index)
    assert ("m0.py", "late", "helper_1") in index.call_names(["m0.py"], ["helper_1"])
    index.close()
