"""Parser worker processes started as plain `python -c ...` subprocesses, talking pickled frames over pipes.

Why not `multiprocessing`: `fork` copies a parent that may run threads (a language-server client, an ONNX
session, the MCP server) and a child can then hang on a lock or a finalizer it inherited mid-flight; `spawn`
and `forkserver` re-run the caller's `__main__` in every worker, so a library user's script without an
`if __name__ == "__main__":` guard would run again. A fresh interpreter that imports only the parser has
neither problem.

Frames are an 8-byte little-endian length and a pickle. A worker that dies or answers garbage is dropped and
its chunk of files is parsed in the parent instead: an index run never fails because a worker did.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import itertools
import pickle
import queue
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

_HEADER = struct.Struct("<Q")
_WORKER = (
    "import sys\n"
    "from trifecta.infrastructure.parse_pool import serve\n"
    "serve(sys.stdin.buffer, sys.stdout.buffer)\n"
)
RUN_AHEAD_CHUNKS = 32  # parsed chunks waiting for the caller, at most (bounds memory)
IN_FLIGHT = 2  # chunks sent to a worker ahead of its answers
GC_EVERY_FRAMES = 64  # a worker's full garbage collection, between frames


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

    # The parent sends the next frame before it reads this one's answer (see `parallel_map`); a thread
    # drains the input meanwhile, so neither side can block on a full pipe while the other writes.
    frames_in: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

    def drain() -> None:
        try:
            while (frame := _read_frame(inp)) is not None:
                frames_in.put(frame)
        finally:
            frames_in.put(None)

    threading.Thread(target=drain, daemon=True, name="trifecta-frames").start()
    # `ast.parse` allocates a node object per token or so, and every 700 allocations wake the cyclic
    # garbage collector, which then walks all of them: a third of the parse time. Syntax trees and the
    # values made from them hold no reference cycles (reference counting frees them), so the collector
    # only runs between frames here, where it finds next to nothing to walk.
    gc.disable()
    frames = 0
    while (frame := frames_in.get()) is not None:
        items = pickle.loads(frame)
        _write_frame(
            out, pickle.dumps([parse_item(item) for item in items], protocol=pickle.HIGHEST_PROTOCOL)
        )
        frames += 1
        if frames % GC_EVERY_FRAMES == 0:
            gc.collect()


class _Worker:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def send(self, items: list[Any]) -> bool:
        """Queue a chunk of items; False when the worker is gone."""
        assert self.process.stdin is not None
        try:
            _write_frame(self.process.stdin, pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL))
            return True
        except (OSError, ValueError):
            return False

    def receive(self) -> list[Any] | None:
        """The parsed items of the oldest chunk sent, or None when the worker is gone or answered garbage."""
        assert self.process.stdout is not None
        try:
            frame = _read_frame(self.process.stdout)
            return pickle.loads(frame) if frame is not None else None
        except (OSError, pickle.UnpicklingError, EOFError, ValueError):
            return None

    def close(self) -> None:
        # both pipes first: a worker still writing an answer nobody will read (a caller that stopped, a
        # failure while chunks were in flight) then ends on the broken pipe instead of blocking
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def parallel_map(
    parse: Callable[[Any], Any], items: Iterable[Any], *, workers: int, chunksize: int = 16
) -> Iterator[Any]:
    """`map(parse, items)` in order, spread over `workers` subprocesses; `parse` is the in-process fallback.

    `items` is consumed lazily, a chunk at a time, by the threads that feed the workers (one at a time,
    under the lock), so producing the items (reading files) overlaps the workers' start-up and parsing.
    An exception raised while producing or parsing is raised here, never left to hang the caller."""
    source = iter(items)
    results: dict[int, list[Any]] = {}
    state: dict[str, Any] = {"next": 0, "wanted": 0, "total": None, "error": None}
    cond = threading.Condition()

    def claim(wait: bool) -> tuple[int, list[Any]] | None:
        """The next chunk and its index (under the lock); None when the items ran out or the caller
        stopped, or, unless `wait`, when the run-ahead bound is reached."""
        while state["total"] is None and state["next"] - state["wanted"] >= RUN_AHEAD_CHUNKS:
            if not wait:
                return None
            cond.wait()
        if state["total"] is not None:
            return None
        chunk = list(itertools.islice(source, chunksize))
        if not chunk:
            state["total"] = state["next"]
            cond.notify_all()
            return None
        state["next"] += 1
        return state["next"] - 1, chunk

    def feed(worker: _Worker) -> None:
        # Up to IN_FLIGHT chunks are sent ahead, so the worker starts the next one as soon as it has
        # answered, instead of idling while this thread (sharing the GIL with the writer) hands it more.
        # Only a thread with nothing in flight waits for the run-ahead bound: the chunk the caller waits
        # for may be in flight here.
        alive = True
        in_flight: collections.deque[tuple[int, list[Any]]] = collections.deque()
        try:
            while True:
                while len(in_flight) < IN_FLIGHT:
                    with cond:
                        claimed = claim(wait=not in_flight)
                    if claimed is None:
                        break
                    alive = alive and worker.send(claimed[1])
                    in_flight.append(claimed)
                if not in_flight:
                    return
                index, chunk = in_flight.popleft()
                out = worker.receive() if alive else None
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

    pool = [_Worker() for _ in range(max(1, workers))]  # started first: their imports overlap the reading
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
        for worker in pool:
            worker.close()
