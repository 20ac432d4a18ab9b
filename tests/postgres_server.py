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
import urllib.parse
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


class Server:
    """A throw-away cluster that a test can stop and start again (same port, same data)."""

    def __init__(self) -> None:
        bin_dir = bindir()
        if bin_dir is None:
            raise FileNotFoundError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="trifecta-pg-"))
        self.data = self.root / "data"
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
        self.port = _free_port()
        self.url = f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"
        subprocess.run(
            _as_server_user(
                [
                    str(bin_dir / "initdb"),
                    "-D",
                    str(self.data),
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

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        subprocess.run(
            _as_server_user(
                [
                    str(self.bin_dir / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-o",
                    options,
                    "-l",
                    str(self.root / "log"),
                    "-w",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )

    def stop(self, mode: str = "immediate") -> None:
        """`immediate`: as a crash (connections cut, recovery at the next start); `fast`: a clean shutdown."""
        subprocess.run(
            _as_server_user([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"]),
            capture_output=True,
            timeout=60,
        )

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def controlled_server() -> Iterator[Server]:
    """A started server the test may stop and start; removed afterwards."""
    server = Server()
    try:
        server.start()
        yield server
    finally:
        server.remove()


@contextmanager
def running_server() -> Iterator[str]:
    """Start a throw-away server; yields the URL of its `postgres` database (user `trifecta`)."""
    with controlled_server() as server:
        yield server.url


def new_database(url: str, name: str) -> str:
    """Create database `name` on the server of `url`; its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    parts = urllib.parse.urlsplit(url)  # the query (`?host=/socket/dir` of a pgserver URL) is kept
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))
