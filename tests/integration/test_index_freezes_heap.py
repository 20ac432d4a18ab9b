"""After `index()` the process's long-lived objects are frozen out of the garbage collector's walk (a full
collection over them cost a search 15-20 ms on sqlalchemy), and the garbage of before is collected, not kept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHILD = """
import gc, sys, weakref
import trifecta

class Node:
    pass

cycle = Node()
cycle.me = cycle  # garbage once dropped: only the cycle collector frees it
gone = weakref.ref(cycle)
del cycle
gc.disable()  # no collection on its own before index()
engine = trifecta.open(sys.argv[1])
before = gc.get_freeze_count()
engine.index()
gc.enable()
hits = engine.search("parse http header", limit=3).to_dict()["data"]["hits"]
print(before, gc.get_freeze_count(), gone() is None, len(hits))
"""


@pytest.mark.timeout(120)
def test_index_freezes_what_lives_on_and_keeps_no_garbage(sample_repo: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(sample_repo)],
        capture_output=True,
        text=True,
        timeout=100,
        check=True,
    ).stdout.split()
    before, after, collected, hits = int(out[0]), int(out[1]), out[2] == "True", int(out[3])
    assert before == 0 and after > 1000  # the modules, the parser, the file states
    assert collected  # a cycle dropped before index() was freed, not frozen
    assert hits > 0


AGAIN = """
import gc, sys, weakref
import trifecta

class Node:
    pass

engine = trifecta.open(sys.argv[1])
cycle = Node()
cycle.me = cycle
gone = weakref.ref(cycle)
engine.index()  # freezes the cycle with everything else alive
del cycle  # now garbage, but frozen: only a thaw lets the collector see it
open(sys.argv[1] + "/added.py", "w").write("def added():\\n    return 1\\n")
engine.index()  # a run that changed something collects again
print(gone() is None)
"""


@pytest.mark.timeout(120)
def test_what_an_earlier_index_froze_and_was_dropped_is_collected_by_the_next(sample_repo: Path) -> None:
    # a long-lived process (the MCP server) indexes again and again: what one run froze must not be kept forever
    out = subprocess.run(
        [sys.executable, "-c", AGAIN, str(sample_repo)],
        capture_output=True,
        text=True,
        timeout=100,
        check=True,
    ).stdout.split()
    assert out == ["True"]
