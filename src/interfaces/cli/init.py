"""`trifecta init [SEGMENT]`: set a repository up for Trifecta and its agents, idempotently.

Always: `.trifecta/.gitignore` (`*`, so nothing of the index shows in `git status`). With `--config`:
`.trifecta/config.toml`, every setting commented out at its default. Printed, or with `--write` written:
the MCP server entry for Claude Code (`.mcp.json`) and Cursor (`.cursor/mcp.json`), merged into an existing
file without touching its other entries, and an `AGENTS.md` section telling an agent how to use the tools
(appended once). Claude Desktop's entry is printed only: its file is the user's, not the repository's.

Nothing existing is overwritten: a config.toml, another `trifecta` MCP entry or an AGENTS.md section that is
already there are left as they are. All changes are planned first; when one of them cannot be made (a
read-only folder, a symbolic link, a JSON file that does not parse) none is made, and the answer says which.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any

import attrs
import typer

from ...domain import actions
from ...domain.contract import ErrorCode, Response

SERVER_NAME = "trifecta"
AGENTS_FILE = "AGENTS.md"
AGENTS_MARK = "<!-- trifecta -->"
AGENTS_SECTION = f"""{AGENTS_MARK}
## Finding code: Trifecta

This repository is indexed by Trifecta (MCP server `trifecta`). Do not read whole files to find code.
- Call `search` with the question in words or identifiers first (a hit names its `uri`, `loc` and signature).
- Then zoom: `snippet` with a hit's `uri` for one definition, `symbols` for a file's or class's outline,
  `get` with a hit `id` or `path:start-end` for exact lines, `refs` before changing a function.
- Follow `next_actions`: each is a tool call to make as it is.
- On `SYMBOL_NOT_FOUND` look at the file's `symbols`; on `AMBIGUOUS_SYMBOL` pick one of the candidates;
  zero hits: rephrase with words from the code.
- Without MCP, the same from a shell: `trifecta ctx search --query "..." --segment .`,
  `trifecta ast snippet 'sym://...' --segment .` (add `--json` for the envelope).
"""
# where Claude Desktop keeps its config, by platform (printed: it is the user's file, not the repository's)
DESKTOP_PATHS = {
    "macos": "~/Library/Application Support/Claude/claude_desktop_config.json",
    "windows": "%APPDATA%\\Claude\\claude_desktop_config.json",
    "linux": "~/.config/Claude/claude_desktop_config.json",
}
# Settings without one default value: shown with an example and what happens when unset
_EXAMPLES: dict[str, tuple[Any, str]] = {
    "db_url": ("postgresql://user@host/db", "a shared index; your own config only, not a repository's"),
    "segment_id": ("name", "the segment's key in a shared index; default: the folder's name"),
    "workers": (2, "parser processes; default: the CPU count, at most 4"),
    "refresh_interval": (0, "default: 0 for the CLI and library, 1.0 in trifecta mcp"),
    "embed_model_path": ("models/minilm", "onnx: folder with model.onnx + tokenizer.json; no default"),
}


# --------------------------------------------------------------------------------------- what to write
def server_entry(segment: Path) -> dict[str, Any]:
    """The MCP server entry that starts `trifecta mcp` on SEGMENT: the console script of this install when
    it has one (an absolute path, so a client's PATH does not matter), else this interpreter with `-m`."""
    bin_dir = Path(sys.executable).parent  # not resolved: a venv's python is a link out of the venv
    script = bin_dir / ("trifecta.exe" if os.name == "nt" else "trifecta")
    args = ["mcp", "--segment", str(segment)]
    if script.is_file():
        return {"command": str(script), "args": args}
    return {"command": sys.executable, "args": ["-m", "trifecta", *args]}


def config_template() -> str:
    """`.trifecta/config.toml` with every setting commented out at its default, section by section."""
    from ...infrastructure.config import Settings, config_key

    defaults = Settings(segment=Path("."), db_path=Path(".trifecta/index.db"))
    sections: dict[str, list[str]] = {}
    for field in attrs.fields(Settings):
        if field.name in ("segment", "untrusted", "trust_outdated"):
            continue
        section, key = config_key(field.name).split(" ", 1)
        value, note = getattr(defaults, field.name), ""
        if field.name == "db_path":
            value = ".trifecta/index.db"
        elif field.name in _EXAMPLES:
            value, note = _EXAMPLES[field.name]
        line = f"# {key} = {_toml(value)}"
        if len(line) > 110 and isinstance(value, tuple):  # a long list, one line of items after another
            line = f"# {key} = [\n" + "\n".join(f"#   {row}" for row in _rows(value)) + "\n# ]"
        sections.setdefault(section, []).append(line + (f"  # {note}" if note else ""))
    lines = [
        "# Trifecta settings for this segment. Uncomment a line to change it; the values shown are the",
        "# defaults. Commands, endpoints and paths outside .trifecta/ count only once you run `trifecta trust`.",
    ]
    for section, entries in sections.items():
        lines += ["", section, *entries]
    return "\n".join(lines) + "\n"


def _rows(values: tuple[Any, ...], width: int = 100) -> list[str]:
    rows: list[str] = []
    for item in (_toml(v) + "," for v in values):
        if rows and len(rows[-1]) + 1 + len(item) <= width:
            rows[-1] += " " + item
        else:
            rows.append(item)
    return rows


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string is a JSON string


def clients(segment: Path) -> dict[str, dict[str, Any]]:
    """Each MCP client's config holding the server entry: where it goes, and the JSON to merge there."""
    config = {"mcpServers": {SERVER_NAME: server_entry(segment)}}
    return {
        "claude_code": {"path": ".mcp.json", "config": config},
        "cursor": {"path": ".cursor/mcp.json", "config": config},
        "claude_desktop": {"paths": DESKTOP_PATHS, "config": config},
    }


# --------------------------------------------------------------------------------------- the plan
@attrs.frozen(kw_only=True)
class Change:
    """One file: what init does to it (create, update, unchanged, kept) and the text it writes."""

    path: str  # relative to the segment
    action: str
    text: str | None = None  # the whole new content, for create and update
    note: str = ""

    def to_data(self) -> dict[str, str]:
        return {"path": self.path, "action": self.action, **({"note": self.note} if self.note else {})}


class CannotWrite(Exception):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def _read(root: Path, rel: str) -> str | None:
    """The text of ROOT/REL, None when it is missing; a link or a non-file is CannotWrite."""
    path = root / rel
    for part in (Path(rel), *Path(rel).parents[:-1]):
        if (root / part).is_symlink():
            raise CannotWrite(rel, f"{part} is a symbolic link; trifecta writes through no link")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CannotWrite(rel, exc.strerror or str(exc)) from None
    if not stat.S_ISREG(mode):
        raise CannotWrite(rel, "not a regular file")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CannotWrite(rel, f"cannot be read: {exc}") from None


def _new_file(root: Path, rel: str, text: str, exists_note: str) -> Change:
    old = _read(root, rel)
    if old is None:
        return Change(path=rel, action="create", text=text)
    return Change(
        path=rel, action="unchanged" if old == text else "kept", note="" if old == text else exists_note
    )


def _merged_json(root: Path, rel: str, entry: dict[str, Any]) -> Change:
    """REL with the `trifecta` server added to its `mcpServers`, every other key kept as it was."""
    old = _read(root, rel)
    if old is None:
        return Change(
            path=rel, action="create", text=json.dumps({"mcpServers": {SERVER_NAME: entry}}, indent=2) + "\n"
        )
    try:
        doc = json.loads(old) if old.strip() else {}
    except json.JSONDecodeError as exc:
        raise CannotWrite(
            rel, f"not valid JSON ({exc.msg}, line {exc.lineno}); add the entry by hand"
        ) from None
    servers = doc.get("mcpServers", {}) if isinstance(doc, dict) else None
    if not isinstance(servers, dict):
        raise CannotWrite(rel, "not a JSON object with an mcpServers object; add the entry by hand")
    if SERVER_NAME in servers:
        if servers[SERVER_NAME] == entry:
            return Change(path=rel, action="unchanged")
        return Change(
            path=rel, action="kept", note=f"has another {SERVER_NAME!r} server entry: left as it is"
        )
    doc["mcpServers"] = {**servers, SERVER_NAME: entry}
    return Change(path=rel, action="update", text=json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def _agents(root: Path) -> Change:
    old = _read(root, AGENTS_FILE)
    if old is None:
        return Change(path=AGENTS_FILE, action="create", text=AGENTS_SECTION)
    if AGENTS_MARK in old or "## Finding code: Trifecta" in old:
        return Change(path=AGENTS_FILE, action="unchanged")
    if not old.strip():
        return Change(path=AGENTS_FILE, action="update", text=AGENTS_SECTION)
    ending = "" if old.endswith("\n") else "\n"
    return Change(path=AGENTS_FILE, action="update", text=f"{old}{ending}\n{AGENTS_SECTION}")


def plan(root: Path, *, config: bool, write: bool) -> list[Change]:
    """What init would do to ROOT; CannotWrite (from the first file it cannot handle) changes nothing."""
    from ...infrastructure.state_folder import GITIGNORE, GITIGNORE_TEXT, STATE_DIR

    changes = [_new_file(root, f"{STATE_DIR}/{GITIGNORE}", GITIGNORE_TEXT, "exists: left as it is")]
    if config:
        changes.append(
            _new_file(root, f"{STATE_DIR}/config.toml", config_template(), "exists: left as it is")
        )
    if write:
        entry = server_entry(root)
        changes.append(_merged_json(root, ".mcp.json", entry))
        changes.append(_merged_json(root, ".cursor/mcp.json", entry))
        changes.append(_agents(root))
    return changes


def _check_writable(root: Path, change: Change) -> None:
    """CannotWrite unless the file's folder exists and is writable, or its nearest existing ancestor is."""
    folder = (root / change.path).parent
    while not folder.exists():
        if folder.is_symlink():
            raise CannotWrite(change.path, f"{folder.relative_to(root)} is a dangling symbolic link")
        folder = folder.parent
    if not folder.is_dir():
        raise CannotWrite(change.path, f"{folder.relative_to(root)} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CannotWrite(change.path, f"{folder.relative_to(root) or '.'}: permission denied (read-only)")


def apply(root: Path, changes: list[Change]) -> None:
    """Write each create/update: a new file beside the old, then renamed over it (never half a file)."""
    for change in changes:
        if change.text is None:
            continue
        path = root / change.path
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(change.text)
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def run_init(segment: str, *, config: bool, write: bool) -> Response:
    """The whole of `trifecta init`, as an envelope."""
    root = Path(segment).expanduser()
    if not root.is_dir():
        return Response.failure(
            "init",
            ErrorCode.SEGMENT_NOT_FOUND,
            f"segment {segment!r} is not a directory: give the repository's folder",
        )
    root = root.resolve()
    try:
        changes = plan(root, config=config, write=write)
        for change in changes:
            if change.text is not None:
                _check_writable(root, change)
    except CannotWrite as exc:
        return _unwritable(root, exc.path, exc.reason)
    try:
        apply(root, changes)
    except OSError as exc:
        failed = next((c.path for c in changes if c.text is not None), "")
        return _unwritable(root, str(getattr(exc, "filename", "") or failed), exc.strerror or str(exc))
    changed = [c for c in changes if c.text is not None]
    data: dict[str, Any] = {
        "segment": str(root),
        "changed": bool(changed),
        "files": [c.to_data() for c in changes],
        "written": write,
        "clients": clients(root),
        "agents_md": AGENTS_SECTION,
    }
    indexed = (root / ".trifecta" / "index.db").exists()
    return Response.success("init", data, next_actions=() if indexed else (actions.index(),))


def _unwritable(root: Path, path: str, reason: str) -> Response:
    return Response.failure(
        "init",
        ErrorCode.INDEX_UNWRITABLE,
        f"cannot write {path}: {reason}; nothing was changed",
        error_data={"reason": "read_only", "path": path, "segment": str(root)},
    )


# --------------------------------------------------------------------------------------- the command
_DONE = {"create": "created", "update": "updated", "unchanged": "unchanged", "kept": "kept"}


def init_cmd(
    segment: Annotated[str, typer.Argument(help="The repository or folder to set up.")] = ".",
    config: Annotated[
        bool,
        typer.Option("--config", help="Also write .trifecta/config.toml with every setting at its default."),
    ] = False,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Write the MCP entry into .mcp.json (Claude Code) and .cursor/mcp.json (Cursor), merged into "
            "what is there, and append the agent instructions to AGENTS.md, instead of printing them.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON envelope on stdout.")] = False,
) -> None:
    """Set SEGMENT up: keep .trifecta/ out of git, and show (or --write) the MCP config for Claude Code,
    Cursor and Claude Desktop and an AGENTS.md section. Safe to run again: nothing existing is overwritten."""
    from ..render import exit_code, with_commands, write_errors, write_json

    response = run_init(segment, config=config, write=write)
    if response.ok:
        response = with_commands(response, str(response.data["segment"]))
    if as_json:
        write_json(response)
    if not response.ok:
        write_errors(response)
    elif not as_json:
        _write_human(response)
    raise typer.Exit(exit_code(response))


def _write_human(response: Response) -> None:
    from ..render import printable

    data = printable(response).data
    typer.echo(f"trifecta init {data['segment']}")
    for row in data["files"]:
        note = f"  ({row['note']})" if row.get("note") else ""
        typer.echo(f"  {_DONE[row['action']]:<10} {row['path']}{note}")
    if not data["changed"]:
        typer.echo("nothing to change: already set up")
    shown = ("claude_desktop",) if data["written"] else ("claude_code", "cursor", "claude_desktop")
    labels = {"claude_code": "Claude Code", "cursor": "Cursor", "claude_desktop": "Claude Desktop"}
    for name in shown:
        client = data["clients"][name]
        where = client.get("path") or ", ".join(client["paths"].values())
        typer.echo(f"\n{labels[name]} ({where}):")
        typer.echo(json.dumps(client["config"], indent=2, ensure_ascii=False))
    if not data["written"]:
        typer.echo(f"\n{AGENTS_FILE} (or CLAUDE.md), a section for agents:\n")
        typer.echo(data["agents_md"].rstrip("\n"))
        typer.echo("\n(--write puts the first two and this section in place)")
    for action in response.next_actions:
        typer.echo(f"next: {action}")
