"""Every language but Python -> symbols and chunks, through tree-sitter and one definitions query a language.

A language is data: a row of `src/data/languages.toml` (its grammar wheel, file endings, comment and attribute
node kinds, how it exports) and a query file `src/data/languages/<name>.scm` in the spirit of tree-sitter's
`tags.scm`. The query marks each definition `@definition.<kind>` (a `SymbolKind`) with its `@name`, and may add
`@owner` (the qualifier a definition carries itself: a Go receiver, `X` of `X.prototype.m = function`),
`@members` and `@trait` (an impl block: its functions are `Type.method`, the block is `impl Trait for Type`),
and `@bases.of` with `@base` (a definition's bases: `extends`, `implements`, embedded structs). When two
patterns capture the same node, the earlier one wins, so specific patterns come before general ones.

Everything else is the same for every language: qualified names come from nesting (a member of a class,
struct, interface, trait or impl is `Container.member`; functions and modules do not qualify what they hold,
as in `../shared/eval/polyglot/verify.py`), a definition's range starts at its first attribute or decorator
and its doc comment is the comments right above it. Chunks follow `python_parser`: one per function or
method not nested in a function, a header per type (its lines minus its members' bodies), one per other
multi-line top-level definition, and module-level windows for the rest.

Parsing is time-boxed (`PARSE_SECONDS`): a file that takes longer, or looks minified, is indexed as text and
counted as a parse error; a file with syntax errors keeps the definitions tree-sitter recovered.
"""

from __future__ import annotations

import bisect
import collections
import functools
import importlib
import re
import time
import tomllib
import warnings
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from importlib import resources

import attrs
import tree_sitter as ts

from ..domain.calls import EdgeKind, EdgeRow, argument_base
from ..domain.code import Chunk, ChunkKind, ParsedFile, Symbol, SymbolKind
from ..domain.ts_parameters import OF_FIRST
from .python_parser import _lines_outside, chunk_id, module_chunks

PARSE_SECONDS = 2.0  # per file: a grammar that runs away on odd input never stalls the index
MINIFIED_LINE = 5_000  # a line this long, or an average line a tenth of it, marks generated or minified code
_SPACES = re.compile(r"\s+")
_GENERICS = re.compile(r"<.*>", re.DOTALL)
_TYPE_PREFIX = re.compile(r"^(?:&\s*(?:'\w+\s+)?(?:mut\s+)?|\*|(?:dyn|impl|mut|const)\s+)+")
_DOC_MARKERS = re.compile(r"^\s*(?:///?!?|/\*\*?|\*/|\*(?!/)|#)?\s?")
_DOC_END = re.compile(r"\s*\*/\s*$")


@attrs.frozen(kw_only=True)
class LanguageSpec:
    key: str  # the table's row name ("tsx")
    name: str  # the language's name in chunks and selectors ("typescript")
    extensions: tuple[str, ...]
    grammar: str
    query: tuple[str, ...]  # query files, read in order (earlier patterns win)
    comments: frozenset[str]
    attributes: frozenset[str]
    wrappers: frozenset[str]
    exported: tuple[str, ...]
    line_comment: tuple[str, ...]
    doc_link: str = ""  # a regular expression: its first group is a name a doc comment links to


@functools.cache
def language_specs() -> tuple[LanguageSpec, ...]:
    table = tomllib.loads(resources.files("trifecta.data").joinpath("languages.toml").read_text("utf-8"))
    return tuple(
        LanguageSpec(
            key=key,
            name=row.get("name", key),
            extensions=tuple(row["extensions"]),
            grammar=row["grammar"],
            query=(row["query"],) if isinstance(row["query"], str) else tuple(row["query"]),
            comments=frozenset(row.get("comments", ())),
            attributes=frozenset(row.get("attributes", ())),
            wrappers=frozenset(row.get("wrappers", ())),
            exported=tuple(row.get("exported", ())),
            line_comment=tuple(row.get("line_comment", ())),
            doc_link=row.get("doc_link", ""),
        )
        for key, row in table.items()
    )


@functools.cache
def _by_extension() -> dict[str, LanguageSpec]:
    return {ext: spec for spec in language_specs() for ext in spec.extensions}


def spec_for(path: str) -> LanguageSpec | None:
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return _by_extension().get(name[dot:].lower()) if dot > 0 else None


def symbol_languages() -> frozenset[str]:
    """The languages whose files have symbols through this parser."""
    return frozenset(spec.name for spec in language_specs())


@functools.cache
def _compiled(key: str) -> tuple[ts.Parser, ts.Query]:
    """The parser and query of one language, loaded on first use (once a process: workers load their own)."""
    spec = next(s for s in language_specs() if s.key == key)
    module, function = spec.grammar.split(":")
    language = ts.Language(getattr(importlib.import_module(module), function)())
    source = _query_source(spec)
    with warnings.catch_warnings():  # tree-sitter 0.25's progress_callback crashes; its time limit works
        warnings.simplefilter("ignore", DeprecationWarning)
        parser = ts.Parser(language, timeout_micros=int(PARSE_SECONDS * 1_000_000))
    return parser, ts.Query(language, source)


def _query_source(spec: LanguageSpec) -> str:
    folder = resources.files("trifecta.data").joinpath("languages")
    return "\n".join(folder.joinpath(name).read_text("utf-8") for name in spec.query)


@functools.cache
def _pattern_kinds(key: str) -> tuple[frozenset[int], frozenset[int], frozenset[int]]:
    """The patterns of a language's query that capture a definition or a class's bases (what `_definitions`
    reads), those that capture a reference (what `_edges` reads: each is given only its own matches), and
    those that capture a call and nothing else (`_edges` takes them first)."""
    spec = next(s for s in language_specs() if s.key == key)
    query, source = _compiled(key)[1], _query_source(spec).encode("utf-8")
    count: int = query.pattern_count  # type: ignore[assignment]  # a property (the stub says a method)
    texts = [  # (a pattern's bytes run on to the next one's: the comments between are left out)
        _QUERY_COMMENT.sub(b"", source[query.start_byte_for_pattern(i) : query.end_byte_for_pattern(i)])
        for i in range(count)
    ]
    return (
        frozenset(i for i, t in enumerate(texts) if b"@definition." in t or b"@bases.of" in t),
        frozenset(i for i, t in enumerate(texts) if b"@reference." in t),
        frozenset(
            i
            for i, t in enumerate(texts)
            if b"@reference.call" in t and {*_CAPTURE.findall(t)} <= _CALL_CAPTURES
        ),
    )


_CAPTURE = re.compile(rb"@([\w.]+)")
_QUERY_COMMENT = re.compile(rb";[^\n]*")  # (no query's string holds a `;`)
_CALL_CAPTURES = frozenset({b"reference.call", b"call.name", b"call.receiver", b"call.function"})


def load_grammars(paths: Iterable[str]) -> None:
    """Load the parser and query of these files' languages now (a process about to fork workers: they
    inherit them instead of each compiling its own, ~60 ms for TypeScript)."""
    for key in {spec.key for spec in map(spec_for, paths) if spec is not None}:
        _compiled(key)


@attrs.define
class _Def:
    node: ts.Node
    kind: SymbolKind
    name: str
    owner: str
    members: str  # what this definition's members are qualified with
    bases: list[str]
    pattern: int
    range_node: ts.Node
    start_line: int = 0
    end_line: int = 0
    qualname: str = ""
    parent: str = ""
    depth: int = 0
    in_function: bool = False
    inner: list[_Def] = attrs.Factory(list)
    params: tuple[str, ...] | None = None  # `_def_params`, once read


def parse_tree_sitter(path: str, text: str, spec: LanguageSpec) -> ParsedFile:
    lines = text.split("\n")
    longest = max(map(len, lines), default=0)
    if longest > MINIFIED_LINE or (
        len(text) > 10 * MINIFIED_LINE and len(text) / len(lines) > MINIFIED_LINE / 10
    ):
        return ParsedFile(
            language=spec.name, error="minified or generated (very long lines): indexed as text"
        )
    parser, query = _compiled(spec.key)
    data = text.encode("utf-8", "replace")
    started = time.monotonic()
    try:
        tree = parser.parse(data)
    except ValueError:  # the parser's time limit ran out
        parser.reset()  # else the next parse would resume this one
        return ParsedFile(language=spec.name, error=f"parse took over {PARSE_SECONDS:g} s: indexed as text")
    source = data
    for _ in range(3 if spec.name == "typescript" else 0):  # an error repaired may uncover the next one
        repaired = _repaired(source, tree.root_node) if tree.root_node.has_error else None
        if repaired is None:
            break
        try:  # the same offsets and lines: only what the grammar cannot read is changed
            tree, source = parser.parse(repaired), repaired
        except ValueError:
            parser.reset()
            break
    matches = ts.QueryCursor(query).matches(tree.root_node)
    error = ""
    if (
        tree.root_node.has_error
    ):  # keep what parsed cleanly; parse each top-level block an error touches alone
        broken = [(c.start_byte, c.end_byte) for c in tree.root_node.children if c.has_error]
        whole = tree.root_node.type == "ERROR"  # the root is no `program`: patterns anchored on it fail
        retry = [b for b in _blocks(source) if whole or any(s < b[1] and b[0] < e for s, e in broken)]
        matches = [m for m in matches if not whole and not _definition_node(m[1]).has_error]
        deadline = started + 2 * PARSE_SECONDS
        for block in retry:
            if time.monotonic() > deadline:  # keep what the blocks so far gave; the rest is text
                break
            matches += _block_matches(parser, query, source, block)
        error = "syntax error: definitions kept where the file parses, block by block"
    if time.monotonic() - started > 2 * PARSE_SECONDS:
        return ParsedFile(language=spec.name, error=f"parse took over {PARSE_SECONDS:g} s: indexed as text")
    definitions, references, calls = _pattern_kinds(spec.key)
    defs = _definitions([m for m in matches if m[0] in definitions], spec)
    parsed = _extract(path, lines, data, defs, spec)
    docs = _doc_links(tree.root_node, data, _doc_link(spec.doc_link), spec.comments) if spec.doc_link else []
    edges = _edges([m for m in matches if m[0] in references], defs, docs, go=spec.name == "go", calls=calls)
    if spec.name == "go":
        edges += _go_method_sets(defs)
    elif spec.name in _BLOCK_SCOPED:
        edges += _scopes(defs)
    parsed = attrs.evolve(parsed, edge_rows=edges)
    return attrs.evolve(parsed, error=error) if error else parsed


# Go: the names a function's `a, b :=` and `for k, v := range` declare (`var` is _DECLARED's), and the
# bare names read as values that are never a function of the project's. A match starts only where a word
# does (`(?<!\w)\d*`) and nothing gives back (possessive): what the plain `([A-Za-z_]\w*)(?=...)` finds, without
# retrying from every letter of every word (that findall was most of a Go file's edge time: cobra 66 -> 9 ms)
_GO_DECLARED = re.compile(rb"(?<!\w)\d*+([A-Za-z_]\w*+)(?=(?:\s*+,\s*+[A-Za-z_]\w*+)*+\s*+:=)")
# what the names before a `:=` are made of (`\w`, `\s` and `,` of a bytes pattern)
_GO_LIST = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ \t\n\r\f\v,"


def _go_declared(body: bytes) -> list[bytes]:
    """What `_GO_DECLARED.findall(body)` finds, looked for only before each `:=` (the run of names, spaces
    and commas before it): the expression starts with a look-behind, which a scan of the whole text tries
    at every byte."""
    out: list[bytes] = []
    at = body.find(b":=")
    while at >= 0:
        window = 64
        while True:  # where the run before `:=` starts (a longer window if it fills this one)
            low = max(0, at - window)
            start = low + len(body[low:at].rstrip(_GO_LIST))
            if start > low or low == 0:
                break
            window *= 4
        if start < at:
            out += _GO_DECLARED.findall(body, start, at + 2)
        at = body.find(b":=", at + 2)
    return out


# the kinds the edge code compares most, bound once: Python 3.11 reads an enum's member from its class
# through a descriptor (~0.15 us; a file of 100 calls compares a few hundred times)
_CALL, _IMPORT, _REFERENCE, _DOC = EdgeKind.CALL, EdgeKind.IMPORT, EdgeKind.REFERENCE, EdgeKind.DOC
_FUNCTION, _METHOD, _INTERFACE = SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.INTERFACE
_GO_NOT_VALUES = frozenset({b"nil", b"true", b"false", b"iota", b"_", b"err", b"ok"})
_GO_BUILTIN_TYPES = frozenset(
    "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 "
    "uint16 uint32 uint64 uintptr any".split()
)


_GO_RANGE = "="  # a Go range's value: "=" and the expression ranged over (`=c.commands`), typed when read


def _go_element(
    expression: str,
    at: int,
    local_types: dict[str, list[tuple[int, int, int, str]]],
    types: dict[tuple[str, str], str],
    scopes: list[str],
) -> str:
    """Go: the type of an element of what ``expression`` (`c.commands`, `cmds`, `c.Commands()`, `f.formal`
    of `f.formal[name]`) holds, as the walk types a slice, array or map: by its element. "" when unknown."""
    expression = _SPACES.sub("", expression)
    while (subscript := _SUBSCRIPT.fullmatch(expression)) is not None:
        expression = subscript.group(1)  # `xs[i]`: an element of xs, which is typed by its element
    held = _variable_type(local_types, types, scopes, expression, at)
    if not held and (field := _FIELD_OF.fullmatch(expression)) is not None:
        owner = _variable_type(local_types, types, scopes, field.group(1), at)
        held = _field_of(owner, field.group(2)) if not owner.startswith(_GO_RANGE) else ""
    held = held or _called(expression)
    return "" if held.startswith(_GO_RANGE) else held


_GO_NAMED = frozenset({"type_identifier", "qualified_type"})
_GO_HOLDERS = {"slice_type": "element", "array_type": "element", "map_type": "value"}


def _go_named(node: ts.Node, generic: bool) -> ts.Node | None:
    """The named type a Go declaration's type gives its receivers' calls: `T` of `T`, `pkg.T`, `*T` (and of
    `G[T]`, `*G[T]` where ``generic``); of a slice, array or map its element's (`[]T`, `[]*T`, `[n]T`,
    `map[K]*T`: what `range` and an index give); of a result list `(T, error)` its first's. None for any
    other type (`func()`, `[][]T`, `chan T`)."""
    kind = node.type  # (a node's type is read anew at each read: once here)
    if kind == "parameter_list":
        first = node.named_children[0] if node.named_children else None
        if first is None or first.type != "parameter_declaration":
            return None
        node = first.child_by_field_name("type")  # type: ignore[assignment]
        if node is None:
            return None
        kind = node.type
    field = _GO_HOLDERS.get(kind)
    if field is not None:
        node = node.child_by_field_name(field)  # type: ignore[assignment]
        if node is not None and node.type == "pointer_type":
            node = node.named_children[0] if node.named_children else None  # type: ignore[assignment]
        return node if node is not None and node.type in _GO_NAMED else None
    if kind == "pointer_type":
        node = node.named_children[0] if node.named_children else None  # type: ignore[assignment]
        if node is None:
            return None
        kind = node.type
    if generic and kind == "generic_type":
        node = node.child_by_field_name("type")  # type: ignore[assignment]
        if node is None:
            return None
        kind = node.type
    return node if kind in _GO_NAMED else None


def _go_method_sets(defs: list[_Def]) -> tuple[EdgeRow, ...]:
    """Go: the methods each interface declares (its method set less its embedded interfaces', which are its
    bases): a RETURN edge of the interface, alias "methods", the names space-separated. A type implements an
    interface whose methods it has (domain.calls.go_implements), which no declaration says."""
    out = []
    for d in defs:
        if d.kind is _INTERFACE:
            names = sorted(
                {
                    m.name
                    for m in defs
                    if m.kind is _METHOD
                    and d.node.start_byte < m.node.start_byte
                    and m.node.end_byte <= d.node.end_byte
                }
            )
            out.append(("return", d.qualname, 0, 0, d.name, " ".join(names), "methods"))
    return tuple(out)


_QUOTES = "\"'`"
# TypeScript the grammar (tree-sitter-typescript 0.23) cannot read: variance annotations (`<in out A, out
# R>`, TypeScript 4.7), and an object type's call signatures on lines of their own with no `;` between them
# when one starts with `<` or `(` (`{ <A>(a: A): (self: B) => C` then `<A>(self: B, a: A): C }`: effect's
# every overloaded function); either drops the definition around it (a class's methods lose their class)
_VARIANCE = re.compile(rb"\b(?:in|out)\s+(?!extends\b)(?=[A-Za-z_$])")
_LINE = re.compile(rb"[^\n]*\n?")
# an escaped backtick (an odd run of backslashes before it): a template literal type holding one ends there
# for the grammar, and every template after it is misread (effect's type MissingSelfGeneric in Schema.ts)
_ESCAPED_BACKTICK = re.compile(rb"(?<!\\)(?:\\\\)*\\`")
_COMMENT_LINE = re.compile(rb"\s*(?://|/\*|\*)")
_KEYWORD_END = re.compile(  # a line ending so goes on with the next (`A extends\n (B)`)
    rb"(?<![\w$.])(?:extends|keyof|typeof|infer|readonly|unique|return|throw|yield|await|new|in|of|as|is|"
    rb"satisfies|case|else|do)$"
)
_IN_TEXT = frozenset({"template_string", "string", "string_fragment", "comment", "regex", "regex_pattern"})


# the languages whose local functions are visible in their block only, and are qualified by their own name
# (a file may define `reducer` in each of its tests' callbacks): their SCOPE rows
_BLOCK_SCOPED = frozenset({"typescript", "javascript"})


def _scopes(defs: list[_Def]) -> tuple[EdgeRow, ...]:
    """A SCOPE row for each function the file defines under a qualified name it defines again, inside a
    block (a function's body, a callback's, an `if`'s): the lines of that block, where a call of the name
    reaches this definition and no other (`call_graph`). A definition at the module's level has none: it is
    visible in the whole file, outside the blocks that define the name again."""
    seen: dict[str, int] = {}
    for d in defs:
        if d.kind is _FUNCTION:
            seen[d.qualname] = seen.get(d.qualname, 0) + 1
    rows: list[EdgeRow] = []
    for d in defs:
        if d.kind is not _FUNCTION or seen[d.qualname] < 2:
            continue
        block = d.node.parent
        while block is not None and block.type != "statement_block":
            block = block.parent
        if block is not None:
            lines = f"{block.start_point.row + 1}-{block.end_point.row + 1}"
            rows.append((EdgeKind.SCOPE.value, d.qualname, d.node.start_point.row + 1, 0, d.name, lines, ""))
    return tuple(rows)


def _repaired(data: bytes, root: ts.Node) -> bytes | None:
    """``data`` with those spelled so the grammar reads them, at the same offsets (a variance keyword
    blanked; in a top-level statement with errors, a `;` in the indentation of a line starting with `<` or
    `(` after a line ending a type, `>`, `)`, `]` or a name, comments between), or None when nothing
    changed."""
    patched = bytearray(data)
    for m in _ESCAPED_BACKTICK.finditer(data):  # `\`` in a template literal type ends it for the grammar
        patched[m.end() - 2 : m.end()] = b"  "
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "type_parameters":
            for m in _VARIANCE.finditer(data, node.start_byte, node.end_byte):
                patched[m.start() : m.end()] = b" " * (m.end() - m.start())
            continue
        stack.extend(c for c in node.children if c.has_error)
    # the runs of statements with errors (the whole file when its root is one: no `program` was recovered)
    runs: list[tuple[int, int]] = []
    previous = None
    for child in [root] if root.type == "ERROR" else root.children:
        if child.has_error:
            if previous is not None and previous.has_error:
                runs[-1] = (runs[-1][0], child.end_byte)
            else:
                runs.append((child.start_byte, child.end_byte))
        previous = child
    for run_start, run_end in runs:
        ends = b""  # the end of the last line that is not blank or a comment
        for m in _LINE.finditer(data, run_start, run_end):
            line = m.group().rstrip()
            if not line.strip() or _COMMENT_LINE.match(line):
                continue
            body = line.lstrip()
            indent = len(line) - len(body)
            at = m.start() + indent - 1
            if (
                body[:1] in (b"<", b"(")
                and indent
                and (ends[-1:].isalnum() or ends[-1:] in b"_$>)]")
                and not ends.endswith(b"=>")
                and _KEYWORD_END.search(ends) is None
                and getattr(root.descendant_for_byte_range(at, at + 1), "type", "") not in _IN_TEXT
            ):
                patched[at] = ord(";")
            ends = line[-12:]
    return bytes(patched) if patched != data else None


@functools.cache
def _doc_link(pattern: str) -> re.Pattern[bytes]:
    return re.compile(pattern.encode("utf-8"))


class _PerKey(dict[str, frozenset[str]]):
    """A function's answers, each worked out when its key is first read (``self[key]``)."""

    def __init__(self, function: Callable[[str], frozenset[str]]) -> None:
        super().__init__()
        self._function = function

    def __missing__(self, key: str) -> frozenset[str]:
        value = self[key] = self._function(key)
        return value


def _edges(
    matches: list[tuple[int, dict[str, list[ts.Node]]]],
    defs: list[_Def],
    docs: Iterable[tuple[int, tuple[EdgeKind, int, int, str, str, str]]] = (),
    go: bool = False,
    calls: frozenset[int] = frozenset(),
) -> tuple[EdgeRow, ...]:
    """Call sites (`@reference.call`), imports (`@reference.import`) and names doc comments link to
    (``docs``: ``_doc_links``), each with its innermost enclosing definition. A
    call's text is its receiver and name as written (`this.load`, `fmt.Println`); an import binds its
    alias, else its name, else the last part of its module (Go's `"x/y/util"` binds `util`); a doc link's
    text is the name as written, `#` and `::` read as `.` (`Subject#next`, `Type::method`)."""
    # (kind, line, column, name, text, alias) of each edge: made a row once its caller is known
    found: dict[tuple[int, int], tuple[int, tuple[EdgeKind, int, int, str, str, str]]] = {}
    typed: dict[int, tuple[str, str]] = {}  # start byte -> (variable or `this.<field>`, its type as written)
    in_method: set[int] = set()  # `this.<field> = ...` in a method: typed for its class
    returns: dict[int, str] = {}  # a function's start byte -> the class its annotation returns
    returns_of: dict[int, str] = {}  # an arrow function's start byte -> the variable that holds it
    # a function's parameter's start byte -> ("i.j", the class its callback argument i gets as parameter j)
    callbacks: dict[int, list[tuple[str, str]]] = {}
    pending: list[tuple[int, dict[str, list[ts.Node]]]] = []  # names read as values
    declared_at: dict[int, ts.Node] = {}  # a typed variable's start byte -> its declaration
    type_aliases: list[tuple[str, str]] = []  # (`AnyMap`, `Map`) of `type AnyMap = Map<any, any>`
    narrowed: set[int] = set()  # the typed variables an `if` narrows in its branch (`_narrowings`)
    for pattern, captures in matches:
        if pattern in calls:  # a pattern of a call's captures only (most matches): `_call_edge`, written out
            whole = captures.get("call.function")
            if whole is not None:  # the callee captured whole (TypeScript's, JavaScript's)
                name_node, on = _callee(whole[0])
                if name_node is None:
                    continue
            elif (name_nodes := captures.get("call.name")) is not None:
                name_node = name_nodes[0]
                receivers = captures.get("call.receiver")
                on = receivers[0] if receivers is not None else None
            else:
                continue
            name = (name_node.text or b"").decode("utf-8", "replace")
            if on is not None and (receiver := (on.text or b"").decode("utf-8", "replace")):
                text = f"{receiver}.{name}"
            else:
                text = name
            node = captures["reference.call"][0]
            key = (node.start_byte, node.end_byte)
            before = found.get(key)
            if before is None or before[0] > pattern:
                row, column = name_node.start_point
                found[key] = (pattern, (_CALL, row + 1, column, name, text, ""))
            continue
        if "value.go" in captures:  # Go's names read as values (a file's most common match): kept below
            pending.append((pattern, captures))
            continue
        if go and "typed.go" in captures:  # Go's declared types: the named type each holds (`_go_named`)
            named = _go_named(captures["typed.go"][0], generic=True)
            type_text = _type_text(named) if named is not None else ""
            if type_text:  # a parameter's, var's or field's (`this.<field>` of its struct)
                node = captures["reference.typed"][0]
                named_by = captures["typed.name"][0] if "typed.name" in captures else None
                variable = (
                    _text(named_by) if named_by is not None else "this." + _text(captures["typed.field"][0])
                )
                typed[node.start_byte] = (variable, type_text)
                declared_at[node.start_byte] = node
            continue
        if go and "returns.go" in captures:  # a Go function's result: its named type, read as the others' are
            named = _go_named(captures.pop("returns.go")[0], generic=False)
            if named is None:
                continue
            captures["returns.type"] = [named]
        if "reference.callback" in captures and "callback.type" in captures:
            param = captures["reference.callback"][0]
            position = f"{_position(param)}.{_position(captures['callback.param'][0])}"
            callbacks.setdefault(param.start_byte, []).append(
                (position, _type_text(captures["callback.type"][0]))
            )
            continue
        if "typed.protocol" in captures:  # `const it = xs[Symbol.iterator]()`: an Iterator
            protocol = _PROTOCOLS.get(b"[Symbol." + (captures["typed.protocol"][0].text or b"") + b"]")
            if protocol:
                node = captures["reference.typed"][0]
                typed[node.start_byte] = (_text(captures["typed.name"][0]), protocol)
                declared_at[node.start_byte] = node
            continue
        if captures.keys() == {"reference.typed", "typed.name"}:  # an untyped arrow function parameter
            node = captures["reference.typed"][0]  # an arrow function's parameter (or its one bare name)
            arrow = node.parent if node.type == "identifier" else node.parent.parent if node.parent else None
            callee = _callee_of(arrow)
            if arrow is not None and callee is not None:
                j = 0 if node.type == "identifier" else _position(node)
                declared_at[node.start_byte] = node
                typed[node.start_byte] = (
                    _text(captures["typed.name"][0]),
                    f"{callee}()#{_position(arrow)}.{j}",
                )
            continue
        if "narrow.block" in captures:  # `if (isMap(x)) {...}`, `if (x instanceof C)`: x's type in the branch
            block = captures["narrow.block"][0]
            for name_node, type_text in _narrowings(captures["narrow.condition"][0]):
                typed[name_node.start_byte] = (_text(name_node), type_text)
                declared_at[name_node.start_byte] = block  # (its range: the branch's)
                narrowed.add(name_node.start_byte)
            continue
        if "typed.held" in captures:  # `const dep = observing[i]`, `const list = state.pending`
            node = captures["reference.typed"][0]
            held = _held(captures["typed.held"][0])
            if held and node.start_byte not in typed:  # (an annotation, matched first, over the value)
                typed[node.start_byte] = (_text(captures["typed.name"][0]), held)
                declared_at[node.start_byte] = node
            continue
        if "typed.range" in captures and "typed.name" in captures:  # Go: `for _, sub := range c.commands`
            node = captures["reference.typed"][0]
            typed[node.start_byte] = (
                _text(captures["typed.name"][0]),
                _GO_RANGE + _SPACES.sub("", _text(captures["typed.range"][0])),
            )
            declared_at[node.start_byte] = node
            continue
        if "typed.from" in captures and "typed.name" in captures:
            # `const {copy_} = state`: the field `copy_` of what `state` holds (`{state}.copy_`), read where
            # a call uses it; of `this`, the class's field (`this.copy_`)
            destructured = captures["typed.name"][0]
            taken_from = _text(captures["typed.from"][0])
            field_name = _text((captures.get("typed.key") or [destructured])[0])
            typed[destructured.start_byte] = (
                _text(destructured),
                f"this.{field_name}" if taken_from == "this" else f"{{{taken_from}}}.{field_name}",
            )
            declared_at[destructured.start_byte] = captures["reference.typed"][0]
            continue
        if (
            "typed.right" in captures
        ):  # `this.<field> = new Foo()`, `= f()` (TypeScript's): its shape read here
            captures = _this_assigned(captures)
            if not captures:
                continue
        if "reference.typed" in captures and (
            "typed.type" in captures or "typed.call" in captures or "typed.of" in captures
        ):
            if "typed.name" in captures:
                variable = _text(captures["typed.name"][0])
            elif "typed.field" in captures or "typed.this" in captures:
                variable = "this." + _text((captures.get("typed.field") or captures["typed.this"])[0])
            else:
                continue
            start = captures["reference.typed"][0].start_byte
            if "typed.type" in captures:
                type_text = _type_text(captures["typed.type"][0])
                if not type_text:
                    continue
                if not go and _in_union(captures["typed.type"][0]):  # `thing: AnyMap | AnyObject`: its first
                    # few types (Go has no union type)
                    members = [t for n in _union_nodes(captures["typed.type"][0]) if (t := _type_text(n))]
                    if not any(t.endswith("[]") for t in members):  # (an array's stays one: its elements)
                        type_text = "|".join(dict.fromkeys(members))
                if start not in typed or not typed[start][1].startswith(f"{type_text}|"):
                    # (`m: Map<K, V> = new Map()`: the annotation's `Map|V[]` over the value's `Map`)
                    typed[start] = (variable, type_text)
            elif "typed.of" in captures:  # `for (const q of queries)`: read as `queries.forEach((q) => ...)`
                typed[start] = (
                    variable,
                    re.sub(r"\s+", "", _text(captures["typed.of"][0])) + ".forEach()#0.0",
                )
            elif start in typed and not _inferred(typed[start][1]):
                continue  # `const v: A | B = make()`: the annotation, matched first, over the call's value
            else:  # what the call returns, looked up when asked (domain.calls)
                typed[start] = (variable, _SPACES.sub("", _text(captures["typed.call"][0])) + "()")
            declared_at[start] = captures["reference.typed"][0]
            if "typed.this" in captures:
                in_method.add(start)
            continue
        if "reference.alias" in captures:
            if "alias.union" in captures:
                type_aliases.extend(
                    (_text(captures["alias.name"][0]), _text(n))
                    for n in _union_nodes(captures["alias.union"][0], MAX_ALIAS_UNION)
                )
            elif "alias.type" in captures:
                type_aliases.append((_text(captures["alias.name"][0]), _text(captures["alias.type"][0])))
            continue
        if "reference.value" in captures:  # kept once the file's names are known (most are variables)
            pending.append((pattern, captures))
            continue
        if "reference.key" in captures:  # an object literal's key: its type's member, when a type types it
            named = captures["reference.key"][0]
            in_literal = named if named.type == "shorthand_property_identifier" else named.parent
            typed_by = _literal_type(in_literal) if in_literal is not None else None
            holds = _literal_holder(typed_by) if typed_by is not None else None
            if holds is not None:
                keyed = {"reference.value": [named], "value.receiver": [holds], "value.name": [named]}
                keyed["value.key"] = []  # (its own place in `found`: `_values`)
                pending.append((pattern, keyed))
            continue
        if "reference.member" in captures:  # `this.m`, `X.m` read as a value (TypeScript's, JavaScript's)
            shaped = _member(captures["reference.member"][0])
            if shaped is not None:
                pending.append((pattern, shaped))
            continue
        if "reference.returns" in captures and "returns.type" in captures:
            returned = _type_text(captures["returns.type"][0])
            if returned:
                returns[captures["reference.returns"][0].start_byte] = returned
                if "returns.name" in captures:
                    returns_of[captures["reference.returns"][0].start_byte] = _text(
                        captures["returns.name"][0]
                    )
            continue
        if "reference.call" in captures and "call.name" in captures:
            node, edge = _call_edge(captures)
        elif "reference.import" in captures and "import.source" in captures:
            node = captures["reference.import"][0]
            source = _text(captures["import.source"][0]).strip(_QUOTES)
            member = _text(captures["import.name"][0]) if "import.name" in captures else ""
            alias = _text(captures["import.alias"][0]) if "import.alias" in captures else ""
            last = source.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].split(".", 1)[0]
            point = node.start_point
            bound = "" if member == "*" else alias or member or last  # `export * from`: no one name
            edge = (_IMPORT, point.row + 1, point.column, member, source, bound)
        else:
            continue
        if edge[0] is _CALL:
            key = (node.start_byte, node.end_byte)
        else:  # one match a specifier: `import {a, b as c}` is two imports
            key = (
                node.start_byte,
                (captures.get("import.name") or captures.get("import.alias") or [node])[0].start_byte,
            )
        if key not in found or found[key][0] > pattern:
            found[key] = (pattern, edge)
    # the scopes around a definition, innermost first: a function nested in another (`const f = () => ...`,
    # `socket.onopen = () => ...` in a method) is qualified by its own name only, so its outer ones are the
    # definitions around it in the text (a method's class; a Go method's receiver type by its name)
    parents: dict[str, str] = {}
    around_def: list[_Def] = []
    for d in defs:  # in source order, outer first
        while around_def and d.node.start_byte >= around_def[-1].node.end_byte:
            around_def.pop()
        parents.setdefault(d.qualname, around_def[-1].qualname if around_def else "")
        around_def.append(d)
    classes = {d.qualname for d in defs if d.kind.is_container}
    chains: dict[str, list[str]] = {}

    def chain(start: str) -> list[str]:
        if start not in chains:
            around = chains[start] = []
            scope = start
            while scope and scope not in around and len(around) < 32:
                around.append(scope)
                scope = parents.get(scope) or scope.rpartition(".")[0]
            around.append("")
        return chains[start]

    by_qualname = {d.qualname: d for d in reversed(defs)}
    params: dict[str, tuple[str, ...]] = {}
    def_spans: list[tuple[int, int, str, str]] = []  # (start, end, node type, name) of each definition

    def taken_around(caller: str) -> frozenset[str]:
        """The parameters and variables the definitions around the caller take or declare (`const cron = ...`
        in a callback of the function `cron`'s module): a name among them is no function read as a value."""
        return frozenset(n for scope in chain(caller) for n in taken_in(scope))

    taken = _PerKey(taken_around)  # gathered once per caller: a file tries most of its names read as values

    def taken_in(scope: str) -> tuple[str, ...]:
        """The parameters and variables a definition takes (none for a scope that is no definition)."""
        if scope not in by_qualname:
            return ()
        if scope not in params:
            node = by_qualname[scope].node
            body = node.text or b""
            declared = (  # (each keyword looked for first: most Go functions have none)
                {d.decode() for d in _DECLARED.findall(body)}
                if b"var" in body or b"let" in body or b"const" in body
                else set()
            )
            if declared:  # `const f = () => ...` inside it declares the function itself
                if not def_spans:  # (read once a file, when first asked)
                    def_spans.extend(_def_spans(defs))
                declared -= _defined_inside(def_spans, node.start_byte, node.end_byte)
            if b":=" in body:  # Go's `a, b :=` (most languages' functions have none: no scan)
                declared |= {d.decode() for d in _go_declared(body)}
            params[scope] = (*_def_params(by_qualname[scope]), *declared)
        return params[scope]

    if pending:
        _values(pending, found, defs, typed, taken)
    for start, link in docs:
        found.setdefault((start, start), (-1, link))
    ordered = sorted(found.items())
    scopes = _enclosing(
        [start for (start, _), _ in ordered] + sorted(typed) + sorted(returns) + sorted(callbacks), defs
    )
    types: dict[tuple[str, str], str] = {}
    typed_scopes = scopes[len(ordered) : len(ordered) + len(typed)]
    narrowed_in: list[tuple[int, str]] = []
    for start, scope in zip(sorted(typed), typed_scopes, strict=True):
        variable, type_text = typed[start]
        if start in narrowed:  # only in its branch: never the scope's type
            narrowed_in.append((start, scope))
            continue
        if (
            type_text == "this" or (type_text.startswith("this.") and _THIS_CALL.fullmatch(type_text))
        ) and not variable.startswith("this."):
            # `const self = this`, `const keys = this.keys()` in a method, read in an object literal's method
            # there (where `this` is the literal): the method's class, `ObservableMap.keys()`
            owner = next((c for c in chain(scope)[1:] if c in classes and "." not in c), "")
            if not owner:
                continue
            type_text = owner + type_text.removeprefix("this")
            typed[start] = (variable, type_text)
        if start in in_method or scope.rsplit(".", 1)[-1] == variable.removeprefix("this."):
            # the class, or the definition's scope
            scope = (
                next((c for c in chain(scope)[1:] if c in classes), "")
                if start in in_method
                else parents.get(scope, "")
            )
        known = types.get((scope, variable))
        if known is None or (
            (not _inferred(type_text) or _inferred(known)) and not known.startswith(f"{type_text}|")
        ):
            # the last one, but a declared type over a call's value, and a declared `Map|V[]` over `new Map()`
            types[(scope, variable)] = type_text
    for start, scope in narrowed_in:
        variable, type_text = typed[start]
        declared = _receiver_type(types, chain(scope), variable) if _inferred(type_text) else ""
        if declared and declared != type_text:
            # `if (isStale(query))` with `query: Query`: a call that may be no type predicate (its RETURN
            # edges say, when asked) keeps the declared type too
            typed[start] = (variable, f"{type_text}|{declared}")
    local_types = _local_types(typed, declared_at, narrowed)
    # the names the file's imports bind (a field of an imported variable is typed when asked: domain.calls)
    imported = frozenset(edge[5] for _, edge in found.values() if edge[0] is _IMPORT and edge[5])
    typed_names = {variable for _, variable in types}  # (every scope's: `_untyped` is so anywhere)
    out: list[EdgeRow] = []  # the rows as stored (no Edge objects: a worker sends rows, ParsedFile.edge_rows)
    resolved: dict[tuple[str, str], str] = {}  # (receiver, caller) -> its type, where worked out alike
    # (receiver, caller) -> (low, high, its type) where one local declaration typed it: alike from low to high
    spans: dict[tuple[str, str], tuple[int, int, str]] = {}
    untyped: dict[str, bool] = {}  # a receiver -> `_untyped`
    for ((start, _), (_, (kind, line, column, name, text, alias))), caller in zip(
        ordered, scopes[: len(ordered)], strict=True
    ):
        if kind is _REFERENCE and text == name and name in taken[caller]:
            continue  # a parameter that takes the name
        if kind is not _IMPORT and kind is not _DOC and "." in text:
            receiver = text[: text.rindex(".")]
            bare = untyped.get(receiver)
            if bare is None:  # (the same for each read of the receiver in the file)
                bare = untyped[receiver] = _untyped(receiver, local_types, typed_names)
            if bare:  # (a package's name: `fmt.Println`)
                out.append((_ROW_KIND[kind], caller, line, column, name, text, ""))
                continue
            known = resolved.get((receiver, caller))
            if known is not None:  # the same receiver read again in its caller
                out.append((_ROW_KIND[kind], caller, line, column, name, text, known))
                continue
            span = spans.get((receiver, caller))
            if span is not None and span[0] <= start < span[1]:  # typed by the same declaration as before
                out.append((_ROW_KIND[kind], caller, line, column, name, text, span[2]))
                continue
            local_found = local_types.found
            around = chain(caller)
            made = _local_type(local_types, receiver, start) if local_types else ""
            by_local = local_types.found - local_found == 1 and made  # (one declaration's type)
            made = made or (_receiver_type(types, around, receiver) if types else "") or _called(receiver)
            if (
                made
                and "()" not in made
                and made[0] not in "{="
                and "[" not in receiver
                and receiver[-1] != ")"
            ):
                alias = made  # a type as declared, of a plain receiver: what each step below leaves it
            else:
                if (part := _DESTRUCTURED.fullmatch(made)) is not None:  # `{state}.copy_`: a field of
                    holder = _variable_type(local_types, types, around, part.group(1), start)
                    if not holder and part.group(1) in imported:  # a module-level variable of another
                        holder = part.group(1)  # file: its class looked up when asked (domain.calls)
                    made = _field_of(holder, part.group(2))
                made = (
                    _element_of(made, receiver, local_types, types, around, start, go=go, imported=imported)
                    or made
                )
                if go and (made.startswith(_GO_RANGE) or (not made and receiver.endswith("]"))):
                    made = _go_element(
                        made.removeprefix(_GO_RANGE) or receiver, start, local_types, types, around
                    )
                if not made and (field := _FIELD_OF.fullmatch(_SPACES.sub("", receiver))) is not None:
                    # `state.copy_.set()`, `state: MapState`: the field's type in MapState (`MapState:copy_`)
                    held = _variable_type(local_types, types, around, field.group(1), start)
                    if _ITERATED.fullmatch(held):  # `prev.type` of `prev = this.children[i]`: an element's
                        held = _element_of(
                            held, field.group(1), local_types, types, around, start, go=go, imported=imported
                        )
                    made = _field_of(held, field.group(2))
                if not made and (fields := _FIELDS_OF.fullmatch(_SPACES.sub("", receiver))) is not None:
                    # `this.view.docView.nearestDesc()`, `view.domObserver.selection.eq()`: each field read
                    # from the one before (`this.view:docView`, `EditorView:domObserver:selection`)
                    head, first, *rest = _FIELD_STEP.split(fields.group(0).rstrip("!?"))
                    if head == "this":
                        held = _receiver_type(types, around, f"this.{first}") if types else ""
                        made = held if held and not _NOT_HELD.search(held) else f"this.{first}"
                    else:
                        held = _variable_type(local_types, types, around, head, start)
                        made = _field_of(held or (head if head in imported else ""), first)
                    made = "|".join(f"{one}:{':'.join(rest)}" for one in made.split("|")) if made else ""
                if not made and (indexed := _INDEXED_FIELDS.fullmatch(_SPACES.sub("", receiver))) is not None:
                    # `local[i].type.valid()`: a field (and deeper) of an element of an array the walk types
                    element = _element_of(
                        "", indexed.group(1), local_types, types, around, start, go=go, imported=imported
                    )
                    steps = ":".join(_FIELD_STEP.split(indexed.group(2).rstrip("!?"))[1:])
                    made = "|".join(f"{one}:{steps}" for one in element.split("|")) if element else ""
                if not made and (cast := _CAST.fullmatch(receiver)) is not None:
                    made = cast.group(1)  # `(desc as NodeViewDesc).selectNode()`: the type it is cast to
                if not made and receiver == "this" and not _in_class(caller, classes):
                    # `this` in a function nested in a method (an arrow function: `this` is the method's)
                    made = next((c for c in around[1:] if c in classes and "." not in c), "")
                alias = _concrete(types, around, made) if made else ""
                if not go and alias.endswith(_ITERATOR_CALLS):  # `map.keys()`: a built-in iterator
                    alias = _built_in_iterator(alias, local_types, types, around, start) or alias
            if local_types.found == local_found:  # no local declaration took part: the same anywhere
                resolved[receiver, caller] = alias
            elif by_local and local_types.found - local_found == 1:  # only the receiver's own declaration
                window = _alone(local_types, receiver, start)
                if window is not None:
                    spans[receiver, caller] = (*window, alias)
        out.append((_ROW_KIND[kind], caller, line, column, name, text, alias))
    calls_end = len(out)  # the RETURN rows follow
    at = len(ordered) + len(typed)
    for start, function in zip(sorted(returns), scopes[at : at + len(returns)], strict=True):
        short = function.rsplit(".", 1)[-1]
        # the annotated function itself: `_enclosing` counts a definition as around its start (an arrow
        # function's, the variable holding it)
        if function and returns_of.get(start, short) == short:
            # (a set's type is two: `Set|Query[]`, one edge each)
            out.extend(("return", function, 0, 0, short, one, "") for one in returns[start].split("|"))
    for start, function in zip(sorted(callbacks), scopes[at + len(returns) :], strict=True):
        if function:  # a RETURN edge whose alias is where: what the function hands its callback argument
            short = function.rsplit(".", 1)[-1]
            out.extend(("return", function, 0, 0, short, t, where) for where, t in callbacks[start])
    # what a module-level variable holds, for the files that import it (`export const onlineManager = new
    # OnlineManager()`, `onlineManager.setOnline()` elsewhere): RETURN edges of the variable, alias "var"
    out.extend(
        ("return", variable, 0, 0, variable, one, "var")
        for start, (variable, t) in typed.items()
        if types.get(("", variable)) == t and _module_level(declared_at[start]) and not t.startswith("{")
        for one in t.split("|")  # a union's types (`A | B`), one edge each
    )
    # a module's type aliases (`type AnyMap = Map<any, any>`), as Python's `Base = _Base`: alias "alias"
    out.extend(("return", name, 0, 0, name, t, "alias") for name, t in type_aliases)
    # what a class's fields hold, for the methods of the classes that inherit them (`this.source.subscribe()`
    # where `source` is declared in a base class): RETURN edges of `Class.field`, alias "field"
    out.extend(
        ("return", f"{scope}.{field}", 0, 0, field, one, "field")
        for (scope, variable), t in types.items()
        if scope in classes and variable.startswith("this.") and "()#" not in t
        for field in (variable.removeprefix("this."),)
        for one in t.split("|")  # a union's types (`A | B`), one edge each
    )
    if go:  # a built-in type has no members to reach: its RETURN edges would only cost (the RETURN rows only)
        out[calls_end:] = [row for row in out[calls_end:] if row[5] not in _GO_BUILTIN_TYPES]
    return tuple(out)


_ROW_KIND = {kind: kind.value for kind in EdgeKind}  # an edge's kind as its row has it


def _callee(function: ts.Node) -> tuple[ts.Node | None, ts.Node | None]:
    """The name and receiver of a call whose callee is captured whole (``@call.function``), as a pattern
    that spells out its shape would capture them (``@call.name``, ``@call.receiver``): the name of a name
    (`f()`), the object and property of a member (`x.m()`, `this.#m()`), neither of any other callee
    (`f()()`, `xs[0]()`). A pattern with the member's fields compiles ~3x slower (the TypeScript query,
    once in each index process)."""
    kind = function.type
    if kind == "identifier":
        return function, None
    if kind == "member_expression":
        held, name = function.child_by_field_name("object"), function.child_by_field_name("property")
        if held is not None and name is not None and held.is_named and name.is_named:
            return name, held
    return None, None


def _this_assigned(captures: dict[str, list[ts.Node]]) -> dict[str, list[ts.Node]]:
    """The captures of `this.<field> = new Foo()` or `= f()` (an assignment's sides captured whole,
    ``@typed.left`` and ``@typed.right``) as the patterns that spelled out their shapes gave them:
    ``@typed.this`` the field, ``@typed.type`` the class made, ``@typed.call`` the callee (a name or a member);
    none for any other assignment (`a.b = f()`, `this.x = f()()`)."""
    left, right = captures["typed.left"][0], captures["typed.right"][0]
    held, field = left.child_by_field_name("object"), left.child_by_field_name("property")
    if held is None or held.type != "this" or field is None:
        return {}
    if field.type not in ("property_identifier", "private_property_identifier"):
        return {}
    made = right.type == "new_expression"
    callee = right.child_by_field_name("constructor" if made else "function")
    if callee is None or callee.type not in ("identifier", "member_expression"):
        return {}
    return {
        "reference.typed": captures["reference.typed"],
        "typed.this": [field],
        "typed.type" if made else "typed.call": [callee],
    }


def _member(member: ts.Node) -> dict[str, list[ts.Node]] | None:
    """The captures of `this.m` or `X.m` read as a value (``@reference.member``), as the pattern that
    spelled out its shape gave them (``@reference.value``, ``@value.receiver``, ``@value.name``); None for
    any other member (`a.b.c`, `f().m`, `super.m`: none would be kept)."""
    held, name = member.child_by_field_name("object"), member.child_by_field_name("property")
    if (
        held is None
        or name is None
        or held.type not in ("this", "identifier")
        or name.type != "property_identifier"
    ):
        return None
    return {"reference.value": [member], "value.receiver": [held], "value.name": [name]}


def _call_edge(
    captures: dict[str, list[ts.Node]],
) -> tuple[ts.Node, tuple[EdgeKind, int, int, str, str, str]]:
    """A call's node and edge (kind, line, column, name, text, alias): its text is its receiver and name as
    written (`this.load`, `fmt.Println`)."""
    name_node = captures["call.name"][0]
    name = _text(name_node)
    receiver = _text(captures["call.receiver"][0]) if "call.receiver" in captures else ""
    point = name_node.start_point
    text = f"{receiver}.{name}" if receiver else name
    return captures["reference.call"][0], (_CALL, point.row + 1, point.column, name, text, "")


# a variable a definition declares (`\b(?:const|let|var)\s+...`, each word first: a pattern that starts with
# a look-behind is tried at every byte of the text)
_DECLARED = re.compile(rb"(?:const(?<!\wconst)|let(?<!\wlet)|var(?<!\wvar))\s+([A-Za-z_$][\w$]*)")


def _values(
    pending: list[tuple[int, dict[str, list[ts.Node]]]],
    found: dict[tuple[int, int], tuple[int, tuple[EdgeKind, int, int, str, str, str]]],
    defs: list[_Def],
    typed: dict[int, tuple[str, str]],
    taken: Mapping[str, AbstractSet[str]] | None = None,
) -> None:
    """The names read as values that may be functions, into ``found``: a bare name the file defines as a
    function or an import binds; ``this.m`` for a method the file defines; ``X.m`` for ``X`` an import, a
    class of the file or a typed variable (anything else cannot resolve ``exact`` or through an import).
    Go's bare names that ``taken`` (a caller -> the parameters and variables around it) holds for their
    caller are left out here, before their point and text are read (most of them: locals passed on), as
    `_edges` would leave them out later."""
    functions: set[str] = set()
    methods: set[str] = set()
    holders: set[str] = set()
    for d in defs:  # (one pass)
        if d.kind is _FUNCTION:
            functions.add(d.name)
        elif d.kind is _METHOD:
            methods.add(d.name)
            # a value whose members the file defines: `traps.get` of `const traps = { get() {...} }`
            holders.add(d.qualname.rpartition(".")[0])
        elif d.kind.is_container:
            holders.add(d.name)
    imported = {edge[5] for _, edge in found.values() if edge[0] is _IMPORT}
    functions |= imported
    holders |= imported
    holders.update(variable for variable, _ in typed.values())
    # compared as the source's bytes: most names read as values are variables, dropped without decoding
    functions_b, methods_b = {n.encode() for n in functions}, {n.encode() for n in methods}
    holders_b = {n.encode() for n in holders}
    bare: list[tuple[int, ts.Node, bytes | None, int]] = []  # Go's bare names: kept below
    for pattern, captures in pending:
        node = captures["reference.value"][0]
        # Go's bare names (most of them, a pattern of these two captures): kept unless `nil`, `err`, ...
        if "value.go" in captures and len(captures) == 2:
            word = node.text
            if word in _GO_NOT_VALUES and word not in functions_b:
                continue
            bare.append((node.start_byte, node, word, pattern))
            continue
        name_node = captures["value.name"][0] if "value.name" in captures else node
        if "value.receiver" in captures:
            receiver = captures["value.receiver"][0].text
            if not (name_node.text in methods_b if receiver == b"this" else receiver in holders_b):
                continue
            name = _text(name_node)
            text = f"{receiver.decode() if receiver else ''}.{name}"
        elif name_node.text in functions_b or (
            "value.go" in captures and name_node.text not in _GO_NOT_VALUES
        ):
            name = text = _text(name_node)
        else:
            continue
        point = name_node.start_point
        found.setdefault(
            # a key's own place: a shorthand property (`{ reset }`) reads the local `reset` too
            (node.start_byte, node.start_byte if "value.key" in captures else node.end_byte),
            (pattern, (_REFERENCE, point.row + 1, point.column, name, text, "")),
        )
    # (their callers by one sweep; a name's node is no other match's: none is kept in its place)
    callers = _enclosing([b[0] for b in bare], defs) if bare and taken is not None else []
    for i, (start, node, word, pattern) in enumerate(bare):
        name = word.decode("utf-8", "replace") if word is not None else ""
        if taken is not None and name in taken[callers[i]]:
            continue  # a parameter or variable of that name around (what `_edges` leaves out)
        point = node.start_point
        found.setdefault(
            (start, node.end_byte),
            (pattern, (_REFERENCE, point.row + 1, point.column, name, name, "")),
        )


_THIS_CALL = re.compile(r"this\.[\w$]+\(\)")  # `this.keys()`: what a method of the class returns


_ITERATOR_CALLS = (".keys()", ".values()", ".entries()")
# what the built-in collections' `keys()`, `values()` and `entries()` return (typescript 5.6's names: each
# an Iterator, `domain.calls._BUILT_IN_SUPERS`)
_BUILT_IN_ITERATORS = {"Map": "MapIterator", "ReadonlyMap": "MapIterator", "Set": "SetIterator",
                       "ReadonlySet": "SetIterator"}  # fmt: skip


def _built_in_iterator(
    made: str,
    local_types: dict[str, list[tuple[int, int, int, str]]],
    types: dict[tuple[str, str], str],
    scopes: list[str],
    at: int,
) -> str:
    """`MapIterator` of `m.keys()` (`.values()`, `.entries()`) where `m` is a built-in `Map` (`m: Map<K, V>`,
    `new Map()`, a field `this.data_` declared so; `Map|V[].keys()` as `_concrete` wrote it), `SetIterator`
    of a set's, `ArrayIterator` of an array's; "" for anything else (a class of the project's: its own)."""
    of = made[: made.rindex(".")]
    held = (
        of
        if of.split("|", 1)[0] in _BUILT_IN_ITERATORS
        else (_local_type(local_types, of, at) if local_types else "")
        or (_receiver_type(types, scopes, of) if types else "")
    )
    first = held.split("|", 1)[0]
    if first in _BUILT_IN_ITERATORS:
        return _BUILT_IN_ITERATORS[first]
    return "ArrayIterator" if held.endswith("[]") and "|" not in held and "(" not in held else ""


_NOTHING = re.compile(rb"null|undefined|void\s+0")  # a branch of a ternary that holds no value


def _held(value: ts.Node) -> str:
    """What a variable holds when its value is another's member or element, as the walk records it: the
    field `{state}.pending` of `state.pending` (read as `const {pending} = state` is), `this.pending`, an
    element `observing.forEach()#0.0` of `observing[i]` (read as `for (const dep of observing)` is); through
    parentheses, `!` and an assignment's value (`(d.a = d.b!)`); a ternary's one branch that holds a value
    (`i ? xs[i - 1] : null`). "" for anything else."""
    while value.type in ("parenthesized_expression", "non_null_expression", "assignment_expression"):
        inner = (
            value.child_by_field_name("right")
            if value.type == "assignment_expression"
            else value.named_children[0]
            if value.named_child_count == 1
            else None
        )
        if inner is None:
            return ""
        value = inner
    if value.type == "this":  # `const self = this`
        return "this"
    if value.type == "ternary_expression":  # `i ? this.children[i - 1] : null`: the branch that holds one
        branches = [value.child_by_field_name("consequence"), value.child_by_field_name("alternative")]
        held_by = {
            _held(b) if b.type != "ternary_expression" else ""
            for b in branches
            if b is not None and not _NOTHING.fullmatch(b.text or b"")
        }
        return held_by.pop() if len(held_by) == 1 else ""
    held = value.child_by_field_name("object")
    if held is None or held.type not in ("identifier", "this", "member_expression"):
        return ""
    if value.type == "subscript_expression":
        return _SPACES.sub("", _text(held)).replace("?.", ".") + ".forEach()#0.0"
    field = value.child_by_field_name("property")
    if value.type != "member_expression" or field is None or held.type == "member_expression":
        return ""
    if field.type not in ("property_identifier", "private_property_identifier"):
        return ""
    return f"this.{_text(field)}" if held.type == "this" else f"{{{_text(held)}}}.{_text(field)}"


def _narrowings(condition: ts.Node) -> list[tuple[ts.Node, str]]:
    """The variables an `if`'s condition narrows in its branch, each with its type there: `isMap()` (what
    the type predicate `isMap` narrows to: its RETURN edge, looked up when asked) of `isMap(x)`, `C` of `x
    instanceof C`; both sides of `&&`; `isA()|isB()` of `isA(x) || isB(x)` (one variable on both sides).
    None of a negation or anything else."""
    while condition.type == "parenthesized_expression" and condition.named_child_count == 1:
        condition = condition.named_children[0]
    if condition.type == "call_expression":
        callee = condition.child_by_field_name("function")
        arguments = condition.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        if (
            callee is not None
            and callee.type in ("identifier", "member_expression")
            and first is not None
            and first.type == "identifier"
        ):
            return [(first, _SPACES.sub("", _text(callee)) + "()")]
        return []
    if condition.type != "binary_expression":
        return []
    operator = condition.child_by_field_name("operator")
    left, right = condition.child_by_field_name("left"), condition.child_by_field_name("right")
    if operator is None or left is None or right is None:
        return []
    if operator.type == "instanceof":
        if left.type == "identifier" and right.type in ("identifier", "member_expression"):
            return [(left, _SPACES.sub("", _text(right)))]
        return []
    if operator.type == "&&":
        return _narrowings(left) + _narrowings(right)
    if operator.type == "||":
        either, other = _narrowings(left), _narrowings(right)
        names = {_text(v) for v, _ in either + other}
        if either and other and len(names) == 1:
            return [(either[0][0], "|".join(dict.fromkeys(t for _, t in either + other)))]
    return []


def _in_class(qualname: str, classes: set[str]) -> bool:
    """Whether a definition's qualified name is a member's of a class (what ``this.m()`` reads)."""
    parts = qualname.split(".")
    return any(".".join(parts[:end]) in classes for end in range(1, len(parts)))


def _doc_links(
    root: ts.Node, data: bytes, doc_link: re.Pattern[bytes], comments: frozenset[str]
) -> list[tuple[int, tuple[EdgeKind, int, int, str, str, str]]]:
    """(start byte, edge) of each name a doc comment links to (``doc_link``'s first group), found in the
    file's text and kept where a comment holds it: one pass of the expression, none per comment."""
    out = []
    for match in doc_link.finditer(data):
        node: ts.Node | None = root.descendant_for_byte_range(match.start(1), match.start(1))
        for _ in range(3):  # the comment, or what it holds (Rust's doc_comment in a line_comment)
            if node is None or node.type in comments:
                break
            node = node.parent
        if node is None or node.type not in comments:
            continue  # a string, code
        written = re.sub(r"::|#", ".", match.group(1).decode("utf-8", "replace"))
        name = written.rsplit(".", 1)[-1]
        start = match.end(1) - len(name.encode("utf-8"))  # the edge's column is its name's
        line_start = data.rfind(b"\n", 0, start) + 1
        edge = (_DOC, data.count(b"\n", 0, start) + 1, start - line_start, name, written, "")
        out.append((start, edge))
    return out


def _inferred(type_text: str) -> bool:
    """Whether a variable's type is what a call returns (``f()``) or hands a callback (``f()#0.1``), looked
    up when asked, rather than a type the code declares."""
    return type_text.endswith("()") or "()#" in type_text


def _callee_of(argument: ts.Node | None) -> str | None:
    """The callee as written (`operate`, `this.make`, `Observable`) of the call or `new` an argument is
    passed to; None when it is no argument, or the callee is no name or member."""
    arguments = argument.parent if argument is not None else None
    call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
    callee = (
        call.child_by_field_name("function" if call.type == "call_expression" else "constructor")
        if call is not None and call.type in ("call_expression", "new_expression")
        else None
    )
    if callee is None or callee.type not in ("identifier", "member_expression"):
        return None
    return re.sub(r"\s+", "", _text(callee))


def _position(node: ts.Node) -> int:
    """A parameter's or argument's index among its siblings: comments and TypeScript's `this:` parameter
    (erased: not an argument) left out."""
    parent = node.parent
    if parent is None:
        return 0
    index = 0
    for sibling in parent.named_children:
        if sibling == node:
            return index
        pattern = sibling.child_by_field_name("pattern")
        if "comment" not in sibling.type and (pattern is None or pattern.type != "this"):
            index += 1
    return index


def _enclosing(starts: list[int], defs: list[_Def]) -> list[str]:
    """The qualified name of the innermost definition around each position (``starts`` sorted in runs: each
    run is swept on its own), "" at the top level."""
    spans = [(d.node.start_byte, d.node.end_byte, d.qualname) for d in defs]  # (a node's bytes: read once)
    after = 1 << 63  # past every start
    out: list[str] = []
    stack: list[tuple[int, str]] = []  # (end, qualified name) of the definitions around
    i = 0
    following = spans[0][0] if spans else after  # the start of the next definition not swept yet
    last = -1
    for start in starts:
        if start < last:  # a new sorted run
            stack, i = [], 0
            following = spans[0][0] if spans else after
        last = start
        while following <= start:  # a sweep: both in source order
            low, high, name = spans[i]
            while stack and stack[-1][0] <= low:
                stack.pop()
            stack.append((high, name))
            i += 1
            following = spans[i][0] if i < len(spans) else after
        while stack and stack[-1][0] <= start:
            stack.pop()
        out.append(stack[-1][1] if stack else "")
    return out


# what holds a variable's declaration: a function, with or without a name (`(query) => query.reset()`, a
# test's callback), in the languages this parser reads
_FUNCTION_NODES = frozenset(
    {
        "arrow_function", "function_expression", "function", "generator_function", "function_declaration",
        "generator_function_declaration", "method_definition", "method_declaration", "func_literal",
        "function_item", "closure_expression", "lambda_expression", "constructor_declaration",
    }
)  # fmt: skip


class _Declarations(dict[str, list[tuple[int, int, int, str]]]):
    """`_local_types`' answer, counting the lookups that found declarations (``found``): a receiver's type
    worked out with none found is the same wherever its caller reads it. The range of the function around
    each declaration is read when its variable is first asked for (reading a node's parent costs the most, and
    most variables declared more than once are never read as a receiver: Go's `name string`)."""

    found = 0

    def __init__(self, declared_at: dict[int, ts.Node], narrowed: AbstractSet[int]) -> None:
        super().__init__()
        self._declared_at = declared_at
        self._narrowed = narrowed  # declarations whose range is their node's own (an `if`'s branch)
        self._ranged: set[str] = set()

    def get(  # type: ignore[override]
        self, key: str, default: None = None
    ) -> list[tuple[int, int, int, str]] | None:
        declarations = dict.get(self, key)
        if declarations:
            self.found += 1
            if key not in self._ranged:
                self._ranged.add(key)
                for i, (_, _, start, type_text) in enumerate(declarations):
                    node: ts.Node | None = self._declared_at[start]
                    # (a narrowing's node is its range: an `if`'s branch)
                    if node is not None and start not in self._narrowed:
                        node = node.parent
                        while node is not None and node.type not in _FUNCTION_NODES:
                            node = node.parent
                    low, high = (node.start_byte, node.end_byte) if node is not None else (0, 1 << 62)
                    declarations[i] = (low, high, start, type_text)
                declarations.sort()  # by the start of the function around: _local_type bisects
        return declarations


def _local_types(
    typed: dict[int, tuple[str, str]],
    declared_at: dict[int, ts.Node],
    narrowed: AbstractSet[int] = frozenset(),
) -> _Declarations:
    """The variables the file declares more than once (`const observer = new QueryObserver()` in one test's
    callback, `= new MutationObserver()` in another's; the `query` of several `(query) => ...`), or that an
    `if` narrows (``narrowed``: its branch is the declaration's range), each declaration with the range of
    the function around it: (function start, end, declaration start, type)."""
    grouped: dict[str, list[tuple[int, int, int, str]]] = {}
    for start, (variable, type_text) in typed.items():
        if not variable.startswith("this."):
            grouped.setdefault(variable, []).append((0, 0, start, type_text))  # (the range: read when asked)
    narrowing = collections.Counter(
        typed[start][0] for start in narrowed if start in typed
    )  # (once is enough)
    out = _Declarations(declared_at, narrowed)
    for variable, declarations in grouped.items():
        if len(declarations) + narrowing[variable] >= 2:
            out[variable] = declarations
    return out


def _module_level(declaration: ts.Node) -> bool:
    """Whether a typed variable's declaration is a module-level `const`/`let`/`var` (maybe exported)."""
    holder = declaration.parent
    top = holder.parent if holder is not None else None
    if holder is not None and holder.type == "var_spec":  # Go: `var CommandLine = NewFlagSet(...)`
        return top is not None and top.parent is not None and top.parent.type == "source_file"
    if top is not None and top.type == "export_statement":
        top = top.parent
    return (
        declaration.type == "variable_declarator"
        and holder is not None
        and holder.type in ("lexical_declaration", "variable_declaration")
        and top is not None
        and top.type == "program"
    )


def _untyped(receiver: str, local: dict[str, list[tuple[int, int, int, str]]], typed_names: set[str]) -> bool:
    """Whether a receiver is a bare name no declaration of the file types (`fmt`, `os`: a package's name):
    every step of `_edges`' receiver typing leaves it untyped, whatever the caller, so none is taken. (Not
    `this`, which the enclosing class types; `$x`, `#x` and anything with a dot, a call or an index take
    the long way.)"""
    return (
        receiver.isidentifier()
        and receiver != "this"
        and receiver not in local
        and receiver not in typed_names
    )


def _alone(
    local: dict[str, list[tuple[int, int, int, str]]], receiver: str, at: int
) -> tuple[int, int] | None:
    """The range (low, high) of the function (or narrowing branch) around byte ``at`` whose one declaration
    of the receiver's variable `_local_type` reads at ``at``, where it reads that one anywhere from low to
    high: no other declaration of the variable is in that range, nor in one inside it. None when not so."""
    declarations = dict.get(local, _plain(receiver))  # (not counted as a lookup: `_local_type` was one)
    if not declarations:
        return None
    i = bisect.bisect_right(declarations, (at, 1 << 63))
    if not i:
        return None
    low, high = declarations[i - 1][:2]
    if (
        high <= at  # (`at` is past a function inside: not alone)
        or (i > 1 and declarations[i - 2][0] == low)  # another declaration in the same function
        or (i < len(declarations) and declarations[i][0] < high)  # one in a function inside it, after `at`
    ):
        return None
    return low, high


def _local_type(local: dict[str, list[tuple[int, int, int, str]]], receiver: str, at: int) -> str:
    """The type of a variable declared more than once, as read at byte ``at``: the declaration of the
    innermost function around it, the nearest before it; "" when none is around it."""
    declarations = local.get(_plain(receiver))
    if not declarations:
        return ""
    # sorted by the function around (`_local_types`): the innermost one around `at` is the last to start
    # before it and end after it (a Go name such as `c` or `err`, declared in most functions of a file)
    i = bisect.bisect_right(declarations, (at, 1 << 63))  # (past any end: after every start <= at)
    while i and declarations[i - 1][1] <= at:
        i -= 1
    if not i:
        return ""
    inner, mine = declarations[i - 1][0], []
    while i and declarations[i - 1][0] == inner:
        i -= 1
        if at < declarations[i][1]:
            mine.append(declarations[i][2:])
    mine.sort()
    return next((t for start, t in reversed(mine) if start <= at), mine[0][1])


@functools.lru_cache(maxsize=4096)
def _plain(receiver: str) -> str:
    """A receiver as variables are recorded: `a?.b!` -> `a.b`, no whitespace (a file reads the same few
    receivers many times)."""
    return _SPACES.sub("", receiver).replace("?.", ".").removesuffix("?").removesuffix("!")


def _variable_type(
    local_types: dict[str, list[tuple[int, int, int, str]]],
    types: dict[tuple[str, str], str],
    scopes: list[str],
    name: str,
    at: int,
) -> str:
    """A variable's type where byte ``at`` reads it: its declaration in the function around, else the type
    a scope around declared it with; "" when neither says."""
    return (_local_type(local_types, name, at) if local_types else "") or (
        _receiver_type(types, scopes, name) if types else ""
    )


def _receiver_type(types: dict[tuple[str, str], str], scopes: list[str], receiver: str) -> str:
    """The type a receiver (`source`, `this.store`) was declared with, in the caller or a scope around it
    (``scopes``, innermost first: a class for `this.<field>`, the module for a top-level variable); "" when
    none says."""
    receiver = _plain(receiver)
    for scope in scopes:
        found = types.get((scope, receiver))
        if found:
            return _concrete(types, scopes, found)
    return ""


MAX_CALL_CHAIN = 3  # `make().build().fix()`: the longest receiver type kept
_CALLEE = re.compile(r"(#?[\w$]+(?:\s*\??\.\s*#?[\w$]+)*)\s*(?:<[^()]*>)?\s*\(")


def _called(receiver: str) -> str:
    """``f()`` for a receiver that is one call (``innerFrom(x)`` in ``innerFrom(x).subscribe()``,
    ``this.make(a, b)``): its value is what ``f`` returns, looked up when asked; "" for anything else."""
    match = _CALLEE.match(receiver)
    if match is None or not receiver.endswith(")"):
        return ""
    depth = 0
    for index in range(match.end() - 1, len(receiver)):
        char = receiver[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                if index != len(receiver) - 1:
                    return ""  # `f(a)(b)`, `f(a).g(b)`
                return _SPACES.sub("", match.group(1)).replace("?.", ".") + "()"
    return ""


# arrays, as TypeScript writes their types (`Array<Query>`; `Query[]` is an array_type): the walk records `Query[]`
_ARRAYS = frozenset({b"Array", b"ReadonlyArray", b"Set", b"ReadonlySet"})
_SETS = frozenset({b"Set", b"ReadonlySet"})
_MAPS = frozenset({b"Map", b"ReadonlyMap", b"WeakMap"})  # a map's elements are its values (`get`, `forEach`)
# TypeScript's types that have their first argument's members (`sink: Readonly<Sink<T>>` is a Sink)
_WRAPPERS = frozenset(name.encode() for name in OF_FIRST)
# the array methods whose callback's first parameter is an element, those that return one, those that return
# the array's elements in another array (`queries.filter(f).forEach((q) => q.reset())`)
_ITERATING = "forEach|map|filter|find|findLast|findIndex|findLastIndex|some|every|flatMap"
_ITERATED = re.compile(rf"(.+)\.(?:{_ITERATING})\(\)#0\.0")
_ELEMENT_CALLS = frozenset({"find", "findLast", "at", "pop", "shift", "get"})  # (`get`: a map's)
_SAME_ELEMENTS = frozenset({"filter", "slice", "sort", "reverse", "concat", "toSorted", "toReversed"})
_FIELD_OF = re.compile(r"([\w$]+)\??\.(#?[\w$]+)[!?]*")  # `state.copy_!`: a variable's field
# `this.view.docView`, `a?.b!.c`: a variable's field's field (and deeper), each step `.`, `?.` or `!.`
_FIELDS_OF = re.compile(r"[\w$]+(?:[!?]*\.#?[\w$]+){2,}[!?]*")
_FIELD_STEP = re.compile(r"[!?]*\.")
_INDEXED_FIELDS = re.compile(r"(.+\][!?]*)((?:[!?]*\.#?[\w$]+)+)[!?]*")  # `local[i].type`: an element's field
# `(desc as NodeViewDesc)`, `(children[i] as DecorationSet<T>)!`: a value cast to a named type
_CAST = re.compile(r"\((?:[^()]|\([^()]*\))+?\s+as\s+([A-Za-z_$][\w$.]*)\s*(?:<[^()]*>)?\s*\)[!?]*")


def _field_of(held: str, field: str) -> str:
    """A field's receiver type, `MapState:copy_`, of each type a variable holds (`A:f|B:f` of a union); ""
    when a type holds no field the walk reads (a callback's parameter, a field's own)."""
    if not held or _NOT_HELD.search(held):
        return ""
    return "|".join(f"{h}:{field}" for h in held.split("|"))


_DESTRUCTURED = re.compile(r"\{([\w$]+)\}\.([\w$]+)")  # `{state}.copy_`: `const {copy_} = state`
_NOT_HELD = re.compile(r"[#:]")  # a type no field is read from (a callback's, a field's own)
_SUBSCRIPT = re.compile(r"(.+)\[[^\[\]]*\][!?]*")


MAX_UNION = 3  # the types of a union kept (`A | B | C`, the first ones), as the Python walk keeps
# the types of a module's type alias of a union kept: every one a language server reaches through it (effect's
# `type AST = Declaration | Literal | ...`, 24 classes)
MAX_ALIAS_UNION = 48


def _in_union(node: ts.Node) -> bool:
    """Whether a type the walk captured is a member of a union (`A | B`, `A<T> | B`)."""
    parent = node.parent
    if parent is not None and parent.type == "generic_type":
        parent = parent.parent
    return parent is not None and parent.type == "union_type"


def _union_nodes(node: ts.Node, most: int = MAX_UNION) -> list[ts.Node]:
    """The first ``most`` named types of the union a node is in or is (`None<A> | Some<A>`: `None`, `Some`;
    nested unions flattened, `null`, `undefined` and literals left out), as `_type_text` reads them."""
    while node.parent is not None and node.parent.type in ("union_type", "generic_type"):
        node = node.parent
    out: list[ts.Node] = []
    todo = [node]
    while todo and len(out) < most:
        current = todo.pop()
        if current.type == "union_type":
            todo.extend(reversed(current.named_children))
        elif current.type in ("type_identifier", "nested_type_identifier", "array_type"):
            out.append(current)
        elif current.type == "generic_type" and (name := current.child_by_field_name("name")) is not None:
            out.append(name)
    return out


def _wrapped(generic: ts.Node) -> str:
    """The type `Readonly<Sink<T>>`, `Partial<Sink>` (``_WRAPPERS``) wraps, as ``_type_text`` records it."""
    arguments = generic.child_by_field_name("type_arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if first is not None and first.type == "generic_type":
        first = first.child_by_field_name("name")
    if first is None or first.type not in ("type_identifier", "nested_type_identifier"):
        return ""
    return _type_text(first)


def _type_text(node: ts.Node) -> str:
    """A type as the walk records it: its name as written (`Query` of `Query<T>`), `Query[]` for an array or
    set of them (`Query[]`, `readonly Query[]`, `Array<Query>`, `ReadonlyArray<Query>`); ""
    for an array of anything else (`string[]`, `Array<() => void>`). A set is a `Set` (its members may be a
    class's that implements `Set`: `size`, `has`) and an array of its elements: `Set|Query[]` of
    `Set<Query>`, `Set` of `Set<string>`; a map, of its values: `Map|Query[]` of `Map<string, Query>`."""
    if node.type == "array_type":
        element = node.named_children[0] if node.named_children else None
    else:  # (its text first: a node's parent costs most to read, and few types are named Array or Set)
        text = node.text
        parent = node.parent if text in _ARRAYS or text in _MAPS or text in _WRAPPERS else None
        if text in _WRAPPERS:
            return _wrapped(parent) if parent is not None and parent.type == "generic_type" else _text(node)
        if parent is None or parent.type not in ("generic_type", "new_expression"):  # (`new Set<Query>()`)
            return text.decode("utf-8", "replace") if text is not None else ""
        # a set or a map of TypeScript's grammar (a generic type's `name`; Go's, its `type`, read as before)
        collection = (text in _SETS or text in _MAPS) and (
            parent.type == "new_expression" or parent.child_by_field_name("name") is not None
        )
        if not collection and (text in _MAPS or parent.type == "new_expression"):
            return _text(node)  # (`new Array<Query>()`: an `Array`, as before)
        arguments = parent.child_by_field_name("type_arguments")
        element = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        if collection and text in _MAPS:
            element = (
                arguments.named_children[1]
                if arguments is not None and arguments.named_child_count > 1
                else None
            )
        if collection:
            elements = _elements(element)
            return f"{_text(node)}|{elements}" if elements else _text(node)
    return _elements(element)


def _elements(element: ts.Node | None) -> str:
    """`Query[]` of an array's or a set's element type `Query` (`Query<T>`; `A[]|B[]` of a union, its
    first few types), "" of any other."""
    if element is not None and element.type == "union_type":
        return "|".join(dict.fromkeys(e for n in _union_nodes(element) if (e := _elements(n))))
    if element is not None and element.type == "generic_type":
        element = element.child_by_field_name("name")
    if element is None or element.type not in ("type_identifier", "nested_type_identifier"):
        return ""
    return _text(element) + "[]"


def _last_call(text: str) -> tuple[str, str] | None:
    """(what it is called on, the method) of a text that ends in a method call (`a.filter((x) => x.ok())`
    -> (`a`, `filter`)); None for anything else."""
    if not text.endswith(")"):
        return None
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        if text[index] == ")":
            depth += 1
        elif text[index] == "(":
            depth -= 1
            if depth == 0:
                head, dot, name = text[:index].rstrip().removesuffix("?.").rpartition(".")
                head = head.removesuffix("?")
                return (
                    (head.rstrip(), name.strip())
                    if dot and head and re.fullmatch(r"[\w$]+", name.strip())
                    else None
                )
    return None


def _same_array(text: str) -> str:
    """The array a text holds the elements of: ``a`` for ``a.filter(f).slice(1)``, the text itself else."""
    text = text.strip().rstrip("!?")
    while (split := _last_call(text)) is not None and split[1] in _SAME_ELEMENTS:
        text = split[0].rstrip("!?")
    return text


def _element_of(
    made: str,
    receiver: str,
    local_types: dict[str, list[tuple[int, int, int, str]]],
    types: dict[tuple[str, str], str],
    scopes: list[str],
    at: int,
    *,
    go: bool = False,
    imported: AbstractSet[str] = frozenset(),
) -> str:
    """The type of a receiver that is an element of an array whose type the walk knows: a callback's first
    parameter of `queries.forEach(...)` (`.map`, `.filter`, ...; `for (const q of queries)` reads so too),
    what `queries.find(...)` returns, `queries[0]`; `Query` where `queries: Query[]`, `f()[]` (an element of
    what `f` returns, looked up when asked) where `queries = f()`. "" when it is none, or the array's type
    is not known."""
    iterated = _ITERATED.fullmatch(made) if made else None
    if iterated is not None:
        of = iterated.group(1)
    elif made.endswith("()") and (split := _last_call(made)) is not None and split[1] in _ELEMENT_CALLS:
        of = split[0]  # `const observer = this.observers.find(...)`: its type is `this.observers.find()`
    elif (split := _last_call(receiver.rstrip("!"))) is not None and split[1] in _ELEMENT_CALLS:
        of = split[0]
    elif (subscript := _SUBSCRIPT.fullmatch(receiver.strip())) is not None:
        of = subscript.group(1)
    else:
        return ""
    of = _same_array(of)
    if of.endswith("[]"):  # `Query[].find()`: a variable's type put in its place (`_concrete`)
        return of[:-2] if not of.endswith(")[]") else ""
    held = _variable_type(local_types, types, scopes, of, at)
    if not held and not go and (field := _FIELD_OF.fullmatch(_SPACES.sub("", of))) is not None:
        # `observable.observers_.forEach((d) => ...)`, `observable: IObservable`: an element of the field's
        # type (`IObservable:observers_[]`), worked out when asked
        owner = _variable_type(local_types, types, scopes, field.group(1), at)
        fields = _field_of(owner, field.group(2))
        return "|".join(f"{f}[]" for f in fields.split("|")) if fields else ""
    if (part := _DESTRUCTURED.fullmatch(held)) is not None:  # `const list = state.pending`: the field's
        owner = _variable_type(local_types, types, scopes, part.group(1), at)
        owner = owner or (part.group(1) if part.group(1) in imported else "")  # (a module's variable)
        fields = _field_of(owner, part.group(2))
        return "|".join(f"{f}[]" for f in fields.split("|")) if fields else ""
    if "|" in held:  # `Set|Query[]` (a set): its elements' types
        return "|".join(h[:-2] for h in held.split("|") if h.endswith("[]") and not h.endswith(")[]"))
    held = _same_array(held or _called(of))
    if held.endswith("[]"):
        return held[:-2] if not held.endswith(")[]") else ""
    if held.endswith("()") and "()#" not in held:
        return _concrete(types, scopes, held) + "[]"
    return ""


def _concrete(types: dict[tuple[str, str], str], scopes: list[str], type_text: str) -> str:
    """``x.make()`` as ``Foo.make()`` where x's class is known (the call resolves through the class when
    asked, with no variable to type then); other types as they are."""
    head, _, rest = type_text.removesuffix("()").partition(".")
    if not type_text.endswith("()") or not rest or "." in rest or head == "this":
        return type_text
    for scope in scopes:
        known = types.get((scope, head))
        if known:
            return type_text if known.count("()") >= MAX_CALL_CHAIN else f"{known}.{rest}()"
    return type_text


_BLOCK_START = re.compile(rb"^[^\s})\]]", re.MULTILINE)


def _blocks(data: bytes) -> list[tuple[int, int]]:
    """Byte ranges of the top-level blocks: each starts at a line that starts at column 0 and does not close a
    bracket. Comments right above a block stay with it."""
    starts = [m.start() for m in _BLOCK_START.finditer(data)]
    merged: list[int] = []
    for start in starts:
        if (
            merged
            and data[merged[-1] : start].lstrip().startswith((b"//", b"/*", b"#", b"@"))
            and (
                data.count(b"\n", merged[-1], start) <= 1 or data[merged[-1] : start].rstrip().endswith(b"*/")
            )
        ):
            continue  # a comment or decorator line belongs to the block under it
        merged.append(start)
    bounds = [*merged, len(data)]
    return [(bounds[i], bounds[i + 1]) for i in range(len(merged))]


def _block_matches(
    parser: ts.Parser, query: ts.Query, data: bytes, block: tuple[int, int]
) -> list[tuple[int, dict[str, list[ts.Node]]]]:
    """The query's matches in one block, parsed alone (the parser reads only its range of the file, so the
    tree's rows and byte offsets are the file's)."""
    start, end = block
    parser.included_ranges = [ts.Range(_point(data, start), _point(data, end), start, end)]
    try:
        tree = parser.parse(data)
    except ValueError:
        parser.reset()
        return []
    finally:
        parser.included_ranges = [ts.Range(ts.Point(0, 0), ts.Point(0xFFFFFFFF, 0xFFFFFFFF), 0, 0xFFFFFFFF)]
    return ts.QueryCursor(query).matches(tree.root_node)


def _point(data: bytes, offset: int) -> ts.Point:
    newlines = _newlines(data)
    row = bisect.bisect_left(newlines, offset)  # the line breaks before offset
    return ts.Point(row, offset - (newlines[row - 1] + 1 if row else 0))


@functools.lru_cache(maxsize=1)
def _newlines(data: bytes) -> list[int]:
    """The offsets of the file's line breaks: found once for all its blocks (counting them from the start
    for each block was quadratic: a third of a second on ts-effect's files with syntax errors). Keyed by
    the file's bytes, whose hash Python keeps once computed."""
    return [m.start() for m in re.finditer(b"\n", data)]


def _definition_node(captures: dict[str, list[ts.Node]]) -> ts.Node:
    label = next((c for c in captures if c.startswith(("definition.", "bases.of"))), None)
    return captures[label][0] if label else next(iter(captures.values()))[0]


def _text(node: ts.Node | None) -> str:
    text = node.text if node is not None else None  # (a node's text is sliced anew at each read)
    return text.decode("utf-8", "replace") if text is not None else ""


def type_name(text: str) -> str:
    """`&'a mut Foo<T>` -> `Foo`, `io::Result<T>` -> `Result`, `*Command` -> `Command`."""
    text = _TYPE_PREFIX.sub("", text.strip())
    text = _GENERICS.sub("", text).strip()
    return text.rsplit("::", 1)[-1].rsplit(".", 1)[-1].strip() or text


def _definitions(matches: list[tuple[int, dict[str, list[ts.Node]]]], spec: LanguageSpec) -> list[_Def]:
    found: dict[tuple[int, int, str], _Def] = {}
    bases: dict[tuple[int, int, str], list[str]] = {}
    for pattern, captures in matches:
        if "bases.of" in captures:
            of = captures["bases.of"][0]
            named = [_base_name(b) for b in captures.get("base", ())] + [
                _GENERICS.sub("", _text(b)).strip() for b in captures.get("base.dotted", ())
            ]
            if of.type == "method_definition":  # an object literal's method: the literal's types
                typed_by = _literal_type(of)
                named = (
                    _literal_types(typed_by)
                    if typed_by is not None
                    else _protocol_types(of) or _argument_of(of)
                )
            bases.setdefault((of.start_byte, of.end_byte, of.type), []).extend(named)
            continue
        label = next((c for c in captures if c.startswith("definition.")), None)
        if label is None:
            continue
        try:
            kind = SymbolKind(label.removeprefix("definition."))
        except ValueError:
            continue
        node = captures[label][0]
        key = (node.start_byte, node.end_byte, node.type)
        if key in found and found[key].pattern <= pattern:
            continue
        name = _text(captures["name"][0]) if "name" in captures else ""
        members = type_name(_text(captures["members"][0])) if "members" in captures else ""
        if kind is SymbolKind.IMPL:
            trait = type_name(_text(captures["trait"][0])) if "trait" in captures else ""
            name = f"impl {trait} for {members}" if trait else f"impl {members}"
        if not name:
            continue
        owner = type_name(_text(captures["owner"][0])) if "owner" in captures else ""
        if owner in _GLOBAL_OWNERS and node.type == "expression_statement":
            continue  # `window.onload = function`: no member of a class or object of the file
        impl_bases = [type_name(_text(captures["trait"][0]))] if "trait" in captures else []
        found[key] = _Def(
            node=node,
            kind=kind,
            name=name,
            owner=owner,
            members=members or name,
            bases=impl_bases,
            pattern=pattern,
            range_node=_range_node(node, spec),
        )
    for key, names in bases.items():
        if key in found:
            # a qualified name (`Queue.Dequeue`, @base.dotted) in place of its last part, which @base took
            dotted = {n.rsplit(".", 1)[-1] for n in names if "." in n}
            found[key].bases.extend(
                n for n in dict.fromkeys(names) if n not in found[key].bases and ("." in n or n not in dotted)
            )
    return sorted(found.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte))


def _base_name(base: ts.Node) -> str:
    """A base as its class names it: `Foo` of `Foo<T>`; a call's callee then `()` (TypeScript's `class
    String$ extends make<string>(ast)`: the class `make` returns, looked up when asked)."""
    callee = base.child_by_field_name("function") if base.type == "call_expression" else None
    if callee is not None and callee.type in ("identifier", "member_expression"):
        return re.sub(r"\s+", "", _text(callee)) + "()"
    return type_name(_text(base))


# JavaScript's `X.f = function` defines `X.f`, but not on these (the query's `#not-any-of?` would say so: py-tree-sitter
# 0.25 ignores it, so it is checked here)
_GLOBAL_OWNERS = frozenset({"exports", "module", "this", "window", "self", "global"})

# TypeScript's types that name no interface (those typing a literal by their first argument: OF_FIRST)
_NO_MEMBERS = frozenset({"Record", "ThisType"})


def _literal_types(node: ts.Node) -> list[str]:
    """The types an object literal's type names (`I`, `ns.I` of `ns.I<T>`, `I` of `Omit<I, "k">`, each side
    of `A & B`): its methods implement their members."""
    if node.type in ("type_identifier", "nested_type_identifier"):
        return [_text(node)]
    if node.type == "intersection_type":
        return [t for child in node.named_children for t in _literal_types(child)]
    if node.type != "generic_type" or (name := node.child_by_field_name("name")) is None:
        return []
    if _text(name) in OF_FIRST:
        arguments = node.child_by_field_name("type_arguments")
        first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        return _literal_types(first) if first is not None else []
    return [] if _text(name) in _NO_MEMBERS else [_text(name)]


def _literal_holder(node: ts.Node) -> ts.Node | None:
    """The name of the one type an object literal's type names (`Ops` of `Ops`, `Ops<T>`, `Partial<Ops>`):
    its keys read that type's members; None for a qualified name, an intersection, a type literal."""
    if node.type == "type_identifier":
        return node
    if node.type != "generic_type" or (name := node.child_by_field_name("name")) is None:
        return None
    if _text(name) in OF_FIRST:
        arguments = node.child_by_field_name("type_arguments")
        first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        return _literal_holder(first) if first is not None else None
    return None if _text(name) in _NO_MEMBERS or name.type != "type_identifier" else name


# what a method of these names returns, by the language's protocols: an iterator
_PROTOCOLS = {b"[Symbol.iterator]": "Iterator", b"[Symbol.asyncIterator]": "AsyncIterator"}


def _protocol_types(method: ts.Node) -> list[str]:
    """The built-in type of an object literal no annotation types, by the method returning it:
    `[Symbol.iterator]() { return { next() {...} } }` returns an Iterator (its `next` implements
    Iterator's, which calls on an iterator may run)."""
    literal = method.parent
    holder = literal.parent if literal is not None else None
    if holder is None or holder.type != "return_statement":
        return []
    function = holder.parent
    while function is not None and function.type not in _FUNCTION_NODES:
        function = function.parent
    name = function.child_by_field_name("name") if function is not None else None
    if function is None or function.type != "method_definition" or name is None:
        return []
    protocol = _PROTOCOLS.get(name.text or b"")
    return [protocol] if protocol else []


def _argument_of(method: ts.Node) -> list[str]:
    """The base of an object literal's method when the literal is an argument of a call and nothing else
    types it (`source.subscribe({ next() {...} })`): the call, by its callee's name and place, and the
    argument's position (``domain.calls.ARGUMENT``: the parameter's type, looked up when asked)."""
    literal = method.parent
    arguments = literal.parent if literal is not None else None
    call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
    if literal is None or arguments is None or call is None or call.type != "call_expression":
        return []
    callee = call.child_by_field_name("function")
    if callee is not None and callee.type == "member_expression":
        callee = callee.child_by_field_name("property")
    if callee is None or callee.type not in ("identifier", "property_identifier"):
        return []
    position = [a for a in arguments.named_children if a.type != "comment"].index(literal)
    point = callee.start_point
    return [argument_base(_text(callee), point.row + 1, point.column, position)]


def _parameter_annotation(arguments: ts.Node, argument: ts.Node) -> ts.Node | None:
    """The annotation of the parameter an argument is passed as, when the call names a function the file
    declares at its top level (`makeIterableForSet({ next() {...} })` with `function makeIterableForSet<T>(
    iterator: Iterator<T>)`: the literal is an Iterator); None for any other call."""
    call = arguments.parent
    callee = call.child_by_field_name("function") if call is not None else None
    if call is None or callee is None or callee.type != "identifier":
        return None
    position = next((i for i, a in enumerate(arguments.named_children) if a == argument), -1)
    root = call
    while (up := root.parent) is not None:
        root = up
    name = callee.text
    for statement in root.named_children:
        function = statement
        if function.type == "export_statement":
            function = function.child_by_field_name("declaration") or function
        if function.type != "function_declaration":
            continue
        named = function.child_by_field_name("name")
        if named is None or named.text != name:
            continue
        parameters = function.child_by_field_name("parameters")
        taken = [
            p for p in (parameters.named_children if parameters is not None else []) if p.type != "comment"
        ]
        if not 0 <= position < len(taken):
            return None
        return taken[position].child_by_field_name("type")
    return None


def _literal_type(method: ts.Node) -> ts.Node | None:
    """The type that types the object literal a method is in: a variable's annotation (`const x: I = {...}`,
    `= {...} as const`), `{...} satisfies I`, `{...} as I`, the annotated return of the function that
    returns it (`function f(): I { return {...} }`, `(): I => ({...})`); None when none does."""
    literal = method.parent
    holder = literal.parent if literal is not None else None
    if holder is None:
        return None
    if holder.type in ("satisfies_expression", "as_expression"):
        typed = holder.named_children[-1] if holder.named_child_count > 1 else None
        if typed is not None and typed is not literal and typed.type != "object":
            return typed
        if holder.type == "satisfies_expression" or holder.parent is None:
            return None
        holder = holder.parent  # `{...} as const`
    if holder.type == "variable_declarator":
        annotation = holder.child_by_field_name("type")
    elif holder.type == "arguments" and literal is not None:
        annotation = _parameter_annotation(holder, literal)
    elif holder.type in ("return_statement", "parenthesized_expression"):
        function = holder.parent
        while (
            holder.type == "return_statement"
            and function is not None
            and function.type not in _FUNCTION_NODES
        ):
            function = function.parent  # the function the `return` returns from
        annotation = function.child_by_field_name("return_type") if function is not None else None
    else:
        return None
    return annotation.named_children[0] if annotation is not None and annotation.named_children else None


def _range_node(node: ts.Node, spec: LanguageSpec) -> ts.Node:
    """The node whose lines are the definition: a wrapper holding only this definition (`const x = 1;`)."""
    parent = node.parent
    if (
        parent is not None
        and parent.type in spec.wrappers
        and sum(1 for c in parent.named_children if c.type == node.type) == 1
    ):
        return parent
    return node


def _attributes_and_doc(node: ts.Node, spec: LanguageSpec) -> tuple[int, str]:
    """The first line of the definition's attributes (its range starts there), and its doc comment: the
    comments right above it or above its attributes, looking out through wrappers that start with it
    (`export`, `@decorator export class`, a Go `type (...)` group's first spec)."""
    start = top = node.start_point.row
    doc: list[ts.Node] = []
    anchor: ts.Node | None = node
    while anchor is not None:
        sibling = anchor.prev_named_sibling
        while sibling is not None:
            if sibling.type in spec.attributes:
                start = min(start, sibling.start_point.row)
                top = sibling.start_point.row
            elif sibling.type in spec.comments and sibling.end_point.row >= top - 1:
                doc.append(sibling)
                top = sibling.start_point.row
            else:
                return start + 1, _joined_doc(doc)
            sibling = sibling.prev_named_sibling
        parent = anchor.parent
        if parent is None or parent.parent is None or parent.start_point.row < top - 1:
            break
        anchor = parent  # the wrapper starts where this definition's text starts: its comments are ours
    return start + 1, _joined_doc(doc)


def _joined_doc(doc: list[ts.Node]) -> str:
    return "\n".join(_doc_text(_text(c)) for c in reversed(doc)).strip()


def _doc_text(comment: str) -> str:
    out = []
    for line in comment.split("\n"):
        line = _DOC_END.sub("", line)
        out.append(_DOC_MARKERS.sub("", line, count=1).rstrip())
    return "\n".join(out).strip()


def _signature(d: _Def, data: bytes, spec: LanguageSpec) -> str:
    """The definition's text up to its body (`func (c *Command) Find(args []string) (*Command, []string, error)`),
    whitespace collapsed; its first line when the body is far or absent."""
    node = d.node
    body = node.child_by_field_name("body")
    value = node.child_by_field_name("value")
    if body is None and value is not None:
        body = value.child_by_field_name("body")
    start = d.range_node.start_byte
    for child in d.range_node.children:  # decorators held inside the node are not its signature
        if child.type in spec.attributes or child.type in spec.comments:
            start = child.end_byte
        else:
            break
    line_end = data.find(b"\n", start)
    line_end = len(data) if line_end < 0 else line_end
    end = (
        body.start_byte if body is not None and body.start_point.row - node.start_point.row < 12 else line_end
    )
    text = data[start : max(start, end)].decode("utf-8", "replace")
    return _SPACES.sub(" ", text).strip().rstrip("{=").strip()[:400] or d.name


def _def_spans(defs: list[_Def]) -> list[tuple[int, int, str, str]]:
    """(start, end, node type, name) of each definition, by start: what `_defined_inside` reads."""
    return sorted((d.node.start_byte, d.node.end_byte, d.node.type, d.name) for d in defs)


def _defined_inside(spans: list[tuple[int, int, str, str]], low: int, high: int) -> set[str]:
    """The names of the definitions inside bytes low..high (not one starting at low), but an object
    literal's methods, which declare no variable (`let next = iterator.next()` beside `{ next() {...} }`):
    those from ``spans`` (`_def_spans`) that start after low, bisected, up to the first that starts at high."""
    out = set()
    for i in range(bisect.bisect_right(spans, (low, 1 << 63)), len(spans)):
        start, end, kind, name = spans[i]
        if start >= high:  # (the rest start after it)
            break
        if end <= high and kind != "method_definition":
            out.add(name)
    return out


def _def_params(d: _Def) -> tuple[str, ...]:
    """`_params` of a definition, read once (its symbol's and the names `_edges` finds it takes)."""
    if d.params is None:
        d.params = _params(d)
    return d.params


def _params(d: _Def) -> tuple[str, ...]:
    node = d.node
    params = node.child_by_field_name("parameters")
    if params is None and (value := node.child_by_field_name("value")) is not None:
        params = value.child_by_field_name("parameters") or value.child_by_field_name("parameter")
    if params is None:
        return ()
    if params.type in ("identifier",):  # `x => ...`
        return (_text(params),)
    out = []
    for child in params.named_children:
        if child.type in ("comment", "line_comment", "block_comment"):
            continue
        name = child.child_by_field_name("name") or child.child_by_field_name("pattern")
        text = _text(name) if name is not None else _text(child)
        out.append(_SPACES.sub(" ", text.split(":")[0].split("=")[0]).strip()[:60])
    return tuple(p for p in out if p)


def _exported(d: _Def, spec: LanguageSpec) -> bool:
    node = d.range_node
    for rule in spec.exported:
        kind, _, arg = rule.partition(":")
        if kind == "always":
            return True
        if kind == "capitalized" and d.name[:1].isupper():
            return True
        if kind == "child" and any(c.type == arg for c in (*node.children, *d.node.children)):
            return True
        if kind == "parent" and node.parent is not None and node.parent.type == arg:
            return True
        if kind == "prefix" and (node.text or b"").startswith(arg.encode()):
            return True
        if kind == "modifier":
            for c in d.node.children:
                if "modifier" in c.type and re.search(rf"\b{re.escape(arg)}\b", _text(c)):
                    return True
    return False


def _comment_lines(body: str, prefixes: tuple[str, ...]) -> str:
    if not prefixes:
        return ""
    out = []
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith(prefixes):
            out.append(_doc_text(stripped))
    return "\n".join(filter(None, out))


def _extract(path: str, lines: list[str], data: bytes, defs: list[_Def], spec: LanguageSpec) -> ParsedFile:
    lines = [line.removesuffix("\r") for line in lines]
    if lines and lines[-1] == "":
        lines = lines[:-1]
    n_lines = len(lines)
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    seen_ids: dict[str, int] = {}

    def new_id(kind: str, symbol: str) -> str:
        key = f"{kind}\0{symbol}"
        ordinal = seen_ids.get(key, 0)
        seen_ids[key] = ordinal + 1
        return chunk_id(path, kind, symbol, ordinal)

    # nesting: each definition's closest enclosing definition (defs are sorted by start, outer first)
    stack: list[_Def] = []
    roots: list[_Def] = []
    docs: dict[int, str] = {}
    for d in defs:
        start, doc = _attributes_and_doc(d.range_node, spec)
        d.start_line = min(start, d.range_node.start_point.row + 1)
        d.end_line = min(max(d.range_node.end_point.row + 1, d.start_line), max(n_lines, d.start_line))
        if d.range_node.end_point.column == 0 and d.range_node.end_point.row > d.range_node.start_point.row:
            d.end_line -= 1  # a node that ends at a line's first column ends on the line before
        docs[id(d)] = doc
        while stack and d.node.start_byte >= stack[-1].node.end_byte:
            stack.pop()
        outer = stack[-1] if stack else None
        if outer is None:
            roots.append(d)
        else:
            outer.inner.append(d)
        qualifier = d.owner
        if (
            not qualifier
            and outer is not None
            and outer.kind.is_container
            and outer.kind is not SymbolKind.MODULE
            and (d.kind.is_callable or d.kind is SymbolKind.FIELD)
        ):
            qualifier = outer.members  # nested types and constants keep their own name (Rust `type Item`)
        if qualifier and d.kind is SymbolKind.FUNCTION and outer is not None and outer.kind.is_container:
            d.kind = SymbolKind.METHOD
        if d.owner and d.kind is SymbolKind.FUNCTION and d.node.type != "expression_statement":
            d.kind = SymbolKind.METHOD  # a Go method's receiver
        d.qualname = f"{qualifier}.{d.name}" if qualifier else d.name
        d.parent = qualifier or (outer.qualname if outer is not None else "")
        d.depth = len(stack)
        d.in_function = outer is not None and (outer.in_function or outer.kind.is_callable)
        stack.append(d)

    symbols = [
        Symbol(
            name=d.name.rsplit(".", 1)[-1] if d.kind is not SymbolKind.IMPL else d.name,
            qualname=d.qualname,
            kind=d.kind,
            start_line=d.start_line,
            end_line=d.end_line,
            def_line=d.node.start_point.row + 1,
            signature=_signature(d, data, spec),
            docstring=docs[id(d)],
            decorators=tuple(_decorators(d, spec)),
            bases=tuple(d.bases),
            params=_def_params(d) if d.kind.is_callable else (),
            is_async=_is_async(d),
            parent=d.parent,
            depth=d.depth,
            exported=_exported(d, spec),
        )
        for d in defs
    ]
    by_def = {id(d): s for d, s in zip(defs, symbols, strict=True)}
    chunks: list[Chunk] = []
    covered: list[tuple[int, int]] = []

    def add_chunks(d: _Def) -> bool:
        """Chunks for `d` and what it holds; False when `d` stays in its parent's text."""
        sym = by_def[id(d)]
        if d.in_function:
            return False
        if d.kind.is_callable:
            body = "\n".join(lines[d.start_line - 1 : d.end_line])
            kind = ChunkKind.METHOD if d.kind is SymbolKind.METHOD else ChunkKind.FUNCTION
            doc = "\n".join(filter(None, [sym.docstring, _comment_lines(body, spec.line_comment)]))
            chunks.append(
                _chunk(path, spec, new_id(kind.value, d.qualname), d, sym, kind, d.end_line, doc, body)
            )
            return True
        if d.kind.is_container:
            holes = [(k.start_line, k.end_line, k.node.start_point.row + 1) for k in d.inner if add_chunks(k)]
            header_end = (min(h[0] for h in holes) - 1) if holes else d.end_line
            body = _lines_outside(lines, d.start_line, d.end_line, holes)
            chunks.append(
                _chunk(path, spec, new_id("class", d.qualname), d, sym, ChunkKind.CLASS, max(d.start_line, header_end),
                       sym.docstring, body)
            )  # fmt: skip
            return True
        if d.end_line > d.start_line:  # a multi-line type, constant or variable of its own
            body = "\n".join(lines[d.start_line - 1 : d.end_line])
            chunks.append(
                _chunk(path, spec, new_id("declaration", d.qualname), d, sym, ChunkKind.DECLARATION, d.end_line,
                       sym.docstring, body)
            )  # fmt: skip
            return True
        return False

    for d in roots:
        if add_chunks(d):
            covered.append((d.start_line, d.end_line))
    chunks.extend(
        module_chunks(
            path, stem, lines, covered, "", new_id,
            language=spec.name, comments=functools.partial(_comment_lines, prefixes=spec.line_comment),
        )
    )  # fmt: skip
    symbols.sort(key=lambda s: (s.start_line, s.depth))
    chunks.sort(key=lambda c: c.start_line)
    forms = tuple((d.qualname, d.node.start_point.row + 1, form) for d in defs if (form := _form(d)))
    return ParsedFile(language=spec.name, symbols=tuple(symbols), chunks=tuple(chunks), forms=forms)


def _form(d: _Def) -> str:
    """A callable's form when its tree says more than its text (ParsedFile.forms): "signature" when it has no
    body child (an overload signature whose return type is an object type, `): T & { cancel(): void }`, ends
    with a brace all the same), "get" / "set" when the accessor keyword comes before its name."""
    if not d.kind.is_callable:
        return ""
    node = d.node
    name = node.child_by_field_name("name")
    for child in node.children:
        if name is not None and child.start_byte >= name.start_byte:
            break
        if not child.is_named and child.type in ("get", "set"):
            return child.type
    return "" if _has_body(node) else "signature"


def _has_body(node: ts.Node, depth: int = 0) -> bool:
    """A body child on the node, on the function it is given (`const f = () => ...`, `X.prototype.m =
    function`), or on the assignment a statement holds."""
    if node.child_by_field_name("body") is not None:
        return True
    if depth > 2:
        return False
    held = [node.child_by_field_name(f) for f in ("value", "right")]
    if node.type == "expression_statement" and node.named_children:
        held.append(node.named_children[0])
    return any(h is not None and _has_body(h, depth + 1) for h in held)


def _decorators(d: _Def, spec: LanguageSpec) -> Iterable[str]:
    found = []
    sibling = d.range_node.prev_named_sibling
    while sibling is not None and (sibling.type in spec.attributes or sibling.type in spec.comments):
        if sibling.type in spec.attributes:
            found.append(_SPACES.sub(" ", _text(sibling)).strip()[:200])
        sibling = sibling.prev_named_sibling
    found.reverse()
    found += [_SPACES.sub(" ", _text(c)).strip()[:200] for c in d.node.children if c.type in spec.attributes]
    for c in d.node.children:  # Java/C#/Kotlin keep annotations in a modifiers node
        if c.type.endswith("modifiers"):
            found += [
                _text(a) for a in c.named_children if "annotation" in a.type or a.type in spec.attributes
            ]
    return [f.lstrip("@") for f in found]


def _is_async(d: _Def) -> bool:
    node = d.node
    value = node.child_by_field_name("value")
    for candidate in (node, value):
        if candidate is None:
            continue
        for c in candidate.children:
            if c.type == "async" or (c.type == "function_modifiers" and b"async" in (c.text or b"")):
                return True
            if c is candidate.child_by_field_name("name") or c.type in (
                "(",
                "formal_parameters",
                "parameters",
            ):
                break
    return False


def _chunk(
    path: str,
    spec: LanguageSpec,
    cid: str,
    d: _Def,
    sym: Symbol,
    kind: ChunkKind,
    end_line: int,
    doc: str,
    body: str,
) -> Chunk:
    return Chunk(
        id=cid,
        path=path,
        start_line=d.start_line,
        end_line=end_line,
        kind=kind,
        language=spec.name,
        symbol=d.qualname,
        name=sym.name,
        signature=sym.signature,
        doc=doc,
        body=body,
    )
