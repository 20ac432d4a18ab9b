"""`terms.expand_identifiers` expands a space-separated piece at a time through a bounded memo: the result must
be exactly the one scan of the whole text (`_expand_text`), on any text, met once, twice or after the memo
was cleared."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.domain import terms
from trifecta.domain.terms import _expand_text, expand_identifiers


def test_a_text_expands_the_same_met_twice_and_after_the_memo_is_cleared(monkeypatch) -> None:
    text = "parseHTTPHeader reads  the\theader_line;\nsee fooBar.bazQux(x_y)  " + "longName_" * 20
    expected = "parseHTTPHeader parse HTTP Header reads  the\theader_line header line;\nsee fooBar foo Bar"
    assert expand_identifiers(text).startswith(expected)
    assert expand_identifiers(text) == expand_identifiers(text) == _expand_text(text)
    assert "parseHTTPHeader" in terms._EXPANDED_PIECES
    assert not any(len(piece) > terms.EXPAND_MEMO_PIECE_CHARS for piece in terms._EXPANDED_PIECES)
    monkeypatch.setattr(terms, "EXPAND_MEMO_PIECES", 1)
    assert expand_identifiers(text) == _expand_text(text)
    fresh = "newPieceOne new_piece_two NewPieceThree"
    assert expand_identifiers(fresh) == _expand_text(fresh)
    assert len(terms._EXPANDED_PIECES) == 1  # bounded: cleared whenever a new piece finds it full


_TEXT = st.text(
    alphabet=st.sampled_from(list("aAbZz09_ \t\n.,(é\u00c9\u0130\u01c5-")) | st.characters(), max_size=80
)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_expanding_a_piece_at_a_time_is_expanding_the_whole_text(text: str) -> None:
    assert expand_identifiers(text) == _expand_text(text)
