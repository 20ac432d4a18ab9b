"""The AST engine: ``sym://`` selectors resolved to definitions, shown as a skeleton (L1) or a snippet (L2).

ast-lsp-dual-engine.md §1 (zoom levels), §3 (selectors), §4 (envelope), §5 (budget), §6 (never guess).

Every language with symbols is read the same way; what differs is a row of ``PathRules`` (the file endings
from the parser's language table, the file names a folder stands for, whether a folder is a package).
The composition root builds the rows (``path_rules``) and hands them to the resolver: this module does not
know which languages the parser reads.

Resolution happens in two steps, the file and then the definition in it, and fails closed at each.

**The file.** A selector path ``a/b`` names a file by its path without the extension. Candidates come in
tiers and the first tier that has any wins:

1. ``a/b.<ext>`` exactly, for each of the language's endings (``.py``; ``.ts``, ``.tsx``, ...);
2. a folder's own file: ``a/b/__init__.py`` (Python), ``a/b/index.ts`` (TypeScript, also ``.tsx``...),
   ``a/b/index.js`` (JavaScript), ``a/b/mod.rs``, ``a/b/lib.rs`` or ``a/b/main.rs`` (Rust); for a language
   whose folder is a package (Go), the indexed files directly in ``a/b/`` together, as one package;
3. every indexed file of the language whose path ends with the components ``a/b`` (``pkg/a/b.py``), whose
   folder does and whose name is the folder's own file (``pkg/a/b/__init__.py``), or, for packages, whose
   folder ends with them (``pkg/a/b/*.go``: one candidate per folder).

Only several candidates in one tier are ambiguous: ``utils`` with ``root/utils.py`` and ``pkg/utils.py``, or
``a/b.ts`` beside ``a/b.tsx``, is ``AMBIGUOUS_SYMBOL`` with the candidates of §3.4, sorted by ``file_rel``. A
full path wins over longer paths that merely end with it, because that is how a caller picks a candidate:
every candidate's ``sym`` is the file's full path, and that ``sym`` resolves to exactly that file. With both
``pkg.py`` and ``pkg/__init__.py`` present, ``sym://python/mod/pkg`` is therefore ``pkg.py`` (§3.3: ``mod/User``
"looks for file ``User.py``") and the package is ``sym://python/mod/pkg/__init__``; only when neither is a full
path match (``a/pkg.py`` and ``b/pkg/__init__.py`` for ``pkg``) are the two ambiguous. Endings that are not
the language's (``.pyi`` stubs, ``.pyw``) are not matched: a stub beside its module would make both
unreachable under one selector. For the same reason a TypeScript declaration file ``types.d.ts`` is
``types.d`` (the ending is ``.ts``), never ``types`` or its folder's ``index``.

A package (Go) is one candidate made of several files: ``sym://go/mod/server`` is the skeleton of every file
of ``server/`` (each entry says its ``path``), and ``sym://go/type/server/Router#Serve`` looks for
``Router.Serve`` in all of them. A file of the package is still its own module: ``sym://go/mod/server/handler``.

Tiers 1 and 2 (but the package tier, which reads the index) also find a file created since the last index
run, when the ``admit`` predicate passed to the resolver accepts its path (wire it to the file source's ignore
and secret rules so a selector never reads a file the indexer would skip). A file listed in the index but gone
from disk is not a candidate. A path that leaves the segment (a symlink pointing out) is
``PATH_OUTSIDE_SEGMENT``. Files are read through ``FileSource.read_admitted``: a file the indexer would not
index (ignored, a secret by name or content, special, too large, binary) is refused with the code that says
why (``IGNORED_FILE``, ``SECRET_FILE``, ...): when the index still lists it, and when a tier-1 or tier-2 path
names it and no other file matches.

For a ``type`` selector whose candidates are several files (an ambiguous path, or a package), they are
narrowed to the files that define the qualified name: exactly one resolves to it, none is ``SYMBOL_NOT_FOUND``
naming the files searched, several are ``AMBIGUOUS_SYMBOL`` with ``sym://<language>/type/<file>/<Symbol>#...``
candidates (kind ``"type"``).

**The definition.** ``Symbol#member.inner`` is the qualified name ``Symbol.member.inner`` (nested functions
included, Go ``Receiver.Method``, Rust ``Type.method`` and ``Trait.method``, TS/JS ``Class.method``), matched
exactly, never the nearest name. Missing is ``SYMBOL_NOT_FOUND`` with the file's skeleton (and the skeleton of
the deepest enclosing definition that does exist) as next actions. A bare ``Symbol`` that is no top-level
name but the name of members (Go methods ``Router.Serve`` and ``Logger.Serve`` for ``server/Serve``) is
``AMBIGUOUS_SYMBOL`` with those members as candidates, or, for one member, ``SYMBOL_NOT_FOUND`` pointing at it.
Rust impl blocks (``impl Display for Deserializer``) have no selector: they are listed in the file's
skeleton with their methods as children, the methods are ``Type#method``, and ``ast symbols`` of the type
lists its members from every impl block (as it lists a Go type's methods, wherever they are declared).
When one file defines the qualified name more than once:

* a property's accessors (every definition after the first decorated ``@<name>.setter`` / ``.getter`` /
  ``.deleter``) and ``typing.overload`` groups (every definition but the last decorated ``@overload``) resolve
  to the whole group: the range spans the first definition's first line to the last one's last line, and
  ``data.definitions`` lists each definition's own range;
* for a language whose rules say so (TypeScript), callable signatures without a body followed by one
  definition with a body are an overload set and resolve to that implementation (``data.overloads`` lists
  the signatures' ranges); signatures with no implementation (a declaration file) are the whole group;
* a property's ``get`` and ``set`` accessors (TypeScript, JavaScript) resolve to the whole group, as a
  Python property's do: the range spans both, ``data.definitions`` lists each. Whether a
  definition has a body, and whether it is an accessor, is read from the file's syntax tree (the file is
  parsed again for it, once per content: kept in an LRU keyed by its SHA-256), never from its text (a signature returning ``T & { cancel(): void }`` ends with a
  brace);
* anything else (``if``/``else`` or ``try``/``except`` alternatives, plain redefinitions, Rust methods of
  one name in two impl blocks) is ``AMBIGUOUS_SYMBOL`` whose candidates carry ``range`` (the grammar cannot
  tell them apart, so the answer points at ``ctx get --path <file>:<start>-<end>`` for each).

**Symbols** come from the index when the file's SHA-256 is the one indexed; otherwise the file is parsed on
demand. Either way they are kept in a bounded LRU cache keyed by the content hash. A file that does not parse
(a syntax error, or nesting deep enough to exhaust the parser) and yields no definition is ``SYMBOL_NOT_FOUND``
with the reason, never an exception; the definitions tree-sitter recovers from a file with syntax errors
resolve as usual.

**Output.** ``data.uri`` is the canonical selector of what was resolved (the full file path), so it can be
reused as is. Sizes are UTF-8 bytes of compact JSON (``separators=(",", ":")``). The skeleton keeps a prefix
of its entries in breadth-first order (every top-level definition before any member, earlier before later)
within ``max_bytes_total`` and counts the rest in ``omitted``. A definition is nested under the innermost
definition of its parent's name that contains it, else under the innermost definition that contains it (a
Rust method under its impl block). A snippet is cut by ``budget.cut_snippet``; if the snippet's data still
exceeds ``max_bytes_total`` the answer is ``BUDGET_EXCEEDED``. A ``mod`` selector has no snippet:
``ast snippet`` on it is ``INVALID_ARGUMENT`` pointing at ``ast symbols``.

Next actions are CLI commands without the program name and segment (``ast snippet <uri>``,
``ctx get --path <file>:<start>-<end>``), as in §4.2, made by ``domain.actions`` so they quote and parse.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..domain import actions as act
from ..domain.budget import BudgetPolicy, cut_snippet, utf8_size
from ..domain.code import Symbol, SymbolKind
from ..domain.contract import Error, ErrorCode, Ref, Response
from ..domain.selector import Selector, SelectorError, SelectorKind, is_component, is_identifier, parse
from .ports import CodeParser, FileRefused, FileSource, IndexReader, OutsideSegment

LANGUAGE = "python"
SUFFIX = ".py"
INIT = "__init__"
MAX_CANDIDATES = 50  # an ambiguity listing more files than this says how many it left out
DEFAULT_CACHE_SIZE = 256  # files; the stdlib's largest is ~400 KB
TOP_ACTIONS = 3  # next actions that point into children
SKELETON_KIND = "skeleton"
SNIPPET_KIND = "snippet"

_ACCESSORS = ("setter", "getter", "deleter")


# --------------------------------------------------------------------------------------------- path rules


@attrs.frozen(kw_only=True)
class PathRules:
    """How selector paths name one language's files."""

    language: str
    extensions: tuple[str, ...]  # the endings a selector path leaves out, most usual first
    folder_files: tuple[str, ...] = ()  # file names (no ending) a folder's name stands for
    package_folders: bool = False  # a folder is one module made of all its files (Go)
    overload_signatures: bool = False  # bodiless signatures before an implementation are one definition

    def stem(self, path: str) -> tuple[str, ...] | None:
        """The path's components without the ending; None when it is not one of the language's files."""
        for extension in sorted(self.extensions, key=len, reverse=True):
            if path.endswith(extension) and len(path) > len(extension):
                return tuple(path[: -len(extension)].split("/"))
        return None


# Per language, what the table of parsed languages does not say: which files a folder name stands for.
# The endings come from the parser's table (see `path_rules`); a language missing here gets none of these.
FOLDER_RULES: Mapping[str, Mapping[str, Any]] = {
    "python": {"folder_files": (INIT,)},
    "typescript": {"folder_files": ("index",), "overload_signatures": True},
    "javascript": {"folder_files": ("index",)},
    "rust": {"folder_files": ("mod", "lib", "main")},
    "go": {"package_folders": True},
}
PYTHON_RULES = PathRules(language=LANGUAGE, extensions=(SUFFIX,), folder_files=(INIT,))


def path_rules(extensions: Mapping[str, Iterable[str]]) -> dict[str, PathRules]:
    """The rules of every language with symbols, from ``{language: file endings}`` (the parser's table)."""
    rules = {LANGUAGE: PYTHON_RULES}
    for language, endings in extensions.items():
        if language != LANGUAGE:
            rules[language] = PathRules(
                language=language, extensions=tuple(endings), **FOLDER_RULES.get(language, {})
            )
    return rules


_DEFAULT_RULES: Mapping[str, PathRules] = {LANGUAGE: PYTHON_RULES}


# --------------------------------------------------------------------------------------------- values


@attrs.frozen(kw_only=True)
class FilePart:
    """One file of a package skeleton: its path, lines, definitions and selector components."""

    path: str
    file_components: tuple[str, ...]
    lines: tuple[str, ...]
    symbols: tuple[Symbol, ...]


@attrs.frozen(kw_only=True)
class Resolved:
    """A selector resolved to one file and, for ``type``, to one definition (or one accessor/overload group).

    A ``mod`` selector naming a package (Go) resolves to its folder: ``path`` is the folder, ``parts`` its
    files, and ``lines``/``symbols`` are empty.
    """

    selector: Selector
    path: str  # the file, relative to the segment (the folder for a package)
    file_components: tuple[str, ...]  # the path components selectors for this file are rendered with
    lines: tuple[str, ...]  # the file's lines, without line endings
    symbols: tuple[Symbol, ...]  # every definition in the file, in source order
    definitions: tuple[Symbol, ...] = ()  # () for a mod selector
    overloads: tuple[Symbol, ...] = ()  # the bodiless signatures of a resolved implementation
    parts: tuple[FilePart, ...] = ()  # the files of a package
    alias: str = ""  # the trait-qualified name it was resolved by (``Error.Display.fmt``), if any

    @property
    def language(self) -> str:
        return self.selector.language

    @property
    def uri(self) -> str:
        """The canonical selector of what was resolved."""
        if not self.definitions:
            return self.mod_uri
        qualname = self.alias or self.definitions[0].qualname
        return uri_of(self.file_components, qualname, self.language) or self.selector.render()

    @property
    def mod_uri(self) -> str:
        return Selector.module(self.language, self.file_components).render()

    @property
    def start_line(self) -> int:
        return self.definitions[0].start_line if self.definitions else 1

    @property
    def end_line(self) -> int:
        return max(d.end_line for d in self.definitions) if self.definitions else len(self.lines)

    def text(self) -> str:
        """The source of the definition (decorators included), lines joined by ``"\\n"``."""
        return "\n".join(self.lines[self.start_line - 1 : self.end_line])


@attrs.frozen(kw_only=True)
class Unresolved:
    """Why a selector did not resolve: the envelope's error and what the caller can do next.

    ``candidates`` are selectors that do resolve (from an ambiguity); a use case turns them into actions
    with its own verb (``ast symbols`` / ``ast snippet``).
    """

    error: Error
    candidates: tuple[str, ...] = ()
    next_actions: tuple[str, ...] = ()

    def response(self, kind: str, verb: str) -> Response:
        actions = [act.ast(verb, c) for c in self.candidates[:TOP_ACTIONS]]
        return Response.failure(
            kind,
            self.error.code,
            self.error.message,
            error_data=self.error.data,
            next_actions=[*actions, *self.next_actions],
        )


@attrs.frozen(kw_only=True)
class SymbolsRequest:
    uri: str


@attrs.frozen(kw_only=True)
class SnippetRequest:
    uri: str


@attrs.frozen(kw_only=True)
class _FileSymbols:
    lines: tuple[str, ...]
    symbols: tuple[Symbol, ...]
    error: str  # why symbols could not be extracted, "" when they were
    digest: str  # SHA-256 of the file's bytes: the key of this entry and of its forms


@attrs.define
class _Node:
    symbol: Symbol
    children: list[_Node] = attrs.Factory(list)


# --------------------------------------------------------------------------------------------- helpers


def uri_of(file_components: Sequence[str], qualname: str = "", language: str = LANGUAGE) -> str | None:
    """The selector of a file (``qualname == ""``) or of a definition in it; None when not expressible."""
    try:
        if qualname:
            return Selector.definition(language, tuple(file_components), qualname).render()
        return Selector.module(language, tuple(file_components)).render()
    except ValueError:
        return None


def uri_for_hit(
    path: str, symbol: str, language: str, rules: Mapping[str, PathRules] = _DEFAULT_RULES
) -> str | None:
    """The ``sym://`` selector of a search hit: the file's for a module-level chunk, the definition's for a
    symbol chunk; None for a file of a language without rules (or not of its endings), or a path or name
    that is not made of identifiers (``my-file.ts``, ``impl Display for Deserializer``)."""
    row = rules.get(language)
    stem = row.stem(path) if row is not None else None
    return uri_of(stem, symbol, language) if stem is not None else None


def _json_size(value: Any) -> int:
    return utf8_size(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _split_lines(text: str) -> tuple[str, ...]:
    """Lines as Python's tokenizer counts them (``\\r\\n``, ``\\r``, ``\\n``), unlike ``str.splitlines``,
    which also breaks at form feeds and other characters the line numbers do not count."""
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = normal.split("\n")
    if normal.endswith("\n"):
        lines.pop()
    return tuple(lines)


def _range(start: int, end: int) -> dict[str, int]:
    return {"start_line": start, "end_line": end}


def _ends_with(parts: Sequence[str], tail: Sequence[str]) -> bool:
    return 0 < len(tail) <= len(parts) and tuple(parts[len(parts) - len(tail) :]) == tuple(tail)


def _components(parts: Sequence[str] | None, hint: Sequence[str]) -> tuple[str, ...]:
    """A file's (or package folder's) full path as selector components, or the hint that found it when the
    path has a component that is not a selector ``Component`` (``my dir/utils.py`` found by ``utils``)."""
    return tuple(parts) if parts and all(is_component(p) for p in parts) else tuple(hint)


def _is_group(definitions: Sequence[Symbol]) -> bool:
    """Accessors of one property, or the ``@overload`` signatures of one function and its implementation."""
    name = definitions[0].name
    accessors = {f"{name}.{a}" for a in _ACCESSORS}
    if all(any(d in accessors for d in s.decorators) for s in definitions[1:]):
        return True
    return all(
        any(d == "overload" or d.endswith(".overload") for d in s.decorators) for s in definitions[:-1]
    )


def _in_one_scope(found: Sequence[Symbol], symbols: Sequence[Symbol]) -> bool:
    """Whether definitions of one qualified name are all in one enclosing definition (the innermost of
    their parent's name around each), as an overload set's signatures or a property's accessors are."""
    scopes = set()
    for s in found:
        around = [
            o.start_line
            for o in symbols
            if o.qualname == s.parent and o.start_line <= s.start_line and s.end_line <= o.end_line
        ]
        scopes.add(max(around, default=0))
        if len(scopes) > 1:
            return False
    return True


def _is_accessor_pair(forms: Sequence[str]) -> bool:
    """A property's two accessors: one ``get`` and one ``set``."""
    return sorted(forms) == ["get", "set"]


def _trait_aliases(symbols: Sequence[Symbol]) -> dict[tuple[str, int, int], str]:
    """``Type.Trait`` for an ``impl Trait for Type`` block and ``Type.Trait.name`` for what it defines: the
    name that tells ``fmt`` of ``impl Display for Error`` from ``fmt`` of ``impl Debug for Error``."""
    out: dict[tuple[str, int, int], str] = {}
    for block in symbols:
        if block.kind is not SymbolKind.IMPL or not block.bases:
            continue
        target, trait = block.qualname.rsplit(" ", 1)[-1], block.bases[0]
        if not (is_identifier(target) and is_identifier(trait)):
            continue
        prefix = f"{target}.{trait}"
        out[_key(block)] = prefix
        for s in symbols:
            inside = block.start_line <= s.start_line and s.end_line <= block.end_line
            if inside and s.depth == block.depth + 1 and is_identifier(s.name):
                out[_key(s)] = f"{prefix}.{s.name}"
    return out


def _unique_aliases(found: Sequence[Symbol], aliases: Mapping[tuple[str, int, int], str]) -> dict[int, str]:
    """Of definitions sharing one qualified name, the trait-qualified names that tell them apart."""
    named = [aliases.get(_key(s), "") for s in found]
    return {i: a for i, a in enumerate(named) if a and named.count(a) == 1}


def _tree(symbols: Iterable[Symbol]) -> tuple[list[_Node], dict[tuple[str, int, int], _Node]]:
    """Definitions nested by containment: a child's parent is the innermost definition of its ``parent``
    qualname whose lines contain it (so two definitions of one name keep their own children), else the
    innermost definition whose lines contain it (a Rust method in its impl block)."""
    roots: list[_Node] = []
    nodes: dict[tuple[str, int, int], _Node] = {}
    by_qualname: dict[str, list[_Node]] = {}
    open_nodes: list[_Node] = []  # the definitions around the current one, outermost first
    for symbol in sorted(symbols, key=lambda s: (s.start_line, s.depth, -s.end_line)):
        node = _Node(symbol)
        while open_nodes and open_nodes[-1].symbol.end_line < symbol.start_line:
            open_nodes.pop()
        parents = [
            p
            for p in by_qualname.get(symbol.parent, [])
            if p.symbol.start_line <= symbol.start_line and symbol.end_line <= p.symbol.end_line
        ]
        around = [p for p in open_nodes if symbol.end_line <= p.symbol.end_line]
        if symbol.parent and parents:
            parents[-1].children.append(node)
        elif symbol.parent and around:
            around[-1].children.append(node)
        else:
            roots.append(node)  # top level, or an orphan the parser reported: shown, never lost
        by_qualname.setdefault(symbol.qualname, []).append(node)
        nodes[(symbol.qualname, symbol.start_line, symbol.end_line)] = node
        open_nodes.append(node)
    return roots, nodes


def _count(roots: Iterable[_Node]) -> int:
    stack, count = list(roots), 0
    while stack:
        count += 1
        stack.extend(stack.pop().children)
    return count


def _key(symbol: Symbol) -> tuple[str, int, int]:
    return (symbol.qualname, symbol.start_line, symbol.end_line)


def _not_found(message: str, data: Mapping[str, Any], actions: Sequence[str] = ()) -> Unresolved:
    return Unresolved(
        error=Error(code=ErrorCode.SYMBOL_NOT_FOUND, message=message, data=dict(data)),
        next_actions=tuple(actions),
    )


@attrs.frozen(kw_only=True)
class _Unit:
    """One candidate a selector path names: a file, or a package folder with its files."""

    path: str  # the file, or the folder of a package
    files: tuple[str, ...]
    parts: tuple[str, ...] | None  # the full path as components (no ending), None when not expressible

    @property
    def package(self) -> bool:
        return self.path not in self.files


# --------------------------------------------------------------------------------------------- resolver


class SymbolResolver:
    """Turns a ``sym://`` selector into a file and a definition, or into an error that says why not."""

    def __init__(
        self,
        *,
        reader: IndexReader,
        source: FileSource,
        parser: CodeParser,
        rules: Mapping[str, PathRules] | None = None,
        admit: Callable[[str], bool] | None = None,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        if cache_size < 1:
            raise ValueError("cache_size must be at least 1")
        self._reader = reader
        self._source = source
        self._parser = parser
        self._rules: Mapping[str, PathRules] = dict(rules or _DEFAULT_RULES)
        self.languages: frozenset[str] = frozenset(self._rules)
        self._admit = admit or (lambda _path: True)
        self._cache_size = cache_size
        self._cache: OrderedDict[str, _FileSymbols] = OrderedDict()
        self._forms_cache: OrderedDict[str, dict[tuple[str, int], str]] = OrderedDict()
        self._lock = threading.Lock()
        self.forms_parses = 0  # files parsed again for their forms (a counter tests read)

    # ----------------------------------------------------------------- public
    def module_of(self, path: str) -> tuple[str, tuple[str, ...]] | None:
        """The language and selector path components of a file this resolver reads, None for another file."""
        for language, row in self._rules.items():
            stem = row.stem(path)
            if stem is not None:
                return language, stem
        return None

    def uri_for_hit(self, path: str, symbol: str, language: str) -> str | None:
        """A search hit's selector, in every language this resolver reads (see the function)."""
        return uri_for_hit(path, symbol, language, self._rules)

    def resolve(self, uri: str) -> Resolved | Unresolved:
        selector = parse(uri, self.languages)
        if isinstance(selector, SelectorError):
            return Unresolved(error=selector.to_error())
        try:
            return self._resolve(selector)
        except OutsideSegment as exc:
            return Unresolved(
                error=Error(
                    code=ErrorCode.PATH_OUTSIDE_SEGMENT,
                    message=f"{selector.render()} names a file outside the segment: {exc}",
                    data={"sym": selector.render()},
                )
            )
        except FileRefused as exc:
            return Unresolved(
                error=Error(
                    code=exc.code,
                    message=f"{selector.render()} cannot be read: {exc}",
                    data={"sym": selector.render(), **exc.data},
                )
            )

    # ----------------------------------------------------------------- files
    def _present(self, path: str, indexed: bool) -> bool | None:
        """True when the file exists now (a symlink out of the segment counts: reading it reports where it
        points), None when it exists but the indexer would leave it out, False when it does not exist."""
        try:
            if self._source.stat(path) is None:
                return False
        except OutsideSegment:
            return True
        return True if indexed or self._reader.file(path) is not None or self._admit(path) else None

    def _exact(self, names: Iterable[str], refused: list[str]) -> list[_Unit]:
        found = []
        for name in names:
            present = self._present(name, indexed=False)
            if present:
                found.append(_Unit(path=name, files=(name,), parts=None))
            elif present is None:
                refused.append(name)
        return found

    def _match(self, rules: PathRules, hint: tuple[str, ...]) -> tuple[list[_Unit], list[str]]:
        """The candidates of the first tier that has any, and the files named exactly that exist but the
        indexer would leave out."""
        base = "/".join(hint)
        refused: list[str] = []
        tier1 = self._exact((base + ext for ext in rules.extensions), refused)
        if tier1:
            return self._with_parts(rules, tier1), []
        tier2 = self._exact(
            (f"{base}/{name}{ext}" for name in rules.folder_files for ext in rules.extensions), refused
        )
        if tier2:
            return self._with_parts(rules, tier2), []
        folder: list[str] = []  # tier 2 of a package language: the files directly in the folder
        files: list[str] = []  # tier 3: files ending with the hint
        packages: dict[str, list[str]] = {}  # tier 3: package folders ending with the hint
        for stored in self._reader.files():
            path = stored.path
            if stored.language != rules.language:
                continue
            parts = rules.stem(path)
            if parts is None:
                continue
            folder_parts = parts[:-1]
            if rules.package_folders and folder_parts == hint:
                folder.append(path)
            elif _ends_with(parts, hint) or (
                parts[-1] in rules.folder_files and _ends_with(folder_parts, hint)
            ):
                files.append(path)
            elif rules.package_folders and _ends_with(folder_parts, hint):
                packages.setdefault("/".join(folder_parts), []).append(path)
        present = [p for p in folder if self._present(p, indexed=True)]
        if present:
            return [_Unit(path=base, files=tuple(sorted(present)), parts=hint)], refused
        units = [
            _Unit(path=p, files=(p,), parts=rules.stem(p)) for p in files if self._present(p, indexed=True)
        ]
        for name, members in packages.items():
            kept = tuple(sorted(p for p in members if self._present(p, indexed=True)))
            if kept:
                units.append(_Unit(path=name, files=kept, parts=tuple(name.split("/"))))
        return sorted(units, key=lambda u: u.path), refused

    @staticmethod
    def _with_parts(rules: PathRules, units: list[_Unit]) -> list[_Unit]:
        return [attrs.evolve(u, parts=rules.stem(u.path)) for u in units]

    def _load(self, path: str) -> _FileSymbols | Unresolved:
        """Lines and symbols of a file as it is now; raises OutsideSegment or FileRefused."""
        try:
            data = self._source.read_admitted(path)
        except (FileNotFoundError, NotADirectoryError):
            return _not_found(
                f"{path} no longer exists", {"file_rel": path, "reason": "missing"}, [act.index()]
            )
        except OSError as exc:
            return _not_found(
                f"{path} could not be read: {exc.strerror or exc}",
                {"file_rel": path, "reason": "unreadable"},
            )
        digest = hashlib.sha256(data).hexdigest()
        with self._lock:
            cached = self._cache.get(digest)
            if cached is not None:
                self._cache.move_to_end(digest)
                return cached
        # As the indexer decodes it; a UTF-8 byte order mark is not part of the first line.
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        stored = self._reader.file(path)
        if stored is not None and stored.sha256 == digest:
            symbols, error = tuple(self._reader.symbols(path)), stored.parse_error
        else:
            try:
                parsed = self._parser.parse(path, text)
                symbols, error = parsed.symbols, parsed.error
            except (
                SyntaxError,
                ValueError,
                RecursionError,
                MemoryError,
            ) as exc:  # a parser that lets one out
                symbols, error = (), f"could not parse ({type(exc).__name__}: {exc})"
        # A tree-sitter parse with syntax errors keeps the definitions it recovered: those resolve.
        entry = _FileSymbols(
            lines=_split_lines(text), symbols=symbols, error="" if symbols else error, digest=digest
        )
        with self._lock:
            self._cache[digest] = entry
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return entry

    def _forms(self, path: str, loaded: _FileSymbols) -> dict[tuple[str, int], str]:
        """What the file's tree says of its callables (ParsedFile.forms: "signature" for one without a body,
        "get" / "set" for an accessor), by (qualname, def_line). The index does not store them: the file is
        parsed again, only when a selector finds its name defined more than once, and once per content (kept
        in an LRU keyed by the file's SHA-256, as its symbols are). {} when it does not parse (every
        definition then counts as one with a body: the group fails closed as AMBIGUOUS_SYMBOL)."""
        with self._lock:
            cached = self._forms_cache.get(loaded.digest)
            if cached is not None:
                self._forms_cache.move_to_end(loaded.digest)
                return cached
        try:
            parsed = self._parser.parse(path, "\n".join(loaded.lines) + "\n")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            forms: dict[tuple[str, int], str] = {}
        else:
            forms = {(qualname, line): form for qualname, line, form in parsed.forms}
        with self._lock:
            self.forms_parses += 1
            self._forms_cache[loaded.digest] = forms
            while len(self._forms_cache) > self._cache_size:
                self._forms_cache.popitem(last=False)
        return forms

    def _load_parsed(self, path: str, sym: str) -> _FileSymbols | Unresolved:
        loaded = self._load(path)
        if isinstance(loaded, _FileSymbols) and loaded.error:
            return _not_found(
                f"{path} could not be parsed, so {sym} cannot be resolved: {loaded.error}",
                {"sym": sym, "file_rel": path, "reason": "parse_error", "parse_error": loaded.error},
                [act.get_path(path)],
            )
        return loaded

    # ----------------------------------------------------------------- selectors
    def _resolve(self, selector: Selector) -> Resolved | Unresolved:
        sym = selector.render()
        hint = selector.path
        rules = self._rules[selector.language]
        units, refused = self._match(rules, hint)
        if not units:
            for path in refused:  # reading it raises FileRefused, saying why the indexer leaves it out
                self._source.read_admitted(path)
            base = "/".join(hint)
            looked = [base + rules.extensions[0]]
            looked += [f"{base}/{name}{rules.extensions[0]}" for name in rules.folder_files]
            if rules.package_folders:
                looked.append(f"the files of {base}/")
            return _not_found(
                f"no {selector.language} file matches {base!r} for {sym}: looked for {', '.join(looked)} "
                "and indexed files ending in them",
                {"sym": sym, "path": base, "reason": "no_file"},
                [act.search(hint[-1]), act.index()],
            )
        if selector.kind is SelectorKind.MOD:
            if len(units) > 1:
                return self._ambiguous_files(sym, selector.language, hint, units)
            return self._module(selector, units[0])
        files = [f for unit in units for f in unit.files]
        if len(files) == 1:
            return self._definition(selector, files[0])
        return self._narrow(selector, files)

    def _module(self, selector: Selector, unit: _Unit) -> Resolved | Unresolved:
        sym = selector.render()
        if not unit.package:
            loaded = self._load_parsed(unit.path, sym)
            if isinstance(loaded, Unresolved):
                return loaded
            return Resolved(
                selector=selector,
                path=unit.path,
                file_components=_components(unit.parts, selector.path),
                lines=loaded.lines,
                symbols=loaded.symbols,
            )
        parts = []
        for path in unit.files:
            loaded = self._load(path)
            if isinstance(loaded, Unresolved):
                continue  # gone since the index was read: the package is what is left
            stem = self._rules[selector.language].stem(path)
            hint = (*selector.path, path.rsplit("/", 1)[-1].split(".", 1)[0])
            parts.append(
                FilePart(
                    path=path,
                    file_components=_components(stem, hint),
                    lines=loaded.lines,
                    symbols=loaded.symbols,
                )
            )
        return Resolved(
            selector=selector,
            path=unit.path,
            file_components=_components(unit.parts, selector.path),
            lines=(),
            symbols=(),
            parts=tuple(parts),
        )

    def _file_components(self, language: str, path: str, hint: Sequence[str]) -> tuple[str, ...]:
        return _components(self._rules[language].stem(path), hint)

    def _ambiguous_files(
        self, sym: str, language: str, hint: tuple[str, ...], units: Sequence[_Unit]
    ) -> Unresolved:
        candidates = [
            {
                "sym": uri_of(_components(u.parts, hint), "", language) or sym,
                "file_rel": u.path + ("/" if u.package else ""),
                "kind": SelectorKind.MOD.value,
            }
            for u in units
        ]
        return _ambiguous(sym, f"{sym} matches {len(units)} files", candidates)

    def _narrow(self, selector: Selector, files: Sequence[str]) -> Resolved | Unresolved:
        sym, qualname, language = selector.render(), selector.qualname, selector.language
        defining = []
        members: list[tuple[str, Symbol]] = []
        for path in files:
            try:
                loaded = self._load(path)
            except (OutsideSegment, FileRefused):
                continue  # it cannot be read, so it cannot be the one
            if not isinstance(loaded, _FileSymbols):
                continue
            if any(s.qualname == qualname for s in loaded.symbols):
                defining.append(path)
            elif not defining:
                members += [(path, s) for s in _members_named(loaded.symbols, selector)]
        if len(defining) == 1:
            return self._definition(selector, defining[0])
        if not defining:
            if members:
                return self._members(selector, members)
            shown = ", ".join(files[:MAX_CANDIDATES])
            return _not_found(
                f"{qualname} is not defined in any of the {len(files)} files matching "
                f"{selector.file_hint!r}: {shown}",
                {
                    "sym": sym,
                    "qualname": qualname,
                    "files": list(files[:MAX_CANDIDATES]),
                    "reason": "no_symbol",
                },
                [
                    act.symbols(
                        uri_of(self._file_components(language, f, selector.path), "", language) or sym
                    )
                    for f in files[:TOP_ACTIONS]
                ],
            )
        candidates = [
            {
                "sym": uri_of(self._file_components(language, f, selector.path), qualname, language) or sym,
                "file_rel": f,
                "kind": SelectorKind.TYPE.value,
            }
            for f in defining
        ]
        return _ambiguous(
            sym, f"{qualname} is defined in {len(defining)} files matching the path", candidates
        )

    def _members(self, selector: Selector, members: Sequence[tuple[str, Symbol]]) -> Unresolved:
        """A bare name that only members have (Go ``Router.Serve`` and ``Logger.Serve`` for ``Serve``): the
        members are the candidates, never a guess, even when there is one."""
        sym, language = selector.render(), selector.language
        candidates = [
            {
                "sym": uri_of(self._file_components(language, path, selector.path), s.qualname, language)
                or sym,
                "file_rel": path,
                "kind": SelectorKind.TYPE.value,
                "qualname": s.qualname,
                "range": _range(s.start_line, s.end_line),
            }
            for path, s in members
        ]
        name = selector.symbol
        if len(candidates) == 1:
            only = candidates[0]
            return _not_found(
                f"{name} is not a top-level definition in {only['file_rel']}; {only['qualname']} is: "
                f"{only['sym']}",
                {"sym": sym, "qualname": name, "reason": "member", "candidates": candidates},
                [act.snippet(str(only["sym"]))],
            )
        unresolved = _ambiguous(
            sym,
            f"{name} is not a top-level definition; {len(candidates)} members are named so: "
            + ", ".join(str(c["qualname"]) for c in candidates[:TOP_ACTIONS]),
            candidates,
        )
        return unresolved

    def _definition(self, selector: Selector, path: str) -> Resolved | Unresolved:
        sym, qualname, language = selector.render(), selector.qualname, selector.language
        loaded = self._load_parsed(path, sym)
        if isinstance(loaded, Unresolved):
            return loaded
        components = self._file_components(language, path, selector.path)
        mod_uri = uri_of(components, "", language) or sym
        aliases = _trait_aliases(loaded.symbols)
        found = tuple(s for s in loaded.symbols if s.qualname == qualname)
        alias = ""
        if not found:
            found = tuple(s for s in loaded.symbols if aliases.get(_key(s)) == qualname)
            alias = qualname if found else ""
        if not found:
            named = _members_named(loaded.symbols, selector)
            if named:
                return self._members(selector, [(path, s) for s in named])
            actions = [act.symbols(mod_uri)]
            # The deepest enclosing definition that does exist: its members are what the caller can pick.
            parts = qualname.split(".")
            for depth in range(len(parts) - 1, 0, -1):
                outer = ".".join(parts[:depth])
                if any(s.qualname == outer for s in loaded.symbols):
                    actions.insert(0, act.symbols(uri_of(components, outer, language) or sym))
                    break
            return _not_found(
                f"{qualname} is not defined in {path} (exact qualified name, e.g. Class.method)",
                {"sym": sym, "file_rel": path, "qualname": qualname, "reason": "no_symbol"},
                actions,
            )
        overloads: tuple[Symbol, ...] = ()
        if len(found) > 1 and not _is_group(found) and not _in_one_scope(found, loaded.symbols):
            # in different functions (`const loop = ...` in several; the `next() {...}` of each
            # `[Symbol.iterator]()`): no overloads nor accessors of one property, nothing to parse again
            return self._duplicates(sym, path, components, qualname, language, found, aliases)
        if len(found) > 1 and not _is_group(found):
            forms = self._forms(path, loaded)
            form = [forms.get((s.qualname, s.def_line), "") for s in found]
            bodies = [s for s, f in zip(found, form, strict=True) if f != "signature"]
            callables = all(s.kind.is_callable for s in found)
            overload_set = self._rules[language].overload_signatures and callables
            if _is_accessor_pair(form):
                pass  # a property's `get` and `set`: the whole group, as a Python property's accessors
            elif overload_set and len(bodies) == 1 and bodies[0] is found[-1]:
                found, overloads = (found[-1],), found[:-1]  # the implementation
            elif overload_set and not bodies:
                overloads = ()  # signatures only (a declaration file): the whole group, as in Python
            else:
                return self._duplicates(sym, path, components, qualname, language, found, aliases)
        return Resolved(
            selector=selector,
            path=path,
            file_components=components,
            lines=loaded.lines,
            symbols=loaded.symbols,
            definitions=found,
            overloads=overloads,
            alias=alias,
        )

    @staticmethod
    def _duplicates(
        sym: str,
        path: str,
        components: Sequence[str],
        qualname: str,
        language: str,
        found: Sequence[Symbol],
        aliases: Mapping[tuple[str, int, int], str],
    ) -> Unresolved:
        """One name defined several times in a file: the candidates that a trait names (Rust
        ``Error#Display.fmt``) get their own selector; the others are reached by their lines."""
        unique = _unique_aliases(found, aliases)
        candidates = [
            {
                "sym": uri_of(components, unique.get(i, qualname), language) or sym,
                "file_rel": path,
                "kind": SelectorKind.TYPE.value,
                "range": _range(s.start_line, s.end_line),
            }
            for i, s in enumerate(found)
        ]
        unresolved = _ambiguous(sym, f"{qualname} is defined {len(found)} times in {path}", candidates)
        return attrs.evolve(
            unresolved,
            candidates=tuple(uri_of(components, a, language) or sym for a in unique.values()),
            next_actions=tuple(
                act.get_path(path, s.start_line, s.end_line) for i, s in enumerate(found) if i not in unique
            ),
        )


def _members_named(symbols: Iterable[Symbol], selector: Selector) -> list[Symbol]:
    """For a bare ``type/<file>/<Name>`` that is no top-level name: the members called ``Name``."""
    if selector.member:
        return []
    return [s for s in symbols if s.parent and s.name == selector.symbol]


def _ambiguous(sym: str, message: str, candidates: list[dict[str, Any]]) -> Unresolved:
    candidates = sorted(candidates, key=lambda c: (c["file_rel"], c.get("range", {}).get("start_line", 0)))
    shown = candidates[:MAX_CANDIDATES]
    data: dict[str, Any] = {"sym": sym, "candidates": shown}
    if len(candidates) > len(shown):
        data["omitted"] = len(candidates) - len(shown)
    listed = ", ".join(
        c["file_rel"] + (f":{c['range']['start_line']}-{c['range']['end_line']}" if "range" in c else "")
        for c in shown[:TOP_ACTIONS]
    )
    distinct = len({c["sym"] for c in shown}) == len(shown)
    return Unresolved(
        error=Error(
            code=ErrorCode.AMBIGUOUS_SYMBOL,
            message=f"{message} ({listed}{', ...' if len(shown) > TOP_ACTIONS else ''}); "
            + (
                "pick one of the candidates' selectors"
                if distinct
                else "no selector tells them apart: read each by its lines (ctx get --path <file>:<start>-<end>)"
            ),
            data=data,
        ),
        candidates=tuple(dict.fromkeys(c["sym"] for c in shown)),
    )


# --------------------------------------------------------------------------------------------- use cases


def _selector_names(symbols: Sequence[Symbol]) -> dict[tuple[str, int, int], str]:
    """The name each definition's selector uses: its qualified name, or, for an impl block and when the file
    defines that name more than once, the trait-qualified one (Rust ``Error.Display``, ``Error.Display.fmt``)."""
    aliases = _trait_aliases(symbols)
    by_name: dict[str, list[Symbol]] = {}
    for s in symbols:
        by_name.setdefault(s.qualname, []).append(s)
    # An impl block's own name (``impl Display for Error``) is no selector; its trait-qualified one is.
    names = {key: alias for key, alias in aliases.items() if " " in key[0]}
    for found in by_name.values():
        if len(found) > 1:
            for i, alias in _unique_aliases(found, aliases).items():
                names[_key(found[i])] = alias
    return names


def _entry(
    node: _Node,
    components: Sequence[str],
    language: str,
    path: str = "",
    names: Mapping[tuple[str, int, int], str] | None = None,
) -> dict[str, Any]:
    s = node.symbol
    entry: dict[str, Any] = {
        "name": s.name,
        "kind": s.kind.value,
        "signature": s.signature,
        "doc": s.first_doc_line,
        "range": _range(s.start_line, s.end_line),
        "uri": uri_of(components, (names or {}).get(_key(s), s.qualname), language),
        "children": [],
    }
    if path:  # an entry of a package skeleton says which file it is in
        entry["path"] = path
    return entry


@attrs.frozen
class _Root:
    node: _Node
    components: tuple[str, ...]
    path: str = ""
    names: Mapping[tuple[str, int, int], str] = attrs.field(factory=dict)


def _descendants(nodes: Iterable[_Node]) -> set[int]:
    seen: set[int] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        seen.add(id(node))
        stack.extend(node.children)
    return seen


class SymbolsUseCase:
    """L1: the skeleton of a file, a package or one definition (``ast symbols``)."""

    def __init__(self, resolver: SymbolResolver, policy: BudgetPolicy | None = None) -> None:
        self._resolver = resolver
        self._policy = policy or BudgetPolicy()

    def execute(self, request: SymbolsRequest) -> Response:
        resolved = self._resolver.resolve(request.uri)
        if isinstance(resolved, Unresolved):
            return resolved.response(SKELETON_KIND, "symbols")
        language = resolved.language
        data: dict[str, Any] = {"uri": resolved.uri, "path": resolved.path}
        if resolved.parts:
            data["files"] = [p.path for p in resolved.parts]
            roots = [
                _Root(node, p.file_components, p.path) for p in resolved.parts for node in _tree(p.symbols)[0]
            ]
        else:
            tree_roots, nodes = _tree(resolved.symbols)
            components = resolved.file_components
            names = _selector_names(resolved.symbols)
            roots = [_Root(node, components, names=names) for node in tree_roots]
        if resolved.definitions:
            first = resolved.definitions[0]
            data.update(
                name=first.name,
                kind=first.kind.value,
                signature=first.signature,
                doc=first.first_doc_line,
                range=_range(resolved.start_line, resolved.end_line),
            )
            if len(resolved.definitions) > 1:
                data["definitions"] = [_range(d.start_line, d.end_line) for d in resolved.definitions]
            if resolved.overloads:
                data["overloads"] = [_range(d.start_line, d.end_line) for d in resolved.overloads]
            inside = [child for d in resolved.definitions for child in nodes[_key(d)].children]
            # Members declared outside the definition: Go methods, Rust impl blocks, `X.prototype.m`.
            seen = _descendants(inside)
            outside = [
                n
                for n in nodes.values()
                if n.symbol.parent == first.qualname
                and id(n) not in seen
                and all(n is not nodes[_key(d)] for d in resolved.definitions)
            ]
            roots = [_Root(node, components, names=names) for node in [*inside, *outside]]
        data["symbols"] = []
        data["omitted"] = _count(r.node for r in roots)  # the largest it can be, so its digits are paid for
        symbols, omitted, cut = self._fit(roots, language, self._policy.max_bytes_total - _json_size(data))
        data["symbols"] = symbols
        data["omitted"] = omitted

        actions = [act.snippet(e["uri"]) for e in symbols[:TOP_ACTIONS] if e["uri"]]
        actions += [act.symbols(uri) for uri in cut[:TOP_ACTIONS]]
        if resolved.parts:
            actions += [
                act.symbols(uri)
                for p in resolved.parts[:TOP_ACTIONS]
                if (uri := uri_of(p.file_components, "", language))
            ]
        else:
            actions.append(act.get_path(resolved.path))
        refs = (Ref(kind="definition", uri=resolved.mod_uri),) if resolved.definitions else ()
        return Response.success(SKELETON_KIND, data, refs=refs, next_actions=list(dict.fromkeys(actions)))

    @staticmethod
    def _fit(roots: Sequence[_Root], language: str, room: int) -> tuple[list[dict[str, Any]], int, list[str]]:
        """Entries in breadth-first order while they fit in ``room`` bytes; the rest are counted.

        Returns the kept entries (nested), how many were left out, and the selectors of kept entries whose
        members were left out (where ``ast symbols`` shows more).
        """
        top: list[dict[str, Any]] = []
        queue: deque[tuple[_Node, _Root, list[dict[str, Any]], dict[str, Any] | None]] = deque(
            (root.node, root, top, None) for root in roots
        )
        used = kept = 0
        cut: list[str] = []
        while queue:
            node, root, siblings, parent = queue.popleft()
            entry = _entry(node, root.components, language, root.path if parent is None else "", root.names)
            cost = _json_size(entry) + (1 if siblings else 0)  # "," before every entry but the first
            if used + cost > room:
                # A prefix in breadth-first order: this entry and everything after it are left out.
                for _node, _root, _siblings, left_parent in [(node, root, siblings, parent), *queue]:
                    if left_parent is not None and left_parent["uri"] and left_parent["uri"] not in cut:
                        cut.append(left_parent["uri"])
                break
            used += cost
            kept += 1
            siblings.append(entry)
            queue.extend((child, root, entry["children"], entry) for child in node.children)
        return top, _count(r.node for r in roots) - kept, cut


class SnippetUseCase:
    """L2: the source of one definition, within the snippet budget (``ast snippet``)."""

    def __init__(self, resolver: SymbolResolver, policy: BudgetPolicy | None = None) -> None:
        self._resolver = resolver
        self._policy = policy or BudgetPolicy()

    def execute(self, request: SnippetRequest) -> Response:
        selector = parse(request.uri, self._resolver.languages)
        if isinstance(selector, Selector) and selector.kind is SelectorKind.MOD:
            return Response.failure(
                SNIPPET_KIND,
                ErrorCode.INVALID_ARGUMENT,
                f"{selector.render()} names a file; a snippet is of one definition: "
                "use ast symbols for the file's skeleton, then ast snippet on a definition",
                error_data={"sym": selector.render()},
                next_actions=[act.symbols(selector.render())],
            )
        resolved = self._resolver.resolve(request.uri)
        if isinstance(resolved, Unresolved):
            return resolved.response(SNIPPET_KIND, "snippet")

        _roots, nodes = _tree(resolved.symbols)
        children = [child.symbol for d in resolved.definitions for child in nodes[_key(d)].children]
        start, end = resolved.start_line, resolved.end_line
        cut = cut_snippet(self._policy, resolved.text())
        first = resolved.definitions[0]
        data: dict[str, Any] = {
            "uri": resolved.uri,
            "path": resolved.path,
            "range": _range(start, end),
            "content": cut.text,
            "signature": first.signature,
            "children": list(dict.fromkeys(c.name for c in children)),
            "truncated": cut.truncated,
            "hidden_lines": cut.hidden_lines,
            "bytes": cut.size_bytes,
        }
        if len(resolved.definitions) > 1:
            data["definitions"] = [_range(d.start_line, d.end_line) for d in resolved.definitions]
        if resolved.overloads:
            data["overloads"] = [_range(d.start_line, d.end_line) for d in resolved.overloads]
        whole = act.get_path(resolved.path, start, end)
        size = _json_size(data)
        if size > self._policy.max_bytes_total:
            return Response.failure(
                SNIPPET_KIND,
                ErrorCode.BUDGET_EXCEEDED,
                f"the snippet of {resolved.uri} takes {size} bytes, over the per-command limit of "
                f"{self._policy.max_bytes_total}",
                error_data={
                    "sym": resolved.uri,
                    "file_rel": resolved.path,
                    "range": _range(start, end),
                    "bytes": size,
                    "limit": self._policy.max_bytes_total,
                },
                next_actions=[whole],
            )
        child_uris = [uri_of(resolved.file_components, c.qualname, resolved.language) for c in children]
        actions = [act.snippet(u) for u in dict.fromkeys(u for u in child_uris if u)][:TOP_ACTIONS]
        if cut.truncated:
            actions.append(whole)
        return Response.success(
            SNIPPET_KIND,
            data,
            refs=[Ref(kind="definition", uri=resolved.mod_uri)],
            next_actions=actions,
        )
