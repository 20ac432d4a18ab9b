"""Python source -> symbols and chunks, with the standard library's `ast`.

Symbols: every class, function and method, nested ones included, found through `if`/`try`/`with`/loop
blocks too (conditional definitions stay at their scope). Chunks: one per function or method that is not
nested in a function (nested functions stay inside their parent's chunk), one header chunk per class (its
lines minus the bodies of its definitions, keeping their `def` lines), and module-level windows of the code
outside any definition. Deep nesting that defeats the parser (RecursionError, MemoryError) is an error for
that file, never a crash: the caller indexes it as text.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import operator
import re
from collections.abc import Callable
from typing import Any

from ..domain.calls import LOCAL, PARAMETER, EdgeKind, EdgeRow
from ..domain.code import Chunk, ChunkKind, ParsedFile, Symbol, SymbolKind

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = (ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)
_DEF_TYPES = frozenset(_DEFS)  # exact type tests: ast node classes are never subclassed by the parser
_BLOCK_TYPES = frozenset(_BLOCKS)
_TRAILING_COLON = re.compile(r":\s*(#.*)?$")
_SPACES = re.compile(r"\s+")
_COMMENT_LINE = re.compile(r"^[^\S\n]*#[^\S\n]*(.*?)[^\S\n]*$", re.MULTILINE)
MODULE_WINDOW = 80
CALL, IMPORT, REFERENCE, RETURN, ARGUMENT = (
    k.value for k in (EdgeKind.CALL, EdgeKind.IMPORT, EdgeKind.REFERENCE, EdgeKind.RETURN, EdgeKind.ARGUMENT)
)
_POSITION = operator.itemgetter(2, 3)  # an edge row's line and column


def chunk_id(path: str, kind: str, symbol: str, ordinal: int) -> str:
    """Stable across re-indexing: depends on where a chunk is, not on its line numbers."""
    return hashlib.sha1(f"{path}\0{kind}\0{symbol}\0{ordinal}".encode()).hexdigest()[:16]


def _unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # unparse of exotic nodes: a name is better than a crash
        return type(node).__name__


def _children(body: list[ast.stmt]) -> list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """Definitions directly in a body, looking through compound statements that do not open a scope."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = []
    for node in body:  # runs once per definition: most bodies hold no definition and no block
        kind = type(node)
        if kind in _DEF_TYPES:
            found.append(node)  # type: ignore[arg-type]
        elif kind in _BLOCK_TYPES or kind is ast.Match:
            found += _children(_inner_body(node))
    return found


def _inner_body(node: ast.stmt) -> list[ast.stmt]:
    """The statements of a compound statement that does not open a scope, in source order."""
    if isinstance(node, ast.Match):
        return [s for case in node.cases for s in case.body]
    inner: list[ast.stmt] = [*getattr(node, "body", ()), *getattr(node, "orelse", ())]
    if isinstance(node, ast.Try | ast.TryStar):
        inner += [s for h in node.handlers for s in h.body] + node.finalbody
    return inner


def _signature(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    first = node.lineno
    last = node.body[0].lineno - 1 if node.body and node.body[0].lineno > first else first
    text = " ".join(line.strip() for line in lines[first - 1 : last])
    if node.body and node.body[0].lineno == first:  # `def f(): pass` on one line
        col = node.body[0].col_offset
        text = lines[first - 1].encode()[:col].decode(errors="replace").strip()
    text = _TRAILING_COLON.sub("", text)
    return _SPACES.sub(" ", text)[:400]


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    a = node.args
    names = [p.arg for p in (*a.posonlyargs, *a.args)]
    if a.vararg:
        names.append("*" + a.vararg.arg)
    names += [p.arg for p in a.kwonlyargs]
    if a.kwarg:
        names.append("**" + a.kwarg.arg)
    return tuple(names)


def _docstring(body: list[ast.stmt]) -> str:
    """`ast.get_docstring(..., clean=True) or ""` for a definition's body, without its per-call checks."""
    first = body[0] if body else None
    if type(first) is ast.Expr and type(first.value) is ast.Constant and type(first.value.value) is str:
        return inspect.cleandoc(first.value.value)
    return ""


def _comments(text: str) -> str:
    """The text of the comment lines of `text`, stripped (one regex: this runs per chunk)."""
    return "\n".join(_COMMENT_LINE.findall(text)) if "#" in text else ""


def parse_python(path: str, text: str) -> ParsedFile:
    # A UTF-8 byte order mark decoded as text is U+FEFF, which `ast.parse` rejects in a str (it only skips
    # one in bytes); it is not part of line 1, so dropping it keeps every line number and column right.
    text = text.removeprefix("\ufeff")
    try:
        tree = ast.parse(text, filename=path, type_comments=False)
    except (SyntaxError, ValueError) as exc:
        where = f" at line {exc.lineno}" if isinstance(exc, SyntaxError) and exc.lineno else ""
        return ParsedFile(language="python", error=f"syntax error{where}: {getattr(exc, 'msg', exc)}")
    except (RecursionError, MemoryError) as exc:
        return ParsedFile(language="python", error=f"too deeply nested to parse ({type(exc).__name__})")
    try:
        return _extract(path, text, tree)
    except (RecursionError, MemoryError) as exc:
        return ParsedFile(language="python", error=f"too deeply nested to parse ({type(exc).__name__})")


def _extract(path: str, text: str, tree: ast.Module) -> ParsedFile:
    lines = text.splitlines()
    symbols: list[Symbol] = []
    chunks: list[Chunk] = []
    seen_ids: dict[str, int] = {}
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]

    def new_id(kind: str, symbol: str) -> str:
        key = f"{kind}\0{symbol}"
        ordinal = seen_ids.get(key, 0)
        seen_ids[key] = ordinal + 1
        return chunk_id(path, kind, symbol, ordinal)

    # (node, parent qualname, parent kind, depth, inside a function)
    stack: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, str, str, int, bool]] = [
        (n, "", "module", 0, False) for n in reversed(_children(tree.body))
    ]
    top_level_ranges: list[tuple[int, int]] = []
    while stack:
        node, parent, parent_kind, depth, in_function = stack.pop()
        start = node.decorator_list[0].lineno if node.decorator_list else node.lineno  # decorators come first
        end = node.end_lineno or node.lineno
        qualname = f"{parent}.{node.name}" if parent else node.name
        decorators = tuple(_unparse(d) for d in node.decorator_list)
        docstring = _docstring(node.body)
        signature = _signature(lines, node)
        if depth == 0:
            top_level_ranges.append((start, end))
        kids = _children(node.body)
        if isinstance(node, ast.ClassDef):
            sym = Symbol(
                name=node.name,
                qualname=qualname,
                kind=SymbolKind.CLASS,
                start_line=start,
                end_line=end,
                def_line=node.lineno,
                signature=signature,
                docstring=docstring,
                decorators=decorators,
                bases=tuple(_unparse(b) for b in node.bases),
                parent=parent,
                depth=depth,
                exported=not node.name.startswith("_"),
            )
            if not in_function:
                kid_ranges = [
                    (
                        k.decorator_list[0].lineno if k.decorator_list else k.lineno,
                        k.end_lineno or k.lineno,
                        k.lineno,
                    )
                    for k in kids
                ]
                header_end = (min(r[0] for r in kid_ranges) - 1) if kid_ranges else end
                body_lines = _lines_outside(lines, start, end, kid_ranges)
                chunks.append(
                    Chunk(
                        id=new_id("class", qualname),
                        path=path,
                        start_line=start,
                        end_line=max(start, header_end),
                        kind=ChunkKind.CLASS,
                        language="python",
                        symbol=qualname,
                        name=node.name,
                        signature=signature,
                        doc=docstring,
                        body=body_lines,
                    )
                )
            kind_for_kids = "class"
        else:
            is_method = parent_kind == "class"
            sym = Symbol(
                name=node.name,
                qualname=qualname,
                kind=SymbolKind.METHOD if is_method else SymbolKind.FUNCTION,
                start_line=start,
                end_line=end,
                def_line=node.lineno,
                signature=signature,
                docstring=docstring,
                decorators=decorators,
                params=_params(node),
                is_async=isinstance(node, ast.AsyncFunctionDef),
                parent=parent,
                depth=depth,
                exported=not node.name.startswith("_"),
            )
            if not in_function:
                body = "\n".join(lines[start - 1 : end])
                chunks.append(
                    Chunk(
                        id=new_id("method" if is_method else "function", qualname),
                        path=path,
                        start_line=start,
                        end_line=end,
                        kind=ChunkKind.METHOD if is_method else ChunkKind.FUNCTION,
                        language="python",
                        symbol=qualname,
                        name=node.name,
                        signature=signature,
                        doc="\n".join(filter(None, [docstring, _comments(body)])),
                        body=body,
                    )
                )
            kind_for_kids = "function"
        symbols.append(sym)
        inside = in_function or kind_for_kids == "function"
        for kid in reversed(kids):
            stack.append((kid, qualname, kind_for_kids, depth + 1, inside))

    chunks.extend(module_chunks(path, stem, lines, top_level_ranges, ast.get_docstring(tree) or "", new_id))
    symbols.sort(key=lambda s: (s.start_line, s.depth))
    chunks.sort(key=lambda c: c.start_line)
    edges = _edges(tree, symbols, len(lines))
    return ParsedFile(language="python", symbols=tuple(symbols), chunks=tuple(chunks), edge_rows=edges)


def _callee(node: ast.expr) -> str:
    """`self.a.b`, `os.path.join`, `super().m`; a part that is not a name is `?` (`f().m` is `?.m`)."""
    parts: list[str] = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    kind = type(node)
    if kind is ast.Name:
        parts.append(node.id)  # type: ignore[attr-defined]
    elif kind is ast.Call and type(node.func) is ast.Name and node.func.id == "super":  # type: ignore[attr-defined]
        parts.append("super()")
    else:
        parts.append("?")
    return ".".join(reversed(parts))


def _type_name(node: ast.expr | None) -> str:
    """The class an annotation or a constructor call names, as written: `Foo`, `mod.Foo`, `"Foo"`; "" for
    others."""
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[union-attr]
    if kind is ast.Attribute:
        text = _callee(node)  # type: ignore[arg-type]
        return "" if "?" in text else text
    if kind is ast.Constant and isinstance(node.value, str):  # type: ignore[union-attr]
        return node.value.rsplit(".", 1)[-1] if node.value.replace(".", "").isidentifier() else ""  # type: ignore[union-attr]
    return ""


# Fields that never hold a node (names, operators, flags): the walk below does not look into them.
_NOT_NODES = frozenset(
    {"ctx", "op", "id", "attr", "name", "arg", "module", "level", "kind", "type_comment", "asname", "simple",
     "is_async", "conversion", "names", "tag", "type_ignores", "kwd_attrs", "ops"}
)  # fmt: skip
_CHILDREN: dict[
    type, str | Callable[[Any], tuple[Any, ...]]
] = {}  # per node type: its fields that may hold nodes
MAX_CALL_CHAIN = 3  # `a.make().copy().fix()`: the longest receiver type kept
MAX_NARROWED = 3  # `isinstance(x, (A, B, C))`: the most classes a test narrows a name to
MAX_ITEMS = 4  # `return a, b`: the tuple items a function's return records (their classes), by position
_MADE = ("()", "]")  # a type that is a call's value (`f()`) or one of its items (`f()[0]`)
_SELF_TYPE = "(self)"  # what `return self` / `-> Self` returns: the instance's own class
MAX_MODULE_ALTERNATIVES = 6  # the classes kept for a module-level variable or class alias
MIN_AGREEING_SCOPES = 3  # an untyped parameter takes its name's type when this many functions agree on it
_SELF_NAMES = frozenset({"self", "cls", "mcs", "mcls", "metacls"})
_FUNCTIONS = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD})
# Values the walk never looks into: leaves (a third of a tree's nodes are names and constants) and the
# non-node values some fields hold (`MatchSingleton.value` is True, `MatchMapping.rest` a string).
_LEAVES = frozenset({type(None), str, bytes, int, float, complex, bool, type(...), ast.Constant,
                     ast.Pass, ast.Break, ast.Continue, ast.Nonlocal})  # fmt: skip
# What the edge walk reads: calls, imports, what gives a variable its type or binds a name, what a function
# returns, and the names of functions used as values (`_edges`' walk).
_WANTED = frozenset({ast.Call, ast.Assign, ast.AnnAssign, ast.arg, ast.For, ast.AsyncFor, ast.Import,
                     ast.ImportFrom, ast.Return, ast.FunctionDef, ast.AsyncFunctionDef, ast.comprehension, ast.withitem, ast.NamedExpr,
                     ast.ExceptHandler, ast.Global})  # fmt: skip


def _narrowing(test: ast.expr) -> tuple[str, str] | None:
    """(name, its classes) a test proves when true: `isinstance(x, C)`, `isinstance(x, (A, B))`,
    `type(x) is C`, either side of an `and` holding one; None for other tests or a class of no name."""
    kind = type(test)
    if kind is ast.BoolOp and type(test.op) is ast.And:  # type: ignore[attr-defined]
        return next((n for n in map(_narrowing, test.values) if n is not None), None)  # type: ignore[attr-defined]
    if kind is ast.Call:
        func, args = test.func, test.args  # type: ignore[attr-defined]
        if (
            type(func) is not ast.Name
            or func.id != "isinstance"
            or len(args) != 2
            or type(args[0]) is not ast.Name
        ):
            return None
        name, classes = args[0].id, args[1]
    elif kind is ast.Compare:
        left, ops = test.left, test.ops  # type: ignore[attr-defined]
        if (
            len(ops) != 1
            or type(ops[0]) is not ast.Is
            or type(left) is not ast.Call
            or type(left.func) is not ast.Name
            or left.func.id != "type"
            or len(left.args) != 1
            or type(left.args[0]) is not ast.Name
        ):
            return None
        name, classes = left.args[0].id, test.comparators[0]  # type: ignore[attr-defined]
    else:
        return None
    items = classes.elts if type(classes) is ast.Tuple else [classes]
    names = [_type_name(item) for item in items[:MAX_NARROWED]]
    if len(items) > MAX_NARROWED or not all(names):
        return None
    return name, "|".join(names)


def _exits(body: list[ast.stmt]) -> bool:
    """Whether a block ends by leaving the function (`return`, `raise`): what follows runs only when its
    test was false."""
    return bool(body) and type(body[-1]) in (ast.Return, ast.Raise)


def _parameter_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = node.args
    names = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    names.update(p.arg for p in (a.vararg, a.kwarg) if p is not None)
    return names


def _module_function(node: ast.Attribute, modules: frozenset[str], methods: frozenset[str]) -> bool:
    """Whether an attribute read names a function of a module the file imports: ``os.path.normcase``,
    ``functools.lru_cache`` (a lower-case last name, read from an imported module's name; ``mod.m`` of a
    method name of the file is read by the walk's attribute rule already)."""
    if not node.attr[:1].islower() or type(node.ctx) is not ast.Load:
        return False
    value = node.value
    if type(value) is ast.Name and node.attr in methods:
        return False
    while type(value) is ast.Attribute:
        value = value.value
    return type(value) is ast.Name and value.id in modules


def _children_getter(kind: type) -> str | Callable[[Any], tuple[Any, ...]]:
    """How `_edges`' walk reads a node type's fields that may hold nodes: the one field's name, else a
    getter of them all as a tuple (one C call rather than a `getattr` per field)."""
    fields = [f for f in getattr(kind, "_fields", ()) if f not in _NOT_NODES]
    getter: str | Callable[[Any], tuple[Any, ...]]
    getter = fields[0] if len(fields) == 1 else operator.attrgetter(*fields) if fields else _no_children
    _CHILDREN[kind] = getter
    return getter


def _no_children(node: Any) -> tuple[Any, ...]:
    return ()


def _annotation_types(node: ast.expr | None) -> list[str]:
    """The classes an annotation names: `Foo`, `mod.Foo`, `"Foo"`, each side of `A | B`, the arguments of
    `Optional[...]` / `Union[...]`; none for others."""
    kind = type(node)
    if kind is ast.BinOp and type(node.op) is ast.BitOr:  # type: ignore[union-attr]
        return _annotation_types(node.left) + _annotation_types(node.right)  # type: ignore[union-attr]
    if kind is ast.Subscript:
        head = _type_name(node.value).rsplit(".", 1)[-1]  # type: ignore[union-attr]
        if head in ("Optional", "Union"):
            inner = node.slice  # type: ignore[union-attr]
            items = inner.elts if type(inner) is ast.Tuple else [inner]
            return [t for item in items for t in _annotation_types(item)]
        return []
    name = _type_name(node)
    return [name] if name and name != "None" else []


def _alternatives(value: ast.expr) -> list[ast.expr]:
    """The values an expression may take that the walk types: each side of `a or b()`, `a if c else b()`
    (nested ones too); the calls, names and attributes among them."""
    out: list[ast.expr] = []
    todo = [value]
    while todo:
        node = todo.pop()
        kind = type(node)
        if kind is ast.BoolOp:
            todo.extend(reversed(node.values))  # type: ignore[attr-defined]
        elif kind is ast.IfExp:
            todo.extend((node.orelse, node.body))  # type: ignore[attr-defined]
        elif kind is ast.Call or kind is ast.Name or kind is ast.Attribute:
            out.append(node)
    return out


def _tuple_items(annotation: ast.expr | None) -> list[list[str]]:
    """The classes of each item a `tuple[A, B]` / `Tuple[A, B]` annotation names; none for others."""
    if type(annotation) is not ast.Subscript or _type_name(annotation.value).rsplit(".", 1)[-1] not in (
        "tuple",
        "Tuple",
    ):
        return []
    inner = annotation.slice
    if type(inner) is not ast.Tuple or any(type(e) is ast.Constant and e.value is ... for e in inner.elts):
        return []  # `tuple[int, ...]`: no item has its own class
    return [[t for t in _annotation_types(e) if _is_class_name(t)] for e in inner.elts[:MAX_ITEMS]]


def _is_classmethod(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(type(d) is ast.Name and d.id == "classmethod" for d in node.decorator_list)


def _is_class_name(name: str) -> bool:
    """A constructor call or a return type worth recording: its last part is capitalized (PEP 8's class
    names; a lower-case callee is recorded as a call whose return type is looked up when asked)."""
    return name.rsplit(".", 1)[-1][:1].isupper()


def _imported(tree: ast.Module) -> tuple[frozenset[str], frozenset[str]]:
    """The names the module's top-level `from m import a [as b]` bind (not `*`, not constants: `SEEK_SET`),
    and the modules its top-level `import m [as n]` bind."""
    out: set[str] = set()
    modules: set[str] = set()
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        kind = type(node)
        if kind is ast.ImportFrom:
            out.update(a.asname or a.name for a in node.names if a.name != "*")  # type: ignore[attr-defined]
        elif kind is ast.Import:
            modules.update(a.asname or a.name.split(".", 1)[0] for a in node.names)  # type: ignore[attr-defined]
        elif kind is ast.Try or kind is ast.If:
            todo.extend(node.body)  # type: ignore[attr-defined]
            todo.extend(node.orelse)  # type: ignore[attr-defined]
            for handler in getattr(node, "handlers", ()):
                todo.extend(handler.body)
    return frozenset(n for n in out if not n.isupper()), frozenset(modules)


def _edges(tree: ast.Module, symbols: list[Symbol], n_lines: int) -> tuple[EdgeRow, ...]:
    """Call sites, imports, functions used as values and what functions return, each with its enclosing
    definition (the innermost one around its line).

    A call keeps the receiver's type where a parameter annotation or an assignment gives it: a constructor
    call (`x = Foo()`), or a call whose return type is looked up when asked (`x = self.make()` keeps
    `self.make()`); in the calling function, else (for a name it does not bind) in the functions around it
    and the module, as Python reads a name. Types assigned to one name in one scope are all kept (``A|B``).

    A reference (``EdgeKind.REFERENCE``) is a function of the file, or a name a ``from`` import binds, read
    as a value rather than called (`callback=self.on_done`, `handlers = [parse_a, parse_b]`,
    `__copy__ = copy`, `map(mul, ...)`), in a scope that does not bind that name itself. A return
    (``EdgeKind.RETURN``) is a function's returned class as written: its annotation, else what a `return`
    builds (`return Foo(...)`; `return self`, `return cls(...)`, `return type(self)(...)` name the class),
    either side of `a or b()` / `a if c else b()`, and each item of `return a, b` / `-> tuple[A, B]` (alias
    `[i]`: `p, u = f()` types `p` as `f()[0]`). A module-level variable's class (alias `var`: `cdll =
    LibraryLoader(CDLL)`) and a module-level name for a class (alias `alias`: `_PyFuture = Future`) are
    RETURN edges of the variable, for the modules that import it.
    """
    last = tree.body[-1].end_lineno or 0 if tree.body else 0
    owner = [""] * (max(n_lines, last) + 2)  # by line: the innermost definition around it
    classes = set()
    based: list[Symbol] = []  # the classes with bases
    for s in sorted(symbols, key=lambda s: s.depth):  # inner definitions paint over outer ones
        owner[s.start_line : s.end_line + 1] = [s.qualname] * (s.end_line - s.start_line + 1)
        if s.kind is SymbolKind.CLASS:
            classes.add(s.qualname)
            if s.bases:
                based.append(s)
    functions = frozenset(s.name for s in symbols if s.kind in _FUNCTIONS)
    methods = frozenset(s.name for s in symbols if s.kind is SymbolKind.METHOD)

    class_names: dict[str, str] = {}

    def class_of(qualname: str) -> str:
        known = class_names.get(qualname)
        if known is None:
            parts = qualname.split(".")
            known = next(
                (
                    ".".join(parts[:end])
                    for end in range(len(parts), 0, -1)
                    if ".".join(parts[:end]) in classes
                ),
                "",
            )
            class_names[qualname] = known
        return known

    edges: list[EdgeRow] = []  # as rows (Edge.row()): the stdlib's 70k Edge objects cost 0.09 s to make
    types: dict[tuple[str, str], list[str]] = {}  # (scope, variable) -> class names, as written
    assigned: set[tuple[str, str]] = set()  # (scope, variable) the scope binds, with a known type or not
    copies: list[tuple[tuple[str, str], tuple[str, str]]] = []  # (scope, variable) = (scope, variable)
    returns: dict[str, list[str]] = {}  # function -> the classes it returns, as written
    returned_names: dict[str, list[str]] = {}  # function -> the local variables it returns
    returned_fields: dict[str, list[str]] = {}  # method -> the fields it returns (`return self._buffer`)
    declared_global: set[tuple[str, str]] = set()  # (function, name) of its `global` statements
    read_in: dict[int, str] = {}  # a `def`'s default values (by id): the scope they are read in
    class_aliases: dict[tuple[str, str], list[str]] = {}  # (scope, variable) -> the classes assigned to it
    returned_calls: dict[str, list[str]] = {}  # function -> the names it returns a call of (`return cls()`)
    untyped_params: set[tuple[str, str]] = set()  # (function, parameter) with no annotation
    # function -> item -> the classes its `return a, b` gives that item (`f()[0]` of `x, y = f()`)
    item_returns: dict[str, dict[int, list[str]]] = {}
    item_names: dict[str, list[tuple[int, str]]] = {}  # function -> (item, local variable) it returns
    class_attributes: set[str] = set()  # `Class.name` its body assigns
    self_fields: set[tuple[str, str]] = set()  # (method, name) of its `self.name = ...`
    module_variables: list[str] = []  # the names module-level statements assign
    class_params: dict[str, str] = {}  # a classmethod -> its first parameter, when not `cls` (`klass`)
    defs_of: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}  # a function's qualified name -> its def
    # (scope, name) -> (first line, last line, classes) where an `isinstance` test holds (`if` body, or after
    # `assert isinstance(x, C)` / `if not isinstance(x, C): return` to the function's end)
    narrowed: dict[tuple[str, str], list[tuple[int, int, str]]] = {}
    call_t, assign_t, ann_t, arg_t, name_t = ast.Call, ast.Assign, ast.AnnAssign, ast.arg, ast.Name
    starred_t, constant_t = ast.Starred, ast.Constant
    attribute_t, return_t, def_t, async_def_t = (
        ast.Attribute,
        ast.Return,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
    )

    def typed(key: tuple[str, str], name: str) -> None:
        known = types.setdefault(key, [])
        if name not in known:
            known.append(name)

    def made_by(value: ast.Call, where: str | None = None) -> str:
        """The type a call's value has, as recorded: a class it constructs, or `f()` (looked up later).
        In a method (``where``), `cls(...)`, `type(self)(...)` and `self.__class__(...)` name its class (not
        a metaclass's: its `cls` is the class it makes)."""
        func: Any = value.func
        kind = type(func)
        if kind is name_t:
            text = func.id
            if where is not None and (text == "cls" or (class_params and text == class_params.get(where))):
                return own_class(where) or f"{text}()"
            # `x = deque()` of a lower-case class here (`_is_class_name` inlined: this runs per assignment)
            return text if text[:1].isupper() or text in classes else f"{text}()"
        if kind is attribute_t:
            head = func.value
            if (
                where is not None
                and func.attr == "__class__"
                and type(head) is name_t
                and head.id in _SELF_NAMES
            ):
                return own_class(where)
            text = f"{head.id}.{func.attr}" if type(head) is name_t else _callee(func)
            if "?" in text:
                return ""
            return text if func.attr[:1].isupper() or text in classes else f"{text}()"
        else:
            if (
                where is not None
                and kind is call_t
                and type(func.func) is name_t
                and func.func.id == "type"
                and len(func.args) == 1
                and type(func.args[0]) is name_t
                and func.args[0].id in _SELF_NAMES
            ):
                return own_class(where)
            text = _type_name(func)  # `"Foo"()`
            return text if text and (_is_class_name(text) or text in classes) else ""

    def own_class(where: str) -> str:
        own = class_of(where)
        return own if own and own not in metaclasses else ""

    def returned(value: ast.expr, where: str) -> str:
        if type(value) is name_t:
            if value.id == "self":
                return _SELF_TYPE if class_of(where) else ""
            returned_names.setdefault(where, []).append(value.id)  # a local's type, known after the walk
            return ""
        if type(value) is not call_t:
            if type(value) is attribute_t and type(value.value) is name_t:
                head = value.value.id
                if head == "self":
                    returned_fields.setdefault(where, []).append(
                        value.attr
                    )  # the field's type, after the walk
                elif head in class_shorts or _is_class_name(head):
                    return f"{head}:{value.attr}"  # `return Document.implementation`: what the class holds
            return ""
        func = value.func
        if type(func) is name_t:
            if (
                (func.id == "cls" or func.id == class_params.get(where))
                and class_of(where)
                and class_of(where) not in metaclasses
            ):
                return _SELF_TYPE  # the class the classmethod is called on (`FastLookup.make()`), as `self`
            returned_calls.setdefault(where, []).append(func.id)  # `cls = _PreciseSelector; return cls()`
        if type(func) is call_t and type(func.func) is name_t and func.func.id == "type":
            return _SELF_TYPE if class_of(where) else ""  # `type(self)(...)`
        if type(func) is attribute_t and func.attr == "__class__":
            return _SELF_TYPE if class_of(where) else ""
        return made_by(value)

    def returned_items(value: ast.Tuple, where: str) -> None:
        """`return parser, target`: each item's class, by position (a local's known after the walk)."""
        items = item_returns.setdefault(where, {})
        for i, item in enumerate(value.elts[:MAX_ITEMS]):
            kind = type(item)
            if kind is ast.Starred:
                break  # the items after `*rest` have no known position
            if kind is name_t and item.id != "self":  # type: ignore[attr-defined]
                item_names.setdefault(where, []).append((i, item.id))  # type: ignore[attr-defined]
                continue
            if kind is name_t:
                name = class_of(where)
            elif kind is call_t:
                func = item.func  # type: ignore[attr-defined]
                cls = type(func) is name_t and func.id == "cls"
                name = class_of(where) if cls else made_by(item)  # type: ignore[arg-type]
            else:
                continue
            if name:
                known = items.setdefault(i, [])
                if name not in known:
                    known.append(name)

    def assign(targets: list[ast.expr], value: ast.expr, where: str) -> None:
        """What an assignment of a call, a name or an attribute tells of its targets' types."""
        made = ""
        for target in targets:  # `a = self.a = Foo()`: each target
            if type(target) is name_t:
                key = (where, target.id)
            elif type(target) is attribute_t and type(target.value) is name_t:
                key = (class_of(where), f"{target.value.id}.{target.attr}")
            elif (type(target) is ast.Tuple or type(target) is ast.List) and type(value) is call_t:
                made = made or made_by(value, where)  # `p, u = getparser()`: each name, the item
                if made.endswith("()"):
                    for i, item in enumerate(target.elts[:MAX_ITEMS]):
                        if type(item) is ast.Starred:
                            break
                        if type(item) is name_t:
                            typed((where, item.id), f"{made}[{i}]")
                            if not where:
                                module_variables.append(item.id)
                continue
            else:
                continue
            if type(value) is name_t:  # `self.x = x`: x's type, known once the walk is done
                copies.append((key, (where, value.id)))
                if type(target) is name_t and (value.id in class_shorts or _is_class_name(value.id)):
                    known = class_aliases.setdefault(key, [])  # `cls = _WildcardSelector`
                    if value.id not in known:
                        known.append(value.id)
            elif type(value) is attribute_t:  # `x = self.store`: the field's type
                if type(value.value) is name_t and value.value.id in _SELF_NAMES:
                    copies.append((key, (class_of(where), f"{value.value.id}.{value.attr}")))
                elif type(target) is name_t and _is_class_name(value.attr) and not value.attr.isupper():
                    dotted = _callee(
                        value
                    )  # `_TelnetSelector = selectors.PollSelector`: another module's class
                    known = class_aliases.setdefault(key, [])
                    if "?" not in dotted and dotted not in known:
                        known.append(dotted)
            elif made or (made := made_by(value, where)):  # type: ignore[arg-type]
                typed(key, made)
                if where in classes and type(target) is name_t:  # `implementation = Impl()` in a
                    typed((where, f"self.{target.id}"), made)  # class body: `self.implementation`

    def bind(node: Any, where: str) -> None:
        """The names a target binds (`a, (b, c) = ...`); a loop, not a recursion: a nested function that
        calls itself holds its closure in a reference cycle, which parser workers never collect."""
        if type(node) is name_t:  # most targets
            assigned.add((where, node.id))
            return
        todo = [node]
        while todo:
            node = todo.pop()
            if type(node) is name_t:
                assigned.add((where, node.id))
            elif type(node) is ast.Tuple or type(node) is ast.List:
                todo.extend(node.elts)

    def narrowed_type(caller: str, variable: str, line: int) -> str:
        """The classes the innermost `isinstance` test around the line that holds there gives the name."""
        spans = narrowed.get((caller, variable))
        if not spans:
            return ""
        return max(((first, t) for first, last, t in spans if first <= line <= last), default=(0, ""))[1]

    def narrow(found: tuple[str, str] | None, where: str, first: int, last: int) -> None:
        if found is not None and first <= last:
            narrowed.setdefault((where, found[0]), []).append((first, last, found[1]))

    def narrow_if(node: ast.If) -> None:
        """`if isinstance(x, C):` types x as a C in its body (`if not ...:` in its `else`)."""
        test, body, orelse = node.test, node.body, node.orelse
        negated = type(test) is ast.UnaryOp and type(test.op) is ast.Not
        block = orelse if negated else body
        if block:
            found = _narrowing(test.operand if negated else test)  # type: ignore[attr-defined]
            narrow(found, owner[node.lineno], block[0].lineno, block[-1].end_lineno or block[-1].lineno)

    def narrow_after(node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """The function's own statements `assert isinstance(x, C)` and `if not isinstance(x, C): return`
        type x as a C from there to the function's end."""
        where, last = owner[node.lineno], node.end_lineno or node.lineno
        for statement in node.body:
            kind = type(statement)
            if kind is ast.Assert:
                narrow(_narrowing(statement.test), where, statement.lineno, last)  # type: ignore[attr-defined]
            elif kind is ast.If:
                test = statement.test  # type: ignore[attr-defined]
                if type(test) is ast.UnaryOp and type(test.op) is ast.Not and _exits(statement.body):  # type: ignore[attr-defined]
                    narrow(_narrowing(test.operand), where, (statement.end_lineno or 0) + 1, last)

    node: Any
    class_shorts = {q.rsplit(".", 1)[-1] for q in classes}
    metaclasses: set[str] = set()  # `class EnumType(type)`, `class ABCMeta(type)`, `class Meta(ABCMeta)`:
    # their methods' `cls` is the class they make, not themselves
    for symbol in sorted(based, key=lambda s: s.start_line):  # a base before the classes that name it
        for base in symbol.bases:
            base_name = base.rsplit(".", 1)[-1]
            if (
                base_name == "type"
                or base_name.endswith(("Meta", "Metaclass", "MetaClass"))
                or any(m.rsplit(".", 1)[-1] == base_name for m in metaclasses)
            ):
                metaclasses.add(symbol.qualname)
                break
    owners = _SELF_NAMES | class_shorts
    from_imported, modules = _imported(tree)
    values_of = functions | from_imported | class_shorts
    namespaces = modules | from_imported  # `from test import support`: `support.check__all__` passed
    # The walk: every node of the tree once, depth first, the last child first (the order the types' lists
    # follow), without `ast.walk`'s generators and without visiting expression contexts, operators and
    # leaves. The statements and other nodes of `_WANTED`'s kinds are read as they are met; the calls and
    # the values read (names and attributes, ``Load`` only) once the walk is done, when every variable's
    # type is known. The values are the `ast.Name`s of ``values_of`` (of ``functions`` only when an
    # attribute is read from it: `f.__doc__`, not `log.info`), the attributes of ``methods`` read from a
    # name (``self.m``, ``cls.m``, ``Klass.m``, ``tracker.m``) or a call (``Codec().m``), the classes read
    # from ``modules`` (``typing.Optional``, ``socket.SocketType``; a capitalized name, not a constant),
    # and the functions read from ``namespaces`` (imported modules, names a ``from`` import binds) that a
    # call is passed, a definition is decorated with or a variable is assigned (``map(os.path.normcase,
    # ...)``, ``@functools.lru_cache``, ``save = linecache.getlines``); never a call's callee (`f` of `f()`,
    # `self.m` of `self.m()`: those are the calls).
    calls: list[ast.Call] = []
    values: list[Any] = []
    assigned_functions: list[ast.Attribute] = []  # `save = linecache.getlines`: values too
    stack: list[Any] = [tree]
    pop, push, extend, add_call, add_value = (
        stack.pop,
        stack.append,
        stack.extend,
        calls.append,
        values.append,
    )
    children_of = _CHILDREN.get
    leaves, wanted, list_t, load_t = _LEAVES, _WANTED, list, ast.Load
    expr_t, if_t, compare_t, arguments_t, binop_t, tuple_t, subscript_t = (
        ast.Expr,
        ast.If,
        ast.Compare,
        ast.arguments,
        ast.BinOp,
        ast.Tuple,
        ast.Subscript,
    )
    while stack:
        node = pop()
        kind = type(node)
        if kind is name_t:
            if node.id in values_of and type(node.ctx) is load_t:
                add_value(node)
            continue
        if kind in leaves:
            continue
        if kind is call_t:
            add_call(node)
            func = node.func  # pushed first, as the fields' order has it
            if type(func) is attribute_t:  # `x.m(...)`: what `x` holds, never `x.m` itself (the call)
                value = func.value
                if type(value) is name_t:
                    if value.id in functions and value.id not in owners:
                        add_value(value)  # `f.cache_clear()`: `f` read as a value
                else:
                    push(value)
            elif type(func) is not name_t:
                push(func)
            extend(node.args)  # a module's function passed (`map(os.path.normcase, names)`): see the calls
            for keyword in node.keywords:
                push(keyword.value)
            continue
        if kind is attribute_t:  # read (`Load`) or a target (`self.x = ...`: only `x`'s value is read)
            value = node.value
            if type(value) is name_t:
                if value.id in owners:
                    if node.attr in methods and type(node.ctx) is load_t:
                        add_value(node)
                elif value.id in functions:
                    add_value(value)
                elif node.attr in methods:
                    if type(node.ctx) is load_t:
                        add_value(node)  # `tracker.ensure_running`: kept if the walk types `tracker`
                elif (
                    value.id in modules
                    and node.attr[:1].isupper()
                    and not node.attr.isupper()
                    and type(node.ctx) is load_t
                ):
                    add_value(node)  # `typing.Optional`
            else:
                value_kind = type(value)
                if value_kind is call_t:
                    if node.attr in methods and type(node.ctx) is load_t:
                        add_value(node)  # `Codec().encode`
                elif (
                    value_kind is attribute_t
                    and type(value.value) is name_t
                    and value.value.id in _SELF_NAMES
                    and node.attr in methods
                    and type(node.ctx) is load_t
                ):
                    add_value(node)  # `self.successor._select_from`: typed by the field
                push(value)
            continue
        if kind is assign_t:
            value = node.value
            where = owner[node.lineno]
            for target in node.targets:  # its children: each target (a name stored holds nothing to read)
                if type(target) is name_t:  # most targets
                    assigned.add((where, target.id))
                    if not where:
                        module_variables.append(target.id)
                    continue
                push(target)
                if type(target) is attribute_t:
                    if type(target.value) is name_t and target.value.id in _SELF_NAMES:
                        self_fields.add((where, target.attr))  # `self.resultclass = resultclass`
                else:
                    bind(target, where)
            push(value)  # then the value
            value_kind = type(value)
            if value_kind is attribute_t:
                head = value.value  # `save = linecache.getlines`: the function kept as a value
                if (type(head) is not name_t or head.id in namespaces) and _module_function(
                    value, namespaces, methods
                ):
                    assigned_functions.append(value)
            if value_kind is not call_t and value_kind is not name_t and value_kind is not attribute_t:
                if value_kind is ast.BoolOp or value_kind is ast.IfExp:  # `x = a or b()`: either side's
                    for alternative in _alternatives(value):
                        assign(node.targets, alternative, where)
                elif value_kind is ast.Tuple:  # `a, b = Foo(), Bar()`: item by item
                    for target in node.targets:
                        if type(target) is ast.Tuple and len(target.elts) == len(value.elts):
                            for item_target, item in zip(target.elts, value.elts, strict=True):
                                if type(item) is call_t or type(item) is name_t:
                                    assign([item_target], item, where)
                continue
            target = node.targets[0]
            if (
                type(value) is name_t
                and type(target) is name_t
                and target.id == value.id
                and where in classes
            ):
                read_in[id(value)] = where.rpartition(".")[0]  # `_rebuild = _rebuild` in a class body
            if (
                where in classes
                and type(target) is name_t
                and target.id[:2] != "__"
                and not target.id.isupper()
            ):
                # `encode = codecs.ascii_encode` in a class body: no base's method is reached by that name
                name = target.id
                edges.append((RETURN, f"{where}.{name}", 0, 0, name, _callee(value), "attr"))
                class_attributes.add(f"{where}.{name}")
            assign(node.targets, value, where)
            continue
        if kind is arg_t:
            if node.annotation is not None:
                push(node.annotation)
            key = (owner[node.lineno], node.arg)
            assigned.add(key)
            if node.annotation is None:
                untyped_params.add(key)
            else:
                for name in _annotation_types(node.annotation):
                    typed(key, name)
            continue
        if kind is return_t:
            value = node.value
            if value is None:
                continue
            push(value)
            where = owner[node.lineno]
            if not where:
                continue
            value_kind = type(value)
            if value_kind is ast.Tuple:
                returned_items(value, where)
                continue
            if value_kind is ast.BoolOp or value_kind is ast.IfExp:  # `return self._x or self._make()`
                names = [n for alternative in _alternatives(value) if (n := returned(alternative, where))]
            elif value_kind is name_t or value_kind is call_t or value_kind is attribute_t:
                names = [name] if (name := returned(value, where)) else []
            else:
                continue
            if names:
                known = returns.setdefault(where, [])
                known.extend(n for n in dict.fromkeys(names) if n not in known)
            continue
        if kind is expr_t:  # the generic types most met, each field read as the getter would
            push(node.value)
            continue
        if kind is if_t:
            test = node.test
            push(test)
            extend(node.body)
            extend(node.orelse)
            if (
                type(test) is call_t
                or type(test) is ast.UnaryOp
                or type(test) is ast.BoolOp
                or (type(test) is compare_t and type(test.left) is call_t)
            ):
                narrow_if(node)
            continue
        if kind is compare_t:
            push(node.left)
            extend(node.comparators)
            continue
        if kind is arguments_t:
            extend(node.posonlyargs)
            extend(node.args)
            if node.vararg is not None:
                push(node.vararg)
            extend(node.kwonlyargs)
            extend(node.kw_defaults)
            if node.kwarg is not None:
                push(node.kwarg)
            extend(node.defaults)
            continue
        if kind is binop_t:
            push(node.left)
            push(node.right)
            continue
        if kind is tuple_t:
            extend(node.elts)
            continue
        if kind is subscript_t:
            push(node.value)
            push(node.slice)
            continue
        children = children_of(kind)
        if children is None:
            children = _children_getter(kind)
        if isinstance(children, str):  # the one field that may hold nodes
            value = getattr(node, children)
            if type(value) is list_t:
                extend(value)
            elif value is not None:
                push(value)
        else:
            for value in children(node):
                if type(value) is list_t:
                    extend(value)  # a string or None in a list (`Dict.keys`) is a leaf, skipped when popped
                elif value is not None:
                    push(value)
        if kind not in wanted:
            continue
        if kind is ann_t:
            if type(node.target) is name_t:
                where = owner[node.lineno]
                assigned.add((where, node.target.id))
                if not where:
                    module_variables.append(node.target.id)
                for name in _annotation_types(node.annotation):
                    typed((where, node.target.id), name)
                    if where in classes:  # `flags: Flags` in a class body (PEP 526, dataclass, NamedTuple)
                        typed((where, f"self.{node.target.id}"), name)  # types the instances' field
            elif type(node.target) is attribute_t and type(node.target.value) is name_t:
                # `self._task: Optional[tasks.Task] = None` in a method: the field's declared class
                where = owner[node.lineno]
                key = (class_of(where), f"{node.target.value.id}.{node.target.attr}")
                for name in _annotation_types(node.annotation):
                    typed(key, name)
        elif kind is def_t or kind is async_def_t:
            if namespaces:
                for decorator in node.decorator_list:  # `@functools.lru_cache`: called with the function
                    if type(decorator) is attribute_t and _module_function(decorator, namespaces, methods):
                        add_value(decorator)
            defs_of[owner[node.lineno]] = node  # its parameters' positions and defaults, read when asked
            narrow_after(node)
            if node.decorator_list or node.name == "__new__":
                first = node.args.posonlyargs or node.args.args
                if first and first[0].arg != "cls" and (node.name == "__new__" or _is_classmethod(node)):
                    class_params[owner[node.lineno]] = first[0].arg  # `def _extract(klass, ...)`: the class
            if node.args.defaults or node.args.kw_defaults:  # read where the `def` runs: the scope around
                where = owner[node.lineno].rpartition(".")[0]
                for default in (*node.args.defaults, *node.args.kw_defaults):
                    if type(default) is name_t:
                        read_in[id(default)] = where
            if node.returns is not None:  # the annotation first: it is what the function promises
                where = owner[node.lineno]
                annotated = [
                    _SELF_TYPE if t == "Self" and class_of(where) else t
                    for t in _annotation_types(node.returns)
                    if _is_class_name(t)
                ]
                returns[where] = [*annotated, *(t for t in returns.get(where, ()) if t not in annotated)]
                for i, item in enumerate(_tuple_items(node.returns)):  # `-> tuple[Parser, Target]`
                    if item:
                        known = item_returns.setdefault(where, {}).setdefault(i, [])
                        known[:0] = [t for t in item if t not in known]
        elif kind is ast.For or kind is ast.AsyncFor:
            bind(node.target, owner[node.lineno])
        elif kind is ast.comprehension or kind is ast.NamedExpr:
            bind(node.target, owner[node.target.lineno])
        elif kind is ast.withitem:
            target = node.optional_vars
            if target is not None:
                bind(target, owner[target.lineno])
                if type(target) is name_t and type(node.context_expr) is call_t:
                    made = made_by(node.context_expr)  # `with Foo() as f`: what Foo's __enter__ returns
                    if made:
                        typed((owner[target.lineno], target.id), f"{made}.__enter__()")
                        if not owner[target.lineno]:
                            module_variables.append(target.id)
        elif kind is ast.ExceptHandler:
            if node.name:
                assigned.add((owner[node.lineno], node.name))
        elif kind is ast.Global:  # `global _state`: the function's `_state = FileInput()` is the module's
            declared_global.update((owner[node.lineno], name) for name in node.names)
        elif kind is ast.Import:
            for a in node.names:
                bound = a.asname or a.name.split(".", 1)[0]
                text = a.name if a.asname else bound
                edges.append((IMPORT, owner[node.lineno], node.lineno, node.col_offset, "", text, bound))
        elif kind is ast.ImportFrom:
            module = "." * node.level + (node.module or "")
            for a in node.names:  # `from m import *` binds no one name: name "*", no alias
                alias = "" if a.name == "*" else a.asname or a.name
                edges.append(
                    (IMPORT, owner[node.lineno], node.lineno, node.col_offset, a.name, module, alias)
                )
    values += assigned_functions

    def parameter_text(function: str, param: str) -> str:
        """``(param)F:p@i``: the untyped parameter ``p`` of ``F``, which a call passes at position ``i`` (after
        ``self``; no ``@i`` for a keyword-only one), and ``=T`` when its default is of a known class: a
        constructor call, a typed module-level variable of the file, a variable a ``from`` import binds
        or one read from an imported module (``loader.defaultTestLoader``), typed in its module."""
        node = defs_of.get(function)
        default: ast.expr | None = None
        position = ""
        if node is not None:
            arguments = node.args
            positional = [*arguments.posonlyargs, *arguments.args]
            index = next((i for i, a in enumerate(positional) if a.arg == param), -1)
            # a method's calls pass `self` (or `cls`) themselves, unless it is a staticmethod
            offset = (
                1
                if function.rpartition(".")[0] in classes
                and not any(type(d) is name_t and d.id == "staticmethod" for d in node.decorator_list)
                else 0
            )
            if index >= offset:
                position = f"@{index - offset}"
                first_default = len(positional) - len(arguments.defaults)
                default = arguments.defaults[index - first_default] if index >= first_default else None
            elif index < 0:
                default = next(
                    (
                        d
                        for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
                        if a.arg == param
                    ),
                    None,
                )
        text = ""
        if type(default) is name_t:
            name = default.id
            text = next((t for t in types.get(("", name), ()) if "(" not in t), "")
            if not text and name in from_imported and not _is_class_name(name):
                text = name  # `from ._policybase import compat32`: `compat32 = Compat32()` there
        elif type(default) is call_t:
            made = made_by(default)
            text = made if not made.endswith(_MADE) else ""
        elif (
            type(default) is attribute_t
            and type(default.value) is name_t
            and default.value.id in namespaces
            and not _is_class_name(default.attr)
        ):
            text = f"{default.value.id}.{default.attr}"  # `testLoader=loader.defaultTestLoader`: typed there
        return f"{PARAMETER}{function}:{param}{position}" + (f"={text}" if text and "|" not in text else "")

    for key, source in copies:
        if key in types:
            continue
        if source in types:
            types[key] = types[source]
        elif source[0] in classes and key[1].split(".", 1)[0] not in _SELF_NAMES:
            # `screen = self.screen` with the field typed by a base class: looked up when asked
            types[key] = [source[1]]
        elif source in untyped_params and source[0].endswith(".__init__") and source[1] not in _SELF_NAMES:
            # `self.buffer = buffer` in `__init__`: typed, when asked, by what the constructor calls pass
            types[key] = [parameter_text(*source)]

    def module_variable(function: str, name: str) -> bool:
        """Whether ``name`` read in ``function`` is the module's variable: the module binds it, and neither
        the function (a local, a parameter) nor a function around it does (a class body is not read)."""
        if ("", name) not in assigned:
            return False
        where = function
        while where:
            node = defs_of.get(where)
            if (where, name) in assigned or (node is not None and name in _parameter_names(node)):
                return False
            where = where.rpartition(".")[0]
        return True

    for function, names in returned_calls.items():  # `return cls(...)` of `cls = _PreciseSelector`
        aliased = [c for name in names for c in class_aliases.get((function, name), ())]
        if aliased:
            known = returns.setdefault(function, [])
            known[:] = [t for t in known if t[:-2] not in names]
            known.extend(c for c in dict.fromkeys(aliased) if c not in known)
    for function, fields in returned_fields.items():  # `return self._buffer` (a property): the field's types
        known = returns.setdefault(function, [])
        for field in fields:
            known.extend(t for t in types.get((class_of(function), f"self.{field}"), ()) if t not in known)
    for function, names in returned_names.items():  # `return context`: the local's types
        known = returns.setdefault(function, [])
        for name in names:
            found = types.get((function, name), ())
            if not found and module_variable(function, name):  # `return _current_process`: the module's
                found = types.get(("", name), ())
            known.extend(t for t in found if t not in known)
    for function, pairs in item_names.items():  # `return parser, target`: the locals' types
        for i, name in pairs:
            known = item_returns.setdefault(function, {}).setdefault(i, [])
            known.extend(t for t in types.get((function, name), ()) if t not in known)
    for key in sorted(declared_global):  # what a function assigns to a name it declares global: the module's
        if key[0] and key in assigned:
            assigned.discard(key)
            assigned.add(("", key[1]))
            for name in types.pop(key, ()):
                typed(("", key[1]), name)
            module_variables.append(key[1])

    def bound_in(caller: str, variable: str, defined: frozenset[tuple[str, str]] = frozenset()) -> bool:
        """Whether the caller's scope, or one around it that Python reads the name from, binds it (a
        ``defined`` function there first: `convert = staticmethod(convert)` reads the function)."""
        where = caller
        while True:
            if (where, variable) in defined:
                return False
            if (where, variable) in assigned:
                return True
            if not where:
                return False
            where = where.rsplit(".", 1)[0] if "." in where else ""
            while where and where in classes:
                where = where.rsplit(".", 1)[0] if "." in where else ""

    # an untyped parameter's type where most of the file's functions type a variable of that name alike
    # (`context = getcontext()` in 80 functions of _pydecimal types `def _fix(self, context)`'s), as jedi
    # infers a parameter from what the calls pass
    tally: dict[str, dict[tuple[str, ...], int]] = {}
    for (scope, variable), names in types.items():
        if scope and scope not in classes and "." not in variable and variable not in _SELF_NAMES:
            by_type = tally.setdefault(variable, {})
            by_type[tuple(names)] = by_type.get(tuple(names), 0) + 1
    consensus: dict[str, list[str]] = {}
    for variable, by_type in tally.items():
        best = max(by_type, key=by_type.__getitem__)
        if by_type[best] >= MIN_AGREEING_SCOPES and 3 * by_type[best] >= 2 * sum(by_type.values()):
            consensus[variable] = list(best)

    def variable_type(caller: str, variable: str) -> str:
        """The variable's types where the caller reads it: its own scope, else the enclosing functions'
        (not a class body's) and the module's, up to the first that binds it; an untyped parameter's, the
        type the file's other functions agree on."""
        where = caller
        while True:
            if (where, variable) in types:
                return "|".join(types[(where, variable)][:3])
            if (where, variable) in untyped_params and variable in consensus:
                return "|".join(consensus[variable][:3])
            if (where, variable) in assigned or not where:
                return ""
            where = where.rsplit(".", 1)[0] if "." in where else ""
            while where and where in classes:
                where = where.rsplit(".", 1)[0] if "." in where else ""

    def concrete(text: str, where: str) -> str:
        """``x.make()`` as ``Foo.make()`` where x's class is known in that scope: the call resolves
        through the class when asked, with no variable to type then; "" when x is a variable of no
        known class (nothing could resolve the call then: not kept)."""
        head, _, rest = text[:-2].partition(".")
        if not rest or "." in rest or head in _SELF_NAMES:
            return text
        known = [t for t in variable_type(where, head).split("|") if t]
        if not known or any(t.startswith(f"{head}.") or t.count("()") >= MAX_CALL_CHAIN for t in known):
            # `x = x.next()`, a chain long enough, a variable of unknown class: only a module, a class or
            # a function the scope does not bind is left for the call to resolve through
            return "" if bound_in(where, head) else text
        return "|".join(f"{t}.{rest}()" for t in known)

    def made_concrete(text: str, where: str) -> str:
        """``concrete`` for a call's value (``x.make()``) or one of its items (``x.make()[0]``)."""
        if text.endswith("()"):
            return concrete(text, where)
        if text.endswith("]") and "()[" in text:
            call, _, item = text.rpartition("[")
            return "|".join(f"{t}[{item}" for t in concrete(call, where).split("|") if t)
        return text

    receivers: dict[tuple[str, str], str] = {}  # (caller, variable) -> receiver_type: a scope asks often
    # the variables `receiver_type` may find a type for: a name some scope types (or the file's functions
    # agree on), or some function's untyped parameter but `self`; for others it finds none in any scope
    maybe_typed = {v for _, v in untyped_params}
    maybe_typed -= _SELF_NAMES
    maybe_typed.update(v for _, v in types)
    maybe_typed.update(consensus)

    def receiver_type(caller: str, variable: str) -> str:
        """``variable_type``, with a call on another variable made concrete (``concrete``)."""
        if variable not in maybe_typed:
            return ""
        key = (caller, variable)
        known = receivers.get(key)
        if known is not None:
            return known
        text = variable_type(caller, variable)
        if "()" in text:
            made = (made_concrete(t, caller) for t in text.split("|"))
            text = "|".join(dict.fromkeys(t for t in made if t))
        elif not text and variable not in _SELF_NAMES:
            text = untyped_parameter(caller, variable)
        receivers[key] = text
        return text

    def untyped_parameter(caller: str, variable: str) -> str:
        """``(param)F:p`` when the variable is the untyped parameter ``p`` of ``F``, the scope Python reads
        it from: typed, when asked, by what the calls of ``F`` pass (``domain.calls``)."""
        where = caller
        while True:
            if (where, variable) in untyped_params:
                return parameter_text(where, variable)
            if (where, variable) in assigned or not where:
                return ""
            where = where.rsplit(".", 1)[0] if "." in where else ""
            while where and where in classes:
                where = where.rsplit(".", 1)[0] if "." in where else ""

    # the names and `self` fields some scope of the file types by a class: an argument of another name
    # is of no known class (the look-ups that rule most arguments out)
    typed_names = {v for (_, v), names in types.items() if names and (len(names) > 1 or "(" not in names[0])}
    typed_names.update(consensus)
    typed_fields = {v[5:] for v in typed_names if v[:5] == "self."}
    typed_names.add("self")

    def argument_type(arg: Any, caller: str) -> str:
        """What a call passes, when the walk knows its class: ``self``, a variable typed by a class (not
        by a call's value, nor another untyped parameter: one level), a constructor call, a field the
        class types so (most arguments are none of these: each kind is ruled out by a look-up first)."""
        kind = type(arg)
        if kind is name_t:
            variable = arg.id
            if variable == "self":
                return "self" if class_of(caller) else ""
            if variable not in typed_names:
                return ""
            text = variable_type(caller, variable)
        elif kind is call_t:
            func = arg.func
            if type(func) is name_t:
                if func.id not in classes and not func.id[:1].isupper():
                    return ""
            elif type(func) is not attribute_t or not func.attr[:1].isupper():
                return ""
            made = made_by(arg, caller)
            return made if made and not made.endswith(_MADE) else ""  # a class, not any call's value
        elif (
            kind is attribute_t
            and arg.attr in typed_fields
            and type(arg.value) is name_t
            and arg.value.id == "self"
        ):
            text = "|".join(types.get((class_of(caller), f"self.{arg.attr}"), ())[:3])
        else:
            return ""
        return text if "(" not in text else "|".join(t for t in text.split("|") if "(" not in t)

    def passed_functions(args: list[Any]) -> None:
        """A module's functions among arguments the loop below does not read (the argument scan reads
        the others): values too."""
        for arg in args if namespaces else ():
            if type(arg) is attribute_t and _module_function(arg, namespaces, methods):
                values.append(arg)

    defined = frozenset((s.qualname.rpartition(".")[0], s.name) for s in symbols if s.kind in _FUNCTIONS)
    for call in reversed(calls):  # the last met first: their nodes are the likeliest still in the caches
        func = call.func
        caller = owner[call.lineno]
        if type(func) is name_t:  # `f()`
            name = func.id
            receiver = LOCAL if name in functions and bound_in(caller, name, defined) else ""
            # `def f(sub_debug=sub_debug): sub_debug()` calls the parameter, not the function
            line, column = func.lineno, func.col_offset
            edges.append((CALL, caller, line, column, name, name, receiver))
        elif type(func) is not attribute_t:
            passed_functions(call.args)
            continue  # `f()()`, `a[0]()`: no name to resolve
        else:
            name = func.attr
            line = func.end_lineno or func.lineno
            column = (func.end_col_offset or 0) - len(name)
            if column < 0:
                column = 0
            value = func.value
            if type(value) is name_t:  # most are `x.m()`
                variable = value.id
                text = f"{variable}.{name}"
                if variable not in maybe_typed:  # a name no scope types (`os`, `sys`, mostly `self`)
                    receiver = ""
                else:
                    memo = receivers.get((caller, variable))  # `receiver_type`'s memo, read here: a third
                    receiver = receiver_type(caller, variable) if memo is None else memo  # ask again
                if narrowed:
                    receiver = narrowed_type(caller, variable, line) or receiver
            else:
                text = _callee(func)
                dots = text.count(".")
                if dots == 1:
                    receiver = receiver_type(caller, text.split(".", 1)[0])
                elif dots == 2:
                    head, field, _ = text.split(".")
                    receiver = "|".join(types.get((class_of(caller), f"{head}.{field}"), ())[:3])
                    if not receiver and head not in _SELF_NAMES and head.isidentifier():
                        # `out.flags.unset_all()` with `out: Output`: the field `flags` of out's classes
                        held = receiver_type(caller, head)
                        receiver = "|".join(f"{t}:{field}" for t in held.split("|") if t) if held else ""
                else:
                    receiver = ""
                if not receiver and type(value) is call_t:
                    receiver = made_by(value)  # `Service(store).fetch()`, `self.make().fetch()`
                    if receiver.endswith("()"):
                        head, _, rest = receiver.partition(".")
                        held = narrowed_type(caller, head, line) if narrowed and rest else ""
                        # `other.replace(fold=1).utcoffset()` where `isinstance(other, datetime)` holds
                        receiver = (
                            "|".join(f"{t}.{rest}" for t in held.split("|"))
                            if held
                            else concrete(receiver, caller)
                        )
            edges.append((CALL, caller, line, column, name, text, receiver))
        # ARGUMENT edges: each argument of a known class, by position (alias "0", "1") or keyword (alias
        # "=name"), at the call's own position (most arguments are ruled out by their node's type or name)
        passed: list[Any] = call.args
        for i, arg in enumerate(passed) if passed else ():
            kind = type(arg)
            if kind is name_t:
                if arg.id not in typed_names:
                    continue
            elif kind is constant_t:
                continue
            elif kind is call_t:
                func = arg.func
                if type(func) is name_t:
                    if func.id not in classes and not func.id[:1].isupper():
                        continue  # `len(x)`: not a constructor
                elif type(func) is not attribute_t or not func.attr[:1].isupper():
                    continue
            elif kind is attribute_t:
                if namespaces and _module_function(arg, namespaces, methods):
                    values.append(arg)  # `map(os.path.normcase, names)`: a module's function passed
                if arg.attr not in typed_fields:
                    continue
            elif kind is starred_t:
                passed_functions(passed[i + 1 :])
                break  # the arguments after `*rest` have no known position
            else:
                continue
            text = argument_type(arg, caller)
            if text:
                edges.append((ARGUMENT, caller, line, column, name, text, str(i)))
        for keyword in call.keywords:
            if keyword.arg is not None and (text := argument_type(keyword.value, caller)):
                edges.append((ARGUMENT, caller, line, column, name, text, f"={keyword.arg}"))
    for node in reversed(values):
        caller = read_in.get(id(node), owner[node.lineno]) if read_in else owner[node.lineno]
        if type(node) is name_t:
            if bound_in(caller, node.id, defined):
                continue  # a local variable, a parameter or a module global of that name
            name, text, column, receiver = node.id, node.id, node.col_offset, ""
        else:
            name, value, receiver = node.attr, node.value, ""
            column = (node.end_col_offset or 0) - len(name)
            if column < 0:
                column = 0
            if type(value) is name_t:
                text = f"{value.id}.{name}"
                if value.id in namespaces and not bound_in(caller, value.id):
                    pass  # `typing.Optional`, `functools.lru_cache`: resolved through the import
                elif value.id not in owners and not (
                    receiver := (narrowed and narrowed_type(caller, value.id, node.lineno))
                    or receiver_type(caller, value.id)
                ):
                    continue  # a variable of no known class
            elif type(value) is attribute_t:  # `os.path.normcase` passed or decorating
                text = _callee(node)
                head = text.split(".", 1)[0]
                if "?" in text:
                    continue
                if head in _SELF_NAMES and text.count(".") == 2:  # `self.successor._select_from`
                    receiver = "|".join(types.get((class_of(caller), f"{head}.{value.attr}"), ())[:3])
                elif bound_in(caller, head):
                    continue
            else:  # `Codec().encode`: typed by the call, as `Codec().encode(...)` would be
                text = _callee(node)
                receiver = made_by(value)
                if receiver.endswith("()"):
                    receiver = concrete(receiver, caller)
                if not receiver:
                    continue
        edges.append((REFERENCE, caller, node.lineno, column, name, text, receiver))
    for (scope, variable), names in types.items():  # `self.x = Foo()`: the field's class, for subclasses
        receiver, _, field = variable.partition(".")
        if receiver not in _SELF_NAMES or not field or scope not in classes:
            continue
        for name in names[:3]:
            text = made_concrete(name, scope) if name.endswith(_MADE) else name
            if text and (text.endswith("()") or text.split(".", 1)[0] not in _SELF_NAMES):
                edges.append((RETURN, f"{scope}.{field}", 0, 0, field, text, "field"))
    for function, names in returns.items():
        short = function.rsplit(".", 1)[-1]
        for name in names[:3]:
            if name == _SELF_TYPE:  # alias "self": the class the method is called on, this one at least
                edges.append((RETURN, function, 0, 0, short, class_of(function), "self"))
                continue
            text = made_concrete(name, function) if name.endswith(_MADE) else name
            if not text:
                continue
            edges.append((RETURN, function, 0, 0, short, text, ""))
    for function, items in item_returns.items():  # `return parser, target`: alias "[i]"
        short = function.rsplit(".", 1)[-1]
        for i, names in items.items():
            for name in names[:3]:
                text = made_concrete(name, function) if name.endswith(_MADE) else name
                if text:
                    edges.append((RETURN, function, 0, 0, short, text, f"[{i}]"))
    if class_attributes and self_fields:  # `resultclass = TextTestResult` in the body and
        # `self.resultclass = resultclass` in a method: the attribute may hold another value ("?")
        attribute_names = {a.rpartition(".")[2] for a in class_attributes}
        replaced = {
            f"{class_of(where)}.{name}"
            for where, name in self_fields
            if name in attribute_names and where not in classes
        }
        for field in sorted(class_attributes & replaced):
            edges.append((RETURN, field, 0, 0, field.rsplit(".", 1)[-1], "?", "attr"))
    # a module-level variable's class (alias "var": `cdll = LibraryLoader(CDLL)`) and a module-level name
    # for a class (alias "alias": `_PyFuture = Future`), for the modules that import it
    for variable in dict.fromkeys(module_variables):
        if variable in classes or ("", variable) in defined:  # `f = wraps(f)`: the def is the symbol
            continue
        for name in types.get(("", variable), ())[:MAX_MODULE_ALTERNATIVES]:
            text = made_concrete(name, "") if name.endswith(_MADE) else name
            if text:
                edges.append((RETURN, variable, 0, 0, variable, text, "var"))
    for (scope, variable), names in class_aliases.items():
        if not scope and variable not in classes and ("", variable) not in defined:  # `DefaultSelector =
            # EpollSelector` in one of 5 branches
            edges.extend(
                (RETURN, variable, 0, 0, variable, name, "alias") for name in names[:MAX_MODULE_ALTERNATIVES]
            )
    edges.sort(key=_POSITION)
    return tuple(edges)


def _lines_outside(lines: list[str], start: int, end: int, holes: list[tuple[int, int, int]]) -> str:
    """Lines start..end minus each hole (keeping the hole's `def`/`class` line as a summary)."""
    keep = []
    hole_iter = sorted(holes)
    line = start
    for h_start, h_end, h_def in hole_iter:
        keep.extend(lines[line - 1 : h_start - 1])
        keep.append(lines[h_def - 1] if h_def - 1 < len(lines) else "")
        line = max(line, h_end + 1)
    keep.extend(lines[line - 1 : end])
    return "\n".join(keep)


def module_chunks(
    path: str,
    stem: str,
    lines: list[str],
    ranges: list[tuple[int, int]],
    module_doc: str,
    new_id: Callable[[str, str], str],
    *,
    language: str = "python",
    comments: Callable[[str], str] | None = None,
) -> list[Chunk]:
    """Windows of up to MODULE_WINDOW non-blank lines outside `ranges` (the definitions with chunks of their
    own); their doc is the module's doc (first window) and the comment text `comments` reads in them."""
    comments = comments or _comments
    covered = bytearray(len(lines) + 2)
    for s, e in ranges:
        covered[s : e + 1] = b"\x01" * (e - s + 1)
    free = [n for n in range(1, len(lines) + 1) if not covered[n] and lines[n - 1].strip()]
    out: list[Chunk] = []
    for i in range(0, len(free), MODULE_WINDOW):
        window = free[i : i + MODULE_WINDOW]
        body = "\n".join([lines[n - 1] for n in window])
        out.append(
            Chunk(
                id=new_id("module", ""),
                path=path,
                start_line=window[0],
                end_line=window[-1],
                kind=ChunkKind.MODULE,
                language=language,
                symbol="",
                name=stem,
                signature=path,
                doc="\n".join(filter(None, [module_doc if i == 0 else "", comments(body)])),
                body=body,
            )
        )
    return out
