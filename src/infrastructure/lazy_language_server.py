"""The language server as the composition root hands it out: nothing imported or started until asked.

Importing pygls and lsprotocol takes about 0.3 s, which every other command (``ctx search``, ``ast snippet``)
would otherwise pay for at start-up; and they are an optional extra (``pip install 'trifecta[lsp]'``), so
their absence must be an ``LSP_UNAVAILABLE`` answer, not an ``ImportError``. This proxy implements the port,
imports ``lsp_client`` on the first hover or references request, and passes every call on.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

from ..application.navigation import HoverInfo, LanguageServer, LanguageServerUnavailable, Location


class LazyLanguageServer(LanguageServer):
    def __init__(self, root: str | os.PathLike[str], command: Sequence[str], timeout: float) -> None:
        self._root = Path(root)
        self._command = tuple(command)
        self._timeout = timeout
        self._inner: LanguageServer | None = None
        self._closed = False
        self._lock = threading.Lock()

    @property
    def inner(self) -> LanguageServer | None:
        """The real adapter once one was made (tests and benchmarks look at its process)."""
        return self._inner

    def _server(self) -> LanguageServer:
        with self._lock:
            if self._closed:
                raise LanguageServerUnavailable(
                    "closed", "the engine was closed, and its language server with it", {}
                )
            if self._inner is None:
                try:
                    from .lsp_client import StdioLanguageServer
                except ImportError as exc:
                    raise LanguageServerUnavailable(
                        "not_installed",
                        f"the LSP client library is not installed ({exc}); install it with "
                        "pip install 'trifecta[lsp]'",
                        {"command": list(self._command)},
                    ) from None
                self._inner = StdioLanguageServer(self._root, self._command, self._timeout)
            return self._inner

    def hover(self, path: str, text: str, line: int, column: int) -> HoverInfo | None:
        return self._server().hover(path, text, line, column)

    def references(self, path: str, text: str, line: int, column: int) -> list[Location]:
        return self._server().references(path, text, line, column)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            inner, self._inner = self._inner, None
        if inner is not None:
            inner.close()
