"""The `trifecta` command line. Thin: flags -> a facade call -> a sink. Heavy imports happen inside
commands so `--help` and each call start fast."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from ...domain.contract import Response
    from ..facade import Engine


def _typer_apps() -> tuple[typer.Typer, typer.Typer]:
    """The app and its `ctx` group (see _app_for: a search builds a second pair with its one command)."""
    top = typer.Typer(
        help="Trifecta: the few right places in a repository, inside a byte budget, as JSON for agents.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    ctx = typer.Typer(help="Search (L0) and raw source (L3).", no_args_is_help=True)
    top.add_typer(ctx, name="ctx")
    return top, ctx


app, ctx_app = _typer_apps()
ast_app = typer.Typer(help="Zoom by sym:// selector: skeletons (L1) and snippets (L2).", no_args_is_help=True)
app.add_typer(ast_app, name="ast")

SegmentOpt = Annotated[str, typer.Option("--segment", "-s", help="The repository or folder to work on.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the JSON envelope on stdout.")]
ProfileOpt = Annotated[
    str,
    typer.Option(
        "--profile",
        help="With --json: full (the whole envelope) or brief (per hit only what an agent needs to choose).",
    ),
]


def _version(value: bool) -> None:
    if value:
        from ... import __version__

        typer.echo(f"trifecta {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Index a segment, search it, zoom from a map to exact code."""


class StderrProgress:
    """A one-line progress bar on stderr (a line per phase when stderr is not a terminal)."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.started = time.monotonic()
        self.last = 0.0

    def __call__(self, done: int, total: int, message: str) -> None:
        now = time.monotonic()
        if total == 0:
            return
        if message.startswith("substring index"):  # one step after the files: a line, no bar
            sys.stderr.write(f"{message} ({now - self.started:.1f}s)\n")
            sys.stderr.flush()
            return
        phase, unit = ("embedding", "chunks") if message.startswith("embedding") else ("indexing", "files")
        if self.tty:
            if done < total and now - self.last < 0.1:
                return
            self.last = now
            width = 30
            filled = int(width * done / total)
            bar = "#" * filled + "-" * (width - filled)
            sys.stderr.write(f"\r{phase} [{bar}] {done}/{total} {unit} {now - self.started:5.1f}s")
            if done >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()
        elif done == 0 or done >= total:
            sys.stderr.write(f"{phase}: {done}/{total} {unit} ({now - self.started:.1f}s)\n")


def _engine(segment: str, **options: Any) -> Engine:
    """The Engine of SEGMENT. A folder that is not there, a config that cannot be used or an index that
    cannot be opened raises; `main()` answers it (an envelope with --json, one line without)."""
    import os

    from ..facade import open_engine

    if not os.path.isdir(segment):
        # a segment id of a shared index, searched with no checkout: the Engine's questions, by id
        return _shared([segment], options)
    engine = open_engine(segment, **options)
    engine.progress = StderrProgress()
    engine.origin = "cli"  # telemetry tells CLI calls from MCP and library ones
    return engine


def _shared(segments: list[str] | None, options: dict[str, Any] | None = None) -> Any:
    """Segments of the shared index (db_url from TRIFECTA_DB_URL or the user's config) by id, searched with
    no checkout; None: every segment. A name that is no folder and no shared index: SEGMENT_NOT_FOUND."""
    from ..segments import open_segments, shared_url

    if segments is not None and len(segments) == 1 and not shared_url(options):
        raise SegmentNotFound(f"segment {segments[0]!r} is not a directory: give the repository's folder")
    shared = open_segments(segments, **(options or {}))
    shared.origin = "cli"
    return shared


def _answer(
    segment: str,
    as_json: bool,
    call: Callable[[Engine], Response],
    profile: str = "full",
    *,
    plan: bool = False,
) -> None:
    """Open the segment, ask one question, close, print the answer with its exit code."""
    _check_profile(profile)
    engine = _engine(segment)
    try:
        response = call(engine)
    finally:
        engine.close()
    _emit(response, as_json, engine.segment, profile, plan=plan)


def _check_profile(profile: str) -> None:
    from ..render import PROFILES

    if profile not in PROFILES:
        raise typer.BadParameter(f"{profile!r} is not one of {', '.join(PROFILES)}", param_hint="'--profile'")


def _emit(
    response: Response,
    as_json: bool,
    segment: str | None = None,
    profile: str = "full",
    *,
    plan: bool = False,
) -> None:
    """Print the answer (its next actions as full command lines on SEGMENT) and exit with its code."""
    from ..render import exit_code, with_commands, write_errors, write_human, write_json, write_warnings

    if segment is not None:
        response = with_commands(response, segment)
    if as_json:
        write_json(response, profile=profile, plan=plan)
        write_errors(response) if not response.ok else write_warnings(response)
    else:
        write_human(response)
    raise typer.Exit(exit_code(response))


@app.command("index")
def index_cmd(
    segment: Annotated[str, typer.Argument(help="The repository or folder to index.")] = ".",
    full: Annotated[bool, typer.Option("--full", help="Re-parse every file.")] = False,
    as_json: JsonOpt = False,
    db_url: Annotated[
        str | None,
        typer.Option(
            "--db-url", help="Index into a shared PostgreSQL index (postgresql://...) instead of the file."
        ),
    ] = None,
) -> None:
    """Build or refresh the index of SEGMENT (incremental unless --full)."""
    from ...domain.contract import Response

    engine = _engine(segment, db_url=db_url)
    try:
        report = engine.index(progress=StderrProgress(), full=full)
    except Exception as exc:  # IndexLocked, INDEX_UNWRITABLE, ...: an envelope, never a traceback
        _emit(_failure("index", exc), as_json)
    finally:
        status = engine.status()
        engine.close()
    index = dict(status.data)
    data = {**report.to_data(), "index": index}
    if as_json:
        _emit(Response.success("index", data).with_warnings(status.warnings), True)
    skipped = ", ".join(f"{k} {v}" for k, v in report.skipped.items()) or "none"
    typer.echo(
        f"indexed {report.files_indexed} files ({report.files_unchanged} unchanged, {report.files_deleted} removed) "
        f"in {report.seconds:.2f}s; {index.get('files', '?')} files, {index.get('symbols', '?')} symbols in "
        f"{index.get('db_path', engine.db_path)}; parse errors {report.parse_errors}; skipped: {skipped}"
    )
    if report.embeddings is not None:
        emb = report.embeddings
        typer.echo(
            f"embedded {emb.embedded} chunks ({emb.unchanged} unchanged, {emb.removed} removed) with "
            f"{emb.model or 'no model'} in {emb.seconds:.2f}s"
        )
        if emb.error:
            typer.echo(f"warning: embeddings stopped early: {emb.error}", err=True)


@app.command("status")
def status_cmd(segment: SegmentOpt = ".", as_json: JsonOpt = False) -> None:
    """Show what the index of a segment holds."""
    _answer(segment, as_json, lambda engine: engine.status())


@ctx_app.command("search")
def search_cmd(
    words: Annotated[
        str | None,
        typer.Argument(
            metavar="[QUERY]",
            help="What to look for, in words or identifiers (or give it with -q).",
            show_default=False,
        ),
    ] = None,
    query_opt: Annotated[
        str | None, typer.Option("--query", "-q", help="What to look for, in words or identifiers.")
    ] = None,
    segment: Annotated[
        list[str] | None,
        typer.Option(
            "--segment",
            "-s",
            help="The repository or folder to search; with a shared index (db_url), a segment id, and "
            "repeatable: several segments in one ranking.",
        ),
    ] = None,
    all_segments: Annotated[
        bool, typer.Option("--all", help="Every segment of the shared index (db_url) in one ranking.")
    ] = False,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=200)] = 10,
    mode: Annotated[
        str, typer.Option("--mode", help="auto|lexical|pattern|structural|semantic|hybrid")
    ] = "auto",
    no_lint: Annotated[
        bool, typer.Option("--no-lint", help="Disable the query linter for this search.")
    ] = False,
    lint: Annotated[bool, typer.Option("--lint", help="Enable the query linter for this search.")] = False,
    rewrite: Annotated[
        bool,
        typer.Option(
            "--rewrite", "-r", help="Force an LLM rewrite of the query, even if query_rewrite is off."
        ),
    ] = False,
    no_rewrite: Annotated[
        bool, typer.Option("--no-rewrite", help="Never ask the LLM for this search.")
    ] = False,
    regex: Annotated[
        bool, typer.Option("--regex", "-e", help="The query is a regular expression (or write it as /.../).")
    ] = False,
    code_pattern: Annotated[
        bool,
        typer.Option("--pattern", "-p", help="The query is an ast-grep code pattern, e.g. '$X.append($Y)'."),
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            "-l",
            help="Only this language's hits (go, rust, typescript, ...); a --pattern is parsed in it alone.",
        ),
    ] = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Print how the query was understood and routed, then the hits (with --json --profile brief: "
            "keep the plan).",
        ),
    ] = False,
    expand: Annotated[
        int,
        typer.Option(
            "--expand",
            "-x",
            help="Inline the source of the first N definition hits, inside the snippet budget.",
        ),
    ] = 0,
    as_json: JsonOpt = False,
    profile: ProfileOpt = "full",
) -> None:
    """L0: the few places that answer a question, ranked (across segments of a shared index with
    --segment A --segment B or --all: every hit names its segment). The query is the argument or -q:
    `trifecta ctx search "where is the config read"`, `trifecta ctx search --pattern 'throw new Error($$$)'`."""
    query = _one_query(words, query_opt)

    def ask(engine: Any) -> Response:
        return _explained(
            explain and not as_json,
            engine.search(
                query,
                limit=limit,
                mode=mode,
                lint=False if no_lint else (True if lint else None),
                rewrite=False if no_rewrite else (True if rewrite else None),
                regex=regex,
                code_pattern=code_pattern,
                lang=lang,
                expand=expand,
            ),
        )

    segments = segment or ["."]
    if not all_segments and len(segments) == 1:
        _answer(segments[0], as_json, ask, profile, plan=explain)
    _check_profile(profile)
    shared = _shared(None if all_segments else segments)
    try:
        response = ask(shared)
    finally:
        shared.close()
    _emit(response, as_json, shared.segment, profile, plan=explain)


def _one_query(words: str | None, option: str | None) -> str:
    """The query given as the argument or with -q, never both and never neither (a usage error, exit 2)."""
    if words is not None and option is not None:
        raise typer.BadParameter(
            "give the query once: as the argument or with -q/--query, not both", param_hint="QUERY"
        )
    if words is None and option is None:
        raise typer.BadParameter(
            'what to look for: trifecta ctx search "where is the config read" (or -q TEXT)',
            param_hint="QUERY",
        )
    return words if words is not None else option or ""


def _explained(explain: bool, response: Response) -> Response:
    """With --explain, the plan goes to stdout ahead of the hits, one line a step."""
    plan = response.data.get("plan") if response.ok else None
    if explain and plan:
        for line in explain_lines(plan):
            typer.echo(line)
        typer.echo("")
    return response


def explain_lines(plan: dict[str, Any]) -> list[str]:
    if isinstance(plan.get("segments"), dict):  # several segments: each one's plan, then how they merged
        lines = []
        for name, one in plan["segments"].items():
            lines += [f"[{name}] {line}" for line in explain_lines(one)]
        return [*lines, f"merge      by {plan.get('merge', 'score')}"]
    c = plan.get("classification", {})
    lines = [
        f"class      {c.get('category', '?')} (confidence {c.get('confidence', 0):.2f}): {c.get('reasoning', '')}",
        f"route      {plan.get('route', '?')}   focus {plan.get('focus', '?')}",
    ]
    weights = plan.get("weights", {})
    timings = plan.get("engines", {})
    engines = ", ".join(f"{name} x{w:g} ({timings.get(name, 0):.1f} ms)" for name, w in weights.items())
    lines.append(f"engines    {engines or '-'}")
    lint = plan.get("lint", {})
    if lint.get("query_class") not in (None, "disabled"):
        lines.append(f"lint       {lint['query_class']}: {lint.get('expanded_query', '')}")
    for key in ("literals", "structural_query", "regex", "code_pattern", "subqueries"):
        if plan.get(key):
            lines.append(f"{key:10} {json.dumps(plan[key], ensure_ascii=False)}")
    for note in plan.get("fallbacks", []):
        lines.append(f"fallback   {note}")
    for key in ("semantic", "rewrite"):
        step = plan.get(key)
        if isinstance(step, dict):
            detail = step.get("reason") or step.get("message") or ", ".join(step.get("terms", []) or [])
            lines.append(f"{key:10} {step.get('status', '?')}{': ' + detail if detail else ''}")
    return lines


@ctx_app.command("get")
def get_cmd(
    segment: SegmentOpt = ".",
    id: Annotated[str | None, typer.Option("--id", help="A hit id from ctx search.")] = None,
    path: Annotated[
        str | None, typer.Option("--path", help="PATH or PATH:START-END inside the segment.")
    ] = None,
    as_json: JsonOpt = False,
    profile: ProfileOpt = "full",
) -> None:
    """L3: raw source by hit id or path[:START-END], cut to the byte budget."""
    _answer(segment, as_json, lambda engine: engine.get(id=id, path=path), profile)


@ast_app.command("symbols")
def ast_symbols_cmd(
    uri: Annotated[str, typer.Argument(help="sym://python/mod/<path> or sym://python/type/<path>/<Class>")],
    segment: SegmentOpt = ".",
    as_json: JsonOpt = False,
    profile: ProfileOpt = "full",
) -> None:
    """L1: the skeleton of a file or class: names, signatures, first doc lines, line ranges."""
    _answer(segment, as_json, lambda engine: engine.symbols(uri), profile)


@ast_app.command("snippet")
def ast_snippet_cmd(
    uri: Annotated[str, typer.Argument(help="sym://python/type/<path>/<Symbol>[#Member.Member]")],
    segment: SegmentOpt = ".",
    as_json: JsonOpt = False,
    profile: ProfileOpt = "full",
) -> None:
    """L2: one definition's source, cut to the snippet budget."""
    _answer(segment, as_json, lambda engine: engine.snippet(uri), profile)


@ast_app.command("hover")
def ast_hover_cmd(
    uri: Annotated[str, typer.Argument(help="sym://python/type/<path>/<Symbol>[#Member.Member]")],
    segment: SegmentOpt = ".",
    as_json: JsonOpt = False,
) -> None:
    """The language server's hover (resolved signature, docstring) for one definition, with the AST data.
    A missing, crashed or hung server still answers with the AST data and LSP_UNAVAILABLE (exit 1)."""
    _answer(segment, as_json, lambda engine: engine.hover(uri))


@ast_app.command("refs")
def ast_refs_cmd(
    uri: Annotated[str, typer.Argument(help="sym://python/type/<path>/<Symbol>[#Member.Member]")],
    segment: SegmentOpt = ".",
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=200, help="At most this many hits.")] = 50,
    as_json: JsonOpt = False,
) -> None:
    """Where one definition is used (language server references): path, line, enclosing symbol, uri,
    preview, inside the byte budget."""
    _answer(segment, as_json, lambda engine: engine.refs(uri, limit=limit))


@ast_app.command("def")
def ast_def_cmd(
    position: Annotated[str, typer.Argument(help="PATH:LINE[:COL], 1-based (pkg/mod.py:42:17)")],
    segment: SegmentOpt = ".",
    engine_name: Annotated[
        str,
        typer.Option(
            "--engine",
            help="auto: the language server when one is running, else the index; lsp: ask the server "
            "(started for this call), the index when it cannot answer; index: the index only.",
        ),
    ] = "auto",
    as_json: JsonOpt = False,
) -> None:
    """What the name at a position is: its definitions through the language server (exact), or from the
    index (exact, import, or by name with every candidate) when no server answers. Without a column, the
    first call on the line."""
    path, line, column = _position(position)
    _answer(segment, as_json, lambda engine: engine.definition(path, line, column, engine=engine_name))


def _position(text: str) -> tuple[str, int, int | None]:
    from ...domain.position import Position, parse_position

    position = parse_position(text)
    if not isinstance(position, Position):
        raise typer.BadParameter(position.message, param_hint="'POSITION'")
    return position.path, position.line, position.column


# callers, callees and impact: a definition by selector, or the one at a line (a name its file defines twice)
TargetArg = Annotated[
    str,
    typer.Argument(
        help="sym://<lang>/type/<path>/<Symbol>\\[#Member], or PATH:LINE: the innermost definition declared "
        "on that line, else around it (app/x.test.ts:42 tells apart two definitions of one name).",
    ),
]


@ast_app.command("callers")
def ast_callers_cmd(
    target: TargetArg,
    segment: SegmentOpt = ".",
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=500, help="At most this many hits.")] = 50,
    offset: Annotated[
        int, typer.Option("--offset", min=0, help="Skip this many hits (an answer the byte budget cut).")
    ] = 0,
    as_json: JsonOpt = False,
) -> None:
    """The call sites that reach one definition, from the index: path, line, calling symbol, uri,
    resolution (exact, import, name) and a preview, inside the byte budget (the rest: --offset)."""
    _answer(segment, as_json, lambda engine: engine.callers(target, limit=limit, offset=offset))


@ast_app.command("callees")
def ast_callees_cmd(
    target: TargetArg,
    segment: SegmentOpt = ".",
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, max=500, help="At most this many hits.")
    ] = 200,
    as_json: JsonOpt = False,
) -> None:
    """The calls one definition makes, resolved to definitions, or reported unresolved."""
    _answer(segment, as_json, lambda engine: engine.callees(target, limit=limit))


@ast_app.command("impact")
def ast_impact_cmd(
    target: TargetArg,
    segment: SegmentOpt = ".",
    depth: Annotated[
        int, typer.Option("--depth", "-d", min=1, help="How many calls away (capped at 5).")
    ] = 3,
    as_json: JsonOpt = False,
) -> None:
    """What reaches one definition through calls, transitively: callers grouped by file with counts, the
    tests that reach it marked."""
    _answer(segment, as_json, lambda engine: engine.impact(target, depth=depth))


@ctx_app.command("lint")
def lint_cmd(query: Annotated[str, typer.Option("--query", "-q")], as_json: JsonOpt = False) -> None:
    """Show the linter's plan for a query (vague / semi / guided, expansion)."""
    from ...domain.contract import Response
    from ...domain.query_linter import lint

    plan = lint(query)
    if as_json:
        _emit(Response.success("lint", plan.to_data()), True)
    data = plan.to_data()
    typer.echo(f"class: {data['query_class']}  changed: {str(data['changed']).lower()}")
    typer.echo(f"expanded: {data['expanded_query']}")
    anchors = data.get("anchors_detected", {})
    typer.echo(f"anchors: strong {anchors.get('strong', [])} weak {anchors.get('weak', [])}")
    if data.get("changes"):
        typer.echo(f"changes: {json.dumps(data['changes'], ensure_ascii=False)}")


@ctx_app.command("classify")
def classify_cmd(query: Annotated[str, typer.Option("--query", "-q")], as_json: JsonOpt = False) -> None:
    """Show how a query is classified (pattern / structural / semantic / hybrid) and routed."""
    from ...domain.contract import Response
    from ...domain.query_classifier import classify

    result = classify(query).to_data()
    if as_json:
        _emit(Response.success("classification", result), True)
    typer.echo(f"{result['category']} ({result['confidence']:.2f}) -> {result['suggested_tool']}")
    typer.echo(f"indicators: {', '.join(result['indicators']) or 'none'}")
    typer.echo(result["reasoning"])


@ctx_app.command("stats")
def stats_cmd(
    segment: SegmentOpt = ".",
    top: Annotated[
        int, typer.Option("--top", min=1, max=100, help="How many zero-hit queries to list.")
    ] = 10,
    as_json: JsonOpt = False,
) -> None:
    """What telemetry shows: search hit rate, top zero-hit queries, p50/p95 per command, counts by linter
    class and route (events under <segment>/.trifecta/telemetry/)."""
    engine = _engine(segment)
    try:
        response = engine.stats(top=top)
    finally:
        engine.close()
    if as_json or not response.ok:
        _emit(response, as_json, engine.segment)
    _write_stats(dict(response.data))


def _write_stats(data: dict[str, Any]) -> None:
    tel, search = data["telemetry"], data["search"]
    state = "enabled" if tel["enabled"] else "disabled (TRIFECTA_NO_TELEMETRY)"
    typer.echo(
        f"telemetry: {tel['dir']} ({state}); {data['events']} events {data['first']} .. {data['last']}"
    )
    rate = "n/a" if search["hit_rate"] is None else f"{search['hit_rate'] * 100:.1f}%"
    typer.echo(f"search: {search['searches']} answered, hit rate {rate}, {search['zero_hit']} with zero hits")
    for row in search["top_zero_hit_queries"]:
        typer.echo(f"  {row['count']:>4}  {row['query']}")
    for label, key in (("linter class", "by_linter_class"), ("route", "by_route"), ("rewrite", "by_rewrite")):
        counts = ", ".join(f"{k} {v}" for k, v in search.get(key, {}).items()) or "none"
        typer.echo(f"{label}: {counts}")
    typer.echo(f"{'command':<14}{'count':>7}{'errors':>8}{'p50 ms':>10}{'p95 ms':>10}")
    for name, row in data["commands"].items():
        typer.echo(
            f"{name:<14}{row['count']:>7}{row['errors']:>8}{row['p50_ms']:>10.1f}{row['p95_ms']:>10.1f}"
        )
    typer.echo("counters: " + ", ".join(f"{k}={v}" for k, v in data["counters"].items()))


@app.command("mcp")
def mcp_cmd(
    segment: Annotated[
        list[str] | None,
        typer.Option(
            "--segment",
            "-s",
            help="The repository or folder to serve; with a shared index (db_url), segment ids, repeatable.",
        ),
    ] = None,
    all_segments: Annotated[
        bool, typer.Option("--all", help="Serve every segment of the shared index (db_url), read-only.")
    ] = False,
    call_timeout: Annotated[
        float | None,
        typer.Option(
            "--call-timeout",
            min=0.1,
            max=86400,
            help="Seconds a tool call may run before it answers TIMEOUT and the server moves on to a fresh "
            "engine (default 30, or TRIFECTA_MCP_CALL_TIMEOUT).",
        ),
    ] = None,
    index_timeout: Annotated[
        float | None,
        typer.Option(
            "--index-timeout",
            min=0.1,
            max=86400,
            help="The same for reindex and the index build at start (default 600, or TRIFECTA_MCP_INDEX_TIMEOUT).",
        ),
    ] = None,
    profile: Annotated[
        str,
        typer.Option(
            "--profile",
            help="brief (default: per hit only what an agent needs to choose, no plan unless asked) or full "
            "(the whole envelope).",
        ),
    ] = "brief",
) -> None:
    """Serve the segment to agents over MCP (stdio): tools search, get, symbols, snippet, hover, refs, lint,
    classify, index_status, reindex. Add it to an MCP client as: trifecta mcp --segment /path/to/repo.
    Several segments of a shared index (--segment A --segment B, or --all): the tools take a `segment`, search
    runs in all of them as one ranking, and a `segments` tool lists them."""
    import os

    _check_profile(profile)
    names = segment or ["."]
    if all_segments or len(names) > 1 or not os.path.isdir(names[0]):
        chosen = None if all_segments else names
        shared = _shared(chosen)  # a bad segment or no db_url fails here, before the SDK is imported
        shared.origin = "mcp"
        from ..mcp_server import serve

        def reopen() -> Any:
            fresh = _shared(chosen)
            fresh.origin = "mcp"
            return fresh

        serve(
            shared,
            call_timeout=call_timeout,
            index_timeout=index_timeout,
            profile=profile,
            reopen=reopen,
            shared=True,
        )
        return
    engine = _engine(names[0])  # a bad segment fails here, before the SDK is even imported
    engine.origin = "mcp"
    from ..mcp_server import serve

    serve(engine, call_timeout=call_timeout, index_timeout=index_timeout, profile=profile)


@app.command("eval")
def eval_cmd(
    queries: Annotated[
        str, typer.Option("--queries", "-q", help="A JSONL question set (../shared/eval format).")
    ],
    segment: SegmentOpt = ".",
    k: Annotated[int, typer.Option("--k", "-k", min=1, max=200, help="Ranks that count.")] = 10,
    mode: Annotated[str, typer.Option("--mode", help="The search mode to score.")] = "auto",
    as_json: JsonOpt = False,
) -> None:
    """Score search on a question set: MRR@k, recall@1/5/k at symbol and file level, by class and language."""
    engine = _engine(segment)
    try:
        response = engine.evaluate(queries, k=k, mode=mode)
    finally:
        engine.close()
    if as_json or not response.ok:
        _emit(response, as_json, engine.segment)
    _write_eval(response.data)


def _write_eval(data: Mapping[str, Any]) -> None:
    k = data["k"]
    typer.echo(
        f"{data['questions']} questions, k={k}, search p50/p95 "
        f"{data['latency_ms']['p50']}/{data['latency_ms']['p95']} ms"
    )
    typer.echo(f"{'':22} {'n':>3} {'MRR@' + str(k):>8} {'r@1':>6} {'r@5':>6} {'r@' + str(k):>6}")
    for level in ("symbol", "file"):
        block = data[level]
        groups = [("all", block["all"])]
        groups += [(f"class {name}", m) for name, m in block["by_class"].items()]
        groups += [(f"language {name}", m) for name, m in block["by_language"].items()]
        typer.echo(f"{level}:")
        for name, m in groups:
            typer.echo(
                f"  {name:20} {m['questions']:>3} {m[f'mrr@{k}']:>8.3f} {m['r@1']:>6.2f} {m['r@5']:>6.2f} "
                f"{m[f'r@{k}']:>6.2f}"
            )
    missed = [q for q in data["questions_detail"] if q["symbol_rank"] is None]
    if missed:
        typer.echo(f"missed at symbol level ({len(missed)}):")
        for q in missed:
            typer.echo(f"  {q['id']:6} [{q['class']}] {q['query'][:70]}  -> top: {q['top'] or '(no hits)'}")
    raise typer.Exit(0)


# --------------------------------------------------------------------------- the boundary
class SegmentNotFound(Exception):
    """--segment names no folder: SEGMENT_NOT_FOUND (exit 2)."""


# click's exceptions, from the click that typer runs on (typer 0.28 vendors its own copy as typer._click)
_CLICK = sys.modules[typer.BadParameter.__module__]

# the envelope `kind` of each command, for failures that happen before the command answers
_KINDS = {"get": "source", "symbols": "skeleton", "classify": "classification"}


def _kind(args: list[str]) -> str:
    """The envelope kind of the command named in ARGS (`ctx search ...` -> "search")."""
    words = [a for a in args[:2] if not a.startswith("-")]
    if words and words[0] in ("ctx", "ast"):
        words = words[1:]
    return _KINDS.get(words[0], words[0]) if words else "cli"


def _failure(kind: str, exc: BaseException) -> Response:
    """The envelope for a failure that escaped: a usage error or a bad config is INVALID_ARGUMENT, a
    named failure (CodedError) keeps its code, anything else is INTERNAL_ERROR with its traceback in data."""
    import traceback

    from ...application.ports import CodedError
    from ...domain.contract import ErrorCode, Response
    from ...infrastructure.config import ConfigError

    if isinstance(exc, _CLICK.UsageError):
        param = getattr(exc, "param", None)
        context = getattr(exc, "ctx", None)
        data: dict[str, Any] = {"usage": context.get_usage()} if context is not None else {}
        named = (getattr(param, "opts", None) or [getattr(param, "name", None)])[0] if param else None
        if named or getattr(exc, "option_name", None):
            data["argument"] = named or exc.option_name
        return Response.failure(kind, ErrorCode.INVALID_ARGUMENT, exc.format_message(), error_data=data)
    if isinstance(exc, SegmentNotFound):
        return Response.failure(kind, ErrorCode.SEGMENT_NOT_FOUND, str(exc))
    if isinstance(exc, CodedError):
        return Response.failure(kind, exc.code, str(exc), error_data=exc.data)
    if isinstance(exc, ConfigError):
        return Response.failure(kind, ErrorCode.INVALID_ARGUMENT, str(exc))
    return Response.failure(
        kind,
        ErrorCode.INTERNAL_ERROR,
        f"{type(exc).__name__}: {exc}",
        error_data={"traceback": traceback.format_exc(limit=8)},
    )


from .init import init_cmd  # noqa: E402 - registered after the app it joins
from .trust import trust_cmd  # noqa: E402

app.command("trust")(trust_cmd)
app.command("init")(init_cmd)


def _app_for(args: list[str]) -> typer.Typer:
    """`ctx search` runs in an app that holds that one command: typer turns every registered command into
    a click command on each call (~9 ms for all of them, ~2 ms for this one), and a search is what agents
    call most. Same callback, same group and command definitions: the same help, usage and errors."""
    if args[:2] != ["ctx", "search"]:
        return app
    top, ctx = _typer_apps()
    top.registered_callback = app.registered_callback
    ctx.registered_commands = [c for c in ctx_app.registered_commands if c.name == "search"]
    return top


def one_blas_thread() -> None:
    """One OpenBLAS thread unless the user chose a number: numpy's import (a search over stored postings
    pays it) starts a thread per core, ~50 ms of CPU and of wall time, for matrix products a command never
    makes (searching embeddings is an einsum, which BLAS does not run). No effect once numpy is loaded."""
    import os

    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> None:
    """The `trifecta` command. Nothing escapes as a traceback: with `--json` (anywhere on the line, even
    after the bad option) every failure, usage errors included, is one envelope on stdout with the message
    on stderr; without it, usage errors print as typer prints them and other failures as one line. Exit
    codes: 0 an answer, 2 bad input, 1 an internal failure."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    one_blas_thread()
    try:
        # with --json, click hands usage errors to us instead of printing them
        code = _app_for(args)(args=args, standalone_mode=not as_json)
    except typer.Abort:
        typer.echo("Aborted!", err=True)
        code = 1
    except _CLICK.ClickException as exc:  # only with --json: standalone mode prints its own
        code = _answer_failure(_failure(_kind(args), exc), as_json, exc.exit_code)
    except Exception as exc:
        code = _answer_failure(_failure(_kind(args), exc), as_json)
    sys.exit(code if isinstance(code, int) else 0)


def _answer_failure(response: Response, as_json: bool, code: int | None = None) -> int:
    from ..render import exit_code, write_errors, write_json

    if as_json:
        write_json(response)
    write_errors(response)
    return exit_code(response) if code is None else code


if __name__ == "__main__":
    main()
