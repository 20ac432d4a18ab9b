"""The ``sym://`` selector grammar (ast-lsp-dual-engine.md §3), for every language with symbols.

A selector names a file skeleton or a symbol inside a file, with no room for guessing::

    URI         = "sym://" Language "/" Kind "/" Path ( "#" Member )? ;
    Language    = Identifier ;                 (* must also be a supported language *)
    Kind        = "mod" | "type" ;
    Path        = Component ( "/" Component )* ;
    Member      = Identifier ( "." Identifier )* ;
    Identifier  = [a-zA-Z_$] [a-zA-Z0-9_$]* ;  (* ASCII only; "$" for JavaScript names *)
    Component   = [a-zA-Z0-9_$] [a-zA-Z0-9_$.-]* ;  (* a file or folder name: "become-observed", "v2" *)

Semantic rules, checked by the same parser:

* ``mod``: ``Path`` is the file path (relative, no extension) and there is no ``#Member``.
  ``sym://python/mod/pkg/utils`` -> the skeleton of ``pkg/utils.py``.
* ``type``: the last ``Path`` component is the top-level symbol (an ``Identifier``) and the ones before it are
  the file, so at least two are needed. ``sym://python/type/pkg/utils/User#get_email`` -> method
  ``get_email`` of class ``User`` in ``pkg/utils.py``; ``sym://go/type/server/handler/Router#Serve`` -> method
  ``Router.Serve``; ``sym://rust/type/src/de/mod/Deserializer#new`` -> ``Deserializer.new`` of an impl block.
* ``Language`` is lexically an identifier; one that is well formed but not among the supported languages is
  ``LANGUAGE_NOT_SUPPORTED``. It is checked after the syntax, so a malformed selector is always reported as
  ``INVALID_SELECTOR_SYNTAX`` first. The supported languages are the caller's (``parse(text, languages)``):
  the domain does not know which languages the parser reads.

Which file a path names (endings, ``__init__.py``, ``index.ts``, ``mod.rs``, Go package folders) is the
resolver's business (``application/zoom_ast.py``), not the grammar's.

Decisions where the design document is silent:

* A path component may hold ``-`` and ``.`` (``become-observed.ts``, ``foo.service.ts``) and start with a
  digit, as file names do in TypeScript and JavaScript; it cannot start with ``.``, so ``.`` and ``..`` never
  name a folder. The file's ending is still left out: ``a.py`` names ``a.py.py``.
* Leading and trailing whitespace (a pasted newline, a shell quote artefact) is stripped before parsing;
  whitespace inside the selector is an error. ``SelectorError.position`` is an offset into the input as
  given, so it still points at the offending character when whitespace was stripped.
* Everything is case-sensitive: ``SYM://`` or ``Mod`` is a syntax error, ``Python`` is not ``python``.
* ``parse`` never raises: any input, including a non-``str``, yields a ``Selector`` or a ``SelectorError``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence

import attrs

from .contract import Error, ErrorCode

SCHEME = "sym://"
DEFAULT_LANGUAGES: frozenset[str] = frozenset({"python"})
# Long enough to show any realistic selector, short enough to keep an error envelope small.
MAX_ERROR_TEXT = 200

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_IDENTIFIER_TEXT = "an identifier ([a-zA-Z_$][a-zA-Z0-9_$]*)"
_COMPONENT = re.compile(r"[A-Za-z0-9_$][A-Za-z0-9_$.-]*")
_COMPONENT_TEXT = "a file or folder name ([a-zA-Z0-9_$][a-zA-Z0-9_$.-]*)"
_FORMS = "sym://<language>/mod/<path/to/file> or sym://<language>/type/<path/to/file>/<Symbol>[#member]"


class SelectorKind(enum.StrEnum):
    MOD = "mod"
    TYPE = "type"


def is_identifier(text: str) -> bool:
    """True when ``text`` is one selector ``Identifier``: ASCII letter, ``_`` or ``$``, then also digits."""
    return isinstance(text, str) and _IDENTIFIER.fullmatch(text) is not None


def is_component(text: str) -> bool:
    """True when ``text`` is one selector path ``Component``: a file or folder name that is not ``.``/``..``."""
    return isinstance(text, str) and _COMPONENT.fullmatch(text) is not None


def _identifier(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    if not is_identifier(value):
        raise ValueError(f"{attribute.name} must be {_IDENTIFIER_TEXT}, got {value!r}")


def _identifiers(
    _instance: object, attribute: attrs.Attribute[tuple[str, ...]], value: tuple[str, ...]
) -> None:
    for part in value:
        if not is_identifier(part):
            raise ValueError(f"every {attribute.name} component must be {_IDENTIFIER_TEXT}, got {part!r}")


def _components(
    _instance: object, attribute: attrs.Attribute[tuple[str, ...]], value: tuple[str, ...]
) -> None:
    for part in value:
        if not is_component(part):
            raise ValueError(f"every {attribute.name} component must be {_COMPONENT_TEXT}, got {part!r}")


def _split_components(path: str | Sequence[str]) -> tuple[str, ...]:
    return tuple(path.split("/")) if isinstance(path, str) else tuple(path)


@attrs.frozen(kw_only=True)
class Selector:
    """A well-formed selector. Its validators make every instance renderable and re-parseable."""

    language: str = attrs.field(validator=_identifier)
    kind: SelectorKind = attrs.field(validator=attrs.validators.instance_of(SelectorKind))
    path: tuple[str, ...] = attrs.field(validator=_components)
    symbol: str = attrs.field(default="")
    member: tuple[str, ...] = attrs.field(default=(), validator=_identifiers)

    @path.validator
    def _path_not_empty(self, _attribute: attrs.Attribute[tuple[str, ...]], value: tuple[str, ...]) -> None:
        if not value:
            raise ValueError("path must have at least one component (the file)")

    @symbol.validator
    def _symbol_matches_kind(self, _attribute: attrs.Attribute[str], value: str) -> None:
        if self.kind is SelectorKind.MOD and value:
            raise ValueError("a mod selector has no symbol")
        if self.kind is SelectorKind.TYPE and not is_identifier(value):
            raise ValueError(f"a type selector needs a symbol that is {_IDENTIFIER_TEXT}, got {value!r}")

    @member.validator
    def _member_matches_kind(
        self, _attribute: attrs.Attribute[tuple[str, ...]], value: tuple[str, ...]
    ) -> None:
        if self.kind is SelectorKind.MOD and value:
            raise ValueError("a mod selector has no #member")

    @property
    def qualname(self) -> str:
        """``Class.method.inner`` for a type selector, ``""`` for a mod selector."""
        return ".".join((self.symbol, *self.member)) if self.symbol else ""

    @property
    def file_hint(self) -> str:
        """The file path without extension, e.g. ``pkg/utils``."""
        return "/".join(self.path)

    def render(self) -> str:
        """The canonical URI; ``parse(s.render()) == s`` for every selector whose language is supported."""
        uri = f"{SCHEME}{self.language}/{self.kind.value}/{self.file_hint}"
        if self.symbol:
            uri += f"/{self.symbol}"
        if self.member:
            uri += "#" + ".".join(self.member)
        return uri

    @classmethod
    def module(cls, language: str, path: str | Sequence[str]) -> Selector:
        """The skeleton selector of a file: ``path`` is ``"pkg/utils"`` or ``("pkg", "utils")``, no extension.

        Raises ``ValueError`` when a component is not a ``Component`` (e.g. ``my file``): check with
        ``is_component`` first when the path comes from the file system.
        """
        return cls(language=language, kind=SelectorKind.MOD, path=_split_components(path))

    @classmethod
    def definition(cls, language: str, path: str | Sequence[str], qualname: str) -> Selector:
        """The selector of ``qualname`` (``"User.get_email"``) in a file; raises ``ValueError`` like ``module``."""
        symbol, *member = qualname.split(".")
        return cls(
            language=language,
            kind=SelectorKind.TYPE,
            path=_split_components(path),
            symbol=symbol,
            member=tuple(member),
        )


@attrs.frozen(kw_only=True)
class SelectorError:
    """Why a selector was rejected: the code, what was expected, where, and the input it was about."""

    code: ErrorCode = attrs.field(
        validator=attrs.validators.in_({ErrorCode.INVALID_SELECTOR_SYNTAX, ErrorCode.LANGUAGE_NOT_SUPPORTED})
    )
    message: str
    position: int = attrs.field(validator=attrs.validators.ge(0))
    text: str = attrs.field(validator=attrs.validators.max_len(MAX_ERROR_TEXT))

    def to_error(self) -> Error:
        """The envelope's error entry (contract.py), with the position and the input as data."""
        return Error(
            code=self.code, message=self.message, data={"position": self.position, "selector": self.text}
        )


class _Reject(Exception):
    """Internal: stops the scanner at the first offending character."""

    def __init__(self, position: int, message: str) -> None:
        super().__init__(message)
        self.position = position
        self.message = message


class _Scanner:
    """Walks ``text[start:end]`` (the stripped selector) keeping offsets into the whole input."""

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text[:end]
        self.pos = start

    def found(self) -> str:
        return repr(self.text[self.pos]) if self.pos < len(self.text) else "end of selector"

    def at(self, literal: str) -> bool:
        return self.text.startswith(literal, self.pos)

    def expect(self, literal: str, what: str) -> None:
        if not self.at(literal):
            # Point at the first character that differs, not at the start of the literal.
            offset = 0
            while (
                offset < len(literal)
                and self.text[self.pos + offset : self.pos + offset + 1] == literal[offset]
            ):
                offset += 1
            self.pos += offset
            raise _Reject(self.pos, f"expected {what} at position {self.pos}, found {self.found()}")
        self.pos += len(literal)

    def identifier(
        self, what: str, pattern: re.Pattern[str] = _IDENTIFIER, text: str = _IDENTIFIER_TEXT
    ) -> str:
        match = pattern.match(self.text, self.pos)
        if match is None:
            raise _Reject(self.pos, f"expected {what}, {text}, at position {self.pos}, found {self.found()}")
        self.pos = match.end()
        return match.group()

    def component(self) -> str:
        return self.identifier("a path component", _COMPONENT, _COMPONENT_TEXT)

    def reject_rest(self, expected: str) -> None:
        if self.pos < len(self.text):
            raise _Reject(self.pos, f"expected {expected} at position {self.pos}, found {self.found()}")


def _scan(scanner: _Scanner) -> tuple[str, int, Selector]:
    """The grammar, one production at a time; returns the language and its offset for the support check."""
    scanner.expect(SCHEME, f"'{SCHEME}'")
    language_at = scanner.pos
    language = scanner.identifier("a language such as 'python'")
    scanner.expect("/", "'/' after the language")
    kind_at = scanner.pos
    match = _IDENTIFIER.match(scanner.text, kind_at)
    kind_word = match.group() if match else ""
    if kind_word not in ("mod", "type"):
        found = repr(kind_word) if kind_word else scanner.found()
        raise _Reject(kind_at, f"expected 'mod' or 'type' at position {kind_at}, found {found}")
    scanner.pos += len(kind_word)
    kind = SelectorKind(kind_word)
    scanner.expect("/", f"'/' after '{kind_word}'")
    last_at = scanner.pos
    path = [scanner.component()]
    while scanner.at("/"):
        scanner.pos += 1
        last_at = scanner.pos
        path.append(scanner.component())

    if kind is SelectorKind.MOD:
        if scanner.at("#"):
            raise _Reject(
                scanner.pos,
                f"a mod selector takes no '#member' (found '#' at position {scanner.pos}); "
                f"use sym://{language}/type/<path/to/file>/<Symbol>#<member>",
            )
        scanner.reject_rest("'/' or end of selector")
        return language, language_at, Selector(language=language, kind=kind, path=tuple(path))

    if len(path) < 2:
        scanner.reject_rest("'/<Symbol>'")
        raise _Reject(
            scanner.pos,
            f"expected '/<Symbol>' at position {scanner.pos}: a type selector names the file and then the "
            f"symbol, sym://{language}/type/<path/to/file>/<Symbol>",
        )
    if not is_identifier(path[-1]):
        head = _IDENTIFIER.match(path[-1])
        raise _Reject(
            last_at + (head.end() if head else 0),
            f"expected the symbol, {_IDENTIFIER_TEXT}, at position {last_at}, found {path[-1]!r}",
        )
    member: list[str] = []
    if scanner.at("#"):
        scanner.pos += 1
        member.append(scanner.identifier("a member name after '#'"))
        while scanner.at("."):
            scanner.pos += 1
            member.append(scanner.identifier("a member name after '.'"))
        scanner.reject_rest("'.' or end of selector")
    else:
        scanner.reject_rest("'/', '#' or end of selector")
    selector = Selector(
        language=language, kind=kind, path=tuple(path[:-1]), symbol=path[-1], member=tuple(member)
    )
    return language, language_at, selector


def parse(text: str, languages: frozenset[str] = DEFAULT_LANGUAGES) -> Selector | SelectorError:
    """Parse a ``sym://`` URI; a malformed one or one in an unsupported language comes back as an error value."""
    if not isinstance(text, str):
        return SelectorError(
            code=ErrorCode.INVALID_SELECTOR_SYNTAX,
            message=f"expected the selector as a string, got {type(text).__name__}; form: {_FORMS}",
            position=0,
            text="",
        )
    clipped = text[:MAX_ERROR_TEXT]
    stripped = text.strip()
    lead = len(text) - len(text.lstrip())
    if not stripped:
        return SelectorError(
            code=ErrorCode.INVALID_SELECTOR_SYNTAX,
            message=f"empty selector; expected {_FORMS}",
            position=0,
            text=clipped,
        )
    try:
        language, language_at, selector = _scan(_Scanner(text, lead, lead + len(stripped)))
    except _Reject as reject:
        return SelectorError(
            code=ErrorCode.INVALID_SELECTOR_SYNTAX,
            message=f"{reject.message} (selector form: {_FORMS})",
            position=reject.position,
            text=clipped,
        )
    if language not in languages:
        supported = ", ".join(sorted(languages)) or "none"
        hint = " (language names are lower-case)" if language.lower() in languages else ""
        return SelectorError(
            code=ErrorCode.LANGUAGE_NOT_SUPPORTED,
            message=f"language {language!r} is not supported{hint}; supported: {supported}",
            position=language_at,
            text=clipped,
        )
    return selector
