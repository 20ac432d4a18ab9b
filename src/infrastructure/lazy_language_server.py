"""The language server as the composition root hands it out: one per language, nothing imported or started
until asked.

Each request goes to the server of its file's language (``code_parser.language_of`` -> the row of
``language_servers.SERVERS``): one ``StdioLanguageServer`` per row, made on the first request for one of its
files and kept until ``close()``. A file of a language no row serves is ``LanguageServerUnavailable`` with
reason ``no_server``; the other reasons come from the adapter, so a missing, crashed or hung server of one
language never touches the others.

Importing pygls and lsprotocol takes about 0.3 s, which every other command (``ctx search``, ``ast snippet``)
would otherwise pay for at start-up; and they are an optional extra (``pip install 'trifecta[lsp]'``), so
their absence must be an ``LSP_UNAVAILABLE`` answer, not an ``ImportError``. This router imports
``lsp_client`` on the first hover or references request.

``command`` is the ``[lsp] command`` setting: it replaces the Python row's command (the other rows keep theirs).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import attrs

from ..application.navigation import HoverInfo, LanguageServer, LanguageServerUnavailable, Location
from .code_parser import language_of
from .language_servers import SERVERS, ServerSpec

PYTHON = SERVERS[0].name


class LazyLanguageServer(LanguageServer):
    def __init__(
        self,
        root: str | os.PathLike[str],
        command: Sequence[str] | None,
        timeout: float,
        *,
        servers: Sequence[ServerSpec] = SERVERS,
    ) -> None:
        self._root = Path(root)
        self._timeout = timeout
        rows = [
            attrs.evolve(row, command=tuple(command)) if command and row.name == PYTHON else row
            for row in servers
        ]
        self._by_language = {language: row for row in rows for language in row.languages}
        self._inners: dict[str, LanguageServer] = {}
        self._closed = False
        self._lock = threading.Lock()

    @property
    def inner(self) -> LanguageServer | None:
        """The Python server's adapter once one was made (tests and benchmarks look at its process)."""
        return self._inners.get(PYTHON)

    def adapter(self, name: str) -> LanguageServer | None:
        """The adapter of one row (``"typescript"``, ``"go"``, ...) once one was made."""
        return self._inners.get(name)

    def _server(self, path: str) -> LanguageServer:
        language = language_of(path)
        row = self._by_language.get(language) if language else None
        with self._lock:
            if self._closed:
                raise LanguageServerUnavailable(
                    "closed", "the engine was closed, and its language server with it", {}
                )
            if row is None:
                served = ", ".join(self._by_language)
                raise LanguageServerUnavailable(
                    "no_server",
                    f"no language server is known for {language or 'this kind of'} files ({path}); "
                    f"hover and refs go through a server for: {served}",
                    {"language": language, "served": list(self._by_language)},
                )
            inner = self._inners.get(row.name)
            if inner is None:
                try:
                    from .lsp_client import StdioLanguageServer
                except ImportError as exc:
                    raise LanguageServerUnavailable(
                        "not_installed",
                        f"the LSP client library is not installed ({exc}); install it with "
                        "pip install 'trifecta[lsp]'",
                        {"command": list(row.command), "install": "pip install 'trifecta[lsp]'"},
                    ) from None
                inner = self._inners[row.name] = StdioLanguageServer(self._root, row, self._timeout)
            return inner

    def hover(self, path: str, text: str, line: int, column: int) -> HoverInfo | None:
        return self._server(path).hover(path, text, line, column)

    def references(self, path: str, text: str, line: int, column: int) -> list[Location]:
        return self._server(path).references(path, text, line, column)

    def definition(self, path: str, text: str, line: int, column: int) -> list[Location]:
        server = self._server(path)
        ask = getattr(server, "definition", None)
        if ask is None:
            raise LanguageServerUnavailable(
                "no_server", f"the language server for {path} does not answer definitions", {}
            )
        return list(ask(path, text, line, column))

    def running(self, path: str) -> bool:
        """Whether the server of this file's language is up now (no server is started to find out)."""
        language = language_of(path)
        row = self._by_language.get(language) if language else None
        inner = self._inners.get(row.name) if row is not None else None
        running = getattr(inner, "running", None)
        return bool(running(path)) if running is not None else False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            inners, self._inners = list(self._inners.values()), {}
        for inner in inners:
            inner.close()
