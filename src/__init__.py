"""Trifecta: context retrieval for coding agents.

import trifecta
with trifecta.open("path/to/repo") as engine:
    hits = engine.search("where is the retry logic").to_dict()["data"]["hits"]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = [
    "ConfigError",
    "Engine",
    "ErrorCode",
    "InvalidArgument",
    "Response",
    "__version__",
    "open",
    "open_segments",
]

if TYPE_CHECKING:
    from .domain.contract import ErrorCode, Response
    from .infrastructure.config import ConfigError
    from .interfaces.arguments import InvalidArgument
    from .interfaces.facade import Engine
    from .interfaces.segments import SegmentSet


def open(path: str = ".", **options: Any) -> Engine:  # noqa: A001 - the documented facade name
    """Open a segment (a repository or folder) for indexing and search."""
    from .interfaces.facade import open_engine

    return open_engine(path, **options)


def open_segments(segments: Sequence[str] | None = None, **options: Any) -> SegmentSet:
    """Segments of a shared PostgreSQL index by id (None: all of them), searched as one ranking with no
    checkout; the URL from `db_url=`, TRIFECTA_DB_URL or the user's config."""
    from .interfaces.segments import open_segments as opened

    return opened(segments, **options)


def __getattr__(name: str) -> Any:
    if name in ("ErrorCode", "Response"):
        from .domain import contract

        return getattr(contract, name)
    if name == "Engine":
        from .interfaces.facade import Engine

        return Engine
    if name == "InvalidArgument":  # what open() and Engine.index() raise for a wrong argument (a ValueError)
        from .interfaces.arguments import InvalidArgument

        return InvalidArgument
    if name == "ConfigError":  # what open() raises for a setting that cannot be used (a ValueError)
        from .infrastructure.config import ConfigError

        return ConfigError
    raise AttributeError(name)
