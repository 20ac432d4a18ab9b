"""The description-to-code check of `description_set.py` in Go, Rust, TypeScript and JavaScript.

Issue 15 is checked "on a description-to-code set with docstrings removed" in every language its users write.
This builds that set from eight real packages nobody on the team tuned on (two a language, none of the public
polyglot corpora or the held-out trees of `bench_polyglot.py`), downloaded once with the registries' own
clients (Debian's `apt-get download` for Go and Rust source, `npm pack` for TypeScript and JavaScript), pinned
by version and sha256, offline after that:

1. every function, method, class, struct, enum, interface and trait (tests, examples, benches, vendored and
   generated files left out, nested functions too) with a doc comment (Go `//` lines right above it, Rust
   `///` or `/** */`, JSDoc `/** */`) whose first sentence has 6 to 40 words and does not spell its own name
   is a candidate; a leading own name is dropped first (Go's "Equal reports whether ..." asks "reports
   whether ..."); a sentence refused for one definition asks for none, one shared by more than 3 neither;
   the gold is that definition, named and ranged as `../shared/eval/polyglot/verify.py`'s `definitions()`
   gives it in the stripped file (for a TS/JS overload, the implementation counts too);
2. the package's source is copied with every comment removed: tree-sitter finds the comment nodes, a line
   left empty goes, and every file is checked to keep the exact token sequence it had (line numbers change;
   the gold is looked up again in the stripped text);
3. `--n` questions per package are drawn with `--seed` (`description_set.draw`, as for Python).

    python bench/description_polyglot.py --cache /tmp/dp-cache --out /tmp/dp            # build the sets
    python bench/description_polyglot.py --cache /tmp/dp-cache --out /tmp/dp --score    # and score them

Scoring calls `../shared/eval/score.py` (the same BM25 baseline, facade call and matching rule) through
`score_heldout.score_segment`, and writes the per-package and per-language tables and every question
Trifecta does not rank first (its rank, BM25's, Trifecta's top three) to bench/results/description_polyglot.md,
each question's ranks to description_polyglot.json. `score_heldout.py`'s gold check runs on every build.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

import tree_sitter as ts

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
from bench_polyglot import Source, download, sha256_file, unpack  # noqa: E402 - bench/ is not a package
from description_set import SKIPPED_PARTS, draw, first_sentence, is_question, load_scorer  # noqa: E402
from score_heldout import DEFAULT_EVAL, group_row, load_module, score_segment  # noqa: E402
from score_heldout import verify as verify_gold  # noqa: E402

from trifecta.infrastructure.treesitter_parser import spec_for  # noqa: E402

RESULTS = BENCH_DIR / "results"


@dataclass(frozen=True)
class Package:
    name: str  # the corpus: the folder under --out and the question file's name
    language: str  # verify.py's language name
    source: Source
    sha256: str  # of the downloaded archive


PACKAGES: tuple[Package, ...] = (
    Package(
        "go-cmp",
        "go",
        Source(
            "deb", "golang-github-google-go-cmp-dev=0.5.9-1", "usr/share/gocode/src/github.com/google/go-cmp"
        ),
        "b68bd919daa7c1bdf02abfb68894e29e532f19b03b68c8615f50626c48f553b6",
    ),
    Package(
        "go-mux",
        "go",
        Source("deb", "golang-github-gorilla-mux-dev=1.8.0-1", "usr/share/gocode/src/github.com/gorilla/mux"),
        "0880a4019fe68496a0e0a749c2948c029e489f49edd448bed2fedaba33f848c2",
    ),
    Package(
        "rust-itertools",
        "rust",
        Source("deb", "librust-itertools-dev=0.10.3-1", "usr/share/cargo/registry/itertools-0.10.3"),
        "3e13fc328508275c2c84270133f41a300ffb58b9b77001b89373ba7f7ab57fde",
    ),
    Package(
        "rust-indexmap",
        "rust",
        Source("deb", "librust-indexmap-dev=1.9.2-1", "usr/share/cargo/registry/indexmap-1.9.2"),
        "691b9efb8df4abdfdb238713c1f66416f31e2c2a33fd15687aae2c4dcb9b5308",
    ),
    Package(
        "ts-redux-toolkit",
        "typescript",
        Source("npm", "@reduxjs/toolkit@2.2.7", "src"),
        "f2517c466b50424b661a27e48039f15db7783e5822f46b5c7d39f20104ac67a9",
    ),
    Package(
        "ts-msw",
        "typescript",
        Source("npm", "msw@2.4.9", "src"),
        "a6f15d1f37abad957dd4134a29cca8d2fa5abe041133503403401b6d2bf2ec1c",
    ),
    Package(
        "js-yjs",
        "javascript",
        Source("npm", "yjs@13.6.20", "src"),
        "0f0c2f74f2a9c55de0afb5eed582b5f1cd3ef019d4a2a5cd820b158705720084",
    ),
    Package(
        "js-ws",
        "javascript",
        Source("npm", "ws@8.18.0", "lib"),
        "a08221f2851472c944ca0178d89a9888c7f43fbd9998afc8a7ec6fe417c4ca20",
    ),
)
PACKAGES_BY_NAME = {p.name: p for p in PACKAGES}

EXTENSIONS = {"go": (".go",), "rust": (".rs",), "typescript": (".ts",), "javascript": (".js", ".mjs", ".cjs")}
SKIPPED_DIRS = SKIPPED_PARTS | {
    "testdata",
    "testutil",
    "benches",
    "examples",
    "__tests__",
    "__mocks__",
    "fixtures",
}
SKIPPED_SUFFIXES = ("_test.go", ".test.ts", ".spec.ts", ".test.js", ".spec.js", ".d.ts", ".min.js")
GENERATED = re.compile(r"Code generated .* DO NOT EDIT|@generated|auto-?generated", re.IGNORECASE)

# Definition kinds (tree-sitter node kinds of verify.py's definitions) that make candidate questions.
_ECMASCRIPT = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_signature",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "method_definition",
        "abstract_method_signature",
        "method_signature",
        "public_field_definition",  # verify.py keeps these only when their value is a function
        "field_definition",
    }
)
CANDIDATE_KINDS = {
    "go": frozenset(
        {"function_declaration", "method_declaration", "type_spec", "method_elem", "method_spec"}
    ),
    "rust": frozenset(
        {"function_item", "function_signature_item", "struct_item", "enum_item", "trait_item", "union_item"}
    ),
    "typescript": _ECMASCRIPT,
    "javascript": _ECMASCRIPT,
}
VALUE_HOLDERS = frozenset(
    {"lexical_declaration", "variable_declaration", "variable_declarator", "expression_statement"}
)
FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "class"}
)
FUNCTION_BODIES = frozenset(
    {
        "function_declaration",
        "method_declaration",
        "func_literal",
        "function_item",
        "closure_expression",
        "arrow_function",
        "function_expression",
        "function",
        "generator_function",
        "generator_function_declaration",
        "method_definition",
    }
)
GO_DIRECTIVE = re.compile(r"^//\s*(?:go:|\+build|nolint|export |line )")
JSDOC_LINK = re.compile(r"\{@link(?:code|plain)?\s+([^}|\s]+)(?:\s*\|\s*|\s+)?([^}]*)\}")
NOT_A_DESCRIPTION = re.compile(r"(?i)^(?:deprecated|todo|fixme|xxx|note that)\b")
_SENTINEL = b"\x00"
MAX_GOLD = 3  # verify.py's limit for a semantic question


# ------------------------------------------------------------------------------------------------ comments
@dataclass(frozen=True)
class Comment:
    start_row: int  # 0-based
    end_row: int
    text: str
    alone: bool  # nothing but whitespace before it on its first line and after it on its last


@cache
def _parser(path_suffix: str) -> tuple[ts.Parser, frozenset[str]]:
    """Trifecta's own grammar wheel and comment node kinds for files ending in `path_suffix`."""
    spec = spec_for("x" + path_suffix)
    if spec is None:
        raise ValueError(f"no tree-sitter language for {path_suffix}")
    module, function = spec.grammar.split(":")
    language = ts.Language(getattr(importlib.import_module(module), function)())
    return ts.Parser(language), spec.comments


def _comment_nodes(root: ts.Node, kinds: frozenset[str]) -> list[ts.Node]:
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.type in kinds:
            out.append(node)  # a Rust doc comment has children of its own: never look inside
        else:
            stack.extend(reversed(node.children))
    return out


def _tokens(root: ts.Node, kinds: frozenset[str]) -> list[bytes]:
    """The text of every leaf outside the comments, in order."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.type in kinds:
            continue
        if node.child_count == 0:
            out.append(node.text or b"")
        else:
            stack.extend(reversed(node.children))
    return out


def _comment_ranges(data: bytes, nodes: list[ts.Node]) -> list[tuple[int, int]]:
    ranges = []
    for node in nodes:
        start, end = node.start_byte, node.end_byte
        while end > start and data[end - 1 : end] in (b"\n", b"\r"):  # Rust line comments hold their newline
            end -= 1
        ranges.append((start, end))
    return sorted(ranges)


def comments(text: str, suffix: str) -> list[Comment]:
    """Every comment of a source file (suffix: its file ending), in order."""
    parser, kinds = _parser(suffix)
    data = text.encode("utf-8")
    out = []
    for start, end in _comment_ranges(data, _comment_nodes(parser.parse(data).root_node, kinds)):
        line_start = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", end)
        line_end = len(data) if line_end < 0 else line_end
        alone = not data[line_start:start].strip() and not data[end:line_end].strip()
        out.append(
            Comment(
                data.count(b"\n", 0, start),
                data.count(b"\n", 0, end),
                data[start:end].decode("utf-8", "replace"),
                alone,
            )
        )
    return out


def strip_comments(text: str, suffix: str) -> str:
    """The file without its comments: a line that held only comments goes, a comment inside a line leaves a
    space where it kept two tokens apart, a comment spanning lines between code on both sides leaves a line
    break (Go's semicolons). Raises ValueError when the code's token sequence would change."""
    parser, kinds = _parser(suffix)
    data = text.encode("utf-8")
    if _SENTINEL in data:
        raise ValueError("a NUL byte in the source")
    tree = parser.parse(data)
    ranges = _comment_ranges(data, _comment_nodes(tree.root_node, kinds))
    if not ranges:
        return text
    pieces, pos = [], 0
    for start, end in ranges:
        pieces.append(data[pos:start])
        line_start = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", end)
        code_before = data[line_start:start].strip()
        code_after = data[end : len(data) if line_end < 0 else line_end].strip()
        gap = b""
        if code_before and code_after:
            if b"\n" in data[start:end]:
                gap = b"\n"
            elif not data[start - 1 : start].isspace() and not data[end : end + 1].isspace():
                gap = b" "
        pieces.append(_SENTINEL + gap)
        pos = end
    pieces.append(data[pos:])
    lines = []
    for line in b"".join(pieces).split(b"\n"):
        if _SENTINEL in line:
            line = re.sub(rb"[ \t]*\x00[ \t]*$", b"", line).replace(_SENTINEL, b"")
            if not line.strip():
                continue
        lines.append(line)
    stripped = b"\n".join(lines)
    _check_same_code(tree.root_node, parser.parse(stripped).root_node, kinds, data, ranges)
    return stripped.decode("utf-8")


def _check_same_code(
    before: ts.Node, after: ts.Node, kinds: frozenset[str], data: bytes, ranges: list[tuple[int, int]]
) -> None:
    """A file that parses keeps its exact token sequence; one with syntax errors (where recovery may split
    tokens differently) keeps its text outside the comments, whitespace aside, and no comment may lie in an
    error (where a `//` inside a string or regex could pass for one)."""
    if not before.has_error:
        if _tokens(before, kinds) != _tokens(after, kinds):
            raise ValueError("removing the comments changed the code's tokens")
        return
    for node in _comment_nodes(before, kinds):
        parent = node.parent
        while parent is not None:
            if parent.type == "ERROR":
                raise ValueError("a comment inside a syntax error")
            parent = parent.parent
    code, pos = [], 0
    for start, end in ranges:
        code.append(data[pos:start])
        pos = end
    code.append(data[pos:])
    if re.sub(rb"\s+", b"", b"".join(code)) != re.sub(rb"\s+", b"", after.text or b""):
        raise ValueError("removing the comments changed the code's text")


# ---------------------------------------------------------------------------------------------- candidates
def doc_comment(found: list[Comment], start_line: int, language: str) -> str:
    """The doc comment of a definition whose first line (attributes included) is `start_line` (1-based): the
    comments right above it, as that language writes docs; its text without comment markers."""
    by_end = {c.end_row: c for c in found if c.alone}
    block: list[Comment] = []
    row = start_line - 2
    while row in by_end:
        block.insert(0, by_end[row])
        row = by_end[row].start_row - 1
    if language == "go":
        block = [c for c in block if not GO_DIRECTIVE.match(c.text)]
    elif language == "rust":
        docs: list[Comment] = []
        for c in reversed(block):
            if not re.match(r"///(?!/)|/\*\*(?![*/])", c.text):
                break
            docs.insert(0, c)
        block = docs
    else:
        block = block[-1:] if block and re.match(r"/\*\*(?![*/])", block[-1].text) else []
    lines: list[str] = []
    for c in block:
        lines += _comment_lines(c.text)
    doc = "\n".join(lines)
    if language in ("typescript", "javascript"):
        doc = re.split(r"^@", doc, maxsplit=1, flags=re.MULTILINE)[0]
        doc = JSDOC_LINK.sub(lambda m: m.group(2).strip() or m.group(1), doc)
    return doc.strip()


def _comment_lines(comment: str) -> list[str]:
    if comment.startswith("//"):
        return [re.sub(r"^///?\s?", "", comment)]
    body = re.sub(r"^/\*\*?|\*/$", "", comment)
    return [re.sub(r"^\s*\*(?!/)\s?", "", line).rstrip() for line in body.split("\n")]


def sentence_of(doc: str, name: str) -> str:
    """The doc's first sentence without a leading own name ("Equal reports whether ..." -> "reports whether")."""
    sentence = first_sentence(doc)
    own = re.match(rf"(?:(?:[Aa]n?|[Tt]he)\s+)?`?{re.escape(name)}`?(?:\(\))?\s+", sentence)
    return sentence[own.end() :] if own else sentence


def question(doc: str, name: str) -> str | None:
    """The doc's first sentence as a question, or None (`description_set.is_question` decides)."""
    sentence = sentence_of(doc, name)
    if NOT_A_DESCRIPTION.match(sentence) or not is_question(sentence, name):
        return None
    return sentence


@cache
def _verify() -> Any:
    return load_module(DEFAULT_EVAL / "polyglot" / "verify.py", "polyglot_verify")


def definitions(src: str, language: str) -> list[tuple[str, Any, int]]:
    """verify.py's definitions with their ast-grep nodes: (qualified name, node, first line with attributes)."""
    from ast_grep_py import SgRoot

    verify = _verify()
    root = SgRoot(src, verify.LANG_GRAMMAR[language]).root()
    if language == "go":
        return [(name, node, node.range().start.line + 1) for name, node, _ in verify.go_defs(root)]
    raw = verify.rust_defs(root) if language == "rust" else verify.js_defs(root)
    return [(name, node, start) for name, node, _, start in raw]


def _value_kind(node: Any) -> str:
    """The kind of what a declaration or assignment holds (`const f = () => ...` -> arrow_function)."""
    if node.kind() in ("lexical_declaration", "variable_declaration"):
        node = next((c for c in node.children() if c.kind() == "variable_declarator"), None)
    if node is not None and node.kind() == "variable_declarator":
        value = node.field("value")
    elif node is not None and node.kind() == "expression_statement":
        value = node.child(0)
        while value is not None and value.kind() == "assignment_expression":
            value = value.field("right")
    else:
        value = None
    while value is not None and value.kind() == "parenthesized_expression":
        value = value.child(1)
    return value.kind() if value is not None else ""


def is_candidate_kind(node: Any, language: str) -> bool:
    kind = node.kind()
    if kind in VALUE_HOLDERS:
        ok = language in ("typescript", "javascript") and _value_kind(node) in FUNCTION_VALUES
    else:
        ok = kind in CANDIDATE_KINDS[language]
    parent = node.parent()
    while ok and parent is not None:  # a function's local definitions are not the package's
        if parent.kind() in FUNCTION_BODIES:
            return False
        parent = parent.parent()
    return ok


def candidates(src: str, stripped: str, rel: str, language: str) -> tuple[list[dict[str, Any]], set[str]]:
    """The candidate questions of one file, `query` plus the gold (path, symbol, lines in `stripped`), and the
    sentences refused for a definition (`iter`'s "Return an iterator ..." spells `iter`: the same sentence
    on `iter_mut` must not ask for `iter_mut` alone)."""
    found = comments(src, Path(rel).suffix)
    before, after = definitions(src, language), definitions(stripped, language)
    if [d[0] for d in before] != [d[0] for d in after]:
        raise ValueError(f"{rel}: the definitions differ once the comments are gone")
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for name, node, start in after:
        spans[name].append((start, node.range().end.line + 1))
    out, refused, seen = [], set(), defaultdict(int)
    for name, node, start in before:
        occurrence = seen[name]
        seen[name] += 1
        if name.startswith("impl ") or not is_candidate_kind(node, language):
            continue
        doc, short = doc_comment(found, start, language), name.rsplit(".", 1)[-1]
        sentence = question(doc, short)
        if sentence is None:
            if doc:
                refused.add(sentence_of(doc, short))
            continue
        own = [spans[name][occurrence]]
        # an overload signature's doc: the implementation (the last of that name) counts too
        if language in ("typescript", "javascript") and max(spans[name]) not in own:
            own.append(max(spans[name]))
        gold = [{"path": rel, "symbol": name, "start_line": s, "end_line": e} for s, e in own]
        out += [{"query": sentence, **g} for g in gold]
    return out, refused


def usable(pool: list[dict[str, Any]], refused: set[str]) -> list[dict[str, Any]]:
    """The candidates that may be asked: a sentence of more than MAX_GOLD definitions names none, and one
    refused for a definition does not ask for the others."""
    shared: dict[str, int] = defaultdict(int)
    for c in pool:
        shared[c["query"]] += 1
    return [c for c in pool if shared[c["query"]] <= MAX_GOLD and c["query"] not in refused]


# ------------------------------------------------------------------------------------------------- build
def skipped(rel: Path, language: str) -> bool:
    return (
        bool(SKIPPED_DIRS & set(rel.parts[:-1]))
        or rel.name.endswith(SKIPPED_SUFFIXES)
        or not rel.name.endswith(EXTENSIONS[language])
    )


def fetch(package: Package, cache_dir: Path, into: Path) -> Path:
    """The package's source folder, unpacked under `into` from its archive in `cache_dir/downloads` (fetched
    with the registry's client the first time), after checking the archive's pinned sha256."""
    archive = download(package.source, cache_dir / "downloads")
    digest = sha256_file(archive)
    if digest != package.sha256:
        sys.exit(f"{archive} has sha256 {digest}, pinned {package.sha256}: remove it and fetch again")
    root = unpack(package.source, archive, into)
    if not root.is_dir():
        sys.exit(f"{package.source.spec}: no {package.source.subdir} in {archive.name}")
    return root


def build(package: Package, cache_dir: Path, out: Path, n: int, seed: int) -> int:
    """Writes the stripped tree to out/NAME and its questions to out/NAME.jsonl; returns the question count."""
    tree_out = out / package.name
    shutil.rmtree(tree_out, ignore_errors=True)
    pool: list[dict[str, Any]] = []
    refused: set[str] = set()
    dropped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="description-polyglot-") as scratch:
        source = fetch(package, cache_dir, Path(scratch))
        for path in sorted(p for p in source.rglob("*") if p.is_file() and not p.is_symlink()):
            rel = path.relative_to(source)
            if skipped(rel, package.language):
                continue
            src = path.read_text("utf-8", errors="replace")
            if GENERATED.search(src[:1000]):
                continue
            try:
                stripped = strip_comments(src, path.suffix)
            except ValueError as exc:  # not provably the same code without its comments: the file stays out
                dropped.append(f"left out {rel}: {exc}")
                continue
            dest = tree_out / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(stripped, encoding="utf-8")
            try:
                found, refused_here = candidates(src, stripped, rel.as_posix(), package.language)
                pool += found
                refused |= refused_here
            except ValueError as exc:  # syntax errors recovered differently: no questions from this file
                dropped.append(f"no questions from {exc}")
    pool = usable(pool, refused)
    for line in dropped:
        print(f"  {package.name}: {line}", file=sys.stderr)
    rows = [
        {
            "id": f"{package.name}:{i:02d}",
            "query": q,
            "class": "semantic",
            "language": package.language,
            "lang": "en",
            "corpus": package.name,
            "gold": gold,
            "note": "first sentence of the doc comment of " + ", ".join(sorted({g["symbol"] for g in gold})),
        }
        for i, (q, gold) in enumerate(draw(pool, n, seed), 1)
    ]
    (out / f"{package.name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(
        f"{package.name}: {len({c['query'] for c in pool})} candidates, {len(rows)} questions",
        file=sys.stderr,
    )
    return len(rows)


def load_questions(out: Path, packages: list[Package]) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for p in packages
        for line in (out / f"{p.name}.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


# ------------------------------------------------------------------------------------------------- score
def score(out: Path, packages: list[Package], k: int = 10) -> dict[str, Any]:
    scorer = load_scorer()
    results: dict[str, Any] = {}
    for package in packages:
        segment = out / package.name
        shutil.rmtree(segment / ".trifecta", ignore_errors=True)
        qs = load_questions(out, [package])
        print(f"scoring {package.name} ({len(qs)} questions)", file=sys.stderr)
        result = score_segment(segment, qs, scorer, k)
        for row in result["questions"]:
            row["language"] = package.language
        results[package.name] = result
    return results


PATTERN_NAMES = (
    "misses",
    "gold not in the top 10",
    "first hit an `impl` block",
    "first hit a name the question spells",
    "another definition of the gold's name in the top 3",
    "gold's file in the top 3",
    "BM25 ranks it higher",
)
NAMED_IN_QUESTION = re.compile(r"`([^`]+)`|\b([A-Z][a-z]+[A-Z]\w*)")


def miss_patterns(rows: list[dict[str, Any]]) -> dict[str, int]:
    """How Trifecta's misses (gold not first) look: counts of questions, a question may count in several."""
    out: dict[str, int] = defaultdict(int)
    for row in rows:
        if row["trifecta_rank"] == 1:
            continue
        out["misses"] += 1
        out["gold not in the top 10"] += row["trifecta_rank"] is None
        top = [h.split("::", 1) for h in row["trifecta_top3"]]
        gold = [g.split("::", 1) for g in row["gold"]]
        named = {
            (m[1] or m[2]).split("::")[-1].split(".")[-1].strip("()")
            for m in NAMED_IN_QUESTION.finditer(row["query"])
        }
        if top:
            out["first hit an `impl` block"] += top[0][1].startswith("impl ")
            out["first hit a name the question spells"] += bool({top[0][1], *top[0][1].split(".")} & named)
        short = {sym.rsplit(".", 1)[-1].lower() for _, sym in gold}
        out["another definition of the gold's name in the top 3"] += any(
            sym.rsplit(".", 1)[-1].lower() in short and [path, sym] not in gold for path, sym in top
        )
        out["gold's file in the top 3"] += any(path in {p for p, _ in gold} for path, _ in top)
        out["BM25 ranks it higher"] += (
            bool(row["bm25_rank"]) and (row["trifecta_rank"] or 99) > row["bm25_rank"]
        )
    return out


def report(results: dict[str, Any], command: str) -> str:
    head = "| {} | q | Trifecta MRR@10 | Trifecta r@5 | BM25 MRR@10 | BM25 r@5 |\n|---|--:|--:|--:|--:|--:|"
    every = [row for r in results.values() for row in r["questions"]]
    by_language: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in every:
        by_language[row["language"]].append(row)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=BENCH_DIR
    ).stdout.strip()
    out = [
        "# Description questions in Go, Rust, TypeScript and JavaScript (docs removed), Trifecta beside BM25",
        "",
        f"{date.today().isoformat()}, commit {commit}, `{command}`. Symbol level, k = 10; BM25 is"
        " `../shared/eval/score.py`'s baseline from the same run.",
        "",
        head.format("language"),
        *(group_row(name, rows) for name, rows in sorted(by_language.items())),
        group_row("**overall**", every),
        "",
        head.format("package"),
        *(group_row(name, r["questions"]) for name, r in results.items()),
        "",
        "## How the misses look (questions whose gold Trifecta does not rank first)",
        "",
        "| language | " + " | ".join(PATTERN_NAMES) + " |",
        "|---|" + "--:|" * len(PATTERN_NAMES),
        *(
            f"| {name} | " + " | ".join(str(miss_patterns(rows)[k]) for k in PATTERN_NAMES) + " |"
            for name, rows in sorted(by_language.items())
        ),
        "",
        "## Trifecta's misses (gold not first)",
        "",
        "| id | question | gold | Trifecta rank | BM25 rank | Trifecta top 3 |",
        "|---|---|---|--:|--:|---|",
    ]
    for row in every:
        if row["trifecta_rank"] == 1:
            continue
        out.append(
            f"| {row['id']} | {row['query'].replace('|', '/')} | {'<br>'.join(row['gold'])} "
            f"| {row['trifecta_rank'] or '-'} | {row['bm25_rank'] or '-'} | {'<br>'.join(row['trifecta_top3'])} |"
        )
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--cache", type=Path, required=True, help="where the downloaded archives are kept")
    ap.add_argument("--out", type=Path, required=True, help="where the stripped trees and questions go")
    ap.add_argument("--packages", nargs="+", choices=sorted(PACKAGES_BY_NAME), default=list(PACKAGES_BY_NAME))
    ap.add_argument("--n", type=int, default=40, help="questions per package")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--score", action="store_true", help="score each set beside BM25 (../shared/eval/score.py)"
    )
    ap.add_argument("--results", type=Path, default=RESULTS / "description_polyglot.md")
    args = ap.parse_args()
    packages = [PACKAGES_BY_NAME[name] for name in args.packages]
    args.out.mkdir(parents=True, exist_ok=True)
    for package in packages:
        build(package, args.cache, args.out, args.n, args.seed)
    qs = load_questions(args.out, packages)
    if verify_gold(qs, args.out, _verify()):
        return 1
    if args.score:
        results = score(args.out, packages)
        command = "python bench/description_polyglot.py " + " ".join(sys.argv[1:])
        args.results.write_text(report(results, command), encoding="utf-8")
        args.results.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        print(args.results.read_text(encoding="utf-8").split("\n## ")[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
