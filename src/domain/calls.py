"""The call graph: call sites and imports as the parser records them, and the rules that resolve a call to
the definitions it may reach (pure: the application hands in the symbol table's candidates).

An ``Edge`` is one call site or one import of a file. A call keeps the callee as written (``self.foo``,
``os.path.join``, ``pkg.Func``), the called name, its position and its enclosing definition; an import keeps
the module as written, the member it takes and the name it binds (its alias).

A call resolves in this order, and the first rule that finds a definition decides:

1. ``import``: the callee's first name is bound by an import of the file; the module and the rest of the
   callee name a definition (``from .util import load as ld; ld()``, ``import os.path; os.path.join()``,
   Go ``pkg.Func()``). A name an import binds that reaches nothing in the segment is unresolved (a call into
   another library), never matched by name.
   A module that does not define the name but imports it (``concurrent/futures/__init__.py``:
   ``from ._base import Future``; ``from .futures import *``) passes it on: the import is followed, up to
   ``MAX_REEXPORT_DEPTH`` modules. An absolute dotted module (``a.b``) must end the definition's module path
   (``src/a/b.py``); a path (Go's ``example.com/m/util``) may share only its last folders.
   A module-level variable of the module passes on its class's members (``from ctypes import cdll;
   cdll.LoadLibrary()`` with ``cdll = LibraryLoader(CDLL)`` in ctypes), and a module-level name for a class
   is that class (``class Task(futures._PyFuture)`` with ``_PyFuture = Future``; in the file itself too).
2. ``exact``, the enclosing class: ``self.m()``, ``this.m()``, ``cls.m()``, ``metacls.m()``, ``super().m()`` and
   ``super.m()`` (TypeScript, JavaScript, Java) in a method of ``C`` reach ``C.m``, or the first base (depth first) that defines ``m``. A base is the
   class its name reaches in the file that declares it (through that file's imports, else its own module,
   else the one class of that name in the segment); a base that reaches nothing in the segment ends the
   walk there, never guessed by name.
3. ``exact``, the receiver's type where the parser knew it (an annotated parameter, ``Optional[C]``,
   ``x = C()``, ``self.x = C()``, a module-level or enclosing function's variable; ``A|B`` for several):
   ``x.m()`` reaches ``C.m`` or a base's. A type ``f()`` (``x = self.make()``, ``x = y.load()`` written
   ``Y.load()`` once y's class is known, ``make().m()``; ``x = a or b()`` and ``x = a if c else b()`` keep
   either side's; ``p, u = f()`` types ``p`` as ``f()[0]``, the first item of the tuple ``f`` returns or its
   annotation names) is what the definitions the call resolves to
   (``exact``/``import`` only) return: their RETURN edges (an annotation, ``return C(...)``,
   ``return self``/``cls(...)``, or another call, followed up to ``MAX_RETURN_DEPTH``), each read as the
   returning file reads it; ``return self`` and ``-> Self`` give the class the method was looked up on
   (``with PollSelector() as s``: a PollSelector, though ``__enter__`` is BaseSelector's). A class named as the receiver (``Base.m(self)``, ``mod.Klass.m()``) reaches
   its member or a base's. ``self.response_class()`` with ``response_class = HTTPResponse`` in the class
   body (or a base's) makes an ``HTTPResponse``, unless a method also assigns ``self.response_class``.
4. ``exact``, module-level names: a bare ``f()`` reaches a function or class of the same module (a Go
   package is one module), or a function nested in the enclosing one; ``import``: a bare name a star import
   of the file provides (``from .x import *``).
5. ``name``: every callable or class with the called name, all kept.
6. ``unresolved``: nothing with that name in the segment; reported, never dropped.

A reference (``EdgeKind.REFERENCE``: a function or a class read as a value, ``callback=self.on_done``,
``isinstance(x, Foo)``) and a doc comment's link (``EdgeKind.DOC``: ``{@link of}``) resolve the same way, and
count only when they reach functions (a reference: or classes) ``exact``ly or through an ``import``.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from .code import Symbol, SymbolKind
from .ts_parameters import parameter_types, type_parameter_bound

_PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
_ECMASCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


class EdgeKind(enum.StrEnum):
    CALL = "call"
    IMPORT = "import"
    REFERENCE = "ref"  # a function read as a value (`callback=self.on_done`): resolved like a call
    DOC = "doc"  # a name a doc comment links to (`{@link of}`): resolved like a reference
    RETURN = "return"  # what a function returns: `caller` is the function, `text` the class as written
    # what a call passes, where its class is known (Python): at the call's position, `name` the called
    # name, `text` the class as a receiver type is written, `alias` the position ("0") or keyword ("=key")
    ARGUMENT = "arg"
    # where a local definition is visible, when its file defines its qualified name more than once
    # (TypeScript's `const reducer = ...` in each test's callback): `caller` the qualified name, `line` the
    # definition's `def_line`, `text` the lines of the block around it (`"131-160"`); no call
    SCOPE = "scope"


class Resolution(enum.StrEnum):
    EXACT = "exact"
    IMPORT = "import"
    NAME = "name"
    UNRESOLVED = "unresolved"


@attrs.frozen(kw_only=True)
class Edge:
    kind: EdgeKind
    caller: str  # qualified name of the enclosing definition, "" at module level
    line: int  # 1-based
    column: int  # 0-based column of `name` (a call) or of the statement (an import)
    name: str  # a call: the called name; an import: the member it takes ("" for a whole module)
    text: str  # a call: the callee as written; an import: the module as written (`.util`, `./x`, `fmt`)
    alias: str = ""  # an import: the name it binds; a call: the receiver's type when known, else ""

    def row(self) -> EdgeRow:
        """(kind, caller, line, column, name, text, alias): how stores keep it and workers send it."""
        return (self.kind.value, self.caller, self.line, self.column, self.name, self.text, self.alias)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return edge_from_row, (self.row(),)


EdgeRow = tuple[str, str, int, int, str, str, str]
_EDGE_KINDS = {k.value: k for k in EdgeKind}  # a dict look-up: EdgeKind(value) costs 7 us


def edge_from_row(row: Sequence[Any]) -> Edge:
    """(kind, caller, line, column, name, text, alias) -> Edge."""
    return Edge(kind=_EDGE_KINDS[row[0]], caller=row[1], line=row[2], column=row[3], name=row[4], text=row[5],
                alias=row[6])  # fmt: skip


@attrs.frozen(kw_only=True)
class Candidate:
    """A definition a call may reach, as the symbol table has it."""

    path: str
    qualname: str
    kind: SymbolKind
    module: tuple[str, ...]  # the module it is in: path components without ending (a Go folder)
    bases: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class FileContext:
    """What resolution needs of the calling file."""

    path: str
    module: tuple[str, ...]
    package: tuple[str, ...]  # where a relative import starts (a Python file's folder)
    imports: Mapping[str, Edge]  # bound name -> the import that binds it
    stars: tuple[Edge, ...] = ()  # `from m import *`: imports that bind no one name
    self_names: frozenset[str] = frozenset({"self", "cls", "this", "mcs", "mcls", "metacls"})


@attrs.frozen(kw_only=True)
class Resolved:
    resolution: Resolution
    targets: tuple[Candidate, ...] = ()
    # why a call is unresolved: "external" (an import outside the segment), "local" (a parameter or a
    # variable of the calling scope), "unknown"
    reason: str = ""


Lookup = Callable[[str], Sequence[Candidate]]  # definitions with this name, anywhere in the segment
# what the functions of a name return: (path, qualified name) -> classes as written (RETURN edges' texts)
Returns = Callable[[str], Mapping[tuple[str, str], Sequence[str]]]
ContextOf = Callable[[str], "FileContext | None"]  # the context of another file of the segment, by path
# the imports of the segment that bind a name or import `*`: (the importing file's module, its path, the import)
Importers = Callable[[str], Sequence[tuple[tuple[str, ...], str, Edge]]]
# the calls of a name that pass an argument of a known class at one of these aliases (ARGUMENT edges'
# "0", "=key"): (path, the call, its ARGUMENT edges there)
Arguments = Callable[[str, Sequence[str]], Sequence[tuple[str, Edge, Sequence[Edge]]]]


@attrs.frozen(kw_only=True)
class Segment:
    """What resolution may look up beyond the calling file: definitions by name, and, when the caller can
    give them, other files' contexts (a base class named in another file) and the imports that pass a name
    on (re-exports). Without the last two, bases are found by name and re-exports are not followed."""

    lookup: Lookup
    context_of: ContextOf | None = None
    importers: Importers | None = None
    returns: Returns | None = None
    # the module-level `import m as name` / `import name` of the segment binding a name (a module's
    # attribute that is another module: `os.path` of `import posixpath as path` in os.py)
    module_binders: Importers | None = None
    # typing a parameter by what its calls pass (``PARAMETER``): the calls, and a definition's symbol
    arguments: Arguments | None = None
    symbol_of: Callable[[str, str], Symbol | None] | None = None
    # the calls of a name in a file (its CALL edges): the call an object literal is passed to (``ARGUMENT``)
    calls_in: Callable[[str, str], Sequence[Edge]] | None = None
    # what was worked out once for this segment (re-exports, bases): the answers do not depend on the call
    memo: dict[tuple[object, ...], Any] = attrs.field(factory=dict, eq=False, repr=False)


_CALLABLE = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.MACRO, SymbolKind.CLASS,
                       SymbolKind.STRUCT})  # fmt: skip
_CONTAINERS = frozenset(k for k in SymbolKind if k.is_container)
_SEPARATORS = re.compile(r"\?\.|::|->|\.")
_GENERIC = re.compile(r"<[^<>()]*>")
_NOT_NAME = re.compile(r"[^\w$]")
MAX_BASE_DEPTH = 6
MAX_REEXPORT_DEPTH = 3
MAX_RETURN_DEPTH = 2  # `x = f()` where f returns `g()`: how many returns are followed
ELEMENT = -1  # `_returned_classes`'s item: an element of the array the call returns (TypeScript's `Query[]`)
_FUNCTIONS = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD})
_SURE = frozenset({Resolution.EXACT, Resolution.IMPORT})
LOCAL = "(local)"  # a bare call's receiver when the calling scope binds the name (a parameter, a variable)
# a receiver that is an untyped parameter (Python): `(param)F:p`, parameter `p` of function `F`, typed by
# what the calls of `F` pass there (their ARGUMENT edges), one level deep
PARAMETER = "(param)"
MAX_PARAMETER_CLASSES = 3  # a parameter the calls pass more classes than this stays unknown
# TypeScript: the base of an object literal's method when the literal is argument `i` of a call and nothing else
# types it: `(arg)subscribe@12:4#0`, the call whose callee's name is at line 12, column 4 of the method's file.
# The literal is typed by the parameter it is passed as, which the callee's definition declares: looked up when
# asked (``_argument_classes``)
ARGUMENT = "(arg)"
_ARGUMENT_BASE = re.compile(r"\(arg\)([\w$]+)@(\d+):(\d+)#(\d+)")
# what a name read as a value is a use of: a function, or a class (`isinstance(x, Foo)`, `except FooError`,
# `x: Foo`, `register("store", _StoreAction)`)
_REFERENCED = _FUNCTIONS | {SymbolKind.CLASS, SymbolKind.STRUCT}
_SUBSCRIPT = re.compile(r"\[.*$")
_ITEM = re.compile(r"(.*\(\))\[(\d+)\]")  # `f()[0]`: the first item of what `f()` returns (`p, u = f()`)
CONSTRUCTORS = ("constructor", "__init__")  # what `new C(...)` / `C(...)` runs: TypeScript's, Python's
_SUPER = frozenset(
    {"super()", "super"}
)  # Python's `super().m()`; TypeScript's, JavaScript's, Java's `super.m()`


def callee_parts(text: str) -> list[str]:
    """``this.a?.b::<T>`` -> ``["this", "a", "b"]``; a part that is not a plain name (``f()``, ``a[0]``)
    keeps its text, so it matches nothing (``super()`` stays ``super()``)."""
    return list(_callee_parts(text))


@functools.lru_cache(maxsize=8192)
def _callee_parts(text: str) -> tuple[str, ...]:
    text = _GENERIC.sub("", text.strip().removeprefix("new ").strip())
    return tuple(p.strip() for p in _SEPARATORS.split(text)) if text else ()


def module_spec(text: str, ctx: FileContext) -> tuple[tuple[str, ...], bool]:
    """The components of an import's module and whether they are exact (relative) or a suffix to match:
    ``..util`` (Python), ``./util``/``../x`` (JavaScript), ``a/b/c`` (Go), ``a.b.c``."""
    text = text.strip().strip("\"'`")
    if text.startswith(GO_MODULE_FOLDER):  # a Go import of its own module's package, as its folder
        return (GO_MODULE_FOLDER, *(p for p in text.removeprefix(GO_MODULE_FOLDER).split("/") if p)), True
    if text.startswith("."):
        if text.startswith(("./", "../")):  # a path, from the file's folder (an index file's own folder)
            parts = list(ctx.package)
            for piece in text.split("/"):
                if piece == "..":
                    parts = parts[:-1]
                elif piece not in ("", "."):
                    parts.append(piece)
            named = _without_ending(tuple(parts))
            # `../index`: the folder's module, as `..` (a folder's index file has its folder's module)
            return (named[:-1] if named[-1:] == ("index",) and len(named) > 1 else named), True
        level = len(text) - len(text.lstrip("."))  # one dot is the file's own package (a folder: `.`)
        base = list(ctx.package)
        if level > 1:
            base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
        rest = [p for p in text[level:].split(".") if p]
        return (*base, *rest), True
    return tuple(p for p in re.split(r"[./]", text) if p), False


# Go: an import of the calling module's own packages, as the calling side rewrites it (the module path
# go.mod declares read away: `github.com/spf13/cobra/doc` -> `//doc`, the module's root folder `//`): the
# folder it names, exactly, whether or not its last part is the path's (`github.com/spf13/cobra` is a root)
GO_MODULE_FOLDER = "//"


def _without_ending(parts: tuple[str, ...]) -> tuple[str, ...]:
    if parts and "." in parts[-1]:
        return (*parts[:-1], parts[-1].rsplit(".", 1)[0])
    return parts


def _module_score(module: tuple[str, ...], spec: tuple[str, ...], exact: bool, partial: bool = True) -> int:
    """How well a definition's module matches an import's: 0 not at all; a relative import must name it
    exactly (a folder's `index` file stands for the folder), an absolute one scores the parts their ends
    share: all of the shorter one's for a dotted module (`json.decoder` and `Lib/json/decoder`; `pkg.util`
    and `util` in a segment that is the package's folder; never `asyncio/futures` for `concurrent.futures`),
    at least the last of a path's (Go's `example.com/m/util` and the folder `util`); a Go import of its own
    module (``GO_MODULE_FOLDER``) names one folder, the root's too."""
    if spec[:1] == (GO_MODULE_FOLDER,):
        return 1000 if module == spec[1:] else 0
    if not spec or not module:
        return 0
    if exact:
        return 1000 if module == spec or (module[-1:] == ("index",) and module[:-1] == spec) else 0
    if module[-1] != spec[-1]:
        return 0  # most candidates: another module's class of the same name
    shared = 0
    while shared < min(len(module), len(spec)) and module[-1 - shared] == spec[-1 - shared]:
        shared += 1
    return shared if partial or shared == min(len(module), len(spec)) else 0


# how a TypeScript or JavaScript alias of a folder of the project starts (`@/lib/x`, `~/lib/x`, `#lib/x`)
_ECMASCRIPT_ALIAS_MARKS = ("@/", "~/", "#")


def _partial(text: str, path: str) -> bool:
    """Whether an absolute import of the file at ``path`` may match a module by its last parts only: a path
    (Go's, a TypeScript alias such as `@/lib/x` that no tsconfig.json maps), not a dotted module (Python,
    Java), which names the module from a root of the search path. A TypeScript or JavaScript bare specifier
    names a package (`@tiptap/pm/commands`, `lodash/merge`): a module of the project only when the module
    ends with all of it (a `baseUrl`'s `utils/dates`), never by its last part (`src/commands`)."""
    text = text.strip().strip("\"'`")
    if path.endswith(_ECMASCRIPT_SUFFIXES):
        return text.startswith(_ECMASCRIPT_ALIAS_MARKS)
    return "/" in text


def _through_import(
    parts: list[str],
    ctx: FileContext,
    segment: Segment,
    kinds: frozenset[SymbolKind] = _CALLABLE,
    depth: int = 0,
) -> Resolved | None:
    head = parts[0]
    imp = ctx.imports.get(head)
    if imp is None:
        return None
    key = ("import", ctx.path, imp, tuple(parts[1:]), kinds, depth)
    if key not in segment.memo:
        segment.memo[key] = _from_module(imp, parts[1:], ctx, segment, kinds, depth)
    result: Resolved = segment.memo[key]
    return result


def _from_module(
    imp: Edge, rest: list[str], ctx: FileContext, segment: Segment, kinds: frozenset[SymbolKind], depth: int
) -> Resolved:
    """What ``rest`` names in the module an import binds (the import's own member first)."""
    spec, exact = module_spec(imp.text, ctx)
    chain = ([imp.name] if imp.name else []) + rest
    if not chain:
        return Resolved(resolution=Resolution.UNRESOLVED, reason="external")
    partial = _partial(imp.text, ctx.path)
    # the answer depends on the module and the names only, not on the importing file: `import codecs` then
    # `codecs.Codec` in a hundred files (each encoding's `class Codec(codecs.Codec)`) is worked out once
    key = ("module", spec, exact, partial, tuple(chain), kinds, depth)
    if key not in segment.memo:
        segment.memo[key] = _in_module(spec, exact, partial, chain, segment, kinds, depth)
    result: Resolved = segment.memo[key]
    return result


def _in_module(
    spec: tuple[str, ...],
    exact: bool,
    partial: bool,
    chain: list[str],
    segment: Segment,
    kinds: frozenset[SymbolKind],
    depth: int,
) -> Resolved:
    wanted: dict[str, list[tuple[str, ...]]] = {}  # qualified name -> the modules that would define it
    for split in range(len(chain)):
        wanted.setdefault(".".join(chain[split:]), []).append((*spec, *chain[:split]))
    scored: list[tuple[int, Candidate]] = []
    for c in segment.lookup(chain[-1]):
        modules = wanted.get(c.qualname)
        if modules is None or c.kind not in kinds:
            continue
        best = max(_module_score(c.module, m, exact, partial) for m in modules)
        if best:
            scored.append((best, c))
    if not scored and len(chain) >= 2:
        scored = _in_namespace(spec, exact, partial, chain, segment, kinds)
    if not scored:
        passed = _reexported((*spec, *chain[:-1]), exact, partial, chain[-1], segment, kinds, depth)
        passed = passed or _through_module_attribute(spec, exact, partial, chain, segment, kinds, depth)
        passed = passed or _through_module_variable(spec, exact, partial, chain, segment, kinds, depth)
        if passed:
            return Resolved(resolution=Resolution.IMPORT, targets=tuple(dict.fromkeys(passed)))
        return Resolved(resolution=Resolution.UNRESOLVED, reason="external")
    top = max(score for score, _ in scored)
    return Resolved(resolution=Resolution.IMPORT, targets=tuple(c for score, c in scored if score == top))


def _in_namespace(
    spec: tuple[str, ...],
    exact: bool,
    partial: bool,
    chain: list[str],
    segment: Segment,
    kinds: frozenset[SymbolKind],
) -> list[tuple[int, Candidate]]:
    """TypeScript's `MetricState.MetricState.Counter`: `Counter` declared in `namespace MetricState` of the
    module (a namespace's members are named without it), the module's file declaring that namespace."""
    spaces = {
        c.path
        for c in segment.lookup(chain[-2])
        if c.kind is SymbolKind.MODULE and c.qualname == chain[-2] and c.path.endswith(_ECMASCRIPT_SUFFIXES)
    }
    if not spaces:
        return []
    module = (*spec, *chain[:-2])
    scored = []
    for c in segment.lookup(chain[-1]):
        if c.path in spaces and c.qualname == chain[-1] and c.kind in kinds:
            best = _module_score(c.module, module, exact, partial)
            if best:
                scored.append((best, c))
    return scored


def _reexported(
    spec: tuple[str, ...],
    exact: bool,
    partial: bool,
    name: str,
    segment: Segment,
    kinds: frozenset[SymbolKind],
    depth: int,
) -> list[Candidate]:
    """``name`` as module ``spec`` passes it on: the definitions its own import of the name (or a star
    import) reaches, when the module is a file of the segment."""
    if segment.importers is None or depth >= MAX_REEXPORT_DEPTH or not spec:
        return []
    key = ("reexport", spec, exact, partial, name, kinds, depth)
    if key in segment.memo:
        return segment.memo[key]
    found: list[Candidate] = []
    segment.memo[key] = found  # a cycle of re-exports finds nothing more
    for module, path, imp in segment.importers(name):
        if imp.caller or not _module_score(module, spec, exact, partial):
            continue  # an import inside a function passes nothing on
        ctx = segment.context_of(path) if segment.context_of is not None else None
        if ctx is None:
            continue
        if imp.name == "*":
            via = attrs.evolve(imp, name=name, alias=name)
            ctx = attrs.evolve(ctx, imports={**ctx.imports, name: via})
        elif imp.alias != name:
            continue
        resolved = _through_import([name], ctx, segment, kinds, depth + 1)
        if resolved is not None:
            found.extend(resolved.targets)
    return found


def _through_module_attribute(
    spec: tuple[str, ...],
    exact: bool,
    partial: bool,
    chain: list[str],
    segment: Segment,
    kinds: frozenset[SymbolKind],
    depth: int,
) -> list[Candidate]:
    """``chain`` read through a module's attribute that is another module: ``os.path.join`` where os.py
    binds ``path`` by ``import posixpath as path`` (and ``import ntpath as path`` in another branch: both
    kept, as either may run), followed into each module such an import of a file of the segment names."""
    if segment.module_binders is None or depth >= MAX_REEXPORT_DEPTH or len(chain) < 2:
        return []
    found: list[Candidate] = []
    for split in range(len(chain) - 1):
        module, alias, rest = (*spec, *chain[:split]), chain[split], chain[split + 1 :]
        for binder_module, path, imp in segment.module_binders(alias):
            if imp.caller or imp.name or not _module_score(binder_module, module, exact, partial):
                continue  # an import inside a function binds nothing of the module
            ctx = segment.context_of(path) if segment.context_of is not None else None
            if ctx is None:
                continue
            found.extend(_from_module(imp, rest, ctx, segment, kinds, depth + 1).targets)
    return list(dict.fromkeys(found))


def _through_module_variable(
    spec: tuple[str, ...],
    exact: bool,
    partial: bool,
    chain: list[str],
    segment: Segment,
    kinds: frozenset[SymbolKind],
    depth: int,
) -> list[Candidate]:
    """``chain`` read through a module-level variable of the module: a member of the class it holds an
    instance of (``cdll.LoadLibrary`` where ctypes binds ``cdll = LibraryLoader(CDLL)``: its RETURN edge,
    alias "var"), or the class it is another name for (``futures._PyFuture`` where futures binds
    ``_PyFuture = Future``: alias "alias"), as the module's own file reads the class."""
    if segment.returns is None or segment.context_of is None or depth >= MAX_REEXPORT_DEPTH:
        return []
    key = ("variable", spec, exact, partial, tuple(chain), kinds)
    if key in segment.memo:
        return segment.memo[key]
    found: list[Candidate] = []
    segment.memo[key] = found  # a cycle of aliases (`A = B` here, `B = A` there) finds nothing more
    for member in ("", chain[-1]) if len(chain) > 1 else ("",):  # `futures._PyFuture`, `cdll.load`
        variable = chain[-2] if member else chain[-1]
        module = (*spec, *chain[: -2 if member else -1])
        scored: list[tuple[int, FileContext, list[str]]] = []
        for (path, qualname), texts in segment.returns(variable).items():
            held = [t for t in texts if t.startswith("#alias " if not member else ("#var ", "#alias "))]
            where = segment.context_of(path) if held and qualname == variable else None
            if where is not None and (score := _module_score(where.module, module, exact, partial)):
                scored.append((score, where, held))
        top = max((score for score, _, _ in scored), default=0)
        by_place = _callables(segment, member)[1] if member else {}
        for score, where, held in scored:
            if score < top:
                continue
            for text in held:
                for cls in _value_classes(text.partition(" ")[2], "", where, segment):
                    if not member:
                        found.extend([cls] if cls.kind in kinds else [])
                    else:
                        found.extend(h for h in _member(cls, member, segment, by_place) if h.kind in kinds)
    if not found and len(chain) > 1:
        found.extend(_passed_on_variable_members(spec, exact, partial, chain, segment, kinds, depth))
    found[:] = list(dict.fromkeys(found))
    return found


_VARIABLES = frozenset({SymbolKind.CONST})


def _passed_on_variable_members(
    spec: tuple[str, ...],
    exact: bool,
    partial: bool,
    chain: list[str],
    segment: Segment,
    kinds: frozenset[SymbolKind],
    depth: int,
) -> list[Candidate]:
    """``chain``'s last name as a member of a module-level variable that the module passes on from another
    (TypeScript's barrel file, ``export * from "./onlineManager"``, where that file holds ``export const
    onlineManager = new OnlineManager()``), the variable's class as its own file reads it."""
    if segment.returns is None or segment.context_of is None:
        return []
    variable, member = chain[-2], chain[-1]
    _, by_place = _callables(segment, member)
    out: list[Candidate] = []
    for held in _reexported((*spec, *chain[:-2]), exact, partial, variable, segment, _VARIABLES, depth):
        where = segment.context_of(held.path)
        if where is None:
            continue
        for text in segment.returns(variable).get((held.path, held.qualname), ()):
            if text.startswith("#var "):
                for cls in _value_classes(text.removeprefix("#var "), "", where, segment):
                    out.extend(h for h in _member(cls, member, segment, by_place) if h.kind in kinds)
    return out


def _value_classes(text: str, caller: str, ctx: FileContext, segment: Segment) -> list[Candidate]:
    """The classes a recorded type names, as ``ctx``'s file reads it: a class as written, what a call
    returns (``f()``), an item of it (``f()[0]``)."""
    if text.startswith(PARAMETER):  # `self.buffer = buffer` in `__init__`: what its calls pass
        return _parameter_classes(text, ctx, segment)
    item = _ITEM.fullmatch(text)
    if item is not None:
        return _returned_classes(item.group(1), caller, ctx, segment, item=int(item.group(2)))
    if text.endswith("[]"):  # TypeScript: an array (`Query[]`: none of its methods is the project's), or
        # `f()[]`: an element of the array `f` returns (`this.getAll().forEach((query) => query.reset())`)
        return (
            _returned_classes(text[:-2], caller, ctx, segment, item=ELEMENT) if text.endswith("()[]") else []
        )
    if text.endswith("()"):
        return _returned_classes(text, caller, ctx, segment)
    return _classes_named(text, ctx, segment) or _bound_classes(text, caller, ctx, segment)


def _bound_classes(name: str, caller: str, ctx: FileContext, segment: Segment) -> list[Candidate]:
    """TypeScript's: the classes a type parameter stands for, as its constraint names them (`editor:
    NodeEditor` in `class NodeView<NodeEditor extends Editor>` is an Editor, as the language server reads its
    members), declared by the innermost definition around ``caller`` that declares it (a method's own
    `<T extends X>` before its class's)."""
    if segment.symbol_of is None or not ctx.path.endswith(_ECMASCRIPT_SUFFIXES) or not name.isidentifier():
        return []
    scope = caller
    while scope:
        symbol = segment.symbol_of(ctx.path, scope)
        bound = type_parameter_bound(symbol.signature, name) if symbol is not None else None
        if bound is not None:
            return list(dict.fromkeys(c for t in bound for c in _classes_named(t, ctx, segment)))
        scope = scope.rpartition(".")[0]
    return []


def _class_attribute_values(
    cls: Candidate, name: str, segment: Segment, kinds: frozenset[SymbolKind] = _CONTAINERS
) -> list[Candidate]:
    """The classes a class attribute holds (``response_class = HTTPResponse`` in the body of ``cls`` or the
    first of its bases that assigns ``name``: its RETURN edge, alias "attr"), as that class's file reads
    them: ``self.response_class(...)`` makes one."""
    if segment.returns is None or segment.context_of is None:
        return []
    key = ("attribute", cls.path, cls.qualname, name)
    if key in segment.memo:
        return segment.memo[key]
    found: list[Candidate] = []
    segment.memo[key] = found
    typed = segment.returns(name)
    for current in _class_and_bases(cls, segment):
        texts = typed.get((current.path, f"{current.qualname}.{name}"), ())
        values = [t.removeprefix("#attr ") for t in texts if t.startswith("#attr ")]
        if not values:
            continue
        where = segment.context_of(current.path)
        if where is not None and not any("?" in v for v in values):  # "?": a value of no known class,
            # or a method's `self.name = ...` that may replace it
            found.extend(c for v in values for c in _classes_named(v, where, segment) if c.kind in kinds)
        break  # the first class that assigns it decides, as an attribute look-up would
    found[:] = list(dict.fromkeys(found))
    return found


def enclosing_class(caller: str, ctx: FileContext, lookup: Lookup) -> Candidate | None:
    """The innermost class of the calling file around a definition: the longest prefix of its qualified
    name that is a class there."""
    parts = caller.split(".") if caller else []
    # the caller itself is the function making the call (a class body has no `self`): start outside it
    for end in range(len(parts) - 1, 0, -1):
        qualname = ".".join(parts[:end])
        for c in lookup(parts[end - 1]):
            if c.kind.is_container and c.path == ctx.path and c.qualname == qualname:
                return c
    return None


def base_classes(cls: Candidate, segment: Segment) -> list[Candidate]:
    """The classes a class's bases name, as the file that declares it reads them; by name alone (the
    same file's first, else at most three) when that file's context is not at hand."""
    key = ("bases", cls.path, cls.qualname, cls.kind)
    if key in segment.memo:
        return segment.memo[key]
    ctx = segment.context_of(cls.path) if segment.context_of is not None else None
    out: list[Candidate] = []
    segment.memo[key] = out
    for base in cls.bases:
        if base.startswith(ARGUMENT):  # an object literal passed to a call: the parameter's type
            out.extend(_argument_classes(base, cls.path, segment))
            continue
        text = _SUBSCRIPT.sub("", base.strip())  # `Generic[T]`, `Mapping[str, int]`
        if ctx is not None and text.endswith("()"):  # `class S extends make<string>(ast)`: what make returns
            out.extend(_returned_classes(text, cls.qualname.rpartition(".")[0], ctx, segment))
            continue
        if ctx is not None:
            out.extend(_classes_named(text, ctx, segment, nested_in=cls.qualname))
            continue
        parts = callee_parts(text)
        base_name = _NOT_NAME.split(parts[-1])[0] if parts else ""
        classes = [b for b in segment.lookup(base_name) if b.kind.is_container]
        out.extend(([b for b in classes if b.path == cls.path] or classes)[:3])
    return out


def argument_base(name: str, line: int, column: int, position: int) -> str:
    """The base an object literal's method gets when the literal is argument ``position`` of a call of
    ``name`` (its name at 1-based ``line``, 0-based ``column``) and nothing else types it (``ARGUMENT``)."""
    return f"{ARGUMENT}{name}@{line}:{column}#{position}"


def _argument_classes(base: str, path: str, segment: Segment) -> list[Candidate]:
    """The types an object literal passed to a call implements (``ARGUMENT``): the call resolved (``exact``
    or through an ``import``: the receiver's type, the file's imports) to the definitions it reaches, and the
    type each declares its parameter as, read in its signature, as its own file names it
    (`observable.subscribe({ next() {} })`, `subscribe(observer: Partial<Observer<T>>)`: Observer)."""
    found = _ARGUMENT_BASE.fullmatch(base)
    if found is None or segment.calls_in is None or segment.symbol_of is None or segment.context_of is None:
        return []
    name, (line, column, position) = found.group(1), map(int, found.group(2, 3, 4))
    call = next(
        (e for e in segment.calls_in(path, name) if e.line == line and e.column == column), None
    )  # fmt: skip
    ctx = segment.context_of(path)
    if call is None or ctx is None:
        return []
    resolved = resolve_call(call, ctx, segment)
    if resolved.resolution not in _SURE:
        return []
    out: list[Candidate] = []
    for target in resolved.targets:
        symbol = segment.symbol_of(target.path, target.qualname)
        where = segment.context_of(target.path)
        if symbol is None or where is None or not target.path.endswith(_ECMASCRIPT_SUFFIXES):
            continue
        declared = parameter_types(symbol.signature)
        for type_text in declared[position] if position < len(declared) else ():
            out.extend(_classes_named(type_text, where, segment, nested_in=target.qualname))
    return list(dict.fromkeys(out))


def _callables(
    segment: Segment, name: str
) -> tuple[tuple[Candidate, ...], dict[tuple[str, str], list[Candidate]]]:
    """The callables with this name, and the same by (path, qualified name): a common name (`pop`, `go`)
    has hundreds of definitions and as many calls, so each call looks its own up instead of scanning."""
    key = ("callables", name)
    if key not in segment.memo:
        found = tuple(c for c in segment.lookup(name) if c.kind in _CALLABLE)  # one tuple: every name match
        by_place: dict[tuple[str, str], list[Candidate]] = {}
        for c in found:
            by_place.setdefault((c.path, c.qualname), []).append(c)
            if c.qualname == name:  # a module's own: ("", name) holds them all, whatever their file
                by_place.setdefault(("", name), []).append(c)
            if c.path.endswith(".go"):  # a Go type's methods may be in any file of its package
                by_place.setdefault((_go_package(c), c.qualname), []).append(c)
        segment.memo[key] = (found, by_place)
    result: tuple[tuple[Candidate, ...], dict[tuple[str, str], list[Candidate]]] = segment.memo[key]
    return result


def _fields(segment: Segment, name: str) -> dict[tuple[str, str], list[Candidate]]:
    """TypeScript, JavaScript: the properties of interfaces with this name, by (path, qualified name): one
    called is typed by a function type (effect's `interface MemoMap { readonly getOrElseMemoize: <A>(...) =>
    Effect<A> }`, `memoMap.getOrElseMemoize(...)`), a member a class implementing the interface implements."""
    key = ("fields", name)
    if key not in segment.memo:
        by_place: dict[tuple[str, str], list[Candidate]] = {}
        for c in segment.lookup(name):
            if c.kind is SymbolKind.FIELD and c.path.endswith(_ECMASCRIPT_SUFFIXES):
                by_place.setdefault((c.path, c.qualname), []).append(c)
        segment.memo[key] = by_place
    found: dict[tuple[str, str], list[Candidate]] = segment.memo[key]
    return found


def _go_package(c: Candidate) -> str:
    """The key of a Go definition's package in ``_callables``' look-up by place: a type's methods may be
    declared in any file of its package (the folder)."""
    return "go:" + "/".join(c.module)


def _member(
    cls: Candidate,
    name: str,
    segment: Segment,
    found: Mapping[tuple[str, str], list[Candidate]],
    *,
    skip_own: bool = False,
) -> list[Candidate]:
    """``name`` in class ``cls`` or the first of its bases (depth first) that defines it."""
    for current in _class_and_bases(cls, segment):
        if not (skip_own and current is cls):
            hits = found.get((current.path, f"{current.qualname}.{name}"), [])
            if not hits and current.path.endswith(".go"):
                hits = found.get((_go_package(current), f"{current.qualname}.{name}"), [])
            if not hits and current.path.endswith(_ECMASCRIPT_SUFFIXES):
                hits = _fields(segment, name).get((current.path, f"{current.qualname}.{name}"), [])
            if hits:
                return hits
            if _assigned_in_body(current, name, segment):
                return []  # `encode = codecs.ascii_encode`: the class's attribute, not a base's method
    return []


def _class_and_bases(cls: Candidate, segment: Segment) -> Iterator[Candidate]:
    """``cls``, then its bases breadth first, each once, down to MAX_BASE_DEPTH (the caller stops the walk by
    returning)."""
    seen: set[tuple[str, str, SymbolKind]] = set()  # TypeScript's `namespace Schema` and `interface Schema`
    todo = [(cls, 0)]
    while todo:
        current, depth = todo.pop(0)
        if (current.path, current.qualname, current.kind) in seen or depth > MAX_BASE_DEPTH:
            continue
        seen.add((current.path, current.qualname, current.kind))
        yield current
        todo.extend((b, depth + 1) for b in base_classes(current, segment))


def _assigned_in_body(cls: Candidate, name: str, segment: Segment) -> bool:
    """Whether the class's body assigns ``name`` (its RETURN edge of ``Class.name``, alias "attr")."""
    if segment.returns is None:
        return False
    texts = segment.returns(name).get((cls.path, f"{cls.qualname}.{name}"), ())
    return any(t.startswith("#attr ") for t in texts)


class Relation(enum.StrEnum):
    """How a method a call reaches relates to the method asked about, when it is not that method: through
    the class family a language server's references follow (TypeScript's find-all-references)."""

    BASE = "base"  # the call reaches a method the asked one overrides: it may run the asked one
    OVERRIDE = "override"  # the call reaches a method that overrides the asked one
    SIBLING = "sibling"  # both override one method of a shared base (an interface's two implementations)


def owner_class(method: Candidate, segment: Segment) -> Candidate | None:
    """The class (or interface, struct, trait) a method is a member of, as the symbol table has it."""
    owner, _, _ = method.qualname.rpartition(".")
    if not owner:
        return None
    short = owner.rsplit(".", 1)[-1]
    return next(
        (
            c
            for c in segment.lookup(short)
            if c.path == method.path and c.qualname == owner and c.kind in _CONTAINERS
        ),
        None,
    )


def family_class(method: Candidate, segment: Segment) -> Candidate | None:
    """The class a method's family is read from: its own, or, for a method of an object literal typed by
    an interface (TypeScript: `const proto: Pipeable = { pipe() {...} }`, `{...} satisfies I`, a function
    returning the literal as `I`), whose symbol holds the literal's types as its bases, a class with those
    bases (the literal implements them, as a class implements its interfaces)."""
    if method.bases:
        return Candidate(
            path=method.path,
            qualname="{" + ";".join(method.bases) + "}",  # one per file and types (a memo key of bases)
            kind=SymbolKind.CLASS,
            module=method.module,
            bases=method.bases,
        )
    return owner_class(method, segment)


def overridden(method: Candidate, segment: Segment) -> frozenset[tuple[str, str]]:
    """(path, qualified name) of the method and of every same-named member of its class's bases, all the
    way up (every base, not only the first that defines it: an interface's member is overridden too)."""
    key = ("overridden", method.path, method.qualname, method.bases)
    if key in segment.memo:
        return segment.memo[key]
    found = {(method.path, method.qualname)}
    segment.memo[key] = frozenset(found)  # a cycle of bases finds nothing more
    cls = family_class(method, segment)
    if cls is not None:
        name = method.qualname.rsplit(".", 1)[-1]
        _, by_place = _callables(segment, name)
        seen = {(cls.path, cls.qualname)}
        todo = [(b, 1) for b in base_classes(cls, segment)]
        while todo:
            current, depth = todo.pop(0)
            if (current.path, current.qualname) in seen or depth > MAX_BASE_DEPTH:
                continue
            seen.add((current.path, current.qualname))
            member = (current.path, f"{current.qualname}.{name}")
            found.update((h.path, h.qualname) for h in by_place.get(member, ()))
            if current.path.endswith(_ECMASCRIPT_SUFFIXES):  # an interface's property it implements
                found.update((h.path, h.qualname) for h in _fields(segment, name).get(member, ()))
            todo.extend((b, depth + 1) for b in base_classes(current, segment))
    result = frozenset(found)
    segment.memo[key] = result
    return result


_ACCESSOR_SIGNATURE = re.compile(r"(?:[\w@]+\s+)*[gs]et\s+[\w$#\[]")  # `get size()`, `static set x(v)`
_PROPERTY_DECORATORS = ("property", ".setter", ".getter", ".deleter")  # `@property`, `@cached_property`


def is_accessor(symbol: Symbol) -> bool:
    """Whether a method is read and written as an attribute, never called: Python's ``@property`` (its
    setter, getter, deleter, ``cached_property``), a TypeScript or JavaScript ``get``/``set`` accessor."""
    if symbol.kind is not SymbolKind.METHOD:
        return False
    if any(d.endswith(_PROPERTY_DECORATORS) for d in symbol.decorators):
        return True
    return _ACCESSOR_SIGNATURE.match(symbol.signature) is not None


def accessor_uses(name: str) -> re.Pattern[str]:
    """The uses of an accessor ``name`` in source text: ``.name`` that no ``(`` follows (``?.`` and ``!.``
    as TypeScript writes them); ``accessor_receiver`` reads the receiver before it."""
    return re.compile(r"[!?]?\." + re.escape(name) + r"(?![\w$])(?!\s*\()")


_RECEIVER_TAIL = re.compile(r"(?<![\w$.)\]])([A-Za-z_$][\w$]*(?:[!?]?\.[A-Za-z_$][\w$]*)*(?:\(\))?)$")


def accessor_receiver(text: str, end: int) -> str | None:
    """The receiver that ends at ``end`` in ``text`` (where an accessor's ``.name`` starts): ``self``,
    ``this.x``, ``observable``, ``process.current_process()`` (``!`` and ``?`` dropped); None for the value
    of a call with arguments or of an item (``f(x).name``, ``xs[0].name``) or no name at all."""
    found = _RECEIVER_TAIL.search(text[max(0, end - _RECEIVER_WINDOW) : end])
    return found.group(1).replace("!", "").replace("?", "") if found else None


_RECEIVER_WINDOW = 160  # the characters before a use its receiver is read in


def family_in_callers(path: str) -> bool:
    """Whether a method's callers list its class family's calls (``relation``) after its own, by the
    convention of the language's reference servers: TypeScript's and Go's count a base's, an override's
    and an interface's member as one symbol (tsserver, gopls); Python's keep each override its own
    symbol (jedi, pyright), so a Python method's callers are the calls that reach it and nothing else."""
    return not path.endswith(_PYTHON_SUFFIXES)


def relation(asked: Candidate, reached: Candidate, segment: Segment) -> Relation | None:
    """How ``reached`` (what a call reaches) relates to ``asked`` through their classes' bases; None when
    it does not (or is ``asked`` itself)."""
    if (asked.path, asked.qualname) == (reached.path, reached.qualname):
        return None
    if reached.kind is not SymbolKind.METHOD and not (
        reached.kind is SymbolKind.FIELD and reached.path.endswith(_ECMASCRIPT_SUFFIXES)
    ):
        return None
    if asked.path.endswith(".go") and reached.path.endswith(".go"):
        return _go_relation(asked, reached, segment)
    up_asked = overridden(asked, segment)
    if (reached.path, reached.qualname) in up_asked:
        return Relation.BASE
    up_reached = overridden(reached, segment)
    if (asked.path, asked.qualname) in up_reached:
        return Relation.OVERRIDE
    if len(up_asked) > 1 and up_asked & up_reached:
        return Relation.SIBLING
    if _both_override_object(asked, reached, segment) or _share_external_base(asked, reached, segment):
        return Relation.SIBLING
    return None


def _go_relation(asked: Candidate, reached: Candidate, segment: Segment) -> Relation | None:
    """Go: a type's method and an interface's that it implements (a call through the interface may run
    the type's, as gopls' references list it); no relation through embedding (an embedding type's method
    shadows the embedded one's, it overrides nothing) nor between two implementations."""
    if asked.qualname.rsplit(".", 1)[-1] != reached.qualname.rsplit(".", 1)[-1]:
        return None
    mine, theirs = _go_owner(asked, segment), _go_owner(reached, segment)
    if mine is None or theirs is None:
        return None
    if theirs.kind is SymbolKind.INTERFACE and mine.kind is not SymbolKind.INTERFACE:
        return Relation.BASE if go_implements(mine, theirs, segment) else None
    if mine.kind is SymbolKind.INTERFACE and theirs.kind is not SymbolKind.INTERFACE:
        return Relation.OVERRIDE if go_implements(theirs, mine, segment) else None
    return None


_GO_TYPES = _CONTAINERS | {SymbolKind.TYPE}  # a Go named type of any kind has methods (`type Path []Step`)


def _go_owner(method: Candidate, segment: Segment) -> Candidate | None:
    """The type a Go method is declared on, in any file of its package (the one of its file first)."""
    owner, _, _ = method.qualname.rpartition(".")
    found = [
        c
        for c in segment.lookup(owner.rsplit(".", 1)[-1])
        if c.qualname == owner and c.module == method.module and c.kind in _GO_TYPES
    ]
    return min(found, key=lambda c: c.path != method.path, default=None)


MAX_GO_METHODS = 64  # an interface with more methods than this is not worked out (no type implements it)


def go_method_set(interface: Candidate, segment: Segment, depth: int = 0) -> frozenset[str]:
    """The method names of a Go interface: its own (its RETURN edge, alias "methods") and its embedded
    interfaces' (its bases)."""
    key = ("go methods", interface.path, interface.qualname)
    if key in segment.memo:
        return segment.memo[key]
    segment.memo[key] = frozenset()  # a cycle of embeddings finds nothing more
    names: set[str] = set()
    if segment.returns is not None:
        for text in segment.returns(interface.qualname.rsplit(".", 1)[-1]).get(
            (interface.path, interface.qualname), ()
        ):
            if text.startswith("#methods "):
                names.update(text.removeprefix("#methods ").split())
    if depth < MAX_BASE_DEPTH:
        for base in base_classes(interface, segment):
            if base.kind is SymbolKind.INTERFACE:
                names |= go_method_set(base, segment, depth + 1)
    result = frozenset(names)
    segment.memo[key] = result
    return result


def go_implements(named: Candidate, interface: Candidate, segment: Segment) -> bool:
    """Whether a Go type has every method of an interface (its own or an embedded type's): Go types
    implement interfaces without saying so. An empty interface (`any`) relates nothing."""
    key = ("go implements", named.path, named.qualname, interface.path, interface.qualname)
    if key not in segment.memo:
        names = go_method_set(interface, segment)
        segment.memo[key] = 0 < len(names) <= MAX_GO_METHODS and all(
            _member(named, n, segment, _callables(segment, n)[1]) for n in names
        )
    result: bool = segment.memo[key]
    return result


# TypeScript: every class extends Object, whose methods a class's own override (an interface's do not)
_OBJECT_METHODS = frozenset(
    {"toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable"}
)


def _both_override_object(asked: Candidate, reached: Candidate, segment: Segment) -> bool:
    """TypeScript and JavaScript: two classes' methods that override one of Object's (`toString() {}`),
    which a language server's references relate through Object's when both classes have a base (extend or
    implement anything: a class with none has no base type to look the method up in)."""
    name = asked.qualname.rsplit(".", 1)[-1]
    if name not in _OBJECT_METHODS or reached.qualname.rsplit(".", 1)[-1] != name:
        return False
    if not (asked.path.endswith(_ECMASCRIPT_SUFFIXES) and reached.path.endswith(_ECMASCRIPT_SUFFIXES)):
        return False
    owners = (owner_class(asked, segment), owner_class(reached, segment))
    return all(o is not None and o.kind is SymbolKind.CLASS and o.bases for o in owners)


def _classes_named(
    text: str, ctx: FileContext, segment: Segment, nested_in: str = "", *, anywhere: bool = True
) -> list[Candidate]:
    """The class a receiver's type or a base names (`Store`, `threading.Event`): through the file's
    imports, else the file's own module (a sibling class of `nested_in` first), else a star import of the
    file, else (``anywhere``) the one class of that name in the segment; none when it stays ambiguous."""
    parts = callee_parts(text)
    if not parts:
        return []
    go = ctx.path.endswith(".go")  # a Go named type of any kind has methods (`cmp.Path`, `[]PathStep`)
    by_import = _through_import(parts, ctx, segment, _GO_TYPES if go else _CONTAINERS)
    if by_import is not None:
        if not ctx.path.endswith(_ECMASCRIPT_SUFFIXES) or any(
            t.kind is not SymbolKind.MODULE for t in by_import.targets
        ):
            return list(by_import.targets)
        # `Option.Option<A>`, a union's alias (beside `namespace Option`, which declares no member)
        return [*by_import.targets, *_imported_type_aliases(parts, ctx, segment)]
    if len(parts) > 1:
        return []
    kinds = _GO_TYPES if go else _CONTAINERS
    classes = [c for c in segment.lookup(parts[0]) if c.kind in kinds]
    outer = nested_in.rsplit(".", 1)[0] if "." in nested_in else ""
    local = [
        c
        for c in classes
        if c.module == ctx.module
        and c.qualname in (parts[0], f"{outer}.{parts[0]}")
        and c.qualname != nested_in
    ]
    if local and (go or any(c.kind is not SymbolKind.MODULE for c in local)):
        return local
    aliased = _module_aliases(parts[0], ctx, segment)
    if local:  # TypeScript's `namespace Option` beside `type Option<A> = None<A> | Some<A>`
        return [*local, *aliased]
    if aliased:
        return aliased
    starred = _through_stars(parts[0], ctx, segment, _CONTAINERS)
    if starred or not anywhere:
        return starred
    top = [c for c in classes if c.qualname == parts[0]]
    return top if len(top) == 1 else []


_TYPES = frozenset({SymbolKind.TYPE})


def _imported_type_aliases(parts: list[str], ctx: FileContext, segment: Segment) -> list[Candidate]:
    """TypeScript: the classes an imported type alias names (`type Option<A> = None<A> | Some<A>`: its
    RETURN edges, alias "alias", as its own file reads them)."""
    found = _through_import(parts, ctx, segment, _TYPES)
    if found is None or segment.context_of is None:
        return []
    return list(
        dict.fromkeys(
            c
            for t in found.targets
            if (where := segment.context_of(t.path)) is not None
            for c in _module_aliases(t.qualname, where, segment)
        )
    )


def _module_aliases(name: str, ctx: FileContext, segment: Segment) -> list[Candidate]:
    """The classes a module-level name of the file is another name for (``Base = _Base``: its RETURN edge,
    alias "alias")."""
    if segment.returns is None:
        return []
    texts = segment.returns(name).get((ctx.path, name), ())
    if not any(t.startswith("#alias ") for t in texts):
        return []
    key = ("aliases", ctx.path, name)
    if key in segment.memo:
        return segment.memo[key]
    found: list[Candidate] = []
    segment.memo[key] = found  # `A = B; B = A`: nothing more
    # the file's whole context: a caller's may hold only the imports its calls need
    where = (segment.context_of(ctx.path) if segment.context_of is not None else None) or ctx
    found.extend(
        c
        for t in texts
        if t.startswith("#alias ") and t != f"#alias {name}"
        for c in _classes_named(t.removeprefix("#alias "), where, segment)
    )
    found[:] = list(dict.fromkeys(found))
    return found


def _through_stars(
    name: str, ctx: FileContext, segment: Segment, kinds: frozenset[SymbolKind]
) -> list[Candidate]:
    """What ``name`` reaches through the file's star imports (``from .x import *``), the last one first."""
    for star in reversed(ctx.stars):
        via = attrs.evolve(star, name=name, alias=name)
        resolved = _through_import([name], attrs.evolve(ctx, imports={name: via}), segment, kinds)
        if resolved is not None and resolved.targets:
            return list(resolved.targets)
    return []


def _returned_classes(
    text: str, caller: str, ctx: FileContext, segment: Segment, depth: int = 0, item: int | None = None
) -> list[Candidate]:
    """The classes a call's value has (a receiver typed ``f()``, ``self.make()``): the call resolved
    (``exact`` or ``import`` only) in the caller's scope, then what each definition it reaches returns, as
    its own file reads the returned class (a return of another call, ``g()``, is followed up to
    ``MAX_RETURN_DEPTH``). ``item``: the classes of that item of the tuple it returns (``p, u = f()``:
    its RETURN edges of alias ``[i]``; a return of another call passes that call's item on; ``ELEMENT``: the
    classes of the elements of the array it returns, TypeScript's ``Query[]``)."""
    key = ("returned", ctx.path, caller, text, depth, item)
    if key in segment.memo:
        return segment.memo[key]
    out: list[Candidate] = []
    segment.memo[key] = out  # a function returning its own call finds nothing more
    callee = text[:-2]
    if depth > MAX_RETURN_DEPTH or segment.returns is None or segment.context_of is None:
        return out
    name = callee.rsplit(".", 1)[-1]
    returns = segment.returns(name)
    if not returns and (
        item is not None or not any(c.kind in _CONTAINERS for c in _callables(segment, name)[0])
    ):
        # nothing of that name returns a known class (most calls: `strip()`, `get()`), nor is a class
        # (`_HTMLDoc()`: a class name the parser could not tell from a function's)
        return out
    receivers: list[Candidate] = []  # the classes the method was looked up on (what `return self` gives)
    if "()." in callee:  # `Widget.create().copy()`: the method of what the inner call returns
        receiver, _, method = callee.rpartition("().")
        _, by_place = _callables(segment, method)
        receivers = _returned_classes(f"{receiver}()", caller, ctx, segment, depth + 1)
        called = [h for owner in receivers for h in _member(owner, method, segment, by_place)]
    else:
        parts = callee_parts(callee)
        if not parts:
            return out
        called = _sure_callees(callee, parts, caller, ctx, segment)
        if called and len(parts) == 2 and (parts[0] in ctx.self_names or parts[0] in _SUPER):
            owner = enclosing_class(caller, ctx, segment.lookup)
            receivers = [owner] if owner is not None else []
        elif called and len(parts) >= 2:
            receivers = _classes_named(".".join(parts[:-1]), ctx, segment)  # `Foo.__enter__()`, `T.copy()`
    wanted = f"#[{item}] "
    for target in called:
        if target.kind in _CONTAINERS:
            if item is None:
                out.append(target)
            continue
        for returned in returns.get((target.path, target.qualname), ()):
            where = segment.context_of(target.path)
            if where is None:
                continue
            if item == ELEMENT:
                if returned.endswith("[]") and not returned.endswith("()[]") and not returned.startswith("#"):
                    out.extend(_value_classes(returned[:-2], target.qualname, where, segment))
                elif returned.endswith("()") and not returned.startswith("#"):  # `return this.getAll()`
                    out.extend(_returned_classes(returned, target.qualname, where, segment, depth + 1, item))
                continue
            if item is not None:
                if returned.startswith(wanted):  # `return parser, target`: the item's classes
                    out.extend(_value_classes(returned.removeprefix(wanted), target.qualname, where, segment))
                elif returned.endswith("()") and not returned.startswith("#"):  # `return getparser()`
                    out.extend(_returned_classes(returned, target.qualname, where, segment, depth + 1, item))
                continue
            if returned.startswith("#self "):  # `return self`, `-> Self`: the class the method was called on
                on = [
                    r for r in receivers if target in _member(r, name, segment, _callables(segment, name)[1])
                ]
                returned = returned.removeprefix("#self ")
                if on:
                    out.extend(on)
                    continue
            elif returned.startswith("#") or returned.endswith("[]"):  # what it hands a callback, an item, an
                # array (TypeScript's `Query[]`): not what it returns
                continue
            if returned.endswith("()"):
                out.extend(_returned_classes(returned, target.qualname, where, segment, depth + 1))
                continue
            if returned.startswith(PARAMETER):  # `return self._buffer`, set from `__init__`'s parameter
                out.extend(_parameter_classes(returned, where, segment))
                continue
            if ":" in returned and target.path.endswith(_PYTHON_SUFFIXES):
                # `return Document.implementation`: what the class's attribute holds (`implementation =
                # DOMImplementation()` in its body)
                held, _, field = returned.partition(":")
                out.extend(
                    c for t in _classes_named(held, where, segment) for c in _field_classes(t, field, segment)
                )
                continue
            own = [
                c for c in segment.lookup(returned.rsplit(".", 1)[-1])
                if c.path == target.path and c.qualname == returned and c.kind in _CONTAINERS
            ]  # fmt: skip
            out.extend(own or _classes_named(returned, where, segment))
    out[:] = list(dict.fromkeys(out))
    return out


def _sure_callees(
    callee: str, parts: list[str], caller: str, ctx: FileContext, segment: Segment
) -> list[Candidate]:
    """The definitions a call resolves to (``exact`` or ``import`` only), for what they return or hand their
    callbacks; in TypeScript and JavaScript, else the constants of that name the file or an import reaches
    (`const sleep: (d: Duration) => Effect<void> = effect.sleep`: a constant typed by a function type, whose
    RETURN edges are its type's)."""
    inner = Edge(kind=EdgeKind.CALL, caller=caller, line=0, column=0, name=parts[-1], text=callee)
    resolved = resolve_call(inner, ctx, segment)
    if resolved.resolution in _SURE and (resolved.targets or not ctx.path.endswith(_ECMASCRIPT_SUFFIXES)):
        return list(resolved.targets)
    if resolved.reason == "local" or not ctx.path.endswith(_ECMASCRIPT_SUFFIXES):
        return []
    if len(parts) == 1 and parts[0] not in ctx.imports:
        return [
            c
            for c in segment.lookup(parts[0])
            if c.kind in _VARIABLES and c.path == ctx.path and c.qualname == parts[0]
        ]
    by_import = _through_import(parts, ctx, segment, _VARIABLES)
    return list(by_import.targets) if by_import is not None and by_import.resolution in _SURE else []


def _callback_classes(text: str, caller: str, ctx: FileContext, segment: Segment) -> list[Candidate]:
    """The classes ``f()#i.j`` names: what the definitions ``f`` resolves to (``exact`` or ``import``; a
    class's constructor) hand their callback argument ``i`` as parameter ``j``, as their files read it
    (``operate((source, subscriber) => source.subscribe())``, ``operate(init: (source: Observable<T>, ...``)."""
    key = ("callback", ctx.path, caller, text)
    if key in segment.memo:
        return segment.memo[key]
    out: list[Candidate] = []
    segment.memo[key] = out
    callee, _, where = text.partition("()#")
    parts = callee_parts(callee)
    if not parts or segment.returns is None or segment.context_of is None:
        return out
    prefix = f"#{where} "
    for target in _sure_callees(callee, parts, caller, ctx, segment):
        functions = [target]
        if target.kind in _CONTAINERS:  # `new Observable((subscriber) => ...)`: its constructor's
            functions = [
                m
                for name in CONSTRUCTORS
                for m in _member(target, name, segment, _callables(segment, name)[1])
            ]
        for function in functions:
            name = function.qualname.rsplit(".", 1)[-1]
            where_from = segment.context_of(function.path)
            for returned in segment.returns(name).get((function.path, function.qualname), ()):
                if returned.startswith(prefix) and where_from is not None:
                    out.extend(_classes_named(returned.removeprefix(prefix), where_from, segment))
    out[:] = list(dict.fromkeys(out))
    return out


def _field_classes(cls: Candidate, field: str, segment: Segment, *, element: bool = False) -> list[Candidate]:
    """The classes a field holds, as the first of ``cls`` and its bases (depth first) that types it says
    (its RETURN edge of ``Class.field``, alias "field": a declared type, ``new C()``, a call's value);
    ``element``: the classes of the elements of the array (or set) it holds (TypeScript's ``Query[]``)."""
    if segment.returns is None or segment.context_of is None:
        return []
    typed = segment.returns(field)
    for current in _class_and_bases(cls, segment):
        key = (current.path, f"{current.qualname}.{field}")
        texts = [t.removeprefix("#field ") for t in typed.get(key, ()) if t.startswith("#field ")]
        if not texts and key in typed and _is_property(key, segment):
            if not element and key[0].endswith(_PYTHON_SUFFIXES):
                return _property_classes(cls, field, typed[key], segment)
            texts = [t for t in typed[key] if not t.startswith("#")]  # `@property def buffer`: its return
        where = segment.context_of(current.path)
        if texts and where is not None:
            if element:
                texts = [t[:-2] for t in texts if t.endswith("[]") and not t.endswith(")[]")]
            return list(
                dict.fromkeys(
                    c
                    for text in texts
                    for c in _value_classes(text, key[1], where, segment)  # as the class's code reads it
                )
            )
    return []


def _property_classes(cls: Candidate, name: str, texts: Sequence[str], segment: Segment) -> list[Candidate]:
    """What ``@property def name`` returns (its RETURN edges' ``texts``) read on an instance of ``cls``, which
    defines it or inherits it: ``return self`` gives ``cls``, and so does a method's ``return self`` it
    returns the call of (``return self._from_parsed_parts(...)``: `Path().parent` is a `Path`)."""
    where = segment.context_of(cls.path) if segment.context_of is not None else None
    if where is None:
        return []
    found: list[Candidate] = []
    for text in texts:
        if text.startswith("#self "):
            found.append(cls)
        elif text.startswith("#"):
            continue
        elif text.startswith("self.") and text.endswith("()") and text.count(".") == 1:
            # the method as `cls` reaches it: what it returns of `self` is a `cls`
            found.extend(_returned_classes(f"{cls.qualname}.{text[5:]}", cls.qualname, where, segment))
        else:
            found.extend(_value_classes(text, f"{cls.qualname}.{name}", where, segment))
    return list(dict.fromkeys(found))


_PROPERTIES = frozenset({"property", "functools.cached_property", "cached_property"})


def _is_property(key: tuple[str, str], segment: Segment) -> bool:
    """Whether (path, qualified name) is a method read as an attribute (``@property``)."""
    symbol = segment.symbol_of(*key) if segment.symbol_of is not None else None
    return (
        symbol is not None and symbol.kind is SymbolKind.METHOD and bool(_PROPERTIES & set(symbol.decorators))
    )


def _receiver_classes(type_text: str, edge: Edge, ctx: FileContext, segment: Segment) -> list[Candidate]:
    """The classes one of a call's receiver types names: a class as written, ``f()``'s return, or what
    ``f`` hands a callback (``f()#i.j``)."""
    if "()#" in type_text:
        return _callback_classes(type_text, edge.caller, ctx, segment)
    if type_text.startswith(PARAMETER) and type_text.count(":") == 1:
        return _parameter_classes(type_text, ctx, segment)
    if ":" in type_text and ctx.path.endswith((*_PYTHON_SUFFIXES, *_ECMASCRIPT_SUFFIXES, ".go")):
        # `T:field` (the Python walk's): what the field holds in T's classes (`out.flags.m()`, `out: Output`);
        # TypeScript's: a class's or an interface's field (`state.copy_`, `state: MapState`)
        # `T:field[]`: an element of the array or set the field holds (TypeScript's)
        held, _, field = type_text.rpartition(":")
        owners = _receiver_classes(held, edge, ctx, segment)
        if not owners and held in ctx.imports and ctx.path.endswith(_ECMASCRIPT_SUFFIXES):
            # `globalState:pending` (`const list = globalState.pending`, `globalState` an imported module-level
            # variable): the class its module's RETURN edge (alias "var") says it holds
            owners = _imported_constant_classes(held, ctx, segment)
        return list(
            dict.fromkeys(
                c
                for t in owners
                for c in _field_classes(t, field.removesuffix("[]"), segment, element=field.endswith("[]"))
            )
        )
    if type_text.endswith(("()", "]")):
        return _value_classes(type_text, edge.caller, ctx, segment)
    head, _, field = type_text.partition(".")
    if head in ctx.self_names and field:  # `screen = self.screen`: a field a base class types
        owner = enclosing_class(edge.caller, ctx, segment.lookup)
        return _field_classes(owner, field, segment) if owner is not None else []
    if not field and "." in edge.caller and ctx.path.endswith(_PYTHON_SUFFIXES):
        nested = _class_of_enclosing_function(head, edge.caller, ctx, segment)
        if nested:
            return nested
    return _classes_named(type_text, ctx, segment) or _bound_classes(type_text, edge.caller, ctx, segment)


_PARAMETERS_BUSY = ("parameters busy",)  # a memo key: set while the calls of a function are resolved


def _parameter_parts(text: str) -> tuple[str, str, str, tuple[str, ...], str]:
    """``(param)F:p@i=T`` -> (F, the definition its calls reach: F or, for an ``__init__``, its class, the
    name those calls are written with, the ARGUMENT aliases that pass ``p``: "=p" and "i", T)."""
    function, _, param = text.removeprefix(PARAMETER).rpartition(":")
    param, _, default = param.partition("=")
    param, _, position = param.partition("@")
    target = function
    outer, _, name = function.rpartition(".")
    if name == "__init__" and outer:  # `TextIOWrapper(buffer)`: the class's calls
        target = outer
        name = outer.rsplit(".", 1)[-1]
    return function, target, name, (f"={param}", *((position,) if position else ())), default


def parameter_calls(type_texts: str) -> list[tuple[str, tuple[str, ...]]]:
    """The calls a receiver's types (``A|(param)F:p@0:field``) need to type its parameters: (the called
    name, the ARGUMENT aliases), so that a caller can look them all up at once."""
    found = []
    for text in type_texts.split("|"):
        if text.startswith(PARAMETER):
            if text.count(":") > 1:  # `(param)F:p:field`
                text = text.rpartition(":")[0]
            _, _, name, wanted, _ = _parameter_parts(text)
            found.append((name, wanted))
    return found


def _parameter_classes(text: str, ctx: FileContext, segment: Segment) -> list[Candidate]:
    """The classes ``(param)F:p@i=T`` names: what the calls of ``F`` (a function or method of ``ctx``'s
    file; ``Class(...)`` for an ``__init__``) that resolve to it (``exact`` or ``import``) pass as ``p``, at
    position ``i`` (counted after ``self``; none: keyword only) or by keyword, where the walk knew the
    argument's class (``self``, a typed variable, a constructor call, a typed field), and the class of its
    default ``T``. Calls that pass an argument of no known class add nothing; more than
    ``MAX_PARAMETER_CLASSES`` classes, or none, is unknown. One level: an argument that is itself a
    parameter is not followed, nor is a parameter typed while its calls are being resolved."""
    if segment.arguments is None or segment.memo.get(_PARAMETERS_BUSY):
        return []
    key = ("parameter", ctx.path, text)
    if key in segment.memo:
        return segment.memo[key]
    out: list[Candidate] = []
    segment.memo[key] = out
    function, target, name, wanted, default = _parameter_parts(text)
    found: list[Candidate] = []
    segment.memo[_PARAMETERS_BUSY] = True
    try:
        for path, call, passed in segment.arguments(name, wanted):
            call_ctx = segment.context_of(path) if segment.context_of is not None else None
            if call_ctx is None:
                continue
            resolved = resolve_call(call, call_ctx, segment)
            if resolved.resolution not in _SURE or not any(
                (t.path, t.qualname) == (ctx.path, target) for t in resolved.targets
            ):
                continue
            for arg in passed:
                for type_text in arg.text.split("|"):
                    if type_text == "self":
                        owner = enclosing_class(call.caller, call_ctx, segment.lookup)
                        found.extend([owner] if owner is not None else [])
                    else:  # a class as the calling scope reads it
                        found.extend(_value_classes(type_text, call.caller, call_ctx, segment))
    finally:
        segment.memo[_PARAMETERS_BUSY] = False
    if default:  # `policy=compat32`: what the function gets when a call leaves it out
        # the file's whole context: a caller's may hold only the imports its calls need
        where = (segment.context_of(ctx.path) if segment.context_of is not None else None) or ctx
        found.extend(
            _value_classes(default, function, where, segment)
            or _imported_variable_classes(default, where, segment)
        )
    classes = list(dict.fromkeys(c for c in found if c.kind in _CONTAINERS))
    if len(classes) <= MAX_PARAMETER_CLASSES:
        out.extend(classes)
    return out


def _imported_variable_classes(name: str, ctx: FileContext, segment: Segment) -> list[Candidate]:
    """The classes of a module-level variable a ``from`` import of the file binds (``from ._policybase
    import compat32`` with ``compat32 = Compat32()`` there: its RETURN edge, alias "var"), or one read from a
    module the file imports (``loader.defaultTestLoader`` with ``from . import loader``)."""
    head, _, variable = name.partition(".")
    imp = ctx.imports.get(head)
    if imp is None or "." in variable or segment.returns is None or segment.context_of is None:
        return []
    spec, exact = module_spec(imp.text, ctx)
    if variable:  # the module is the import's own member, if it names one (`from . import loader`)
        spec = (*spec, imp.name) if imp.name else spec
    elif imp.name:
        variable = imp.name
    else:
        return []
    found: list[Candidate] = []
    for (path, qualname), texts in segment.returns(variable).items():
        where = segment.context_of(path) if qualname == variable else None
        if where is None or not _module_score(where.module, spec, exact, _partial(imp.text, ctx.path)):
            continue
        for text in texts:
            if text.startswith("#var "):
                found.extend(_value_classes(text.removeprefix("#var "), "", where, segment))
    return list(dict.fromkeys(found))


def _imported_constant_classes(name: str, ctx: FileContext, segment: Segment) -> list[Candidate]:
    """TypeScript's and JavaScript's: the classes of the module-level variable an import binds, through
    the modules that re-export it (`import { globalState } from "../internal"`, `export let globalState:
    MobXGlobals = ...` in core/globalstate.ts: its RETURN edge, alias "var")."""
    by_import = _through_import([name], ctx, segment, _VARIABLES)
    if by_import is None or segment.returns is None or segment.context_of is None:
        return []
    found: list[Candidate] = []
    for variable in by_import.targets:
        where = segment.context_of(variable.path)
        if where is None:
            continue
        for text in segment.returns(variable.qualname).get((variable.path, variable.qualname), ()):
            if text.startswith("#var "):
                found.extend(_value_classes(text.removeprefix("#var "), "", where, segment))
    return list(dict.fromkeys(found))


def _go_package_variable_classes(name: str, ctx: FileContext, segment: Segment) -> list[Candidate]:
    """Go: the types of a package-level variable of the calling file's package, in any of its files
    (``var CommandLine = NewFlagSet(...)``: its RETURN edge, alias "var")."""
    if segment.returns is None or segment.context_of is None:
        return []
    found: list[Candidate] = []
    for (path, qualname), texts in segment.returns(name).items():
        where = segment.context_of(path) if qualname == name and path.endswith(".go") else None
        if where is None or where.module != ctx.module:
            continue
        for text in texts:
            if text.startswith("#var "):
                found.extend(_value_classes(text.removeprefix("#var "), "", where, segment))
    return list(dict.fromkeys(found))


def _class_of_enclosing_function(
    name: str, caller: str, ctx: FileContext, segment: Segment
) -> list[Candidate]:
    """A class defined in the calling function or a function around it (``def _start_server(): class
    DocServer: ...``, read in a method of another class there), as Python reads a name: the innermost
    function scope that defines it (class bodies around the caller are no scope of its names)."""
    scopes = caller.split(".")
    classes = [c for c in segment.lookup(name) if c.path == ctx.path and c.kind in _CONTAINERS]
    if not classes:
        return []
    for end in range(len(scopes), 0, -1):
        scope = ".".join(scopes[:end])
        if not any(
            c.path == ctx.path and c.qualname == scope and c.kind in _FUNCTIONS
            for c in segment.lookup(scopes[end - 1])
        ):
            continue  # a class body: its names are not read from the methods inside it
        found = [c for c in classes if c.qualname == f"{scope}.{name}"]
        if found:
            return found
    return []


def _value_member(
    receiver: str, edge: Edge, ctx: FileContext, by_place: Mapping[tuple[str, str], list[Candidate]]
) -> tuple[Candidate, ...]:
    """TypeScript, JavaScript: a member the calling file defines on a value rather than in a class,
    ``traps.get()`` where ``const traps = { get() {...} }``, ``Foo.bar()`` where ``Foo.bar = function``;
    ``this.get()`` in another method of that object literal (not where the parser knew `this` as a class's:
    an arrow function's in a method)."""
    if receiver in ctx.self_names:
        receiver = edge.caller.rpartition(".")[0] if not edge.alias else ""
    return tuple(by_place.get((ctx.path, f"{receiver}.{edge.name}"), ())) if receiver else ()


_NAME = re.compile(r"[\w$]+")


def external_bases(method: Candidate, segment: Segment) -> frozenset[str]:
    """TypeScript, JavaScript: the bases of a method's class (and of its bases, up) that name no class of
    the segment, by name (`Map` of `class DraftMap extends Map`: a built-in), when the method's is a
    class of those languages; a call on a receiver of such a type may run the method, as the language
    server's references count it."""
    key = ("external bases", method.path, method.qualname, method.bases)
    if key not in segment.memo:
        segment.memo[key] = _external_bases(method, segment)
    found: frozenset[str] = segment.memo[key]
    return found


def _external_bases(method: Candidate, segment: Segment) -> frozenset[str]:
    cls = family_class(method, segment)
    if cls is None or not cls.path.endswith(_ECMASCRIPT_SUFFIXES) or segment.context_of is None:
        return frozenset()
    out: set[str] = set()
    for current in _class_and_bases(cls, segment):
        ctx = segment.context_of(current.path)
        for base in current.bases:
            name = base.split("<", 1)[0].strip()
            if (
                ctx is not None
                and _NAME.fullmatch(name)
                and not _classes_named(name, ctx, segment, current.qualname)
            ):
                out.add(name)
                out.update(_BUILT_IN_SUPERS.get(name, ()))
    return frozenset(out)


# TypeScript's built-in interfaces that extend another whose methods they share (`class MapIterator
# implements IterableIterator<T>` implements Iterator's `next`; a `Generator` is an Iterator)
_BUILT_IN_SUPERS = {
    "IterableIterator": ("Iterator",),
    "IteratorObject": ("Iterator",),
    "Generator": ("Iterator",),
    "MapIterator": ("Iterator",),  # (typescript 5.6's iterators of the built-in collections)
    "SetIterator": ("Iterator",),
    "ArrayIterator": ("Iterator",),
    "StringIterator": ("Iterator",),
    "AsyncIterableIterator": ("AsyncIterator",),
    "AsyncGenerator": ("AsyncIterator",),
}


def _share_external_base(asked: Candidate, reached: Candidate, segment: Segment) -> bool:
    """TypeScript and JavaScript: two methods of one name whose classes (or object literals) implement one
    base the segment does not define (`Iterator`: `next()` in a class implementing `IterableIterator<T>`
    and in the object a `[Symbol.iterator]()` returns), which a language server relates through it."""
    if asked.qualname.rsplit(".", 1)[-1] != reached.qualname.rsplit(".", 1)[-1]:
        return False
    if not (asked.path.endswith(_ECMASCRIPT_SUFFIXES) and reached.path.endswith(_ECMASCRIPT_SUFFIXES)):
        return False
    mine = external_bases(asked, segment) - {"Object"}  # every class's: Object's methods only (above)
    name = asked.qualname.rsplit(".", 1)[-1]
    # (a base the library declares without that member relates nothing: `resolve()` of two interfaces that
    # extend `Promise<T>`, each its own)
    return any(name in _BUILT_IN_MEMBERS.get(b, (name,)) for b in mine & external_bases(reached, segment))


# the members of the ECMAScript library's types a class or an object literal may implement (lib.es*.d.ts),
# where two methods of one name relate through a base only when it declares the name; a base not listed
# here may declare any
_BUILT_IN_MEMBERS = {
    "Promise": ("then", "catch", "finally"),
    "PromiseLike": ("then",),
    "Iterator": ("next", "return", "throw"),
    "AsyncIterator": ("next", "return", "throw"),
    "Error": ("name", "message", "stack", "cause"),
}


def names_external(
    type_text: str, names: frozenset[str], edge: Edge, ctx: FileContext, segment: Segment
) -> bool:
    """Whether a receiver type the walk recorded (``edge.alias``) is one of ``names`` (``external_bases``):
    as written (`Map`), through a type alias of the segment (`type AnyMap = Map<any, any>`), through a
    field's type (`MapState:copy_` where the interface declares `copy_: AnyMap | undefined`)."""
    key = ("external", ctx.path, edge.caller, type_text, names)
    if key not in segment.memo:
        segment.memo[key] = False  # an alias of itself: no
        segment.memo[key] = any(_names_external(t, names, edge, ctx, segment) for t in type_text.split("|"))
    found: bool = segment.memo[key]
    return found


def _names_external(text: str, names: frozenset[str], edge: Edge, ctx: FileContext, segment: Segment) -> bool:
    if segment.returns is None or segment.context_of is None:
        return False
    if ":" in text:
        held, _, field = text.rpartition(":")
        for cls in _receiver_classes(held, edge, ctx, segment):
            for current in _class_and_bases(cls, segment):
                key = (current.path, f"{current.qualname}.{field}")
                texts = [
                    t.removeprefix("#field ")
                    for t in segment.returns(field).get(key, ())
                    if t.startswith("#field ")
                ]
                where = segment.context_of(current.path)
                if texts and where is not None:
                    if any(names_external(t, names, edge, where, segment) for t in texts):
                        return True
                    break
        return False
    if text.endswith("()") and "()." not in text and ctx.path.endswith(_ECMASCRIPT_SUFFIXES):
        # `const keys = this.keys()` with `keys(): MapIterator<K>`: what the method's annotation returns
        parts = callee_parts(text[:-2])
        for target in _sure_callees(text[:-2], parts, edge.caller, ctx, segment) if parts else ():
            where = segment.context_of(target.path)
            returned = segment.returns(target.qualname.rsplit(".", 1)[-1]).get(
                (target.path, target.qualname), ()
            )
            if where is not None and any(
                names_external(t, names, edge, where, segment) for t in returned if not t.startswith("#")
            ):
                return True
        return False
    if not _NAME.fullmatch(text):
        return False
    if text in names or any(n in names for n in _BUILT_IN_SUPERS.get(text, ())):
        return not _classes_named(text, ctx, segment)
    aliases = _through_import([text], ctx, segment, frozenset({SymbolKind.TYPE}))
    targets = (
        list(aliases.targets)
        if aliases is not None
        else [c for c in segment.lookup(text) if c.kind is SymbolKind.TYPE and c.path == ctx.path]
    )
    for target in targets:
        where = segment.context_of(target.path)
        for t in segment.returns(text).get((target.path, target.qualname), ()):
            if (
                t.startswith("#alias ")
                and where is not None
                and names_external(t.removeprefix("#alias "), names, edge, where, segment)
            ):
                return True
    return False


def resolve_edge(edge: Edge, ctx: FileContext, segment: Segment | Lookup) -> Resolved:
    """A call as ``resolve_call`` resolves it; a reference (a function or a class read as a value) only
    when it resolves ``exact`` or ``import`` to functions or classes (a variable named so is not a use of
    one); a doc comment's link to functions only."""
    resolved = resolve_call(edge, ctx, segment)
    if edge.kind is not EdgeKind.REFERENCE and edge.kind is not EdgeKind.DOC:
        return resolved
    kinds = _FUNCTIONS if edge.kind is EdgeKind.DOC else _REFERENCED
    # TypeScript's, JavaScript's `X.m` read may read a property (an object literal's key `reset` typed by
    # `interface Ops { reset: () => number }`), as an accessor's use does
    member = edge.kind is EdgeKind.REFERENCE and "." in edge.text and ctx.path.endswith(_ECMASCRIPT_SUFFIXES)
    targets = tuple(
        t
        for t in resolved.targets
        if t.kind in kinds
        or (member and t.kind is SymbolKind.FIELD and t.path.endswith(_ECMASCRIPT_SUFFIXES))
    )
    if resolved.resolution not in _SURE or not targets:
        return Resolved(resolution=Resolution.UNRESOLVED, reason="unknown")
    return attrs.evolve(resolved, targets=targets)


def resolve_accessor_use(edge: Edge, ctx: FileContext, segment: Segment | Lookup) -> Resolved:
    """An accessor's use (``observable.isBeingObserved``, a reference the question found by its text) as a
    call resolves, ``exact`` or ``import`` only, to methods and, in TypeScript and JavaScript, to
    properties too: the receiver's type may declare the name as a property (``interface IObservable {
    isBeingObserved: boolean }``) that a class's getter implements, its family's member."""
    resolved = resolve_call(edge, ctx, segment)
    targets = tuple(
        t
        for t in resolved.targets
        if t.kind in _FUNCTIONS or (t.kind is SymbolKind.FIELD and t.path.endswith(_ECMASCRIPT_SUFFIXES))
    )
    if resolved.resolution not in _SURE or not targets:
        return Resolved(resolution=Resolution.UNRESOLVED, reason="unknown")
    return attrs.evolve(resolved, targets=targets)


def _typed_receiver_hits(
    edge: Edge, ctx: FileContext, segment: Segment, by_place: Mapping[tuple[str, str], list[Candidate]]
) -> list[Candidate]:
    """The members a call reaches through the receiver types the walk recorded (``edge.alias``)."""
    return [
        h
        for type_text in edge.alias.split("|")
        for t in _receiver_classes(type_text, edge, ctx, segment)
        for h in _member(t, edge.name, segment, by_place)
    ]


def resolve_call(edge: Edge, ctx: FileContext, segment: Segment | Lookup) -> Resolved:
    """The definitions a call may reach, and how they were found (see the module's docstring)."""
    if not isinstance(segment, Segment):
        segment = Segment(lookup=segment)
    lookup = segment.lookup
    parts = callee_parts(edge.text)
    if not parts or not edge.name:
        return Resolved(resolution=Resolution.UNRESOLVED, reason="unknown")
    if edge.alias == LOCAL:  # a parameter or a variable of the calling scope: no definition of the name
        return Resolved(resolution=Resolution.UNRESOLVED, reason="local")
    found, by_place = _callables(segment, edge.name)
    if edge.alias and len(parts) >= 2 and parts[0] in ctx.imports:
        # `pdb = Pdb(); pdb.set_trace()` in a function of pdb.py, which also does `import pdb` (in `main()`,
        # or under `if __name__ == "__main__":`): the variable the walk typed, a local that shadows the import
        typed = _typed_receiver_hits(edge, ctx, segment, by_place)
        if typed:
            return Resolved(resolution=Resolution.EXACT, targets=tuple(dict.fromkeys(typed)))
    by_import = _through_import(parts, ctx, segment)
    if by_import is not None:
        if len(parts) < 2 and not by_import.targets and ctx.path.endswith(_PYTHON_SUFFIXES):
            # `try: from _statistics import f` / `except ImportError: pass` over the module's own `def f`:
            # the import reaches nothing in the segment, the module's definition is the one that runs
            # where it fails
            own = [c for c in by_place.get(("", edge.name), ()) if c.module == ctx.module]
            if own:
                return Resolved(resolution=Resolution.EXACT, targets=tuple(own))
        if by_import.targets or len(parts) < 2:
            return by_import
        # `mod.Class.method(self)`: a method the imported class inherits
        owners = _through_import(parts[:-1], ctx, segment, _CONTAINERS)
        hits = [
            h for o in (owners.targets if owners else ()) for h in _member(o, edge.name, segment, by_place)
        ]
        if hits:
            return Resolved(resolution=Resolution.IMPORT, targets=tuple(dict.fromkeys(hits)))
        # `pdb = Pdb(); pdb.interaction()` in a function of a module that also imports `pdb`: the import
        # reaches no such member, the variable the walk typed in the calling scope does
        typed = _typed_receiver_hits(edge, ctx, segment, by_place) if edge.alias else []
        if typed:
            return Resolved(resolution=Resolution.EXACT, targets=tuple(dict.fromkeys(typed)))
        return by_import
    if len(parts) == 2 and (parts[0] in ctx.self_names or parts[0] in _SUPER):
        owner = enclosing_class(edge.caller, ctx, lookup)
        if owner is not None:
            hits = _member(owner, edge.name, segment, by_place, skip_own=parts[0] in _SUPER)
            if hits:
                return Resolved(resolution=Resolution.EXACT, targets=tuple(hits))
            if parts[0] not in _SUPER and ctx.path.endswith(_PYTHON_SUFFIXES):
                # `self.response_class(...)` with `response_class = HTTPResponse` in the class body
                held = _class_attribute_values(owner, edge.name, segment)
                if held:
                    return Resolved(resolution=Resolution.EXACT, targets=tuple(held))
    if len(parts) == 3 and parts[0] in ctx.self_names and not edge.alias:
        # `this.source.subscribe()`: a field the class inherits, typed where a base declares it
        owner = enclosing_class(edge.caller, ctx, lookup)
        if owner is not None:
            hits = [
                h
                for t in _field_classes(owner, parts[1], segment)
                for h in _member(t, edge.name, segment, by_place)
            ]
            if hits:
                return Resolved(resolution=Resolution.EXACT, targets=tuple(dict.fromkeys(hits)))
    if len(parts) == 2 and not ctx.path.endswith(_PYTHON_SUFFIXES):
        on_value = _value_member(parts[0], edge, ctx, by_place)  # before its type: the object's own method
        if on_value:
            return Resolved(resolution=Resolution.EXACT, targets=on_value)
    if edge.alias and len(parts) >= 2:
        hits = _typed_receiver_hits(edge, ctx, segment, by_place)
        if hits:
            return Resolved(resolution=Resolution.EXACT, targets=tuple(dict.fromkeys(hits)))
    elif len(parts) == 2 and parts[0] not in ctx.self_names and parts[0] not in _SUPER:
        # `Base.method(self)`, `Klass.create()`: a class of the file (or one it star-imports) as the receiver
        hits = [
            h
            for t in _classes_named(parts[0], ctx, segment, anywhere=False)
            for h in _member(t, edge.name, segment, by_place)
        ]
        if hits:
            return Resolved(resolution=Resolution.EXACT, targets=tuple(dict.fromkeys(hits)))
    if len(parts) == 2 and not edge.alias and ctx.path.endswith(".go"):
        hits = [  # `CommandLine.Parse()`: a variable another file of the package declares
            h
            for t in _go_package_variable_classes(parts[0], ctx, segment)
            for h in _member(t, edge.name, segment, by_place)
        ]
        if hits:
            return Resolved(resolution=Resolution.EXACT, targets=tuple(dict.fromkeys(hits)))
    if len(parts) == 1:
        scopes = edge.caller.split(".") if edge.caller else []
        member: list[Candidate] = []
        for end in range(len(scopes), 0, -1):  # a function nested in the caller or one of its outer ones
            nested = by_place.get((ctx.path, f"{'.'.join(scopes[:end])}.{edge.name}"))
            if nested and end < len(scopes) and all(c.kind is SymbolKind.METHOD for c in nested):
                member = member or nested  # a method's class: Python and JavaScript never look there
                continue
            if nested:
                return Resolved(resolution=Resolution.EXACT, targets=tuple(nested))
        local = [c for c in by_place.get(("", edge.name), ()) if c.module == ctx.module]
        if ctx.path.endswith(_ECMASCRIPT_SUFFIXES):
            # a method of an object literal no variable holds (`createSlice({reducers: {increment() {}}})`):
            # reached through an object only, never by its bare name (`const {increment} = slice.actions`)
            local = [c for c in local if c.kind is not SymbolKind.METHOD]
        if ctx.path.endswith(_PYTHON_SUFFIXES):
            member = []  # a bare name never reaches the class: `def dup(self): dup(fd)` calls the module's
        if local or member:  # a module-level name first; else the class's member (Java, C#: `foo()`)
            return Resolved(resolution=Resolution.EXACT, targets=tuple(local or member))
        aliased = _module_aliases(edge.name, ctx, segment) if ctx.path.endswith(_PYTHON_SUFFIXES) else []
        if aliased:  # `_TelnetSelector()` with `_TelnetSelector = selectors.PollSelector`: that class
            return Resolved(resolution=Resolution.EXACT, targets=tuple(aliased))
        starred = _through_stars(edge.name, ctx, segment, _CALLABLE)
        if starred:
            return Resolved(resolution=Resolution.IMPORT, targets=tuple(starred))
    if found:
        return Resolved(resolution=Resolution.NAME, targets=found)
    return Resolved(resolution=Resolution.UNRESOLVED, reason="unknown")


def bound_imports(edges: Sequence[Edge]) -> dict[str, Edge]:
    """Bound name -> import, for the imports of one file (a later import of a name wins, as it would)."""
    out: dict[str, Edge] = {}
    for e in edges:
        if e.kind is EdgeKind.IMPORT and e.alias:
            if e.caller and (bound := out.get(e.alias)) is not None and not bound.caller:
                continue  # `import pdb` in `main()` binds a local there: the module's own import stays
            out[e.alias] = e
    return out


def star_imports(edges: Sequence[Edge]) -> tuple[Edge, ...]:
    """The module-level ``from m import *`` of one file."""
    return tuple(e for e in edges if e.kind is EdgeKind.IMPORT and e.name == "*" and not e.caller)


def names_reaching(name: str, imports: Sequence[Edge]) -> set[str]:
    """The names a call to ``name`` may be written with: itself and the aliases imports bind it to."""
    return {name, *(e.alias for e in imports if e.kind is EdgeKind.IMPORT and e.name == name and e.alias)}


@attrs.frozen(kw_only=True)
class GraphQuestion:
    """A search question the call graph answers: who calls ``target`` (a name or a dotted name, in the
    segment or not), or which tests reach it."""

    target: str
    tests_only: bool = False


_QUESTION = re.compile(
    r"^\s*(?:(?P<tests>tests?\s+(?:that|which)\s+(?:cover|covers|reach|reaches|call|calls|exercise|test)s?)"
    r"|who\s+calls|callers\s+of|(?:functions|methods|code|what)\s+(?:that|which)?\s*calls?|where\s+is)"
    r"\s+`?(?P<target>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)`?(?:\s*\(\s*\))?\s*(?:(?:is\s+)?called)?\s*\??\s*$",
    re.IGNORECASE,
)


def graph_question(query: str) -> GraphQuestion | None:
    """``who calls X``, ``callers of X``, ``functions that call subprocess.run``, ``tests that cover X``,
    ``where is X called`` -> the question; None for anything else (the search pipeline goes on as before)."""
    match = _QUESTION.match(query)
    if match is None or (query.lower().lstrip().startswith("where is") and "called" not in query.lower()):
        return None
    return GraphQuestion(target=match.group("target"), tests_only=bool(match.group("tests")))


def calls_target(edge: Edge, ctx: FileContext, dotted: str) -> bool:
    """Whether a call names ``dotted`` (``subprocess.run``) through the file's imports, for a target that may
    be outside the segment: ``import subprocess; subprocess.run()``, ``from subprocess import run as r; r()``."""
    parts = callee_parts(edge.text)
    wanted = dotted.split(".")
    if not parts:
        return False
    imp = ctx.imports.get(parts[0])
    if imp is None:
        return parts == wanted
    spec, _ = module_spec(imp.text, ctx)
    full = [*spec, *([imp.name] if imp.name else []), *parts[1:]]
    return full[-len(wanted) :] == wanted
