"""Secret detection by content at index time (issue 19, item 11 and "What to build" 7), over a real SQLite
index through the library: a file whose content holds a credential (a service-account JSON with a private
key, a settings module with an AWS key) is not indexed whatever its name, is counted under skipped
"secret", leaves the index when a credential is added to an indexed file, and is not read again while it
stays the same. Code that only names credentials (the stdlib's `secrets.py`, `password = get_password()`)
is indexed."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

import trifecta

pytestmark = pytest.mark.timeout(120)

# assembled at run time so this file does not itself look like it holds a key
KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
PEM_IN_JSON = (
    "-----" + "BEGIN PRIVATE KEY-----\\n" + (KEY_BODY + "\\n") * 5 + "-----" + "END PRIVATE KEY-----\\n"
)
SERVICE_ACCOUNT = (
    '{"type": "service_account", "project_id": "quasarwidget-prod",\n'
    f' "private_key": "{PEM_IN_JSON}",\n'
    ' "client_email": "deployer@quasarwidget-prod.iam.gserviceaccount.com"}\n'
)
AWS_KEY = "AKIA" + "Z7Q3JQWERTY2ABCD"


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def indexed_paths(engine: trifecta.Engine) -> set[str]:
    db = engine.status().to_dict()["data"]["db_path"]
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT path FROM files")}


def hit_paths(engine: trifecta.Engine, query: str) -> list[str]:
    data = engine.search(query, limit=10).to_dict()
    assert data["status"] == "ok", data
    return [hit["path"] for hit in data["data"]["hits"]]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(
        root, "app.py", "def login(user):\n    password = get_password()\n    return check(user, password)\n"
    )
    # the stdlib's own secrets.py: code about secrets, no secret in it
    write(
        root,
        "lib/secrets.py",
        "DEFAULT_ENTROPY = 32\n\ndef token_hex(nbytes=None):\n    return token_bytes(nbytes).hex()\n",
    )
    write(root, "deploy/quasarwidget.json", SERVICE_ACCOUNT)
    write(
        root,
        "settings.py",
        f"REGION = 'eu-west-1'\nAWS_ACCESS_KEY_ID = '{AWS_KEY}'\ndef zebracorn():\n    pass\n",
    )
    return root


def test_files_holding_credentials_are_not_indexed_whatever_their_name(repo: Path) -> None:
    with trifecta.open(str(repo), workers=1) as engine:
        report = engine.index()
        assert report.skipped.get("secret") == 2  # the JSON and settings.py: neither has a secret's name
        paths = indexed_paths(engine)
        assert {"app.py", "lib/secrets.py"} <= paths
        assert not paths & {"deploy/quasarwidget.json", "settings.py"}
        assert hit_paths(engine, "quasarwidget") == []
        assert hit_paths(engine, "zebracorn") == []
        assert "lib/secrets.py" in hit_paths(engine, "token_hex")


def test_a_credential_added_later_takes_the_file_out_and_removing_it_brings_it_back(repo: Path) -> None:
    notes = write(repo, "ops/notes.py", "def rotate_keys():\n    'quokka rotation'\n")
    with trifecta.open(str(repo), workers=1) as engine:
        engine.index()
        assert "ops/notes.py" in hit_paths(engine, "quokka")

        notes.write_text(f"def rotate_keys():\n    'quokka rotation'\n    key = '{AWS_KEY}'\n")
        os.utime(notes, ns=(1, 1))  # a different stat, whatever the clock's resolution
        report = engine.index()
        assert report.skipped.get("secret") == 3
        assert report.files_deleted == 1
        assert "ops/notes.py" not in indexed_paths(engine)
        assert hit_paths(engine, "quokka") == []

        notes.write_text("def rotate_keys():\n    'quokka rotation'\n")
        os.utime(notes, ns=(2, 2))
        report = engine.index()
        assert report.skipped.get("secret") == 2
        assert "ops/notes.py" in hit_paths(engine, "quokka")


def test_a_full_rebuild_drops_a_file_indexed_before_it_held_a_credential(repo: Path) -> None:
    notes = write(repo, "ops/notes.py", "def rotate_keys():\n    'quokka rotation'\n")
    with trifecta.open(str(repo), workers=1) as engine:
        engine.index()
        notes.write_text(f"KEY = '{AWS_KEY}'  # quokka\n")
        engine.index(full=True)
        assert "ops/notes.py" not in indexed_paths(engine)
        assert hit_paths(engine, "quokka") == []


def test_a_secret_file_is_not_read_again_while_its_stat_is_unchanged(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with trifecta.open(str(repo), workers=1) as engine:
        engine.index()
        source = engine._app.index._source
        reads: list[str] = []
        real_read = source.read_bytes

        def counting_read(path: str) -> bytes:
            reads.append(path)
            return real_read(path)

        monkeypatch.setattr(source, "read_bytes", counting_read)
        report = engine.index()
        assert report.skipped.get("secret") == 2  # still counted
        assert reads == []  # nothing changed, nothing read: not even the two secret files
