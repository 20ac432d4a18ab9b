"""Hit.rescored: attrs.evolve of the score alone, field for field."""

from __future__ import annotations

import attrs

from trifecta.domain.code import Chunk, ChunkKind, Hit


def test_rescored_is_evolve_of_the_score_and_keeps_every_other_field() -> None:
    chunk = Chunk(
        id="c1",
        path="a/b.py",
        start_line=3,
        end_line=9,
        kind=ChunkKind.FUNCTION,
        language="python",
        symbol="f",
        name="f",
        signature="def f()",
        doc="",
        body="def f():\n    pass\n",
    )
    hit = Hit(chunk=chunk, score=1.5, match_type="pattern", line=4, preview="x")
    assert hit.rescored(2.25) == attrs.evolve(hit, score=2.25)
    # a field added to Hit must be carried by rescored too
    assert [f.name for f in attrs.fields(Hit)] == ["chunk", "score", "match_type", "line", "preview"]
