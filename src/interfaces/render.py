"""Output sinks at the edge: the JSON envelope, or a short human rendering on a terminal."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO

import attrs

from ..domain.actions import NotAnAction, cli_command
from ..domain.contract import ErrorCode, Response

INTERNAL = frozenset(
    {
        ErrorCode.INTERNAL_ERROR,
        ErrorCode.INDEX_LOCKED,
        ErrorCode.LSP_UNAVAILABLE,
        ErrorCode.EMBEDDER_UNAVAILABLE,
        ErrorCode.INDEX_UNWRITABLE,
        ErrorCode.INDEX_UNAVAILABLE,
        ErrorCode.TIMEOUT,
    }
)


def exit_code(response: Response) -> int:
    """0 for an answer (zero hits included), 2 for a request that names something malformed or absent,
    1 for a failure of Trifecta or of something it depends on."""
    if response.ok:
        return 0
    return 1 if any(e.code in INTERNAL for e in response.errors) else 2


def with_commands(response: Response, segment: str) -> Response:
    """The response with each next action as the full command line that runs it on SEGMENT from any folder
    (`trifecta ast snippet 'sym://...' --segment /abs/repo`)."""
    if not response.next_actions:
        return response
    segment = os.path.abspath(segment)
    commands = []
    for action in response.next_actions:
        try:
            commands.append(cli_command(action, segment))
        except NotAnAction:  # not a command: shown to no one rather than shown not to run
            continue
    return attrs.evolve(response, next_actions=tuple(commands))


def write_json(
    response: Response, out: TextIO | None = None, *, profile: str = "full", plan: bool = False
) -> None:
    """The envelope on OUT: indented in full, or one compact line in the brief profile."""
    out = out or sys.stdout
    envelope = response.to_dict()
    if profile == "brief":
        out.write(json.dumps(brief(envelope, plan=plan), ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        out.write(json.dumps(envelope, ensure_ascii=False, indent=2) + "\n")


class Style:
    def __init__(self, stream: TextIO) -> None:
        self.enabled = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text


# What a repository's names and text may not send to a terminal: C0 controls but tab and newline (ESC starts
# colour, title and clipboard sequences; CR overwrites a line), DEL, C1 controls, and the bidirectional
# overrides that make code read otherwise than it runs ("Trojan source"). Shown escaped instead.
_UNPRINTABLE = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0))}
_UNPRINTABLE.update({c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return value.translate(_UNPRINTABLE)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def printable(response: Response) -> Response:
    """The response with every string safe to show on a terminal (the human sinks; JSON escapes on its own)."""
    return attrs.evolve(
        response,
        data=_clean(dict(response.data)),
        errors=tuple(
            attrs.evolve(e, message=_clean(e.message), data=_clean(dict(e.data))) for e in response.errors
        ),
        warnings=tuple(
            attrs.evolve(w, message=_clean(w.message), data=_clean(dict(w.data))) for w in response.warnings
        ),
        next_actions=tuple(_clean(a) for a in response.next_actions),
    )


def write_warnings(response: Response, err: TextIO | None = None) -> None:
    err = err or sys.stderr
    response = printable(response)
    for w in response.warnings:
        err.write(f"warning [{w.code.value}]: {w.message}\n")


def write_errors(response: Response, err: TextIO | None = None) -> None:
    err = err or sys.stderr
    response = printable(response)
    write_warnings(response, err)
    for e in response.errors:
        err.write(f"error [{e.code.value}]: {e.message}\n")
        for cand in e.data.get("candidates", []) if isinstance(e.data, dict) else []:
            err.write(f"  candidate: {cand.get('sym', cand)}\n")
        for hint in e.data.get("hints", []) if isinstance(e.data, dict) else []:
            err.write(f"  hint: {hint}\n")
    for action in response.next_actions:
        err.write(f"  next: {action}\n")


def write_hits(data: dict[str, Any], out: TextIO) -> None:
    s = Style(out)
    hits = data.get("hits", [])
    if not hits:
        out.write("no hits\n")
    for hit in hits:
        place = f"{hit['segment']}:{hit['path']}" if hit.get("segment") else hit["path"]
        where = s(f"{place}:{hit.get('line') or hit['start_line']}", "35")
        symbol = s(hit["symbol"], "1;32") if hit["symbol"] else s(hit["kind"], "2")
        out.write(f"{where}  {symbol}  {s(hit['id'], '2')}\n")
        shown = hit["source"] if "source" in hit else "\n".join(hit["preview"].splitlines()[:4])
        for line in shown.splitlines():
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
    rewrite = data.get("plan", {}).get("rewrite", {})
    if rewrite.get("status") in ("tried", "failed"):  # a model was involved: say what it did
        said = f"terms {', '.join(rewrite['terms'])}" if rewrite["status"] == "tried" else rewrite["reason"]
        cached = ", cached" if rewrite.get("cached") else ""
        line = f"-- rewrite {rewrite['status']} ({rewrite['trigger']}{cached}, {rewrite['latency_ms']:.0f} ms): {said}\n"
        out.write(s(line, "2"))


def write_next(response: Response, out: TextIO) -> None:
    """The next actions, one `# next: <command>` line each (commands a user can paste)."""
    s = Style(out)
    for action in response.next_actions:
        out.write(s(f"# next: {action}", "2") + "\n")


def write_navigation(response: Response, out: TextIO) -> None:
    """ast hover / ast refs: the definition as the AST engine found it, then what the language server said
    (nothing from the server when it was unavailable: the error went to stderr)."""
    s = Style(out)
    data = dict(response.data)
    rng = data.get("range", {})
    out.write(s(f"# {data.get('path', '')}:{rng.get('start_line', '')}-{rng.get('end_line', '')}", "35"))
    out.write(f"  {data.get('uri', '')}\n{data.get('signature', '')}\n")
    if response.kind == "hover" and data.get("content"):
        out.write(str(data["content"]) + "\n")
    hits = data.get("hits", []) if response.kind == "refs" else []
    for hit in hits:
        symbol = s(hit["symbol"], "1;32") if hit.get("symbol") else s("<module>", "2")
        out.write(f"{s(hit['path'] + ':' + str(hit['line']), '35')}  {symbol}\n    {hit['preview']}\n")
    if response.kind == "refs" and response.ok:
        shown = f"{len(hits)} of {data.get('total', len(hits))} references"
        out.write(s(f"-- {shown} in {data.get('lsp_ms', 0):.0f} ms\n", "2"))
    write_next(response, out)


def _lines(rng: Any) -> str:
    if not isinstance(rng, dict) or "start_line" not in rng:
        return ""
    start, end = rng["start_line"], rng.get("end_line", rng["start_line"])
    return f"{start}-{end}" if end != start else str(start)


def write_outline(data: dict[str, Any], out: TextIO) -> None:
    """ast symbols: a header (the file, or the definition asked for), then one line per symbol, indented by
    nesting: kind, name, line range, signature, and the first doc line after a `#`."""
    s = Style(out)
    where = f"{data.get('path', '')}:{_lines(data['range'])}" if "range" in data else data.get("path", "")
    header = f"{s(str(where), '35')}  {s(str(data.get('uri', '')), '2')}"
    if data.get("name"):
        header = f"{s(str(where), '35')}  {data.get('kind', '')} {s(str(data['name']), '1;32')}  {s(str(data.get('uri', '')), '2')}"
    out.write(header + "\n")
    if data.get("signature") and not _restates(data):
        out.write(f"  {data['signature']}" + (s(f"  # {data['doc']}", "2") if data.get("doc") else "") + "\n")
    depth = 1 if data.get("name") else 0
    count = 0

    def entry(symbol: dict[str, Any], level: int) -> None:
        nonlocal count
        count += 1
        if symbol.get("path"):  # a package's symbols come file by file
            out.write(s(f"{'  ' * level}{symbol['path']}", "35") + "\n")
        pad = "  " * level
        line = f"{pad}{s(str(symbol.get('kind', '')), '2')} {s(str(symbol.get('name', '')), '1;32')}"
        line += f"  {s(_lines(symbol.get('range')), '35')}"
        signature = str(symbol.get("signature") or "")
        if signature and not _restates(symbol):
            line += f"  {signature}"
        if symbol.get("doc"):
            line += s(f"  # {symbol['doc']}", "2")
        out.write(line + "\n")
        for child in symbol.get("children") or []:
            entry(child, level + 1)

    for symbol in data.get("symbols", []):
        entry(symbol, depth)
    if not data.get("symbols"):
        out.write(f"{'  ' * depth}(no symbols)\n")
    omitted = data.get("omitted") or 0
    more = f", {omitted} more left out to stay inside the budget (ast symbols on a class shows its members)"
    out.write(s(f"-- {count} symbols{more if omitted else ''}", "2") + "\n")


def _restates(symbol: dict[str, Any]) -> bool:
    """A signature that says no more than the kind and name (`class Receipt`)."""
    return str(symbol.get("signature", "")).strip() == f"{symbol.get('kind', '')} {symbol.get('name', '')}"


_LABELS = {
    "db_path": "index",
    "db_bytes": "index size",
    "built_at": "built at",
    "parse_errors": "parse errors",
}


def _cell(key: str, value: Any) -> str:
    if key.endswith("_bytes") and isinstance(value, int):
        return f"{value:,} bytes ({value / 1048576:.1f} MiB)" if value >= 1048576 else f"{value:,} bytes"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if value is None or value == "":
        return "-"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return str(value)


def write_table(data: dict[str, Any], out: TextIO) -> None:
    """status: one `label  value` row a field, labels aligned (fields added later show up on their own)."""
    s = Style(out)
    rows = [(_LABELS.get(key, key.replace("_", " ")), _cell(key, value)) for key, value in data.items()]
    width = max((len(label) for label, _ in rows), default=0)
    for label, value in rows:
        out.write(f"{s(label.ljust(width), '2')}  {value}\n")


def write_human(response: Response, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    response = printable(response)
    navigation = response.kind in ("hover", "refs") and "uri" in response.data
    if response.ok:
        write_warnings(response)
    else:
        write_errors(response)
        if not (navigation and any(e.code is ErrorCode.LSP_UNAVAILABLE for e in response.errors)):
            return
    data = dict(response.data)
    if navigation:
        write_navigation(response, out)
    elif response.kind == "search":
        write_hits(data, out)
        write_next(response, out)
    elif response.kind == "skeleton" and "symbols" in data:
        write_outline(data, out)
        write_next(response, out)
    elif response.kind == "status":
        write_table(data, out)
        write_next(response, out)
    elif "content" in data:
        rng = data.get("range", {})
        out.write(
            f"# {data.get('path', data.get('uri', ''))}:{rng.get('start_line', '')}-{rng.get('end_line', '')}\n"
        )
        out.write(str(data["content"]) + "\n")
        write_next(response, out)
    else:
        out.write(json.dumps(response.to_dict()["data"], ensure_ascii=False, indent=2) + "\n")
        write_next(response, out)


# --------------------------------------------------------------------------- the brief profile
PROFILES = ("brief", "full")
_SIG_CHARS = 140  # a signature or matching line longer than this is cut (with "…")
_DOC_CHARS = 100
_DOC_MARKS = ('"""', "'''", "#", "//", "/*", "*", "--")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def brief_hit(hit: dict[str, Any]) -> dict[str, Any]:
    """One search hit as an agent needs it to choose: where (`loc`, which `get(path=...)` reads as is), what
    (symbol, kind), its signature or matching line, the first doc line, and its handle: the `uri` to zoom
    with, or the `id` of a hit that is no definition."""
    start, end = hit.get("start_line"), hit.get("end_line")
    line = hit.get("line")
    out: dict[str, Any] = {"loc": f"{hit.get('path', '')}:{start}-{end}" if start else hit.get("path", "")}
    if hit.get("segment"):  # a search over several segments of a shared index: where to zoom in
        out["segment"] = hit["segment"]
    if line and line != start:
        out["line"] = line
    for key in ("symbol", "kind"):
        if hit.get(key):
            out[key] = hit[key]
    lines = [s.strip() for s in str(hit.get("preview", "")).splitlines() if s.strip()]
    if lines:
        out["sig"] = _cut(lines[0], _SIG_CHARS)
    if len(lines) > 1 and lines[1].startswith(_DOC_MARKS) and hit.get("symbol"):
        doc = lines[1].strip("\"'#/*- ").strip()
        if doc:
            out["doc"] = _cut(doc, _DOC_CHARS)
    if hit.get("uri"):
        out["uri"] = hit["uri"]
    elif hit.get("id"):  # a definition's uri is its handle; `loc` reads the same lines with get(path=...)
        out["id"] = hit["id"]
    if "source" in hit:  # inlined by expand: the definition itself
        out["source"] = hit["source"]
        if hit.get("source_truncated"):
            out["source_truncated"] = True
    return out


def _empty(value: Any) -> bool:
    return value is None or value is False or (isinstance(value, str | list | dict) and not value)


def _lean(value: Any) -> Any:
    """Without empty values and falses (the defaults a reader can assume), floats rounded to one decimal."""
    if isinstance(value, dict):
        return {k: _lean(v) for k, v in value.items() if not _empty(v)}
    if isinstance(value, list):
        return [_lean(v) for v in value]
    if isinstance(value, float):
        return round(value, 1)
    return value


def brief(envelope: dict[str, Any], *, plan: bool = False) -> dict[str, Any]:
    """The brief profile of an envelope (JSON-ready, as `Response.to_dict` gives it): the same envelope keys,
    with data cut to what an agent acts on. A search keeps its hits as `brief_hit`s, `total` only when more
    matched than shown, the plan only when asked for; other answers lose their empty values and timings."""
    data = dict(envelope.get("data", {}))
    if envelope.get("kind") == "search" and isinstance(data.get("hits"), list):
        hits = data["hits"]
        out: dict[str, Any] = {"hits": [brief_hit(h) for h in hits]}
        if data.get("total", len(hits)) != len(hits):
            out["total"] = data["total"]
        for key in ("expanded", "budget"):
            if key in data:
                out[key] = data[key]
        if plan and "plan" in data:
            out["plan"] = data["plan"]
        data = out
        if hits and not envelope.get("errors"):  # each hit carries its uri or id: zooming in needs no more
            envelope = {**envelope, "next_actions": []}
    else:
        if envelope.get("kind") == "snippet":  # asked by uri: the uri, path and signature are known
            for key in ("uri", "path", "signature"):
                data.pop(key, None)
            envelope = {**envelope, "refs": []}  # the file's uri, which the snippet's uri already names
        for key in _TIMINGS:
            data.pop(key, None)
        for key, default in _DEFAULTS.items():
            if key in data and data[key] == default:
                del data[key]
        data = _lean(data)
    return {**envelope, "data": data}


# what the brief profile leaves out when it says nothing: timings, byte counts, nothing hidden or omitted
_TIMINGS = ("took_ms", "lsp_ms", "latency_ms", "bytes")
_DEFAULTS: dict[str, Any] = {"hidden_lines": 0, "omitted": 0, "truncated": False}
