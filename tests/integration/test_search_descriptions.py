"""A docstring-style description ("Raised when...", "Return the...") asked against a real index: it describes one
definition, so the answer is that definition, not the code around it."""

from __future__ import annotations

import pytest

EXCEPTIONS = """
class StreamError(Exception):
    pass


class EndOfStream(Exception):
    pass


class BusyResourceError(Exception):
    pass
"""

STREAMS = """
from .exceptions import EndOfStream


class FileReadStream:
    def receive(self, max_bytes=65536):
        data = self._file.read(max_bytes)
        if not data:
            raise EndOfStream
        return data

    def read_closed(self):
        if self._closed:
            raise EndOfStream
        return self._file.read()


class SocketStream:
    def receive(self, max_bytes=65536):
        if self._closed_by_other_end:
            raise EndOfStream
        return self._socket.recv(max_bytes)


def read_from_stream(stream):
    return stream.receive()
"""


RULES = """
class Ruler:
    def at(self, name, fn, options=None):
        index = self._find(name)
        if index == -1:
            raise KeyError(name)
        self._rules[index].fn = fn
        self._rules[index].alt = (options or {}).get("alt", [])

    def push(self, name, fn, options=None):
        self._rules.append((name, fn))


def replace_entities(text):
    return ENTITY_RE.sub(lambda m: ENTITIES.get(m.group(1), m.group(0)), text)


def replace_scoped(tokens, state):
    for token in tokens:
        token.content = replace_entities(token.content)
"""


@pytest.fixture
def engine(index_files):
    return index_files(
        {"pkg/exceptions.py": EXCEPTIONS, "pkg/streams.py": STREAMS, "pkg/rules.py": RULES},
        fillers=tuple(f"pkg/{name}.py" for name in ("dates", "paths", "headers", "tokens")),
    )


def symbols(engine, query: str) -> list[str]:
    return [h["symbol"] for h in engine.search(query, limit=5).to_dict()["data"]["hits"]]


@pytest.mark.timeout(60)
def test_an_exception_docstring_finds_the_exception_class_before_the_code_raising_it(engine) -> None:
    found = symbols(
        engine, "Raised when trying to read from a stream that has been closed from the other end."
    )
    assert found[0] == "EndOfStream", found


@pytest.mark.timeout(60)
def test_a_documentation_role_is_no_literal_to_look_up(engine) -> None:
    plan = engine.search("Raised when reading a :class:`.FileReadStream` that was closed.", limit=5).to_dict()
    assert ".FileReadStream" not in plan["data"]["plan"].get("literals", [])


@pytest.mark.timeout(60)
def test_a_docstring_naming_a_construct_is_no_structural_question(engine) -> None:
    # "function" names no set of functions here: the method described is the answer
    data = engine.search("Replace rule by name with new function & options.", limit=5).to_dict()["data"]
    assert data["plan"]["route"] == "hybrid"
    assert "Ruler.at" in [h["symbol"] for h in data["hits"][:2]], data["hits"]


@pytest.mark.timeout(60)
def test_a_statement_using_a_name_finds_the_statement_not_the_definition(engine) -> None:
    # `raise EndOfStream` asks where it is raised; `class EndOfStream` would ask for the definition
    hits = engine.search("raise EndOfStream", limit=5).to_dict()["data"]["hits"]
    assert hits[0]["symbol"] in {
        "FileReadStream.receive",
        "FileReadStream.read_closed",
        "SocketStream.receive",
    }
    assert "raise EndOfStream" in hits[0]["preview"]
    assert engine.search("class EndOfStream", limit=5).to_dict()["data"]["hits"][0]["symbol"] == "EndOfStream"


GROUPING = """
class GroupingMap:
    def __init__(self, source):
        self.source = source

    def max_by(self, compare):
        result = {}
        for key, value in self.source:
            best = result.get(key)
            if best is None or compare(value, best) > 0:
                result[key] = value
        return result

    def count(self):
        return sum(1 for _ in self.source)
"""

ZIP = """
pub struct ZipPairs<I: Iterator, J: Iterator> {
    left: Fuse<I>,
    right: Fuse<J>,
}

impl<I, J> Clone for ZipPairs<I, J>
where
    I: Iterator + Clone,
    J: Iterator + Clone,
{
    fn clone(&self) -> Self {
        ZipPairs { left: self.left.clone(), right: self.right.clone() }
    }
}

impl<I, J> Iterator for ZipPairs<I, J>
where
    I: Iterator,
    J: Iterator,
{
    type Item = (Option<I::Item>, Option<J::Item>);
}

impl<I, J> DoubleEndedIterator for ZipPairs<I, J>
where
    I: DoubleEndedIterator + ExactSizeIterator,
    J: DoubleEndedIterator + ExactSizeIterator,
{
}
"""


@pytest.mark.timeout(60)
def test_a_description_naming_other_code_describes_something_else(index_files) -> None:
    # a docstring names what its definition works with: `GroupingMap` is the context, not the answer
    engine = index_files({"pkg/grouping.py": GROUPING}, fillers=("pkg/a.py", "pkg/b.py"))
    found = symbols(
        engine, "Groups elements from the `GroupingMap` source by key and finds the maximum of each group."
    )
    assert found[0] == "GroupingMap.max_by", found


@pytest.mark.timeout(60)
def test_a_rust_type_ranks_before_the_impl_blocks_of_it_that_match(index_files) -> None:
    # `impl Iterator for ZipPairs` says "iterator" in its header (as qualname and signature) more than the
    # struct does: the struct is what the words describe, its blocks follow
    others = {f"src/util_{i}.rs": f"pub fn value_{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n" for i in range(6)}
    engine = index_files({"src/zip_pairs.rs": ZIP, **others})
    found = symbols(
        engine, "An iterator that walks two iterators side by side until both iterators are done."
    )
    assert "ZipPairs" in found, found
    impls = [i for i, s in enumerate(found) if s.startswith("impl ")]
    assert impls and found.index("ZipPairs") < impls[0], found


REDIRECTS = """
export interface RedirectLocation {
  url: string;
  locationUrl: string;
  redirectResponse: Response;
  points: number;
}

export function nextUrl(response: Response): string {
  const location = response.headers.get("location");
  return new URL(location, response.url).toString();
}
"""


@pytest.mark.timeout(60)
def test_a_sentence_opening_with_what_code_does_describes_a_function_before_a_type(index_files) -> None:
    # the interface holds more of the words; "Returns ..." says a function does it
    others = {
        f"src/util{i}.ts": f"export function value{i}(x: number): number {{\n  return x + {i};\n}}\n"
        for i in range(6)
    }
    engine = index_files({"src/redirects.ts": REDIRECTS, **others})
    assert symbols(engine, "Returns the location URL that a redirect response points to.")[:2] == [
        "nextUrl",
        "RedirectLocation",
    ]
    assert symbols(engine, "A location URL that a redirect response points to.")[0] == "RedirectLocation"


ERRORS = """
class BudgetError(Exception):
    pass


class Overrun(BudgetError):
    def __init__(self, runtime, deadline):
        super().__init__(f"Test took {runtime}ms, which exceeds the deadline of {deadline}ms")
        self.runtime = runtime
        self.deadline = deadline
"""

RUNNER = """
def run_with_deadline(test, deadline):
    started = now()
    result = test()
    runtime = now() - started
    if runtime > deadline:
        raise Overrun(runtime, deadline)
    return result
"""


@pytest.mark.timeout(60)
def test_raised_when_brings_the_exception_class_whose_member_holds_the_words(tmp_path) -> None:
    # in a large segment the class header (no word of the sentence) is not among the hits, its __init__ is
    from trifecta.application.ports import FileUpdate
    from trifecta.application.search import SearchSegment
    from trifecta.domain.code import FileState, Hit
    from trifecta.infrastructure.code_parser import parse_item
    from trifecta.infrastructure.sqlite_store import SqliteIndex

    index = SqliteIndex(tmp_path / "index.db")
    updates = []
    for path, text in {"pkg/errors.py": ERRORS, "pkg/runner.py": RUNNER}.items():
        _, parsed = parse_item((path, text))
        state = FileState(path=path, size=len(text), mtime_ns=0, sha256=path)
        updates.append(FileUpdate(state=state, parsed=parsed, n_lines=text.count("\n")))
    index.apply(updates, [], [])
    index.finish_run("now")
    chunks = {c.symbol: c for c in index.iter_chunks()}
    member = Hit(chunk=chunks["Overrun.__init__"], score=7.0, match_type="lexical")
    other = Hit(chunk=chunks["run_with_deadline"], score=9.0, match_type="lexical")
    owners = SearchSegment(reader=index)._exception_owners([member, other])
    assert [(h.chunk.symbol, h.score) for h in owners] == [("Overrun", 7.0)]
    assert SearchSegment(reader=index)._exception_owners([other]) == []  # no member, no owner
    index.close()


MAP_RS = """
pub struct OrderedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K: PartialEq, V> OrderedMap<K, V> {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn contains_key(&self, key: &K) -> bool {
        self.entries.iter().any(|(k, _)| k == key)
    }

    pub fn par_values(&self) -> ParValues<'_, K, V> {
        ParValues { entries: &self.entries }
    }

    pub fn values(&self) -> Values<'_, K, V> {
        Values { entries: &self.entries }
    }
}
"""


@pytest.mark.timeout(60)
def test_a_description_in_words_finds_the_code_that_abbreviates_them(index_files) -> None:
    # "no elements" is what `is_empty` checks, "parallel" what `par_` abbreviates: neither word is in the code
    others = {f"src/util{i}.rs": f"pub fn value{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n" for i in range(6)}
    engine = index_files({"src/map.rs": MAP_RS, **others})
    assert symbols(engine, "Returns true if the map contains no elements.")[0] == "OrderedMap.is_empty"
    assert (
        symbols(engine, "Return a parallel iterator over the values of the map.")[0]
        == "OrderedMap.par_values"
    )
