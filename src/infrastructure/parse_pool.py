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

import contextlib
import gc
import pickle
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

_HEADER = struct.Struct("<Q")
_WORKER = (
    "import sys\n"
    "from trifecta.infrastructure.parse_pool import serve\n"
    "serve(sys.stdin.buffer, sys.stdout.buffer)\n"
)
RUN_AHEAD_CHUNKS = 32  # parsed chunks waiting for the caller, at most (bounds memory)
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


class _Worker:
    def __init__(self) -> None:
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

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def parallel_map(
    parse: Callable[[Any], Any], items: Sequence[Any], *, workers: int, chunksize: int = 16
) -> Iterator[Any]:
    """`map(parse, items)` in order, spread over `workers` subprocesses; `parse` is the in-process fallback."""
    chunks = [list(items[i : i + chunksize]) for i in range(0, len(items), chunksize)]
    results: dict[int, list[Any]] = {}
    state = {"next": 0, "wanted": 0}
    cond = threading.Condition()

    def feed(worker: _Worker) -> None:
        alive = True
        while True:
            with cond:
                while state["next"] - state["wanted"] >= RUN_AHEAD_CHUNKS:
                    cond.wait()
                index = state["next"]
                if index >= len(chunks):
                    return
                state["next"] += 1
            out = worker.run(chunks[index]) if alive else None
            if out is None or len(out) != len(chunks[index]):
                alive = False  # this worker is done for; its chunks are parsed here
                out = [parse(item) for item in chunks[index]]
            with cond:
                results[index] = out
                cond.notify_all()

    pool = [_Worker() for _ in range(max(1, workers))]
    threads = [threading.Thread(target=feed, args=(w,), daemon=True, name="trifecta-parse") for w in pool]
    try:
        for thread in threads:
            thread.start()
        for index in range(len(chunks)):
            with cond:
                while index not in results:
                    cond.wait()
                done = results.pop(index)
                state["wanted"] = index + 1
                cond.notify_all()
            yield from done
    finally:
        with cond:
            state["next"] = len(chunks)  # stop handing out work (a caller that stopped early)
            state["wanted"] = len(chunks)
            cond.notify_all()
        for thread in threads:
            thread.join(timeout=60)
        for worker in pool:
            worker.close()
