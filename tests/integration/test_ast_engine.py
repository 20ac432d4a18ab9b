"""The AST engine over the real parts: a SQLite index built by IndexSegment, files on disk, the real parser."""

from __future__ import annotations

import json
import os
import shutil
import sysconfig
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.application.index_segment import IndexRequest, IndexSegment
from trifecta.application.zoom_ast import (
    Resolved,
    SnippetRequest,
    SnippetUseCase,
    SymbolResolver,
    SymbolsRequest,
    SymbolsUseCase,
    uri_for_hit,
)
from trifecta.domain.contract import ErrorCode, Response
from trifecta.domain.selector import Selector, is_identifier
from trifecta.infrastructure.code_parser import SourceParser
from trifecta.infrastructure.file_source import LocalFileSource
from trifecta.infrastructure.sqlite_store import SqliteIndex


class Segment:
    def __init__(self, root: Path, db: Path) -> None:
        self.root = root
        self.store = SqliteIndex(db)
        self.source = LocalFileSource(root)
        self.parser = SourceParser(workers=1)
        IndexSegment(source=self.source, parser=self.parser, writer=self.store, clock=lambda: "t").execute(
            IndexRequest()
        )
        self.resolver = SymbolResolver(reader=self.store, source=self.source, parser=self.parser)
        self.symbols_uc = SymbolsUseCase(self.resolver)
        self.snippet_uc = SnippetUseCase(self.resolver)

    def symbols(self, uri: str) -> Response:
        return self.symbols_uc.execute(SymbolsRequest(uri=uri))

    def snippet(self, uri: str) -> Response:
        return self.snippet_uc.execute(SnippetRequest(uri=uri))


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


FIXTURE = {
    "app/models.py": (
        '"""Models."""\n\n\nclass User:\n    """A user."""\n\n    def __init__(self, email):\n'
        "        self.email = email\n\n    @property\n    def domain(self):\n"
        '        return self.email.split("@")[1]\n'
    ),
    "app/__init__.py": "from .models import User\n",
    "app/utils.py": "def slug(text):\n    return text.lower()\n",
    "lib/utils.py": "def slug(text):\n    return text.upper()\n\n\ndef only_here():\n    pass\n",
    "broken.py": "def fine():\n    pass\n\ndef broken(:\n",
}


@pytest.fixture
def segment(tmp_path: Path) -> Iterator[Segment]:
    root = tmp_path / "seg"
    _write(root, FIXTURE)
    seg = Segment(root, tmp_path / "index.db")
    yield seg
    seg.store.close()


def test_skeleton_and_snippet_from_the_index(segment: Segment) -> None:
    skeleton = segment.symbols("sym://python/mod/app/models")
    assert skeleton.ok
    (user,) = skeleton.data["symbols"]
    assert [c["name"] for c in user["children"]] == ["__init__", "domain"]
    snippet = segment.snippet("sym://python/type/models/User#domain")
    assert snippet.ok
    assert snippet.data["range"] == {"start_line": 10, "end_line": 12}
    assert snippet.data["content"].startswith("    @property\n    def domain(self):")
    assert snippet.data["uri"] == "sym://python/type/app/models/User#domain"


def test_package_and_ambiguity(segment: Segment) -> None:
    assert segment.symbols("sym://python/mod/app").data["path"] == "app/__init__.py"
    ambiguous = segment.symbols("sym://python/mod/utils")
    assert ambiguous.errors[0].code is ErrorCode.AMBIGUOUS_SYMBOL
    assert [c["file_rel"] for c in ambiguous.errors[0].data["candidates"]] == ["app/utils.py", "lib/utils.py"]
    assert segment.snippet("sym://python/type/utils/only_here").data["path"] == "lib/utils.py"
    both = segment.snippet("sym://python/type/utils/slug")
    assert [c["sym"] for c in both.errors[0].data["candidates"]] == [
        "sym://python/type/app/utils/slug",
        "sym://python/type/lib/utils/slug",
    ]


def test_unparseable_file_is_symbol_not_found(segment: Segment) -> None:
    response = segment.snippet("sym://python/type/broken/fine")
    assert response.errors[0].code is ErrorCode.SYMBOL_NOT_FOUND
    assert response.errors[0].data["reason"] == "parse_error"


def test_edits_after_indexing_are_seen(segment: Segment) -> None:
    (segment.root / "app/utils.py").write_text("# new header\n\n\ndef slug(text):\n    return text\n")
    (segment.root / "fresh.py").write_text("def brand_new():\n    return 1\n")
    assert segment.snippet("sym://python/type/app/utils/slug").data["range"] == {
        "start_line": 4,
        "end_line": 5,
    }
    assert segment.snippet("sym://python/type/fresh/brand_new").ok  # not indexed yet: its full path finds it
    (segment.root / "lib/utils.py").unlink()
    assert segment.symbols("sym://python/mod/utils").data["path"] == "app/utils.py"  # a deleted file is gone


def test_symlink_out_of_the_segment(segment: Segment, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("SECRET = 1\n")
    os.symlink(outside, segment.root / "escape.py")
    response = segment.symbols("sym://python/mod/escape")
    assert response.errors[0].code is ErrorCode.PATH_OUTSIDE_SEGMENT


def test_envelopes_are_json(segment: Segment) -> None:
    for response in (
        segment.symbols("sym://python/mod/app/models"),
        segment.snippet("sym://python/type/app/models/User"),
        segment.snippet("sym://python/type/utils/slug"),
    ):
        encoded = json.loads(json.dumps(response.to_dict()))
        assert Response.from_dict(encoded).to_dict() == encoded


# --- the property over real files ---------------------------------------------------------------------------------

STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_FILES = [
    "json/__init__.py",
    "json/decoder.py",
    "json/encoder.py",
    "json/scanner.py",
    "csv.py",
    "dataclasses.py",
    "functools.py",
    "argparse.py",
    "enum.py",
    "textwrap.py",
    "typing.py",
    "email/message.py",
    "email/utils.py",
    "email/feedparser.py",
    "email/_header_value_parser.py",
    "collections/__init__.py",
]


@pytest.fixture(scope="module")
def stdlib_segment(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Segment, list[tuple[str, str, int, int]]]]:
    tmp = tmp_path_factory.mktemp("stdlib")
    root = tmp / "seg"
    for rel in STDLIB_FILES:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(STDLIB / rel, target)
    seg = Segment(root, tmp / "index.db")
    definitions = []
    for rel in STDLIB_FILES:
        parsed = seg.parser.parse(rel, (root / rel).read_text(encoding="utf-8"))
        assert not parsed.error, rel
        counts = Counter(s.qualname for s in parsed.symbols)
        definitions += [
            (rel, s.qualname, s.start_line, s.end_line)
            for s in parsed.symbols
            if counts[s.qualname] == 1 and all(is_identifier(p) for p in s.qualname.split("."))
        ]
    yield seg, definitions
    seg.store.close()


def test_the_stdlib_sample_is_large(stdlib_segment: tuple[Segment, list[tuple[str, str, int, int]]]) -> None:
    _segment, definitions = stdlib_segment
    assert len(definitions) > 1_000


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_every_unique_definition_resolves_to_its_own_range(
    stdlib_segment: tuple[Segment, list[tuple[str, str, int, int]]], data: st.DataObject
) -> None:
    segment, definitions = stdlib_segment
    path, qualname, start, end = data.draw(st.sampled_from(definitions))
    uri = Selector.definition("python", path[: -len(".py")], qualname).render()
    assert uri_for_hit(path, qualname, "python") == uri
    resolved = segment.resolver.resolve(uri)
    assert isinstance(resolved, Resolved), resolved
    assert (resolved.path, resolved.start_line, resolved.end_line) == (path, start, end)
    snippet = segment.snippet(uri)
    assert snippet.ok and snippet.data["range"] == {"start_line": start, "end_line": end}
    lines = (segment.root / path).read_text(encoding="utf-8").split("\n")
    first = snippet.data["content"].split("\n")[0]
    assert first == lines[start - 1][: len(first)]
