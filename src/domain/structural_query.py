"""Read a structural question into filters over the symbol table.

    "subclasses of argparse.Action"                -> base "Action", scope ("argparse",)
    "classes in multiprocessing that extend popen_fork.Popen" -> base "Popen", scope ("popen_fork", "multiprocessing")
    "@classmethod alternative constructors of tarfile.TarFile" -> decorator "classmethod", parent "TarFile"
    "properties that define a @<name>.setter"      -> decorator "*.setter"
    "all async functions"                          -> is_async, kinds (function,)
    "methods of the Thread class"                  -> members_of "Thread", kinds (class, method)

Pure: the application runs the filters against the index.
"""

from __future__ import annotations

import builtins
import functools
import re

import attrs

_DOTTED = r"([A-Za-z_][\w]*(?:\.[A-Za-z_<>][\w<>]*)*)"
_INHERIT = re.compile(
    r"\b(?:sub-?class(?:es)?|subclassing|deriv\w*|inherit\w*|extend\w*|hered\w*|extiend\w*|derivan?)"
    r"(?:\s+(?:directly|directamente))?(?:\s+(?:of|from|de|the|la|el|class|clase))*\s+" + _DOTTED,
    re.IGNORECASE,
)
_SUBCLASS_SUFFIX = re.compile(_DOTTED + r"\s+(?:subclasses|subclass(?:es)?\b)", re.IGNORECASE)
_DECORATOR = re.compile(r"@" + _DOTTED)
_PLACEHOLDER_DECORATOR = re.compile(r"@<\w+>\.(\w+)")
_DECORATED = re.compile(r"\bdecorated\s+(?:with|by)\s+@?" + _DOTTED, re.IGNORECASE)
_ASYNC = re.compile(r"\b(?:async|coroutines?|asíncron\w*|asincron\w*)\b", re.IGNORECASE)
_OF_SCOPE = re.compile(
    r"\b(?:of|in|from|en|de)\s+(?:(?:the|la|el|los|las)\s+)?(?:(?:class|clase|module|m[oó]dulo)\s+)?"
    r"(?!(?:of|in|from|en|de|del)\b)" + _DOTTED,
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(r"\b([A-Za-z_][\w.]*)'s\b")
_KINDS = (
    (re.compile(r"\b(?:class|classes|clases?)\b", re.IGNORECASE), "class"),
    (re.compile(r"\b(?:methods?|métodos?|metodos?)\b", re.IGNORECASE), "method"),
    (re.compile(r"\b(?:functions?|funciones|función|funcion)\b", re.IGNORECASE), "function"),
)
_PROPERTY = re.compile(r"\bpropert(?:y|ies)\b", re.IGNORECASE)
# decorators named as plain words: "all classmethods of X", "static methods in Y", "cached properties"
_NAMED_DECORATORS = (
    (re.compile(r"\bclass\s*methods?\b|\bm[eé]todos?\s+de\s+clase\b", re.IGNORECASE), "classmethod"),
    (re.compile(r"\bstatic\s*methods?\b|\bm[eé]todos?\s+est[aá]ticos?\b", re.IGNORECASE), "staticmethod"),
    (re.compile(r"\bcached[\s_]propert(?:y|ies)\b", re.IGNORECASE), "cached_property"),
    (re.compile(r"\babstract\s*methods?\b|\bm[eé]todos?\s+abstractos?\b", re.IGNORECASE), "abstractmethod"),
    (re.compile(r"\bcontext\s*managers?\b", re.IGNORECASE), "contextmanager"),
)
_MEMBERS = re.compile(r"\b(?:methods?|métodos?|metodos?|members?|miembros?)\b", re.IGNORECASE)
_CLASS_NAMED = r"\b(?:class|clase)\s+{0}\b|\b{0}\s+class\b"
_SCOPE_STOP = frozenset(
    {"the", "a", "an", "all", "code", "module", "package", "la", "el", "los", "las", "clase", "class", "this"}
)


@attrs.frozen(kw_only=True)
class StructuralQuery:
    base: str = ""  # a direct base class name (last dotted component)
    base_qualifier: str = ""  # what came before it (`argparse` in `argparse.Action`)
    decorator: str = ""  # decorator name; "*.setter" style when a placeholder was used
    is_async: bool = False
    kinds: tuple[str, ...] = ()
    scope: tuple[str, ...] = ()  # module or class names the answer should live in
    members_of: str = ""  # a class whose own methods are asked for ("methods of the Thread class")

    @property
    def has_filter(self) -> bool:
        return bool(self.base or self.decorator or self.is_async or self.members_of)


def parse_structural(query: str) -> StructuralQuery:
    text = query[:500]
    base = qualifier = decorator = ""
    m = _INHERIT.search(text) or _SUBCLASS_SUFFIX.search(text)
    if m:
        dotted = m.group(1).rstrip(".")
        qualifier, _, base = dotted.rpartition(".")
    placeholder = _PLACEHOLDER_DECORATOR.search(text)
    d = _DECORATOR.search(text) or _DECORATED.search(text)
    if placeholder:
        decorator = "*." + placeholder.group(1)
    elif d:
        decorator = d.group(1).rstrip(".")
        if "<" in decorator:  # "@<name>.setter": any name
            decorator = "*." + decorator.rsplit(".", 1)[-1]
    elif named := next((name for pattern, name in _NAMED_DECORATORS if pattern.search(text)), ""):
        decorator = named
    elif _PROPERTY.search(text):
        decorator = "property"
    kinds = tuple(kind for pattern, kind in _KINDS if pattern.search(text))
    scope: list[str] = []
    for s in _OF_SCOPE.finditer(text):
        word = s.group(1)
        if word.lower() not in _SCOPE_STOP and word != (f"{qualifier}.{base}" if qualifier else base):
            scope.extend(p for p in word.split(".") if p)
    scope.extend(p.group(1) for p in _POSSESSIVE.finditer(text))
    if qualifier:
        scope.extend(qualifier.split("."))
    scope = list(dict.fromkeys(s for s in scope if s.lower() not in _SCOPE_STOP))
    return StructuralQuery(
        base=base,
        base_qualifier=qualifier,
        decorator=decorator,
        is_async=bool(_ASYNC.search(text)),
        kinds=kinds,
        scope=tuple(scope),
        members_of="" if base else _members_of(text, scope, decorator),
    )


def _members_of(text: str, scope: list[str], decorator: str) -> str:
    """The class whose methods a question asks for: a scope word written like a class (`Thread`,
    `ZipFile`) or called one ("the deque class"), when the question is about methods or members
    ("methods of ...", "classmethods of ...", "properties of ...")."""
    if not (_MEMBERS.search(text) or decorator):
        return ""
    for word in scope:
        if word[:1].isupper() and not word.isupper():
            return word
        if re.search(_CLASS_NAMED.format(re.escape(word)), text, re.IGNORECASE):
            return word
    return ""


@functools.cache
def builtin_subclasses(name: str) -> frozenset[str]:
    """The names of the built-in classes that derive from the built-in class `name`, at any depth
    (`Exception` -> ValueError, KeyError, UnicodeDecodeError, ...); empty when `name` is not built in.
    Read from this interpreter's `builtins`, so "subclasses of Exception in json" can find
    `JSONDecodeError(ValueError)`."""
    root = getattr(builtins, name, None)
    if not isinstance(root, type):
        return frozenset()
    found: set[str] = set()
    stack: list[type] = list(root.__subclasses__())
    while stack:
        cls = stack.pop()
        if getattr(builtins, cls.__name__, None) is cls and cls.__name__ not in found:
            found.add(cls.__name__)
            stack.extend(cls.__subclasses__())
    return frozenset(found)


def decorator_matches(wanted: str, decorators: tuple[str, ...]) -> bool:
    for dec in decorators:
        name = dec.split("(", 1)[0]
        if wanted.startswith("*."):
            if name.endswith(wanted[1:]):
                return True
        elif name == wanted or name.rsplit(".", 1)[-1] == wanted.rsplit(".", 1)[-1]:
            return True
    return False


def base_matches(wanted: str, bases: tuple[str, ...]) -> bool:
    """Direct base by its last dotted component: `Action`, `argparse.Action`, `_base.Action` all match."""
    return any(b.split("[", 1)[0].rsplit(".", 1)[-1] == wanted for b in bases)
