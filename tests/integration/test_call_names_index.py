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


def edge_indexes(index: SqliteIndex) -> set[str]:
    rows = index._conn.execute("SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='edges'")
    return {r[0] for r in rows}


def test_a_first_run_makes_the_edges_look_up_indexes_at_its_end_and_a_stopped_one_gets_them_back(
    tmp_path: Path,
) -> None:
    db = tmp_path / "index.db"
    index = SqliteIndex(db)
    items = list(FILES.items())
    index.apply([update(p, t) for p, t in items[:4]], [], [])
    # written without the per-row upkeep of edges_file / edges_name: one sort of the table at the end
    assert not edge_indexes(index) & {"edges_file", "edges_name"}
    assert not index.has_completed_run()
    index.apply([update(p, t) for p, t in items[4:]], [], [])
    index.finish_run("now")
    assert {"edges_file", "edges_name", "edges_calls"} <= edge_indexes(index)
    assert index.has_completed_run()
    by_name = sorted((p, e.line) for p, e in index.edges(names=["helper_1"]))
    assert len(by_name) == 8 * 2  # f{n}_1 and f{n}_4 of every file
    plan = " ".join(
        str(r[-1]) for r in index._conn.execute("EXPLAIN QUERY PLAN SELECT * FROM edges WHERE name='x'")
    )
    assert "edges_name" in plan or "edges_calls" in plan
    index.close()

    # a run stopped after dropping them on a new index: the next one, on a filled table, makes them first
    older = sqlite3.connect(db)
    older.execute("DROP INDEX edges_file")
    older.execute("DROP INDEX edges_name")
    older.commit()
    older.close()
    index = SqliteIndex(db)
    assert not index.has_completed_run()
    index.apply([update("m0.py", FILES["m0.py"] + "def late():\n    helper_1()\n")], [], [])
    assert {"edges_file", "edges_name"} <= edge_indexes(index)
    plan = " ".join(
        str(r[-1]) for r in index._conn.execute("EXPLAIN QUERY PLAN DELETE FROM edges WHERE file_id=1")
    )
    assert "edges_file" in plan
    index.finish_run("later")
    assert index.has_completed_run()
    assert sorted((p, e.line) for p, e in index.edges(names=["helper_1"])) == sorted(
        [*by_name, ("m0.py", 32)]
    )
    index.close()


def test_call_names_of_some_callers_leave_the_other_callers_calls_out(tmp_path: Path) -> None:
    index = SqliteIndex(tmp_path / "index.db")
    index.apply([update(p, t) for p, t in FILES.items()], [], [])
    index.finish_run("now")
    paths, names = ["m1.py", "m2.py"], ["helper_1", "other_2", "other_3"]
    every = sorted(index.call_names(paths, names))
    callers = ["f1_1", "f2_4", "absent"]
    assert sorted(index.call_names(paths, names, callers)) == [c for c in every if c[1] in callers]
    assert len(every) > len(index.call_names(paths, names, callers)) > 0
    assert sorted(index.call_names(paths, names, [])) == every  # none given: every caller's
    index.close()
