"""bench/description_polyglot.py's comment stripper and candidate filter on small sources in each language
(and description_set.py's shared draw). Offline: nothing is downloaded, nothing is indexed."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
dp = importlib.import_module("description_polyglot")
ds = importlib.import_module("description_set")

needs_verify = pytest.mark.skipif(
    not (dp.DEFAULT_EVAL / "polyglot" / "verify.py").exists(),
    reason="../shared/eval/polyglot/verify.py is absent",
)

GO = """package p

// Equal reports whether the two values hold the same fields in every way that matters.
//
//go:noinline
func Equal(x, y T) bool {
\ts := "http://example.com" // a trailing comment
\treturn x == y && s != ""
}

// Router keeps the table of registered routes and dispatches each incoming request.
type Router struct {
\troutes []int /* inline */
}

// Match compares the request against every registered route and keeps the first that fits.
func (r *Router) Match(req int) bool { return f(r, /* a
\tb */ req) }

// too short to ask.
func Short() {}

// Spread out: a blank line below means this is no doc comment of the next function at all.

func Loose() {}

// Twice calls Twice again with a smaller argument until nothing is left.
func Twice(n int) int { return n }
"""

RUST = """//! The crate's own doc: never a question.

/// Returns an iterator adaptor that yields the elements in sorted order without allocating.
#[inline]
pub fn sorted_lazily<I>(it: I) -> I {
    let url = "http://x"; // not a doc
    it
}

// An ordinary comment over the struct is no doc comment for the struct below.
pub struct Plain;

pub trait Walk {
    /** Visits every node of the tree once, depth first, calling the closure at each one. */
    fn walk(&self);
}

impl Plain {
    /// Creates an empty value with room for the requested number of elements.
    pub fn with_capacity(n: usize) -> Self { let _ = n; /* nothing */ Plain }
}
"""

TS = """/**
 * Creates a store that keeps the state and notifies {@link Listener | every listener} of changes.
 * @param reducer the reducer
 */
export function createStore(reducer: Reducer): Store {
  const re = /\\/\\/not-a-comment/;
  const s = `// still a string`;
  /** An inner helper is a detail of its function, never asked about on its own here. */
  function local() { return re; }
  return build(reducer, s, local);
}

// A line comment is no JSDoc: this const is no candidate for any question.
export const quiet = () => 1;

/** Turns the given value into a readable string for the console output of tests. */
export const format = (v: unknown): string => String(v);

/** The number of retries that are allowed before the request is given up entirely. */
export const retries = 5;

export class Queue {
  /** Removes the oldest pending job from the queue and returns it to the caller. */
  shift(): Job | undefined { return this.jobs.shift() }
}

/** Splits the raw header text into the list of separate values it contains. */
export function parse(raw: string): string[];
export function parse(raw: string, strict: boolean): string[];
export function parse(raw: string, strict = false): string[] { return raw.split(strict ? ";" : ",") }
"""

JS = """'use strict';

/**
 * Shuts the connection after every queued message has been written to the socket.
 *
 * @param {Number} code The status code
 */
Sender.prototype.close = function (code) {
  return a/* keep apart */+ code;
};

/** Sends a heartbeat frame to the other side to check that it is still listening. */
function ping(data) { return send(data) } // trailing

module.exports = { ping };
"""


def candidate_map(src: str, rel: str, language: str) -> dict[str, dict[str, Any]]:
    stripped = dp.strip_comments(src, Path(rel).suffix)
    return {c["symbol"]: c for c in dp.candidates(src, stripped, rel, language)[0]}


# ------------------------------------------------------------------------------------------ the stripper
@pytest.mark.parametrize(
    ("src", "suffix"), [(GO, ".go"), (RUST, ".rs"), (TS, ".ts"), (JS, ".js")], ids=["go", "rust", "ts", "js"]
)
def test_every_comment_goes_and_the_code_stays(src: str, suffix: str) -> None:
    stripped = dp.strip_comments(src, suffix)
    assert dp.comments(stripped, suffix) == []
    assert dp.comments(src, suffix)
    parser, kinds = dp._parser(suffix)
    before, after = parser.parse(src.encode()).root_node, parser.parse(stripped.encode()).root_node
    assert not after.has_error
    assert dp._tokens(before, kinds) == dp._tokens(after, kinds)


def test_go_comments_removed_exactly() -> None:
    stripped = dp.strip_comments(GO, ".go")
    lines = stripped.split("\n")
    assert "func Equal(x, y T) bool {" in lines
    equal = lines.index("func Equal(x, y T) bool {")
    assert lines[equal - 2 : equal] == ["package p", ""]  # the doc, its empty `//` line and the directive go
    assert '\ts := "http://example.com"' in lines  # `//` in a string stays, trailing spaces go
    assert "\troutes []int" in lines
    # a comment spanning lines between code leaves a line break (Go's semicolon rule keeps the same meaning)
    assert "func (r *Router) Match(req int) bool { return f(r,\n req) }" in stripped
    assert "\n\nfunc Loose() {}" in stripped  # blank lines that were blank stay


def test_inline_comment_between_tokens_leaves_a_space() -> None:
    assert "return a + code;" in dp.strip_comments(JS, ".js")
    assert dp.strip_comments("x = a/* c */b;\n", ".js") == "x = a b;\n"
    assert dp.strip_comments("x = a /* c */ b;\n", ".js") == "x = a  b;\n"


def test_strings_regexes_and_templates_keep_their_slashes() -> None:
    stripped = dp.strip_comments(TS, ".ts")
    assert "const re = /\\/\\/not-a-comment/;" in stripped
    assert "const s = `// still a string`;" in stripped
    assert "/**" not in stripped and "{@link" not in stripped
    rust = dp.strip_comments(RUST, ".rs")
    assert 'let url = "http://x";' in rust and "//!" not in rust and "///" not in rust


def test_a_comment_inside_a_syntax_error_leaves_the_file_out() -> None:
    # tree-sitter-typescript 0.23 misreads a generic call signature after a member ending in `>` (as in
    # redux-toolkit's createSlice.ts): a comment in the error could be anything, so the stripper refuses
    broken = "interface I {\n  f(): A<\n    B\n  >\n  <T>(\n    // c\n    x: T,\n  ): T\n}\n"
    with pytest.raises(ValueError, match="syntax error"):
        dp.strip_comments(broken, ".ts")


def test_a_file_without_comments_is_unchanged() -> None:
    assert dp.strip_comments("package p\n\nfunc F() {}\n", ".go") == "package p\n\nfunc F() {}\n"


# ----------------------------------------------------------------------------------- the candidate filter
@needs_verify
def test_go_candidates() -> None:
    found = candidate_map(GO, "router.go", "go")
    assert (
        found["Equal"]["query"]
        == "reports whether the two values hold the same fields in every way that matters."
    )
    assert found["Router"]["query"].startswith("keeps the table of registered routes")
    assert found["Router.Match"]["query"].startswith("compares the request")
    assert "Short" not in found  # under 6 words
    assert "Loose" not in found  # a blank line between: no doc comment
    assert "Twice" not in found  # spells its own name after the leading one
    stripped = dp.strip_comments(GO, ".go").split("\n")
    equal = found["Equal"]
    # gold lines are the stripped file's
    assert stripped[equal["start_line"] - 1] == "func Equal(x, y T) bool {"
    assert stripped[equal["end_line"] - 1] == "}"


@needs_verify
def test_rust_candidates() -> None:
    found = candidate_map(RUST, "src/lib.rs", "rust")
    assert set(found) == {"sorted_lazily", "Walk.walk", "Plain.with_capacity"}
    assert found["Walk.walk"]["query"].startswith("Visits every node of the tree once")
    stripped = dp.strip_comments(RUST, ".rs").split("\n")
    assert stripped[found["sorted_lazily"]["start_line"] - 1] == "#[inline]"  # attributes belong to the item


@needs_verify
def test_typescript_candidates() -> None:
    stripped = dp.strip_comments(TS, ".ts")
    cands, refused = dp.candidates(TS, stripped, "src/store.ts", "typescript")
    found = {c["symbol"]: c for c in cands}
    assert found["createStore"]["query"] == (
        "Creates a store that keeps the state and notifies every listener of changes."
    )
    assert found["format"]["query"].startswith("Turns the given value")
    assert found["Queue.shift"]["query"].startswith("Removes the oldest pending job")
    assert "local" not in found  # nested in a function
    assert "quiet" not in found  # a line comment is no JSDoc
    assert "retries" not in found  # a constant is not a function or class
    parse = [c for c in cands if c["symbol"] == "parse"]  # the documented overload and the implementation
    lines = stripped.split("\n")
    assert [lines[c["start_line"] - 1][:40] for c in parse] == [
        "export function parse(raw: string): stri",
        "export function parse(raw: string, stric",
    ]
    assert lines[parse[1]["start_line"] - 1].endswith('split(strict ? ";" : ",") }')


@needs_verify
def test_javascript_candidates() -> None:
    found = candidate_map(JS, "lib/sender.js", "javascript")
    assert set(found) == {"Sender.close", "ping"}
    assert found["Sender.close"]["query"] == (
        "Shuts the connection after every queued message has been written to the socket."
    )


@needs_verify
def test_a_sentence_refused_for_one_definition_is_refused_for_all() -> None:
    src = """impl Map {
    /// Return an iterator over the key-value pairs of the map, in their order
    pub fn iter(&self) -> Iter { Iter }

    /// Return an iterator over the key-value pairs of the map, in their order
    pub fn iter_mut(&mut self) -> IterMut { IterMut }
}
"""
    found, refused = dp.candidates(src, dp.strip_comments(src, ".rs"), "src/map.rs", "rust")
    assert [c["symbol"] for c in found] == ["Map.iter_mut"]  # `iter` is spelled in "iterator"
    assert refused == {"Return an iterator over the key-value pairs of the map, in their order"}
    assert dp.usable(found, refused) == []


def test_a_sentence_of_more_than_three_definitions_is_not_asked() -> None:
    pool = [{"query": "Write the length of a struct for the encoder.", "symbol": f"s{i}"} for i in range(4)]
    pool.append({"query": "Reads one frame from the socket into the buffer.", "symbol": "read"})
    assert [c["symbol"] for c in dp.usable(pool, set())] == ["read"]
    assert len(dp.usable(pool[1:], set())) == 4


def test_question_drops_a_leading_own_name_and_refuses_its_name_elsewhere() -> None:
    assert dp.question("A Router registers routes and dispatches each request to its handler.", "Router") == (
        "registers routes and dispatches each request to its handler."
    )
    assert dp.question("Deprecated: use the new function for every call made from now on.", "Old") is None
    assert dp.question("Calls parse on every line of the input that is not empty.", "parse") is None
    assert dp.question("Parses one line.", "parse_line") is None


def test_skipped_files() -> None:
    assert dp.skipped(Path("cmp/compare_test.go"), "go")
    assert dp.skipped(Path("testdata/x.go"), "go")
    assert dp.skipped(Path("benches/b.rs"), "rust")
    assert dp.skipped(Path("src/tests/t.ts"), "typescript")
    assert dp.skipped(Path("src/types.d.ts"), "typescript")
    assert dp.skipped(Path("src/a.spec.ts"), "typescript")
    assert not dp.skipped(Path("cmp/compare.go"), "go")
    assert not dp.skipped(Path("lib/sender.js"), "javascript")


def test_draw_is_deterministic_and_groups_one_sentence() -> None:
    pool = [{"query": f"question number {i}", "path": "a", "symbol": f"s{i}"} for i in range(20)]
    pool.append({"query": "question number 3", "path": "b", "symbol": "t"})
    first, again = ds.draw(pool, 5, 7), ds.draw(pool, 5, 7)
    assert first == again and len(first) == 5
    assert ds.draw(pool, 5, 8) != first
    gold = dict(ds.draw(pool, 100, 7))["question number 3"]
    assert gold == [{"path": "a", "symbol": "s3"}, {"path": "b", "symbol": "t"}]


def test_miss_patterns_count_what_the_misses_look_like() -> None:
    rows = [
        {  # a hit: not counted
            "query": "q",
            "gold": ["a.rs::F"],
            "trifecta_rank": 1,
            "bm25_rank": 3,
            "trifecta_top3": ["a.rs::F"],
        },
        {
            "query": "A parallel iterator producing elements in the union of `IndexSet`s.",
            "gold": ["src/rayon/set.rs::ParUnion"],
            "trifecta_rank": None,
            "bm25_rank": 6,
            "trifecta_top3": ["src/set.rs::IndexSet", "src/rayon/set.rs::impl Clone for ParUnion"],
        },
        {
            "query": "Return an iterator adaptor that wraps each element in a position marker.",
            "gold": ["src/lib.rs::Itertools.with_position"],
            "trifecta_rank": 4,
            "bm25_rank": None,
            "trifecta_top3": ["src/lib.rs::impl Itertools for T", "src/with_position.rs::with_position"],
        },
    ]
    counts = dp.miss_patterns(rows)
    assert counts["misses"] == 2
    assert counts["gold not in the top 10"] == 1
    assert counts["first hit an `impl` block"] == 1
    assert counts["first hit a name the question spells"] == 1
    assert counts["another definition of the gold's name in the top 3"] == 1
    assert counts["gold's file in the top 3"] == 2
    assert counts["BM25 ranks it higher"] == 1
