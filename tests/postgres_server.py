"""A real PostgreSQL server for integration tests: Debian's binaries (`scripts/test` installs them when they
are missing), a cluster made with initdb in a temporary folder, started with pg_ctl on a free port of
127.0.0.1, trust authentication, fsync off; stopped and removed afterwards. PostgreSQL refuses to run as root,
so as root the cluster is made and run by the `postgres` user the Debian package creates."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

USER = "trifecta"


def bindir() -> Path | None:
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(candidate, "pg_ctl")):
            return Path(candidate)
    found = shutil.which("pg_ctl")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_server_user(args: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return args
    return ["runuser", "-u", "postgres", "--", *args]


@contextmanager
def running_server() -> Iterator[str]:
    """Start a throw-away server; yields the URL of its `postgres` database (user `trifecta`)."""
    bin_dir = bindir()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL is not installed (apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="trifecta-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    port = _free_port()
    try:
        subprocess.run(
            _as_server_user(
                [
                    str(bin_dir / "initdb"),
                    "-D",
                    str(data),
                    "-A",
                    "trust",
                    "-U",
                    USER,
                    "-E",
                    "UTF8",
                    "--no-sync",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        subprocess.run(
            _as_server_user(
                [
                    str(bin_dir / "pg_ctl"),
                    "-D",
                    str(data),
                    "-o",
                    options,
                    "-l",
                    str(root / "log"),
                    "-w",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        try:
            yield f"postgresql://{USER}@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(
                _as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                capture_output=True,
                timeout=60,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


def new_database(url: str, name: str) -> str:
    """Create database `name` on the server of `url`; its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name
