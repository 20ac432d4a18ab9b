"""A read-only language server over stdio: pygls's ``LanguageClient`` driving one row of the
``language_servers`` table (``jedi-language-server``, ``typescript-language-server``, ``gopls``, ...).

Implements ``application.navigation.LanguageServer`` for one segment and one server; ``lazy_language_server``
routes each file to the server of its language. What it promises the use cases:

* **Lazy start, reuse.** Nothing runs until the first request; the server then stays up for every later
  request of this adapter (one per ``Engine``, so an MCP server holding an engine keeps one server warm).
* **A timeout on everything.** Start-up plus ``initialize``, and each request, get ``timeout`` seconds
  (``[lsp] timeout`` / ``TRIFECTA_LSP_TIMEOUT``). A server past it is considered hung: it is killed (its
  whole process group: jedi runs a helper process) and the request raises ``LanguageServerUnavailable``.
* **Failures are values.** A missing command (``not_installed``, with the row's install command in the
  error's data), a server that exits (crash, ``kill -9`` mid-request), hangs or
  answers a request with an error raises ``LanguageServerUnavailable`` with a reason and the tail of the
  server's stderr; no other exception leaves this module. A server that is gone is replaced by a fresh one
  on the next request.
* **Nothing reaches stdout.** The server's stdout is the protocol pipe; its stderr is drained into a small
  ring buffer (a full pipe would block it) and only ever shown inside an error's data. Its log and show
  messages are kept there too.
* **Clean exit.** ``close()`` sends ``shutdown`` and ``exit``, gives the server a moment to leave, then kills
  it (a read-only server has nothing to save; jedi would take a second); an ``atexit`` hook closes every
  adapter still open when the interpreter ends.

pygls's client is asyncio-based and the use cases are synchronous, so each adapter runs one event loop in a
daemon thread and hands it coroutines with ``run_coroutine_threadsafe``; a lock serialises requests (an
``Engine`` is used from one thread at a time anyway).

The command (the row's; for Python ``[lsp] command`` / ``TRIFECTA_LSP_COMMAND`` may replace it) is looked up
first beside the running interpreter, so a virtual environment's server is found without being on ``PATH``,
then on ``PATH``; never in the segment, whose files are not ours to run. Positions: the port speaks Python string indices; LSP speaks UTF-16 code units, converted
here for requests (the use case converts answers, where it has the lines).
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import logging
import os
import shutil
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from ..application.navigation import HoverInfo, LanguageServer, LanguageServerUnavailable, Location
from .language_servers import SERVERS, ServerSpec

T = TypeVar("T")

DEFAULT_TIMEOUT = 10.0
CLOSE_WAIT_SECONDS = 2.0  # for an answer to shutdown, then the process is killed
EXIT_GRACE_SECONDS = (
    0.25  # after exit: jedi takes ~1 s to leave on its own; it has nothing to save, so it is killed
)
STDERR_TAIL_LINES = 40
STDERR_TAIL_CHARS = 2000
CLIENT_NAME = "trifecta"

logging.getLogger("pygls").addHandler(logging.NullHandler())


def resolve_command(command: Sequence[str]) -> list[str] | None:
    """The command with its program made absolute: beside ``sys.executable`` first, then on ``PATH``;
    None when the program is not found. A program given as a path is used as it is."""
    if not command:
        return None
    program, args = command[0], list(command[1:])
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(program).expanduser()
        return [str(path), *args] if path.is_file() and os.access(path, os.X_OK) else None
    beside = shutil.which(program, path=str(Path(sys.executable).parent))
    found = beside or shutil.which(program)
    return [found, *args] if found else None


def _nearest_node_modules(program: str) -> Path | None:
    """The ``node_modules`` folder an npm-installed program really lives in (through the bin symlink)."""
    with contextlib.suppress(OSError):
        for folder in Path(program).resolve().parents:
            if folder.name == "node_modules":
                return folder
    return None


def resolve_beside(spec: ServerSpec, program: str) -> str | None:
    """The file ``spec.beside`` names, from the package installed next to the server (in its nearest
    ``node_modules``), else next to ``beside.program`` found on ``PATH``; None when neither has it.
    Never the segment's own ``node_modules``: see ``language_servers``."""
    beside = spec.beside
    if beside is None:
        return None
    homes = [_nearest_node_modules(program)]
    other = shutil.which(beside.program) if beside.program else None
    if other:
        homes.append(_nearest_node_modules(other))
    for home in homes:
        if home is not None and (home / beside.package_file).is_file():
            return str(home / beside.package_file)
    return None


def _with_option(options: Mapping[str, Any], key: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A copy of ``options`` with ``value`` set at the nested ``key``."""
    out = dict(options)
    if len(key) == 1:
        out[key[0]] = value
    else:
        inner = out.get(key[0])
        out[key[0]] = _with_option(inner if isinstance(inner, Mapping) else {}, key[1:], value)
    return out


def _utf16_column(line: str, column: int) -> int:
    prefix = line[: max(column, 0)]
    return len(prefix.encode("utf-16-le", "surrogatepass")) // 2


class _Client(LanguageClient):
    """pygls's client, remembering the server's messages (stderr, logMessage) for error reports."""

    def __init__(self) -> None:
        super().__init__(CLIENT_NAME, "1")
        self.tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self.exit_code: int | None = None
        self.session: _Session | None = None  # set once the process runs, so a failed start can be cleaned up

        @self.feature(lsp.WINDOW_LOG_MESSAGE)
        def _log(_client: Any, params: lsp.LogMessageParams) -> None:
            if params.type in (lsp.MessageType.Error, lsp.MessageType.Warning):
                self.tail.append(f"[log] {params.message}")

        @self.feature(lsp.WINDOW_SHOW_MESSAGE)
        def _show(_client: Any, params: lsp.ShowMessageParams) -> None:
            self.tail.append(f"[show] {params.message}")

        @self.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(_client: Any, _params: Any) -> None:
            """Ignored: asked to be off, accepted quietly if a server sends them anyway."""

    async def server_exit(self, server: asyncio.subprocess.Process) -> None:
        self.exit_code = server.returncode

    @property
    def process(self) -> asyncio.subprocess.Process | None:
        return self._server  # set by start_io; pygls has no public accessor

    def stderr_tail(self) -> str:
        text = "\n".join(self.tail)
        return text[-STDERR_TAIL_CHARS:]


class _Session:
    """One running server: its client, process and the task draining its stderr."""

    def __init__(
        self, client: _Client, process: asyncio.subprocess.Process, drain: asyncio.Task[None]
    ) -> None:
        self.client = client
        self.process = process
        self.drain = drain
        self.version = 0

    @property
    def alive(self) -> bool:
        # returncode is set by the event loop some time after the process died: a server killed just before
        # a request would be reused and the request fail, so the process itself is asked too
        return self.process.returncode is None and not self.client.stopped and _running(self.process.pid)


def _running(pid: int) -> bool:
    """False once the process is gone or a zombie (dead, not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b") ", 1)[-1][:1] != b"Z"
    except OSError:  # no /proc (macOS): kill(0) said it exists
        return True


class StdioLanguageServer(LanguageServer):
    """A language server process for one segment, started on the first request (see the module doc).
    ``spec`` is its row of ``language_servers.SERVERS`` (the Python row by default)."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        spec: ServerSpec = SERVERS[0],
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self._root = Path(root).resolve()
        self._spec = spec
        self._command = tuple(spec.command)
        self._timeout = float(timeout)
        self._init_options = dict(spec.init_options)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._session: _Session | None = None
        self._closed = False
        self.starts = 0  # how many servers this adapter has started (a fresh one after each failure)
        self.start_seconds = 0.0  # how long the last successful start + initialize took
        _OPEN.add(self)

    # ------------------------------------------------------------------ the port
    def hover(self, path: str, text: str, line: int, column: int) -> HoverInfo | None:
        position = self._position(text, line, column)

        async def ask(session: _Session) -> HoverInfo | None:
            async with self._opened(session, path, text) as doc:
                result = await session.client.text_document_hover_async(
                    lsp.HoverParams(text_document=doc, position=position)
                )
            return _hover_info(result)

        return self._request("hover", ask)

    def references(self, path: str, text: str, line: int, column: int) -> list[Location]:
        position = self._position(text, line, column)

        async def ask(session: _Session) -> list[Location]:
            async with self._opened(session, path, text) as doc:
                result = await session.client.text_document_references_async(
                    lsp.ReferenceParams(
                        text_document=doc,
                        position=position,
                        context=lsp.ReferenceContext(include_declaration=False),
                    )
                )
            return [self._location(loc) for loc in result or ()]

        return self._request("references", ask)

    def definition(self, path: str, text: str, line: int, column: int) -> list[Location]:
        """``textDocument/definition`` at the position: where the name there is defined (a
        ``LocationLink`` answer is read as its target's name)."""
        position = self._position(text, line, column)

        async def ask(session: _Session) -> list[Location]:
            async with self._opened(session, path, text) as doc:
                result = await session.client.text_document_definition_async(
                    lsp.DefinitionParams(text_document=doc, position=position)
                )
            return [self._location(loc) for loc in _as_locations(result)]

        return self._request("definition", ask)

    def running(self, path: str = "") -> bool:
        """Whether a server process is up now (started by an earlier request and still alive)."""
        session = self._session
        return session is not None and session.alive and not self._closed

    def close(self) -> None:
        """Shut the server down (``shutdown``, ``exit``, then kill) and stop the event loop thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread, session = self._loop, self._thread, self._session
            self._session = None
            if loop is None:
                return
            if session is not None:
                with contextlib.suppress(Exception):
                    asyncio.run_coroutine_threadsafe(_stop(session, graceful=True), loop).result(
                        CLOSE_WAIT_SECONDS * 3
                    )
            loop.call_soon_threadsafe(loop.stop)
            if thread is not None:
                thread.join(CLOSE_WAIT_SECONDS)
            if thread is None or not thread.is_alive():
                loop.close()
        _OPEN.discard(self)

    # ------------------------------------------------------------------ state for tests and benchmarks
    @property
    def pid(self) -> int | None:
        """The running server's process id, None when none runs."""
        session = self._session
        return session.process.pid if session is not None and session.alive else None

    @property
    def command(self) -> tuple[str, ...]:
        return self._command

    @property
    def spec(self) -> ServerSpec:
        return self._spec

    # ------------------------------------------------------------------ internals
    def _position(self, text: str, line: int, column: int) -> lsp.Position:
        lines = text.split("\n")
        source_line = lines[line - 1] if 1 <= line <= len(lines) else ""
        return lsp.Position(line=max(line - 1, 0), character=_utf16_column(source_line, column))

    def _uri(self, path: str) -> str:
        return (self._root / path).as_uri()

    def _location(self, loc: lsp.Location) -> Location:
        parsed = urlparse(loc.uri)
        line = loc.range.start.line + 1
        if parsed.scheme != "file":
            return Location(path=loc.uri, line=line, character=loc.range.start.character, in_segment=False)
        full = Path(unquote(parsed.path))
        try:
            rel = full.resolve().relative_to(self._root)
        except (ValueError, OSError):
            return Location(path=str(full), line=line, character=loc.range.start.character, in_segment=False)
        return Location(path=rel.as_posix(), line=line, character=loc.range.start.character)

    @contextlib.asynccontextmanager
    async def _opened(self, session: _Session, path: str, text: str) -> Any:
        """The document opened with the caller's text for one request, closed after it."""
        session.version += 1
        uri = self._uri(path)
        session.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(
                    uri=uri, language_id=self._spec.language_id(path), version=session.version, text=text
                )
            )
        )
        try:
            yield lsp.TextDocumentIdentifier(uri=uri)
        finally:
            if session.alive:
                with contextlib.suppress(Exception):
                    session.client.text_document_did_close(
                        lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
                    )

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="trifecta-lsp", daemon=True)
            thread.start()
            self._loop, self._thread = loop, thread
        return self._loop

    def _details(self, session: _Session | None = None, **extra: Any) -> dict[str, Any]:
        details: dict[str, Any] = {"command": list(self._command), "timeout_s": self._timeout}
        if session is not None:
            details["pid"] = session.process.pid
            code = session.process.returncode
            if code is not None:
                details["exit_code"] = code
            tail = session.client.stderr_tail()
            if tail:
                details["stderr_tail"] = tail
        details.update(extra)
        return details

    def _request(self, what: str, ask: Callable[[_Session], Coroutine[Any, Any, T]]) -> T:
        with self._lock:
            if self._closed:
                raise LanguageServerUnavailable(
                    "closed", "the engine was closed, and its language server with it", self._details()
                )
            loop = self._ensure_loop()
            session = self._session
            if session is None or not session.alive:
                if session is not None:
                    self._discard(loop, session)
                session = self._start(loop)
            future = asyncio.run_coroutine_threadsafe(ask(session), loop)
            started = time.monotonic()
            try:
                return future.result(self._timeout)
            except TimeoutError:
                future.cancel()
                if not session.alive:
                    raise self._exited(loop, session, what) from None
                self._discard(loop, session)
                raise LanguageServerUnavailable(
                    "timeout",
                    f"no answer to {what} within {self._timeout:g} s; the server was stopped and the next "
                    "request starts a fresh one",
                    self._details(session, waited_s=round(time.monotonic() - started, 2)),
                ) from None
            except JsonRpcException as exc:
                if not session.alive:
                    raise self._exited(loop, session, what) from None
                raise LanguageServerUnavailable(
                    "request_failed",
                    f"the server answered {what} with an error: {exc}",
                    self._details(session),
                ) from None
            except Exception as exc:  # a dead pipe, "server process exited", a malformed answer
                if not session.alive or _looks_dead(exc):
                    raise self._exited(loop, session, what) from None
                raise LanguageServerUnavailable(
                    "request_failed",
                    f"{what} failed: {type(exc).__name__}: {exc}",
                    self._details(session),
                ) from None

    def _exited(
        self, loop: asyncio.AbstractEventLoop, session: _Session, what: str
    ) -> LanguageServerUnavailable:
        self._discard(loop, session)
        code = session.process.returncode
        how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
        return LanguageServerUnavailable(
            "exited",
            f"the server {how} during {what}; the next request starts a fresh one",
            self._details(session),
        )

    def _discard(self, loop: asyncio.AbstractEventLoop, session: _Session) -> None:
        """Kill a session that failed and forget it (never blocks longer than the close wait)."""
        if self._session is session:
            self._session = None
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(_stop(session, graceful=False), loop).result(
                CLOSE_WAIT_SECONDS * 2
            )

    def _not_installed(self, why: str, session: _Session | None = None) -> LanguageServerUnavailable:
        spec = self._spec
        override = " or set [lsp] command / TRIFECTA_LSP_COMMAND" if spec.name == SERVERS[0].name else ""
        return LanguageServerUnavailable(
            "not_installed",
            f"{why}; the {', '.join(spec.languages)} language server is optional: install it with "
            f"{spec.install}{override}",
            self._details(session, install=spec.install, language=spec.languages[0]),
        )

    def _start(self, loop: asyncio.AbstractEventLoop) -> _Session:
        command = resolve_command(self._command)
        if command is None:
            name = self._command[0] if self._command else "(empty)"
            raise self._not_installed(
                f"the language server command {name!r} was not found beside the Python interpreter or on PATH"
            )
        options = self._init_options
        if self._spec.beside is not None:
            found = resolve_beside(self._spec, command[0])
            if found is None:
                raise self._not_installed(
                    f"{command[0]} needs {self._spec.beside.package_file.split('/')[0]!r} installed beside it "
                    "(the repository's own copy is never run)"
                )
            options = _with_option(options, self._spec.beside.option, found)
        client = _Client()
        self.starts += 1
        launched = time.monotonic()
        future = asyncio.run_coroutine_threadsafe(self._launch(client, command, options), loop)
        try:
            started = future.result(self._timeout)
        except TimeoutError:
            future.cancel()
            failed = client.session
            if failed is not None:
                self._discard(loop, failed)
            raise LanguageServerUnavailable(
                "timeout",
                f"the server did not answer initialize within {self._timeout:g} s; it was stopped",
                self._details(failed),
            ) from None
        except OSError as exc:
            raise LanguageServerUnavailable(
                "start_failed", f"could not run {command[0]}: {exc.strerror or exc}", self._details()
            ) from None
        except Exception as exc:
            failed = client.session
            if failed is not None:
                with contextlib.suppress(Exception):  # let the drain catch the last words on stderr
                    asyncio.run_coroutine_threadsafe(_settle(failed), loop).result(CLOSE_WAIT_SECONDS)
                self._discard(loop, failed)
                if failed.process.returncode is not None:
                    code = failed.process.returncode
                    tail = failed.client.stderr_tail()
                    if any(marker in tail for marker in self._spec.not_installed_markers):
                        raise self._not_installed(
                            f"{command[0]} is only a stub: it exited with code {code} saying so", failed
                        ) from None
                    raise LanguageServerUnavailable(
                        "exited",
                        f"the server exited with code {code} before answering initialize",
                        self._details(failed),
                    ) from None
            raise LanguageServerUnavailable(
                "start_failed", f"initialize failed: {type(exc).__name__}: {exc}", self._details(failed)
            ) from None
        self.start_seconds = time.monotonic() - launched
        self._session = started
        return started

    async def _launch(self, client: _Client, command: list[str], options: Mapping[str, Any]) -> _Session:
        await client.start_io(command[0], *command[1:], cwd=str(self._root), start_new_session=True)
        process = client.process
        if process is None or process.stderr is None:
            raise RuntimeError("the server process has no stderr pipe")
        drain = asyncio.create_task(_drain(process.stderr, client.tail))
        session = _Session(client, process, drain)
        client.session = session
        root_uri = self._root.as_uri()
        await client.initialize_async(
            lsp.InitializeParams(
                process_id=os.getpid(),
                root_uri=root_uri,
                root_path=str(self._root),
                workspace_folders=[lsp.WorkspaceFolder(uri=root_uri, name=self._root.name or "segment")],
                capabilities=lsp.ClientCapabilities(
                    text_document=lsp.TextDocumentClientCapabilities(
                        hover=lsp.HoverClientCapabilities(
                            content_format=[lsp.MarkupKind.Markdown, lsp.MarkupKind.PlainText]
                        )
                    )
                ),
                initialization_options=dict(options),
            )
        )
        client.initialized(lsp.InitializedParams())
        return session


# --------------------------------------------------------------------------------------------- helpers


def _looks_dead(exc: BaseException) -> bool:
    text = str(exc)
    return isinstance(exc, BrokenPipeError | ConnectionError) or "exited with return code" in text


def _as_locations(result: Any) -> list[lsp.Location]:
    """A definition answer (one ``Location``, a list of them, or of ``LocationLink``s) as locations."""
    items = result if isinstance(result, list) else [result] if result is not None else []
    out = []
    for item in items:
        if isinstance(item, lsp.LocationLink):
            out.append(lsp.Location(uri=item.target_uri, range=item.target_selection_range))
        elif isinstance(item, lsp.Location):
            out.append(item)
    return out


def _hover_info(result: lsp.Hover | None) -> HoverInfo | None:
    if result is None:
        return None
    contents = result.contents
    if isinstance(contents, lsp.MarkupContent):
        return HoverInfo(text=contents.value, markup=str(contents.kind.value))
    items = contents if isinstance(contents, list) else [contents]
    parts = []
    for item in items:
        if isinstance(item, lsp.MarkedStringWithLanguage):
            parts.append(f"```{item.language}\n{item.value}\n```")
        else:
            parts.append(str(item))
    return HoverInfo(text="\n\n".join(parts), markup="markdown")


async def _drain(stream: asyncio.StreamReader, tail: collections.deque[str]) -> None:
    """Read the server's stderr to its end, keeping the last lines: never printed, only reported."""
    with contextlib.suppress(Exception):
        while True:
            line = await stream.readline()
            if not line:
                return
            tail.append(line.decode("utf-8", "replace").rstrip())


async def _settle(session: _Session) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(session.process.wait(), CLOSE_WAIT_SECONDS / 2)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.shield(session.drain), CLOSE_WAIT_SECONDS / 2)


def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the server and what it started (it leads its own process group, which outlives the leader
    while a helper it started still runs)."""
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            process.kill()


async def _stop(session: _Session, *, graceful: bool) -> None:
    client, process = session.client, session.process
    if graceful and session.alive:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_async(None), CLOSE_WAIT_SECONDS)
            client.exit(None)
            await asyncio.wait_for(process.wait(), EXIT_GRACE_SECONDS)
    _kill(process)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(process.wait(), CLOSE_WAIT_SECONDS)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(client.stop(), CLOSE_WAIT_SECONDS)
    session.drain.cancel()
    with contextlib.suppress(BaseException):
        await session.drain


# --------------------------------------------------------------------------------------------- exit


_OPEN: weakref.WeakSet[StdioLanguageServer] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """At interpreter exit, shut down every server still running (an engine nobody closed)."""
    for server in list(_OPEN):
        with contextlib.suppress(Exception):
            server.close()
