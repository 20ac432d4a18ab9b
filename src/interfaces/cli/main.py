"""The `trifecta` command line. Thin: flags -> a facade call -> a sink. Heavy imports happen inside
commands so `--help` and each call start fast."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from ...domain.contract import Response
    from ..facade import Engine

app = typer.Typer(
    help="Trifecta: the few right places in a repository, inside a byte budget, as JSON for agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
ctx_app = typer.Typer(help="Search (L0) and raw source (L3).", no_args_is_help=True)
app.add_typer(ctx_app, name="ctx")
ast_app = typer.Typer(help="Zoom by sym:// selector: skeletons (L1) and snippets (L2).", no_args_is_help=True)
app.add_typer(ast_app, name="ast")

SegmentOpt = Annotated[str, typer.Option("--segment", "-s", help="The repository or folder to work on.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the JSON envelope on stdout.")]


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
        if self.tty:
            if done < total and now - self.last < 0.1:
                return
            self.last = now
            width = 30
            filled = int(width * done / total)
            bar = "#" * filled + "-" * (width - filled)
            sys.stderr.write(f"\rindexing [{bar}] {done}/{total} files {now - self.started:5.1f}s")
            if done >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()
        elif done == 0 or done >= total:
            sys.stderr.write(f"indexing: {done}/{total} files ({now - self.started:.1f}s)\n")


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _engine(segment: str, **options: Any) -> Engine:
    from ...infrastructure.config import ConfigError
    from ..facade import open_engine

    try:
        engine = open_engine(segment, **options)
    except ConfigError as exc:
        _fail(str(exc))
    engine.progress = StderrProgress()
    return engine


def _answer(segment: str, as_json: bool, call: Callable[[Engine], Response]) -> None:
    """Open the segment, ask one question, close, print the answer with its exit code."""
    engine = _engine(segment)
    try:
        response = call(engine)
    finally:
        engine.close()
    _emit(response, as_json)


def _emit(response: Response, as_json: bool) -> None:
    from ..render import exit_code, write_errors, write_human, write_json

    if as_json:
        write_json(response)
        if not response.ok:
            write_errors(response)
    else:
        write_human(response)
    raise typer.Exit(exit_code(response))


@app.command("index")
def index_cmd(
    segment: Annotated[str, typer.Argument(help="The repository or folder to index.")] = ".",
    full: Annotated[bool, typer.Option("--full", help="Re-parse every file.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Build or refresh the index of SEGMENT (incremental unless --full)."""
    from ...domain.contract import ErrorCode, Response
    from ...infrastructure.sqlite_store import IndexLocked

    engine = _engine(segment)
    try:
        report = engine.index(progress=StderrProgress(), full=full)
    except IndexLocked as exc:
        _emit(Response.failure("index", ErrorCode.INDEX_LOCKED, str(exc)), as_json)
    finally:
        status = engine.status()
        engine.close()
    data = {
        "files_seen": report.files_seen,
        "files_indexed": report.files_indexed,
        "files_unchanged": report.files_unchanged,
        "files_deleted": report.files_deleted,
        "symbols_added": report.symbols_added,
        "parse_errors": report.parse_errors,
        "parse_error_files": list(report.parse_error_files),
        "skipped": report.skipped,
        "seconds": round(report.seconds, 3),
        "index": dict(status.data),
    }
    if as_json:
        _emit(Response.success("index", data), True)
    skipped = ", ".join(f"{k} {v}" for k, v in report.skipped.items()) or "none"
    typer.echo(
        f"indexed {report.files_indexed} files ({report.files_unchanged} unchanged, {report.files_deleted} removed) "
        f"in {report.seconds:.2f}s; {status.data['files']} files, {status.data['symbols']} symbols in "
        f"{status.data['db_path']}; parse errors {report.parse_errors}; skipped: {skipped}"
    )


@app.command("status")
def status_cmd(segment: SegmentOpt = ".", as_json: JsonOpt = False) -> None:
    """Show what the index of a segment holds."""
    _answer(segment, as_json, lambda engine: engine.status())


@ctx_app.command("search")
def search_cmd(
    query: Annotated[str, typer.Option("--query", "-q", help="What to look for, in words or identifiers.")],
    segment: SegmentOpt = ".",
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=200)] = 10,
    mode: Annotated[
        str, typer.Option("--mode", help="auto|lexical|pattern|structural|semantic|hybrid")
    ] = "auto",
    no_lint: Annotated[
        bool, typer.Option("--no-lint", help="Disable the query linter for this search.")
    ] = False,
    lint: Annotated[bool, typer.Option("--lint", help="Enable the query linter for this search.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """L0: the few places that answer a question, ranked."""
    _answer(
        segment,
        as_json,
        lambda engine: engine.search(
            query, limit=limit, mode=mode, lint=False if no_lint else (True if lint else None)
        ),
    )


@ctx_app.command("get")
def get_cmd(
    segment: SegmentOpt = ".",
    id: Annotated[str | None, typer.Option("--id", help="A hit id from ctx search.")] = None,
    path: Annotated[
        str | None, typer.Option("--path", help="PATH or PATH:START-END inside the segment.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """L3: raw source by hit id or path[:START-END], cut to the byte budget."""
    _answer(segment, as_json, lambda engine: engine.get(id=id, path=path))


@ast_app.command("symbols")
def ast_symbols_cmd(
    uri: Annotated[str, typer.Argument(help="sym://python/mod/<path> or sym://python/type/<path>/<Class>")],
    segment: SegmentOpt = ".",
    as_json: JsonOpt = False,
) -> None:
    """L1: the skeleton of a file or class: names, signatures, first doc lines, line ranges."""
    _answer(segment, as_json, lambda engine: engine.symbols(uri))


@ast_app.command("snippet")
def ast_snippet_cmd(
    uri: Annotated[str, typer.Argument(help="sym://python/type/<path>/<Symbol>[#Member.Member]")],
    segment: SegmentOpt = ".",
    as_json: JsonOpt = False,
) -> None:
    """L2: one definition's source, cut to the snippet budget."""
    _answer(segment, as_json, lambda engine: engine.snippet(uri))


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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
