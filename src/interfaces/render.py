"""Output sinks at the edge: the JSON envelope, or a short human rendering on a terminal."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from ..domain.contract import ErrorCode, Response

INTERNAL = frozenset(
    {
        ErrorCode.INTERNAL_ERROR,
        ErrorCode.INDEX_LOCKED,
        ErrorCode.LSP_UNAVAILABLE,
        ErrorCode.EMBEDDER_UNAVAILABLE,
    }
)


def exit_code(response: Response) -> int:
    """0 for an answer (zero hits included), 2 for a request that names something malformed or absent,
    1 for a failure of Trifecta or of something it depends on."""
    if response.ok:
        return 0
    return 1 if any(e.code in INTERNAL for e in response.errors) else 2


def write_json(response: Response, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    out.write(json.dumps(response.to_dict(), ensure_ascii=False, indent=2) + "\n")


class Style:
    def __init__(self, stream: TextIO) -> None:
        self.enabled = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text


def write_errors(response: Response, err: TextIO | None = None) -> None:
    err = err or sys.stderr
    for e in response.errors:
        err.write(f"error [{e.code.value}]: {e.message}\n")
        for cand in e.data.get("candidates", []) if isinstance(e.data, dict) else []:
            err.write(f"  candidate: {cand.get('sym', cand)}\n")
    for action in response.next_actions:
        err.write(f"  next: trifecta {action}\n")


def write_hits(data: dict[str, Any], out: TextIO) -> None:
    s = Style(out)
    hits = data.get("hits", [])
    if not hits:
        out.write("no hits\n")
    for hit in hits:
        where = s(f"{hit['path']}:{hit.get('line') or hit['start_line']}", "35")
        symbol = s(hit["symbol"], "1;32") if hit["symbol"] else s(hit["kind"], "2")
        out.write(f"{where}  {symbol}  {s(hit['id'], '2')}\n")
        for line in hit["preview"].splitlines()[:4]:
            out.write(f"    {line}\n")
    index = data.get("index", {})
    if index:
        out.write(
            s(
                f"-- {len(hits)} hits in {data.get('took_ms', 0):.0f} ms; index: {index['files']} files, "
                f"{index['symbols']} symbols, {index['refreshed']} refreshed\n",
                "2",
            )
        )


def write_human(response: Response, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    if not response.ok:
        write_errors(response)
        return
    data = dict(response.data)
    if response.kind == "search":
        write_hits(data, out)
    elif "content" in data:
        rng = data.get("range", {})
        out.write(
            f"# {data.get('path', data.get('uri', ''))}:{rng.get('start_line', '')}-{rng.get('end_line', '')}\n"
        )
        out.write(str(data["content"]) + "\n")
        for action in response.next_actions:
            out.write(f"# next: trifecta {action}\n")
    else:
        out.write(json.dumps(response.to_dict()["data"], ensure_ascii=False, indent=2) + "\n")
