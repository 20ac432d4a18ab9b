"""Read a structural question into filters over the symbol table, in every language that has symbols.

    "subclasses of argparse.Action"                -> base "Action", scope ("argparse",)
    "classes in multiprocessing that extend popen_fork.Popen" -> base "Popen", scope ("popen_fork", "multiprocessing")
    "@classmethod alternative constructors of tarfile.TarFile" -> decorator "classmethod", parent "TarFile"
    "properties that define a @<name>.setter"      -> decorator "*.setter"
    "all async functions"                          -> is_async, kinds (function,)
    "methods of the Thread class"                  -> members_of "Thread", kinds (class, method)
    "structs that implement the Handler interface" -> base "Handler", implements, kinds (struct,)
    "types implementing the Serialize trait"       -> base "Serialize", implements, kinds: every type kind
    "classes extending EventEmitter"               -> base "EventEmitter", kinds (class,)
    "Command methods that return a *flag.FlagSet"  -> returns "FlagSet", members_of "Command"
    "exported functions of package server"         -> visibility "exported", kinds (function,), scope ("server",)
    "interfaces in server", "all enums"            -> a listing of a kind: kinds (interface,) / (enum,)

The words that name constructs are data (`KIND_WORDS`): each names symbol kinds (`code.SymbolKind` values)
whatever the language, so "structs" finds Go and Rust structs and "classes" Python, TypeScript and
JavaScript classes. What a relation means per language is in the symbols themselves: `bases` hold Python
and TypeScript/JavaScript superclasses and `implements`, Go embedded types, Rust supertraits and the trait
of an `impl Trait for Type` block; a Rust `#[derive(Trait)]` implements the trait too (`derived`); the
languages in `IMPLICIT_INTERFACES` satisfy an interface by their method set, which the application checks.

Pure: the application runs the filters against the index.
"""

from __future__ import annotations

import builtins
import functools
import re
from collections.abc import Sequence

import attrs

from .code import SymbolKind

_DOTTED = r"([A-Za-z_][\w]*(?:\.[A-Za-z_<>][\w<>]*)*)"
_OWNER = r"(?:[A-Za-z_]\w*'s\s+)?"  # "Node's stream.Transform": the owner is not the base
# Lowercase words that qualify the name a kind word follows: "the task Schedule trait", "godoc's vfs FileSystem
# interface", "net/http's Handler interface", "the node EventEmitter class"
_QUALIFIERS = r"(?:\s+[a-z][\w/-]*(?:\.[a-z][\w/-]*)*(?:'s)?){0,3}"
_INHERIT_VERB = (
    r"\b(?:sub-?class(?:es)?|subclassing|deriv[^\W\d_]*|inherit[^\W\d_]*|extend[^\W\d_]*|hered[^\W\d_]*"
    r"|extiend[^\W\d_]*|derivan?|embed[^\W\d_]*)"  # letters only: `extend_` is a name, not the verb
)
_INHERIT = re.compile(
    _INHERIT_VERB
    + r"(?:\s+(?:directly|directamente))?(?:\s+(?:of|from|de|the|la|el|class|clase|(?-i:base|parent|abstract)))*\s+"
    + _OWNER
    + r"(?!(?:of|from|de|the|la|el|class|clase|(?-i:base|parent|abstract))\b)"  # "the base Pool class": Pool
    + _DOTTED,
    re.IGNORECASE,
)
# "classes that extend the node EventEmitter class": the name its kind word follows, after qualifying words
_INHERIT_NAMED_KIND = re.compile(
    r"(?i:"
    + _INHERIT_VERB
    + r"(?:\s+(?:directly|directamente))?(?:\s+(?:of|from|de|the|la|el))*)"
    + _QUALIFIERS
    + r"\s+"
    + _DOTTED
    + r"\s+(?:class|clase|interfaces?|interfaz|structs?|traits?|types?)\b",
)
# "implement(s|ing) the Handler interface", "implementations of Formatter", "types that satisfy io.Reader",
# "que implementan la interfaz Handler": the interface or trait, with its kind word, which is not the answer's
_IMPLEMENT = re.compile(
    r"\b(?:implement(?:s|ing|ed)?|implementations?|implementors?|implementers?|impls?|satisf(?:y|ies|ying)"
    r"|implementan?|implementen)"
    r"(?:\s+(?:of|the|an?|la|el|los|las|de|del|interfaces?|interfaz|traits?|protocols?|protocolo))*\s+"
    + _OWNER
    + _DOTTED
    + r"(?:\s+(?:interfaces?|interfaz|traits?|protocols?|protocolo)\b)?",
    re.IGNORECASE,
)
_IMPLEMENT_NAMED_KIND = re.compile(
    r"\b(?:implement(?:s|ing|ed)?|implementations?\s+of|implementors?\s+of|implementers?\s+of|satisf(?:y|ies|ying)"
    r"|implementan?|implementen)(?:\s+(?:the|an?|la|el))?"
    + _QUALIFIERS
    + r"\s+"
    + _DOTTED
    + r"\s+(?:interfaces?|interfaz|traits?|protocols?|protocolo)\b",
)
# a participle right before a prose word ("derived value", "embedded code", "inherited methods") qualifies it
_ATTRIBUTIVE = re.compile(r"\w+ed\s+(?!(?:directly|of|from|the|class|base|parent)\b)\w+$", re.IGNORECASE)
_SUBCLASS_SUFFIX = re.compile(_DOTTED + r"\s+(?:subclasses|subclass(?:es)?\b)", re.IGNORECASE)
_DECORATOR = re.compile(r"@" + _DOTTED)
_PLACEHOLDER_DECORATOR = re.compile(r"@<\w+>\.(\w+)")
_DECORATED = re.compile(r"\bdecorated\s+(?:with|by)\s+@?" + _DOTTED, re.IGNORECASE)
# "subprocess's exception classes", "error types", "clases de excepción": classes that derive from an exception
_EXCEPTION_CLASSES = re.compile(
    r"\b(?:exception|error)\s+(?:class(?:es)?|types?)\b|\bclases?\s+de\s+(?:excepci[oó]n|error)",
    re.IGNORECASE,
)
_ASYNC = re.compile(r"\b(?:async|coroutines?|asíncron\w*|asincron\w*)\b", re.IGNORECASE)
# "methods that return a *flag.FlagSet", "functions returning Result<Value>": the named result type
_RETURNS = re.compile(
    r"\b(?:return(?:s|ing)?|devuelven?|retornan?)\s+(?:(?:an?|the|un|una|el|la)\s+)?[*&]*(?:mut\s+)?"
    + _DOTTED,
    re.IGNORECASE,
)
# "factory functions that create the Annotation objects", "methods that build a Request": a factory's result
_CREATES = re.compile(
    r"\b(?:creat(?:e|es|ing)|build(?:s|ing)?|construct(?:s|ing)?|make(?:s)?|produc(?:e|es|ing)|crean?"
    r"|construyen?|generan?)\s+(?:(?:an?|the|new|un|una|el|la|los|las|nuev[oa]s?)\s+)*"
    + _DOTTED
    + r"(?:\s+(?:objects?|instances?|values?|objetos?|instancias?|valores?))?\b",
    re.IGNORECASE,
)
_OF_SCOPE = re.compile(
    r"\b(?:of|in|from|en|de|del)\s+(?:(?:the|la|el|los|las)\s+)?"
    r"(?:(?:class|clase|module|m[oó]dulo|package|paquete|crate|namespace|folder|directory|carpeta)\s+)?"
    r"(?!(?:of|in|from|en|de|del)\b)" + _DOTTED,
    re.IGNORECASE,
)
# "the de module", "the server package": a scope named before its kind word
_NAMED_SCOPE = re.compile(
    r"\b(?!(?:of|in|from|for|to|with|by|inside|within|every|each|any|this|that|whole|same)\b)"
    + _DOTTED
    + r"\s+(?:module|package|crate|namespace|folder|directory)\b",
    re.IGNORECASE,
)
# "impl blocks for Deserializer": the implementing type
_IMPL_FOR = re.compile(r"\bimpl(?:s|\s+blocks?)?\s+for\s+" + _DOTTED, re.IGNORECASE)
# "the Command methods": the owner named before its members
_OWNER_MEMBERS = re.compile(r"\b([A-Z]\w*)\s+(?:methods|members|fields)\b")
_POSSESSIVE = re.compile(r"\b([A-Za-z_][\w.]*)'s\b")

# Symbol kinds that are types: what "types", and any inheritance or implementation question, answers with.
TYPE_KINDS = ("class", "struct", "interface", "enum", "trait", "type", "impl")
# The words that name constructs, in every language: (singular, plural, the symbol kinds they name). A
# language without the construct has no symbol of that kind, so the word finds nothing there. Earlier rows
# win: "type alias" is not also "type", "impl block" not also "impl".
KIND_WORDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("class|clase", "classes|clases", ("class",)),
    ("method|m[eé]todo|metodo", "methods|m[eé]todos|metodos", ("method",)),
    ("function|func|fn|funci[oó]n|funcion", "functions|funcs|fns|funciones", ("function",)),
    ("struct|estructura", "structs|estructuras", ("struct",)),
    ("interface|interfaz", "interfaces", ("interface",)),
    ("trait", "traits", ("trait",)),
    ("enum|enumeration|enumeraci[oó]n", "enums|enumerations|enumeraciones", ("enum",)),
    ("impl\\s+block|bloque\\s+impl", "impl\\s+blocks|bloques\\s+impl|impls", ("impl",)),
    ("type\\s+alias|alias\\s+de\\s+tipo", "type\\s+aliases|alias\\s+de\\s+tipos", ("type",)),
    ("type|tipo", "types|tipos", TYPE_KINDS),
    ("macro", "macros", ("macro",)),
    ("constant|constante|const", "constants|constantes|consts", ("const",)),
    ("namespace", "namespaces", ("module",)),
)
_KIND_PATTERNS = tuple(
    (re.compile(rf"\b(?:({plural})|(?:{singular}))\b", re.IGNORECASE), kinds)
    for singular, plural, kinds in KIND_WORDS
)
# kinds whose plural alone is a question ("all enums", "interfaces in server"); "functions" or "classes"
# alone are too common in questions about behaviour to mean "every function"
_LISTABLE = frozenset({"struct", "interface", "trait", "enum", "impl", "type", "macro", "const", "module"})
# Languages whose interfaces are satisfied by a type's method set, with nothing declared (Go).
IMPLICIT_INTERFACES = frozenset({"go"})

_KIND_ANY = "|".join(f"{s}|{p}" for s, p, _ in KIND_WORDS)
_VISIBILITY = re.compile(
    rf"\b(?:(?P<before>exported|unexported|non-exported|public|pub|private|exportad[oa]s|no\s+exportad[oa]s"
    rf"|p[uú]blic[oa]s|privad[oa]s)\s+(?:(?:async|static|const)\s+)?(?:{_KIND_ANY})"
    rf"|(?:{_KIND_ANY})\s+(?:(?:that|which)\s+(?:are|is)\s+|que\s+(?:son|est[aá]n)\s+)?"
    rf"(?P<after>exported|unexported|public|private|exportad[oa]s|no\s+exportad[oa]s|p[uú]blic[oa]s|privad[oa]s))\b"
    r"|\b(?P<exports>exports)\s+of\b",
    re.IGNORECASE,
)
_PRIVATE = re.compile(r"unexported|non-exported|private|no\s+exportad|privad", re.IGNORECASE)
_DERIVE = re.compile(r"\bderive\s*\(([^)]*)\)")
_CALLBACK = re.compile(r"\b(?:func|fn|Fn|FnMut|FnOnce|function)\s*\(")
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
_CLASS_NAMED = (
    r"\b(?:class|clase|struct|estructura|interface|interfaz|trait|enum|type)\s+{0}\b"
    r"|\b{0}\s+(?:class|struct|interface|trait|enum|type)\b"
)
_SCOPE_STOP = frozenset(
    {"the", "a", "an", "all", "code", "module", "package", "la", "el", "los", "las", "clase", "class", "this",
     "crate", "namespace", "folder", "directory", "paquete", "carpeta", "project", "repo", "repository",
     "codebase", "file", "files"}
)  # fmt: skip
# words between a relation's verb and its name that are not places: "implement the", "inherits directly from"
_RELATION_WORDS = frozenset(
    {"of", "from", "de", "del", "the", "a", "an", "la", "el", "los", "las", "s", "directly", "directamente",
     "class", "clase", "base", "parent", "abstract", "interface", "interfaz", "trait", "protocol", "protocolo"}
)  # fmt: skip
# values, not types: "returns True if ..." describes a predicate, it names no result type
_LITERAL_VALUES = frozenset({"true", "false", "none", "null", "nil", "undefined", "self", "this"})
# words a listing may hold besides its kind and scope: "which interfaces are defined in server?"
_LISTING_WORDS = frozenset(
    "which what list show me find all every each any the a an are is there that these those defined declared "
    "declare define in of from inside within under package module crate file folder directory namespace give "
    "get do does have has here its their our this for para cuales cuáles qué que todas todos todo lista listar muestra "
    "hay son en de del el la los las paquete módulo modulo definidas definidos declaradas declarados "
    "exported public pub private unexported non exportadas exportados públicas publicas públicos publicos "
    "privadas privados no".split()
)
_WORD = re.compile(r"[^\W\d_][\w'-]*", re.UNICODE)
# a docstring's opening: what one definition does ("Return the set of additional properties for...", "Create
# an error message for extra items or properties"), never a request for a set of constructs
_DOCSTRING_OPENING = re.compile(
    r"^\W*(?:returns?|produces?|creates?|computes?|calculates?|converts?|constructs?|generates?|yields?|"
    r"raises?|raised|wraps?|ensures?|determines?|checks?\s+(?:if|whether|that))\b",
    re.IGNORECASE,
)


@attrs.frozen(kw_only=True)
class StructuralQuery:
    base: str = ""  # a direct base class, interface or trait name (last dotted component)
    base_qualifier: str = ""  # what came before it (`argparse` in `argparse.Action`)
    implements: bool = False  # the base is implemented ("implement", "satisfy"), not only extended
    decorator: str = ""  # decorator name; "*.setter" style when a placeholder was used
    is_async: bool = False
    returns: str = ""  # a named result type ("return a *flag.FlagSet" -> "FlagSet")
    visibility: str = ""  # "exported" (exported, public, pub) or "private"
    kinds: tuple[str, ...] = ()  # symbol kinds the question names (`KIND_WORDS`)
    listing: bool = (
        False  # the question only lists constructs: "interfaces in server", "exported functions of P"
    )
    scope: tuple[str, ...] = ()  # module, package or class names the answer should live in
    members_of: str = ""  # a class whose own methods are asked for ("methods of the Thread class")
    # the question says more than its filters ("exception classes that inherit from UsageError", not only
    # "subclasses of UsageError"): its other words can rank the set's members
    described: bool = False
    # the answers are exception classes or their members ("properties ... in subprocess's exception classes"):
    # a refinement of the other filters, never a filter of its own
    exceptions: bool = False

    @property
    def has_filter(self) -> bool:
        return bool(
            self.base or self.decorator or self.is_async or self.members_of or self.returns or self.listing
        )

    @property
    def answer_kinds(self) -> tuple[str, ...]:
        """The symbol kinds an answer may have; () when any. A base asks for types ("classes extending X":
        classes; "types implementing X": every type kind); members are methods when methods are asked;
        "functions" that are async or return something include methods, as in Python's `def`."""
        named = self.kinds
        if self.members_of:
            return ("method",) if "method" in named else ()
        if self.base:
            wanted = tuple(k for k in TYPE_KINDS if k in named)
            return wanted or TYPE_KINDS
        if self.listing:
            return named
        if not (self.is_async or self.returns):
            return ()  # a decorator's own kind: "properties ... in subprocess's exception classes" are methods
        if "function" in named and "method" not in named:
            return (*named, "method")
        return named


def parse_structural(query: str) -> StructuralQuery:
    text = query[:500]
    base = qualifier = decorator = returns = ""
    implements = False
    rest = text  # the text left once the relation is read: its kind words are not the answer's
    m = _IMPLEMENT.search(text)
    if m and not _names_code(m.group(1)):
        m = _IMPLEMENT_NAMED_KIND.search(text)
    if m and _names_code(m.group(1)):
        implements = True
        rest = text[: m.start()] + " " + text[m.end() :]
    else:
        m = _INHERIT.search(text)
        if m and not _names_code(m.group(1)):
            by_kind = _INHERIT_NAMED_KIND.search(text)
            m = by_kind if by_kind and _names_code(by_kind.group(1)) else m
        if m and _ATTRIBUTIVE.match(m.group(0)) and not _names_code(m.group(1)):
            m = None  # "a derived value", "templates with embedded code": an adjective, not a relation
        m = m or _SUBCLASS_SUFFIX.search(text)
    qualifying: list[str] = []
    if m:
        dotted = m.group(1).rstrip(".")
        qualifier, _, base = dotted.rpartition(".")
        # "godoc's vfs FileSystem interface", "net/http's Handler": the words before the name say where it is
        qualifying = re.findall(r"[a-z]\w*", text[m.start() : m.start(1)])[1:]
    placeholder = _PLACEHOLDER_DECORATOR.search(text)
    d = _DECORATOR.search(text) or _DECORATED.search(text)
    if placeholder:
        decorator = "*." + placeholder.group(1)
    elif d:
        decorator = d.group(1).rstrip(".")
        if "<" in decorator:  # "@<name>.setter": any name
            decorator = "*." + decorator.rsplit(".", 1)[-1]
    elif _DOCSTRING_OPENING.match(text):  # plain words describe one definition: no prose filter
        pass
    elif named := next(
        (name for pattern, name in _NAMED_DECORATORS if (n := pattern.search(text)) and _plural(n.group(0))),
        "",
    ):
        decorator = named
    elif (p := _PROPERTY.search(text)) and _plural(p.group(0)):
        decorator = "property"
    r = _RETURNS.search(text)
    if r and _names_code(r.group(1)) and r.group(1).lower() not in _LITERAL_VALUES:
        returns = r.group(1).rstrip(".").rsplit(".", 1)[-1]
        rest = rest.replace(r.group(0), " ")
    kinds, plural, rest = _kinds(rest)
    c = None if returns else _CREATES.search(text)
    if c and _names_code(c.group(1)) and any(SymbolKind(k).is_callable for k in kinds):
        returns = c.group(1).rstrip(".").rsplit(".", 1)[-1]
        rest = rest.replace(c.group(0), " ")
    visibility = ""
    v = _VISIBILITY.search(text)
    if v:
        visibility = "private" if _PRIVATE.search(v.group(0)) else "exported"
    scope: list[str] = []
    for s in _OF_SCOPE.finditer(text):
        word = s.group(1)
        if word.lower() not in _SCOPE_STOP and word != (f"{qualifier}.{base}" if qualifier else base):
            scope.extend(p for p in word.split(".") if p)
    scope.extend(n.group(1) for n in _NAMED_SCOPE.finditer(text) if n.group(1).lower() not in _SCOPE_STOP)
    scope.extend(p.group(1) for p in _POSSESSIVE.finditer(text))
    scope.extend(o.group(1) for o in _OWNER_MEMBERS.finditer(text))
    scope.extend(i.group(1) for i in _IMPL_FOR.finditer(text))
    if qualifier:
        scope.extend(qualifier.split("."))
    scope.extend(w for w in qualifying if w not in _RELATION_WORDS)
    scope = list(dict.fromkeys(s for s in scope if s.lower() not in _SCOPE_STOP and s != returns))
    is_async = _asks_async(text, plural) and not _DOCSTRING_OPENING.match(text)
    said = rest.replace(m.group(0), " ") if m and not implements else rest  # implements: already out
    for pattern in (
        _DECORATED,
        _PLACEHOLDER_DECORATOR,
        _DECORATOR,
        _PROPERTY,
        *(p for p, _ in _NAMED_DECORATORS),
    ):
        said = pattern.sub(" ", said)
    described = not _only_listing_words(said, scope)
    listing = (
        bool(visibility or set(plural) & _LISTABLE)
        and not (base or decorator or returns)
        and _only_listing_words(rest, scope)
    )
    return StructuralQuery(
        base=base,
        base_qualifier=qualifier,
        implements=implements and bool(base),
        decorator=decorator,
        is_async=is_async,
        returns=returns,
        visibility=visibility,
        kinds=kinds,
        listing=listing,
        scope=tuple(scope),
        members_of="" if base else _members_of(text, scope, decorator),
        described=described,
        exceptions=bool(_EXCEPTION_CLASSES.search(text)),
    )


def _asks_async(text: str, plural: Sequence[str]) -> bool:
    """Async code as a set: "async functions", "async handlers", "coroutines", "funciones asíncronas"; not one
    definition described ("Create a new task from a coroutine object")."""
    m = _ASYNC.search(text)
    if m is None:
        return False
    after = text[m.end() :].split(maxsplit=1)
    return bool(plural) or m.group(0).lower().endswith("s") or bool(after and _plural(after[0]))


def _plural(phrase: str) -> bool:
    """A construct named in the plural ("properties", "class methods", "métodos de clase"): what a question
    listing a set says; a description of one definition says "a property which...", "context manager"."""
    return any(w.endswith("s") and w not in ("class", "clase") for w in phrase.lower().split())


def _names_code(word: str) -> bool:
    """A relation's target written as code (`Handler`, `io.Reader`, `flag_set`), not prose ("caching")."""
    return any(c.isupper() for c in word) or "." in word or "_" in word


def _kinds(text: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """The symbol kinds named in `text`, those named in the plural, and the text without the kind words."""
    kinds: list[str] = []
    plural: list[str] = []
    for pattern, names in _KIND_PATTERNS:
        for m in pattern.finditer(text):
            kinds.extend(names)
            if m.group(1):
                plural.extend(names)
        text = pattern.sub(" ", text)
    return tuple(dict.fromkeys(kinds)), tuple(dict.fromkeys(plural)), text


def _only_listing_words(rest: str, scope: list[str]) -> bool:
    """Nothing but kind, scope and filler words: "which interfaces are defined in server?" lists;
    "interfaces that describe observable values" is a question about behaviour."""
    scoped = {s.lower() for s in scope}
    for word in _WORD.findall(rest):
        low = word.lower()
        if low not in _LISTING_WORDS and low not in scoped and not _ASYNC.fullmatch(low):
            return False
    return True


def _members_of(text: str, scope: list[str], decorator: str) -> str:
    """The class whose methods a question asks for: a scope word written like a class (`Thread`,
    `ZipFile`) or called one ("the deque class", "the Router struct"), when the question is about methods
    or members ("methods of ...", "classmethods of ...", "properties of ...")."""
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


def derived(decorators: tuple[str, ...]) -> tuple[str, ...]:
    """The traits a Rust `#[derive(Debug, serde::Serialize)]` implements, by their last path component."""
    names: list[str] = []
    for dec in decorators:
        for m in _DERIVE.finditer(dec):
            names.extend(n.strip().rsplit("::", 1)[-1] for n in m.group(1).split(",") if n.strip())
    return tuple(names)


def returns_matches(wanted: str, signature: str, name: str) -> bool:
    """Does the signature's result name the type `wanted` (`FlagSet` in `func (c *Command) Flags()
    *flag.FlagSet`, `-> Result<Value>`, `): Promise<Foo>`)? The result is what follows the parameter list
    that follows the name; a word of the parameters is not a result."""
    at = signature.find(name) if name else -1
    open_at = signature.find("(", at + len(name) if at >= 0 else 0)
    if open_at < 0:
        return False
    close = _closing(signature, open_at)
    if close < 0:
        return False
    result = signature[close + 1 :]
    # a callback's parameters are not the result: `func(f *flag.FlagSet) flag.NormalizedName`
    while (m := _CALLBACK.search(result)) and (end := _closing(result, m.end() - 1)) >= 0:
        result = result[: m.start()] + result[end + 1 :]
    return re.search(rf"\b{re.escape(wanted)}\b", result) is not None


def _closing(text: str, open_at: int) -> int:
    """The index of the parenthesis closing the one at `open_at`, or -1."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1
