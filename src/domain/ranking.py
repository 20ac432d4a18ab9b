"""Score adjustments and fusion for search hits: pure functions over plain numbers."""

from __future__ import annotations

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
