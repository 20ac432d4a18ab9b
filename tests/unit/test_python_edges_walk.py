"""The Python edge walk's rows for one file, exactly: kinds, callers, positions, names, receiver types and
their order. The walk is tuned for speed (one pass, statements read as met, look-ups skipped where they
cannot find anything); a change to it must leave every row as it was. The fixture holds calls and values
in decorators, defaults, lambdas, comprehensions, f-strings, `match`, `with`, `async`, nested and local
classes, and types assigned twice to one name (their order is the walk's). To record a deliberate change
of the edges (and bump EDGES_VERSION), write the new rows to the golden file and review the diff."""

from __future__ import annotations

import json
from pathlib import Path

from trifecta.infrastructure.python_parser import parse_python

TESTS = Path(__file__).resolve().parents[1]
FIXTURE = TESTS / "fixtures" / "python_edges" / "walk.py"
GOLDEN = TESTS / "golden" / "python_edges_walk.json"


def test_the_edges_of_a_file_are_the_recorded_rows_in_their_order() -> None:
    parsed = parse_python("walk.py", FIXTURE.read_text())
    assert not parsed.error
    assert [list(row) for row in parsed.edge_rows] == json.loads(GOLDEN.read_text())


def test_the_fixture_reaches_every_place_the_walk_reads() -> None:
    """The golden rows hold what each part of the walk gives, so none can go missing unseen."""
    rows = json.loads(GOLDEN.read_text())
    kinds = {row[0] for row in rows}
    assert kinds == {"call", "import", "ref", "return", "arg"}
    texts = {(row[0], row[5]) for row in rows}
    assert ("call", "functools.lru_cache") in texts  # a decorator's call
    assert ("call", "os.fspath") in texts  # a default's call
    assert ("call", "s.close") in texts  # a lambda's
    assert ("call", "n.bit_length") in texts  # a comprehension's condition
    assert ("call", "item.key") in texts  # inside an f-string
    assert ("ref", "functools.cache") in texts  # a module's function as a decorator
    assert ("ref", "osp.getsize") in texts  # a module's function assigned
    receivers = {row[6] for row in rows if row[0] == "call"}
    assert "make_store()|Store" in receivers  # two types of one name, in the walk's order
    assert "Store.__enter__()" in receivers  # `with Store() as spare`
