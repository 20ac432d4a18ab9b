"""Parser worker processes talking pickled frames over pipes: forked from the indexing process where that
is safe, else started as plain `python -c ...` subprocesses.

Why not `multiprocessing`: its `fork` copies a parent that may run threads (a language-server client, an
ONNX session, the MCP server) and a child can then hang on a lock or a finalizer it inherited mid-flight;
`spawn` and `forkserver` re-run the caller's `__main__` in every worker, so a library user's script without
an `if __name__ == "__main__":` guard would run again.

So a worker is forked only on Linux from a process that runs no other Python thread (the CLI, a script),
and the child never returns into the caller's code: it keeps only its two pipes (every other inherited
descriptor closed), puts the parent's signal handlers back to the defaults, parses, and leaves by
`os._exit` (no finalizer, `atexit` handler or buffered output of the parent's runs there). It inherits the
imported parser and the grammars the parent loaded, so it parses its first file ~0.2 s sooner than a
fresh interpreter that imports the parser and compiles its queries (~0.2 s of CPU saved per worker), and
exits at once. Anywhere else a worker is a fresh interpreter that imports only the parser.

Frames are an 8-byte little-endian length and a pickle. A worker that dies or answers garbage is dropped and
its chunk of files is parsed in the parent instead: an index run never fails because a worker did.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, NoReturn

_HEADER = struct.Struct("<Q")
_WORKER = (
    "import sys\n"
    "from trifecta.infrastructure.parse_pool import serve\n"
    "serve(sys.stdin.buffer, sys.stdout.buffer)\n"
)
RUN_AHEAD_CHUNKS = 32  # parsed chunks waiting for the caller, at most (bounds memory)
GC_EVERY_FRAMES = 64  # a worker's full garbage collection, between frames
EXIT_THREAD = "trifecta-parse-exit"  # the thread that waits for the workers to exit
FORK = True  # fork workers where that is safe (see can_fork); False: always fresh interpreters
_MAX_FD = 1 << 20  # os.closerange's bound: Linux closes the range with one close_range call


def _write_frame(stream: IO[bytes], payload: bytes) -> None:
    stream.write(_HEADER.pack(len(payload)))
    stream.write(payload)
    stream.flush()


def _read_frame(stream: IO[bytes]) -> bytes | None:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    payload = stream.read(size)
    return payload if len(payload) == size else None


def serve(inp: IO[bytes], out: IO[bytes]) -> None:
    """The worker's loop: a frame of (path, text) items in, a frame of (path, ParsedFile) out."""
    sys.stdout = sys.stderr  # nothing but frames may reach the pipe
    from .code_parser import parse_item

    # `ast.parse` allocates a node object per token or so, and every 700 allocations wake the cyclic
    # garbage collector, which then walks all of them: a third of the parse time. Syntax trees and the
    # values made from them hold no reference cycles (reference counting frees them), so the collector
    # only runs between frames here, where it finds next to nothing to walk.
    gc.disable()
    frames = 0
    while (frame := _read_frame(inp)) is not None:
        items = pickle.loads(frame)
        _write_frame(
            out, pickle.dumps([parse_item(item) for item in items], protocol=pickle.HIGHEST_PROTOCOL)
        )
        frames += 1
        if frames % GC_EVERY_FRAMES == 0:
            gc.collect()


class _Forked:
    """A forked worker process, with the parts of `subprocess.Popen` the pool uses."""

    def __init__(self) -> None:
        to_child, self._to_child = os.pipe()
        self._from_child, from_child = os.pipe()
        # Signals wait until the child has put the parent's handlers aside (else one could run there).
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        try:
            self.pid = os.fork()
            if self.pid == 0:  # the child: never returns into the caller's code
                _serve_forked(to_child, from_child, mask)
        except OSError:  # no memory or process left for a copy: the caller starts a fresh interpreter
            for fd in (to_child, self._to_child, self._from_child, from_child):
                os.close(fd)
            raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(to_child)
        os.close(from_child)
        self.stdin: IO[bytes] | None = open(self._to_child, "wb")  # noqa: SIM115 - closed by stop()
        self.stdout: IO[bytes] | None = open(self._from_child, "rb")  # noqa: SIM115 - closed by _Worker.close
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"parser worker {self.pid}", timeout or 0.0)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def _serve_forked(inp: int, out: int, mask: set[int | signal.Signals]) -> NoReturn:
    """The forked child's whole life: the parent's Python signal handlers replaced by the defaults (signals
    stay blocked from before the fork until then); its pipes as stdin and stdout, stderr to /dev/null,
    every other descriptor it inherited closed (another worker's pipe end would hide the end of that
    worker's input; the index's file and lock are the parent's); then `serve`, then `os._exit`: the
    parent's finalizers and `atexit` handlers never run here (closing its SQLite connection could
    checkpoint the database), nor is its buffered output flushed."""
    code = 1
    try:
        for number in signal.valid_signals():
            with contextlib.suppress(OSError, ValueError, TypeError):
                if callable(signal.getsignal(number)):
                    signal.signal(number, signal.SIG_DFL)
        # what arrived meanwhile now takes its default action
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.dup2(inp, 0)
        os.dup2(out, 1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.closerange(3, _MAX_FD)
        gc.freeze()  # the parent's objects: never walked (so never copied) by a collection in this child
        with open(0, "rb", closefd=False) as stdin, open(1, "wb", closefd=False) as stdout:
            serve(stdin, stdout)
        code = 0
    except BaseException:  # noqa: BLE001, S110 - the parent sees the pipe close and parses this share itself
        pass
    finally:
        os._exit(code)


def can_fork() -> bool:
    """Whether workers may be forked from this process: on Linux, when it runs no other Python thread (a
    thread could hold a lock the child would then wait on forever). Elsewhere, or with threads, workers
    are fresh interpreters."""
    return FORK and sys.platform == "linux" and threading.active_count() == 1


class _Worker:
    def __init__(self, fork: bool = False) -> None:
        self.process: subprocess.Popen[bytes] | _Forked
        if fork:
            with contextlib.suppress(OSError):  # fork failed (ENOMEM, EAGAIN): a fresh interpreter instead
                self.process = _Forked()
                return
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def run(self, items: list[Any]) -> list[Any] | None:
        """The parsed items, or None when the worker is gone or answered garbage."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            _write_frame(self.process.stdin, pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL))
            frame = _read_frame(self.process.stdout)
            return pickle.loads(frame) if frame is not None else None
        except (OSError, pickle.UnpicklingError, EOFError, ValueError):
            return None

    def stop(self) -> None:
        """End the worker's input: it exits once it has answered what it was sent."""
        with contextlib.suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()

    def close(self) -> None:
        self.stop()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def parallel_map(
    parse: Callable[[Any], Any],
    items: Iterable[Any],
    *,
    workers: int,
    chunksize: int = 16,
) -> Iterator[Any]:
    """`map(parse, items)` in order, spread over `workers` subprocesses; `parse` is the in-process fallback.

    `items` is consumed lazily, a chunk at a time, by the threads that feed the workers (one at a time,
    under the lock), so producing the items (reading files) overlaps the workers' start-up and parsing.
    An exception raised while producing or parsing is raised here, never left to hang the caller."""
    source = iter(items)
    results: dict[int, list[Any]] = {}
    state: dict[str, Any] = {"next": 0, "wanted": 0, "total": None, "error": None}
    cond = threading.Condition()

    def take() -> tuple[int, list[Any]] | None:
        """Under the lock: the next chunk and its index; None when the items ran out or the caller stopped."""
        if state["total"] is not None:
            return None
        chunk = list(itertools.islice(source, chunksize))
        if not chunk:
            state["total"] = state["next"]
            cond.notify_all()
            return None
        index = state["next"]
        state["next"] += 1
        return index, chunk

    def feed(worker: _Worker) -> None:
        alive = True
        try:
            while True:
                with cond:
                    while state["total"] is None and state["next"] - state["wanted"] >= RUN_AHEAD_CHUNKS:
                        cond.wait()
                    taken = take()
                if taken is None:
                    return
                index, chunk = taken
                out = worker.run(chunk) if alive else None
                if out is None or len(out) != len(chunk):
                    alive = False  # this worker is done for; its chunks are parsed here
                    out = [parse(item) for item in chunk]
                with cond:
                    results[index] = out
                    cond.notify_all()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            with cond:
                state["error"] = state["error"] or exc
                state["total"] = state["total"] if state["total"] is not None else state["next"]
                cond.notify_all()

    fork = can_fork()
    pool = [
        _Worker(fork) for _ in range(max(1, workers))
    ]  # started first: a spawned one's imports overlap the reading
    threads = [threading.Thread(target=feed, args=(w,), daemon=True, name="trifecta-parse") for w in pool]
    try:
        for thread in threads:
            thread.start()
        index = 0
        while True:
            with cond:
                while index not in results and state["error"] is None and state["total"] != index:
                    cond.wait()
                if state["error"] is not None:
                    raise state["error"]
                if index not in results:
                    return  # every chunk was delivered
                done = results.pop(index)
                state["wanted"] = index + 1
                cond.notify_all()
            yield from done
            index += 1
    finally:
        with cond:
            if state["total"] is None:
                state["total"] = state["next"]  # stop handing out work (a caller that stopped early)
            state["wanted"] = state["next"]
            cond.notify_all()
        for thread in threads:
            thread.join(timeout=60)
        # A worker takes ~60 ms to exit (its interpreter's teardown): the caller writes and finishes its
        # index meanwhile. Not a daemon thread, so the workers are always waited for before this process
        # exits.
        threading.Thread(target=_close_all, args=(pool,), name=EXIT_THREAD).start()


def _close_all(pool: list[_Worker]) -> None:
    for worker in pool:
        worker.stop()  # all of them first: they exit side by side
    for worker in pool:
        worker.close()
