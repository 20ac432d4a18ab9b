"""Check that two SQLite index files hold the same index: files, symbols, chunks, call edges, the full-text
rows (every term, chunk, column and position of `chunks_fts`, read through `fts5vocab`) and the trigram
accelerator's rows (`chunks_tri`). For speed work: what is indexed must not change.

    python bench/compare_indexes.py OLD.db NEW.db      # exit 0 when equal; prints a digest per table

Row ids are compared too (chunks are numbered in file order), but not the files' stat data (mtime): two builds
of two copies of one tree differ there by design, so `files` is compared by path, hash, language, lines and
parse error.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from collections.abc import Iterable, Sequence

QUERIES = {
    "files": "SELECT path, size, sha256, language, n_lines, parse_error FROM files",
    "symbols": "SELECT f.path, s.name, s.qualname, s.kind, s.start_line, s.end_line, s.def_line, s.signature, "
    "s.docstring, s.decorators, s.bases, s.params, s.is_async, s.parent, s.depth, s.exported "
    "FROM symbols s JOIN files f ON f.id = s.file_id",
    "chunks": "SELECT c.rowid, c.id, f.path, c.path, c.start_line, c.end_line, c.kind, c.language, c.symbol, "
    "c.name, c.signature, c.doc, c.body FROM chunks c JOIN files f ON f.id = c.file_id",
    "edges": "SELECT f.path, e.kind, e.caller, e.line, e.col, e.name, e.text, e.alias "
    "FROM edges e JOIN files f ON f.id = e.file_id",
    "fts rows": "SELECT term, doc, col, offset FROM temp.fts_vocab",
    "trigram rows": "SELECT term, doc FROM temp.tri_vocab",
    "substring state": "SELECT value FROM meta WHERE key = 'substring_index'",
}


def digest(rows: Iterable[Sequence[object]]) -> tuple[int, str]:
    """(row count, sha256 of the sorted rows)."""
    encoded = sorted(repr(tuple(row)).encode() for row in rows)
    h = hashlib.sha256()
    for line in encoded:
        h.update(line + b"\n")
    return len(encoded), h.hexdigest()[:16]


def table_digests(db: str) -> dict[str, tuple[int, str]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    conn.execute("CREATE VIRTUAL TABLE temp.fts_vocab USING fts5vocab(main, chunks_fts, 'instance')")
    conn.execute("CREATE VIRTUAL TABLE temp.tri_vocab USING fts5vocab(main, chunks_tri, 'instance')")
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    out = {}
    for name, sql in QUERIES.items():
        if name == "edges" and "edges" not in tables:
            continue
        out[name] = digest(conn.execute(sql))
    conn.close()
    return out


def main(argv: Sequence[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    old, new = (table_digests(db) for db in argv)
    same = True
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        mark = "same" if a == b else "DIFFERENT"
        same = same and a == b
        print(f"{name:16s} {mark:9s} {a} {b}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
