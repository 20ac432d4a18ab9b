"""Trifecta: context retrieval for coding agents.

import trifecta
with trifecta.open("path/to/repo") as engine:
    hits = engine.search("where is the retry logic").to_dict()["data"]["hits"]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["ConfigError", "Engine", "ErrorCode", "InvalidArgument", "Response", "__version__", "open"]

if TYPE_CHECKING:
    from .domain.contract import ErrorCode, Response
    from .infrastructure.config import ConfigError
    from .interfaces.arguments import InvalidArgument
    from .interfaces.facade import Engine


def open(path: str = ".", **options: Any) -> Engine:  # noqa: A001 - the documented facade name
    """Open a segment (a repository or folder) for indexing and search."""
    from .interfaces.facade import open_engine

    return open_engine(path, **options)


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
