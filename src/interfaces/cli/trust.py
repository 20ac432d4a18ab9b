"""`trifecta trust [SEGMENT]`: let a segment's own `.trifecta/config.toml` set every setting.

A repository's config may not, by default, name commands, network endpoints, credentials or files outside
`.trifecta/` (see infrastructure/config.py). Trusting records the segment's real path and the sha256 of its
config file in `<user config dir>/trusted.toml`; a change to the file needs trusting again. For one call:
TRIFECTA_TRUST=1, or `trifecta.open(path, trust_segment_config=True)`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from ...infrastructure.trust import TrustStore


def trust_cmd(
    segment: Annotated[
        str, typer.Argument(help="The repository or folder to trust (or, with --remove, forget).")
    ] = ".",
    list_: Annotated[
        bool, typer.Option("--list", help="List the trusted segments and whether each still matches.")
    ] = False,
    remove: Annotated[bool, typer.Option("--remove", help="Stop trusting SEGMENT.")] = False,
) -> None:
    """Let SEGMENT's own .trifecta/config.toml set every setting.

    Untrusted, a segment's config cannot set the language server command, the embedding or query-rewrite
    api_url and api_key_env, the openai provider, or a db_path or model_path outside it. Trust covers the
    file's current content: after it changes, run this again."""
    from ...infrastructure.config import ConfigError, load_settings, segment_config_digest
    from ...infrastructure.trust import TrustStore, UnsafeConfigFile, user_config_dir

    directory = user_config_dir(os.environ)
    if directory is None:
        _fail("no user config folder: set TRIFECTA_CONFIG_HOME, XDG_CONFIG_HOME or HOME")
        return
    store = TrustStore(directory)
    try:
        if list_:
            _list(store)
            return
        root = Path(segment).expanduser()
        if remove:
            if not store.remove(root):
                _fail(f"{root.resolve()} is not trusted (see `trifecta trust --list`)", code=1)
            typer.echo(f"no longer trusted: {root.resolve()}")
            return
        if not root.is_dir():
            _fail(f"segment {segment!r} is not a directory")
        sha = segment_config_digest(root)
        try:  # what trusting changes, so the user sees what they agree to
            ignored = load_settings(root, {"trust_segment_config": False}).untrusted
        except ConfigError:
            ignored = ()
        entry = store.trust(root, sha)
    except (ConfigError, UnsafeConfigFile, ValueError, OSError) as exc:
        _fail(str(exc))
        return
    typer.echo(f"trusted {entry.path}")
    if ignored:
        typer.echo(f"its config may now set: {', '.join(ignored)}")
    what = f"config.toml sha256 {sha[:12]}" if sha else "no config.toml yet"
    typer.echo(f"trust covers this content ({what}); run `trifecta trust` again after the file changes")
    typer.echo(f"recorded in {store.file}")


def _list(store: TrustStore) -> None:
    from ...infrastructure.config import ConfigError, segment_config_digest

    entries = store.entries()
    if not entries:
        typer.echo(f"no trusted segments ({store.file})")
    for entry in entries:
        try:
            matches = Path(entry.path).is_dir() and segment_config_digest(entry.path) == entry.config_sha256
            state = "ok" if matches else "config changed or segment gone: trust again"
        except (ConfigError, OSError):
            state = "config unreadable"
        typer.echo(f"{entry.path}\t{state}\t{entry.trusted_at}")


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)
