"""The structural engine: a structural question's filters (domain/structural_query.py) run over the symbol
table, in every language with symbols.

    candidates  the store's superset for the filters (bases, decorator, async, members, kinds, visibility,
                result type), checked exactly here
    derives     for a base: Rust types whose `#[derive(...)]` names it
    method set  for "implements" in a language whose interfaces are implicit (Go): the types whose methods,
                with those of the types they embed, cover the interface's methods
    wider       for a built-in base with a scope: the built-in's subclasses, where the question points
    listing     a kind or visibility alone ("interfaces in server"): in scope only, when anything is
    order       in scope first, implementation before tests, then file order
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from ..domain.code import Chunk, ChunkKind, Hit, Symbol
from ..domain.rewrite_policy import is_test_file
from ..domain.structural_query import (
    IMPLICIT_INTERFACES,
    TYPE_KINDS,
    StructuralQuery,
    base_matches,
    builtin_subclasses,
    decorator_matches,
    derived,
    returns_matches,
)
from .ports import IndexReader

_EMBED_DEPTH = 3  # embedded types followed, and interfaces embedded in interfaces
_CHUNK_KINDS = {
    "method": ChunkKind.METHOD,
    "function": ChunkKind.FUNCTION,
    "macro": ChunkKind.FUNCTION,
    **{kind: ChunkKind.CLASS for kind in (*TYPE_KINDS, "module")},
}

Found = tuple[str, Symbol]
MAX_EXCEPTION_CHECKS = 500  # a larger set is not narrowed to exception classes (each check reads symbols)
_EXCEPTION_DEPTH = 4  # bases followed through the segment's classes
_BUILTIN_EXCEPTIONS = builtin_subclasses("BaseException") | {"BaseException"}


class StructuralEngine:
    def __init__(self, reader: IndexReader) -> None:
        self._reader = reader

    def search(self, sq: StructuralQuery, limit: int) -> list[Hit]:
        if not sq.has_filter:
            return []
        in_scope = _scope_scorer(sq)
        if sq.listing:
            found = self._listing(sq, in_scope)
        else:
            found = self._passing(sq, (sq.base,) if sq.base else ())
        if sq.base:
            found += self._derives(sq)
            if sq.implements:
                found += self._by_method_set(sq)
        wider = builtin_subclasses(sq.base) if sq.base and sq.scope else frozenset()
        if wider and not any(in_scope(item) for item in found):
            # nothing in scope derives from the built-in directly: "subclasses of Exception in json" also
            # means JSONDecodeError(ValueError); looked for only where the question points (few files)
            found += self._passing(sq, tuple(sorted(wider)), path_words=sq.scope)
        found = _unique(found)
        if sq.exceptions and len(found) <= MAX_EXCEPTION_CHECKS:
            # "... in subprocess's exception classes": what belongs to an exception class, when anything does
            known: dict[
                tuple[str, str], bool
            ] = {}  # (path, class) -> an exception: members share their class
            found = [item for item in found if self._of_an_exception(*item, known)] or found
        # in scope first, implementation before tests, then what the most files use (calls, imports, references:
        # `Integer` and `String` before `MONEY` among the subclasses of TypeEngine), then in file order; an
        # outline ("methods of Inventory", "interfaces in server") keeps file order
        outline = sq.listing or bool(sq.members_of)
        uses: dict[str, int] = {}
        if len(found) > 1 and not outline:
            # uses order members within a (scope, test) tier: only the tiers that reach the limit need them
            # ("subclasses of Exception in json": json's few, not the 140 exception classes elsewhere)
            tiers: dict[tuple[int, bool], list[str]] = {}
            for item in found:
                tiers.setdefault((-in_scope(item), is_test_file(item[0])), []).append(item[1].name)
            names: set[str] = set()
            shown = 0
            for key in sorted(tiers):
                names.update(tiers[key])
                shown += len(tiers[key])
                if shown >= limit:
                    break
            uses = self._reader.name_uses(sorted(names))
        found.sort(
            key=lambda item: (
                -in_scope(item),
                is_test_file(item[0]),
                -uses.get(item[1].name, 0),
                item[0],
                item[1].start_line,
            )
        )
        return [
            self._hit(path, sym, rank, in_scope((path, sym)))
            for rank, (path, sym) in enumerate(found[:limit])
        ]

    def _of_an_exception(self, path: str, sym: Symbol, known: dict[tuple[str, str], bool]) -> bool:
        """`sym` is an exception class or a member of one: a class whose bases reach a built-in exception, or a
        base named like one (`*Error`, `*Exception`: Java's, JavaScript's), through the segment's classes.
        `known` remembers the answer per class across one set."""
        if sym.kind.value in TYPE_KINDS:
            key = (path, sym.qualname)
            if key not in known:
                known[key] = self._is_exception(sym, _EXCEPTION_DEPTH)
            return known[key]
        if not sym.parent:
            return False
        key = (path, sym.parent)
        if key not in known:
            owners = [s for p, s in self._reader.find_symbols(qualname=sym.parent) if p == path]
            known[key] = any(
                o.kind.value in TYPE_KINDS and self._is_exception(o, _EXCEPTION_DEPTH) for o in owners
            )
        return known[key]

    def _is_exception(self, cls: Symbol, depth: int) -> bool:
        for base in cls.bases:
            name = base.split("[", 1)[0].split("<", 1)[0].rsplit(".", 1)[-1].strip()
            if name in _BUILTIN_EXCEPTIONS or name.endswith(("Error", "Exception")):
                return True
            if depth > 0 and any(
                inner.kind.value in TYPE_KINDS
                and inner.qualname != cls.qualname
                and self._is_exception(inner, depth - 1)
                for _, inner in self._reader.find_symbols(name=name)
            ):
                return True
        return False

    @staticmethod
    def scope_tier(hit: Hit) -> int:
        """How well a hit of `search` sits in the question's scope (its score is 1/(1 + rank) + tier)."""
        return math.ceil(hit.score) - 1

    def _hit(self, path: str, sym: Symbol, rank: int, in_scope: int) -> Hit:
        container = self._reader.containing_chunk(path, sym.def_line)
        chunk = Chunk(
            id=container.id if container else "",
            path=path,
            start_line=sym.start_line,
            end_line=sym.end_line,
            kind=_CHUNK_KINDS.get(sym.kind.value, ChunkKind.DECLARATION),
            language=container.language if container else self._language(path),
            symbol=sym.qualname,
            name=sym.name,
            signature=sym.signature,
            doc=sym.docstring,
            body=sym.signature,
        )
        score = 1.0 / (1 + rank) + in_scope
        return Hit(chunk=chunk, score=score, match_type="structural", preview=sym.signature)

    def _passing(
        self, sq: StructuralQuery, bases: tuple[str, ...], path_words: tuple[str, ...] = ()
    ) -> list[Found]:
        """The definitions that pass every filter of the question, with `bases` as the wanted bases."""
        kinds = sq.answer_kinds
        candidates = self._reader.structural_candidates(
            bases=bases,
            decorator=sq.decorator,
            is_async=sq.is_async,
            parent=sq.members_of,
            path_words=path_words,
            kinds=kinds,
            exported=_exported(sq),
            signature=sq.returns,
        )
        return [
            (path, sym)
            for path, sym in candidates
            if _passes(sq, sym, kinds) and (not bases or any(base_matches(b, sym.bases) for b in bases))
        ]

    def _listing(self, sq: StructuralQuery, in_scope: Callable[[Found], int]) -> list[Found]:
        """A kind or visibility alone: what lies in the question's scope when anything does (the files
        named by the scope first, so a large index's cap does not cut them), else everything."""
        if sq.scope:
            scoped = [item for item in self._passing(sq, (), path_words=sq.scope) if in_scope(item)]
            if scoped:
                return scoped
        found = self._passing(sq, ())
        return [item for item in found if in_scope(item)] or found

    def _derives(self, sq: StructuralQuery) -> list[Found]:
        """Types whose `#[derive(...)]` names the base: `#[derive(Serialize)]` implements Serialize."""
        candidates = self._reader.structural_candidates(
            decorator=sq.base, kinds=sq.answer_kinds, exported=_exported(sq)
        )
        return [
            (path, sym)
            for path, sym in candidates
            if sq.base in derived(sym.decorators) and _passes(sq, sym, sq.answer_kinds, decorated=False)
        ]

    def _by_method_set(self, sq: StructuralQuery) -> list[Found]:
        """Types that implement the interface `sq.base` by their methods, in the languages whose interfaces
        are implicit (Go): every method of the interface (and of the interfaces it embeds) is a method of the
        type or of a type it embeds. Types of the interface's own language, matched by name."""
        found: list[Found] = []
        for ipath, iface in self._reader.find_symbols(name=sq.base):
            if iface.kind != "interface" or self._language(ipath) not in IMPLICIT_INTERFACES:
                continue
            suffix = _suffix(ipath)
            wanted = self._interface_methods(iface, suffix, _EMBED_DEPTH)
            if not wanted:
                continue  # an empty interface: every type, which answers nothing
            methods: dict[str, set[str]] = {}  # type name -> its own method names among the wanted
            for name in wanted:
                for path, sym in self._reader.find_symbols(name=name):
                    if sym.kind == "method" and sym.parent and _suffix(path) == suffix:
                        methods.setdefault(sym.parent.rsplit(".", 1)[-1], set()).add(name)
            types = self._types(methods, suffix)
            for path, sym in types.values():
                if sym.qualname == iface.qualname or not _passes(sq, sym, sq.answer_kinds, decorated=False):
                    continue
                if wanted <= _method_set(sym.name, types, methods, _EMBED_DEPTH):
                    found.append((path, sym))
        return found

    def _interface_methods(self, iface: Symbol, suffix: str, depth: int) -> set[str]:
        names = {
            sym.name
            for _, sym in self._reader.structural_candidates(parent=iface.qualname)
            if sym.parent == iface.qualname and sym.kind == "method"
        }
        if depth > 0:
            for base in iface.bases:
                for path, inner in self._reader.find_symbols(name=base.rsplit(".", 1)[-1]):
                    if (
                        inner.kind == "interface"
                        and _suffix(path) == suffix
                        and inner.qualname != iface.qualname
                    ):
                        names |= self._interface_methods(inner, suffix, depth - 1)
        return names

    def _types(self, methods: dict[str, set[str]], suffix: str) -> dict[str, Found]:
        """The type definitions with some of the methods, and those embedding them (a few levels)."""
        types: dict[str, Found] = {}
        names = set(methods)
        for _ in range(_EMBED_DEPTH):
            new = {n for n in names if n not in types}
            if not new:
                break
            for name in sorted(new):
                for path, sym in self._reader.find_symbols(name=name):
                    if sym.kind.value in TYPE_KINDS and _suffix(path) == suffix:
                        types.setdefault(name, (path, sym))
            embedders = self._reader.structural_candidates(bases=sorted(new), kinds=TYPE_KINDS)
            for path, sym in embedders:
                if _suffix(path) == suffix and any(base_matches(n, sym.bases) for n in new):
                    types.setdefault(sym.name, (path, sym))
                    names.add(sym.name)
            names |= set(types)
        return types

    def _language(self, path: str) -> str:
        stored = self._reader.file(path)
        return stored.language if stored else ""


def _passes(sq: StructuralQuery, sym: Symbol, kinds: tuple[str, ...], *, decorated: bool = True) -> bool:
    """The exact checks behind the store's superset (the bases are checked by the caller)."""
    if kinds and sym.kind.value not in kinds:
        return False
    if decorated and sq.decorator and not decorator_matches(sq.decorator, sym.decorators):
        return False
    if sq.members_of and sym.parent != sq.members_of:
        return False  # the class's own members (its nested helpers are not what was asked)
    if sq.is_async and not sym.is_async:
        return False
    if sq.visibility and sym.exported != (sq.visibility == "exported"):
        return False
    return not sq.returns or returns_matches(sq.returns, sym.signature, sym.name)


def _exported(sq: StructuralQuery) -> bool | None:
    return (sq.visibility == "exported") if sq.visibility else None


def _method_set(name: str, types: dict[str, Found], methods: dict[str, set[str]], depth: int) -> set[str]:
    """A type's methods among the wanted ones, with those of the types it embeds."""
    own = set(methods.get(name, ()))
    if depth > 0 and name in types:
        for base in types[name][1].bases:
            own |= _method_set(
                base.split("[", 1)[0].rsplit(".", 1)[-1].lstrip("*"), types, methods, depth - 1
            )
    return own


def _suffix(path: str) -> str:
    return path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""


def _unique(found: Iterable[Found]) -> list[Found]:
    seen: set[tuple[str, str, int]] = set()
    out = []
    for path, sym in found:
        key = (path, sym.qualname, sym.start_line)
        if key not in seen:
            seen.add(key)
            out.append((path, sym))
    return out


def _scope_scorer(sq: StructuralQuery) -> Callable[[Found], int]:
    """How well a definition sits where the question points: path parts count once, classes (and the type
    of an `impl` block) twice, whatever their case ("in the router": `router.go`, `Router`). The scope's
    sets are built once per question, not once per candidate."""
    scope_lower = {s.lower() for s in sq.scope}

    def in_scope(item: Found) -> int:
        path, sym = item
        parts = path.split("/")
        parts[-1] = parts[-1].rsplit(".", 1)[0]
        in_path = {p.lower() for p in parts} & scope_lower
        owners = sym.qualname.split(".")[:-1]
        if sym.kind == "impl":
            owners.append(sym.qualname.rsplit(" ", 1)[-1])  # `impl Display for Deserializer`
        in_class = {o.lower() for o in owners} & scope_lower
        return len(in_path) + 2 * len(in_class)

    return in_scope
