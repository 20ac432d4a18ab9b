"""Score adjustments and fusion for search hits: pure functions over plain numbers."""

from __future__ import annotations

import functools
import re
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[K]], weights: Mapping[str, float] | None = None
) -> list[tuple[K, float]]:
    """Fuse ranked lists: score(k) = sum over lists of weight / (RRF_K + rank). Ties keep first-seen order."""
    scores: dict[K, float] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, key in enumerate(ranking, 1):
            scores[key] = scores.get(key, 0.0) + weight / (RRF_K + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])


SECONDARY_MULTIPLIER = 0.5  # a declaration, generated, minified or vendored file: the source is elsewhere
_SECONDARY_PATH = re.compile(
    r"(?:^|/)(?:vendor|third_party|third-party|node_modules|bower_components|dist|examples?|samples?|benchmarks?|docs)/"
    r"|\.d\.[cm]?ts$|\.min\.[a-z]+$|[.-]bundle\.[a-z]+$|\.pb\.go$|_pb2(?:_grpc)?\.pyi?$|\.g\.dart$"
    r"|(?:^|/)zz_generated[^/]*$|\.generated\.[a-z]+$|_generated\.[a-z]+$"
)
_ASKS_SECONDARY = re.compile(
    r"\b(?:d\.ts|declarations?|typings|vendor(?:ed)?|third[_ -]party|node_modules|generated|minified|bundle[ds]?|"
    r"dist|protobuf|pb2|examples?|samples?|benchmarks?|docs|documentation)\b",
    re.IGNORECASE,
)


def is_secondary_file(path: str) -> bool:
    """Files an agent rarely wants first: `.d.ts` declarations, generated and minified code, vendored trees."""
    return _SECONDARY_PATH.search(path) is not None


def asks_for_secondary_files(query: str) -> bool:
    """The question is about declarations, generated, minified or vendored code, so they rank as usual."""
    return _ASKS_SECONDARY.search(query) is not None


# English endings a name word and a question word may differ by (suggest ~ suggestions ~ suggested, parse ~
# parser ~ parsing); longest first
_NAME_WORD_ENDINGS = ("ations", "ation", "ings", "ing", "ions", "ion", "ers", "er", "ed", "es", "s")


@functools.lru_cache(maxsize=65536)
def name_stem(word: str) -> str:
    """A folded word less one English ending and a final e, keeping at least four letters: what a question's
    word and a name's part share when they are one word in two forms (`suggested` and `SuggestionsFor` ->
    suggest, `parse` and `parser` -> pars); `set` and `settings`, `time` and `timeout` stay apart."""
    for ending in _NAME_WORD_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            word = word[: -len(ending)]
            break
    if word.endswith("e") and len(word) >= 5:
        word = word[:-1]
    return word
