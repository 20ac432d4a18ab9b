"""Next actions: the commands an answer suggests, built here so each one runs as written.

A use case knows neither the program name nor the segment, so an action is the CLI command without both,
every word quoted with `shlex.quote` (``ast snippet 'sym://python/type/m/C#f'``). The edges finish it:
`cli_command` gives the full command line (``trifecta ... --segment '/abs/repo'``), `tool_call` the MCP
tool and its arguments. Only the builders below make actions, so both always parse.

    action   = "ast" verb URI [ "--limit" N ] [ "--offset" N ]   (verb: symbols | snippet | hover | refs |
                                                      callers; --limit: refs, callers; --offset: callers)
             | "ctx get" ( "--id" ID | "--path" PATH[":"START"-"END] )
             | "ctx search --query" QUERY [ "--mode" MODE ] [ "--limit" N ]
             | "index" [ "--full" ]
             | "status"
    on_segment = action "--segment" SEGMENT          (a hit of a search over several segments: `on_segment`)

An action that names its segment (a shared index searched across segments) keeps it: `cli_command` adds no
other, and `tool_call` passes it as the tool's `segment` argument.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

_AST_VERBS = ("symbols", "snippet", "hover", "refs", "callers")
_LIMITED = ("refs", "callers")  # the verbs that take --limit
_PAGED = ("callers",)  # and --offset: the hits before it were in an earlier answer


def _join(*words: object) -> str:
    return shlex.join(str(w) for w in words)


def ast(verb: str, uri: str) -> str:
    """`ast VERB URI` for a verb named at run time (symbols, snippet, hover, refs)."""
    if verb not in _AST_VERBS:
        raise ValueError(f"no ast verb {verb!r}")
    return _join("ast", verb, uri)


def symbols(uri: str) -> str:
    return _join("ast", "symbols", uri)


def snippet(uri: str) -> str:
    return _join("ast", "snippet", uri)


def hover(uri: str) -> str:
    return _join("ast", "hover", uri)


def refs(uri: str, *, limit: int | None = None) -> str:
    return _join("ast", "refs", uri, *(("--limit", limit) if limit is not None else ()))


def callers(uri: str, *, limit: int | None = None, offset: int | None = None) -> str:
    """`ast callers URI`; `offset`: the hits from there on (an answer the byte budget cut, continued)."""
    return _join(
        "ast",
        "callers",
        uri,
        *(("--limit", limit) if limit is not None else ()),
        *(("--offset", offset) if offset else ()),
    )


def get_id(chunk_id: str) -> str:
    return _join("ctx", "get", "--id", chunk_id)


def get_path(path: str, start: int | None = None, end: int | None = None) -> str:
    where = path if start is None else f"{path}:{start}-{end if end is not None else start}"
    return _join("ctx", "get", "--path", where)


def search(query: str, *, mode: str | None = None, limit: int | None = None) -> str:
    words: list[object] = ["ctx", "search", "--query", query]
    if mode is not None:
        words += ["--mode", mode]
    if limit is not None:
        words += ["--limit", limit]
    return _join(*words)


def index(*, full: bool = False) -> str:
    return _join("index", *(("--full",) if full else ()))


def status() -> str:
    return "status"


@attrs.frozen(kw_only=True)
class ToolCall:
    """An action as an MCP tool call: the tool's name and its arguments."""

    tool: str
    arguments: Mapping[str, Any] = attrs.field(factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "arguments": dict(self.arguments)}


class NotAnAction(ValueError):
    """A string the builders above did not make."""


def _options(words: list[str], allowed: Mapping[str, type]) -> dict[str, Any]:
    """`--name value` pairs (a `bool` option takes no value) into arguments named without the dashes."""
    out: dict[str, Any] = {}
    i = 0
    while i < len(words):
        name = words[i]
        kind = allowed.get(name)
        if kind is None:
            raise NotAnAction(f"unexpected word {name!r}")
        if kind is bool:
            out[name[2:]] = True
            i += 1
            continue
        if i + 1 >= len(words):
            raise NotAnAction(f"{name} needs a value")
        out[name[2:]] = kind(words[i + 1])
        i += 2
    return out


def on_segment(action: str, segment: str) -> str:
    """The action run on SEGMENT of a shared index (a segment id): `ast snippet URI --segment flask`."""
    if _named_segment(shlex.split(action))[1] is not None:
        raise NotAnAction(f"{action!r} already names its segment")
    tool_call(action)  # refuses what the builders did not make
    if shlex.split(action)[0] == "index":
        raise NotAnAction("a segment of a shared index is indexed from its checkout, not by id")
    return f"{action} {_join('--segment', segment)}"


def _named_segment(words: list[str]) -> tuple[list[str], str | None]:
    """The words without a trailing `--segment SEGMENT`, and that segment (None when not named)."""
    if len(words) >= 2 and words[-2] == "--segment":
        return words[:-2], words[-1]
    return words, None


def tool_call(action: str) -> ToolCall:
    """The MCP tool call an action stands for; NotAnAction for a string the builders did not make."""
    words, segment = _named_segment(shlex.split(action))
    call = _tool_call(words, action)
    if segment is None:
        return call
    return ToolCall(tool=call.tool, arguments={**call.arguments, "segment": segment})


def _tool_call(words: list[str], action: str) -> ToolCall:
    if len(words) >= 3 and words[0] == "ast" and words[1] in _AST_VERBS:
        allowed: dict[str, type] = {"--limit": int} if words[1] in _LIMITED else {}
        if words[1] in _PAGED:
            allowed["--offset"] = int
        options = _options(words[3:], allowed)
        return ToolCall(tool=words[1], arguments={"uri": words[2], **options})
    if words[:2] == ["ctx", "get"]:
        args = _options(words[2:], {"--id": str, "--path": str})
        if len(args) != 1:
            raise NotAnAction("ctx get takes one of --id or --path")
        return ToolCall(tool="get", arguments=args)
    if words[:2] == ["ctx", "search"]:
        args = _options(words[2:], {"--query": str, "--mode": str, "--limit": int})
        if "query" not in args:
            raise NotAnAction("ctx search needs --query")
        return ToolCall(tool="search", arguments=args)
    if words[:1] == ["index"]:
        return ToolCall(tool="reindex", arguments=_options(words[1:], {"--full": bool}))
    if words == ["status"]:
        return ToolCall(tool="index_status")
    raise NotAnAction(f"not a Trifecta action: {action!r}")


def cli_command(action: str, segment: str, *, program: str = "trifecta") -> str:
    """The full command line of an action on SEGMENT (an absolute path, so it runs from any folder)."""
    tool_call(action)  # refuses what the builders did not make
    words = shlex.split(action)
    if _named_segment(words)[1] is not None:  # a hit of a search over several segments names its own
        return _join(program, *words)
    if words[0] == "index":  # the one command that takes its segment as an argument
        return _join(program, "index", segment, *words[1:])
    return _join(program, *words, "--segment", segment)


def after_search(hits: Sequence[Mapping[str, Any]], query: str, *, route: str, top: int = 3) -> list[str]:
    """What to do after a search: zoom into the first hits (a definition's snippet, else the hit's lines);
    with no hits, the same words as exact text unless that is what was searched."""
    if not hits:
        return [] if route == "pattern" or not query.strip() else [search(query, mode="pattern")]
    return [
        snippet(hit["uri"]) if hit.get("uri") and hit.get("symbol") else get_id(hit["id"])
        for hit in hits[:top]
        if hit.get("uri") or hit.get("id")
    ]


# What to set up when semantic search has no embedder (advice for error data: not commands)
EMBEDDER_HINTS = (
    'a local model in .trifecta/config.toml: [embedding] provider = "onnx", '
    "model_path = \"<folder with model.onnx and tokenizer.json>\" (pip install 'trifecta[onnx]')",
    'or an OpenAI-compatible server: [embedding] provider = "openai", api_url = "http://localhost:11434/v1", '
    'model = "nomic-embed-text" (or TRIFECTA_EMBED_PROVIDER / TRIFECTA_EMBED_API_URL / TRIFECTA_EMBED_MODEL)',
    "then index again, or search with --mode auto meanwhile",
)


def from_tool_call(tool: str, arguments: Mapping[str, Any]) -> str:
    """The action a tool call stands for (the inverse of `tool_call`, for decoding an MCP envelope)."""
    args = dict(arguments)
    if "segment" in args:
        segment = str(args.pop("segment"))
        return on_segment(from_tool_call(tool, args), segment)
    if tool in _AST_VERBS:
        if tool in _PAGED:
            return callers(args["uri"], limit=args.get("limit"), offset=args.get("offset"))
        if tool in _LIMITED:
            return _join("ast", tool, args["uri"], *(("--limit", args["limit"]) if "limit" in args else ()))
        return ast(tool, args["uri"])
    if tool == "get":
        return get_id(args["id"]) if "id" in args else get_path(args["path"])
    if tool == "search":
        return search(args["query"], mode=args.get("mode"), limit=args.get("limit"))
    if tool == "reindex":
        return index(full=bool(args.get("full")))
    if tool == "index_status":
        return status()
    raise NotAnAction(f"no action for tool {tool!r}")
