"""Query classifier: pattern / structural / semantic / hybrid, with confidence and a suggested tool.

Spec: query-classifier.md. Rules only (regexes and word lists), no model; pure, deterministic and total;
English and Spanish, accent-insensitive.

1. Evidence. Code is found first on the original text (case matters) and blanked out; what is left is the
   prose, folded, read as words and word n-grams against word lists. Each indicator has a kind and units:
   - PATTERN     quoted_identifier, function_call, dot_notation, file_path, url, regex_pattern,
                 constant_name, numeric_literal, code_marker (TODO/FIXME), explicit_grep ("grep", "the
                 string"), exact_import, identifier (snake_case, camelCase, PascalCase), subscript,
                 literal_target ("usages of getattr"); usage_lookup ("usages of") names but scores 0.
   - STRUCTURAL  relations: inheritance_pattern, override_pattern, implements_pattern, decorator_pattern,
                 decorator_syntax, declaration_term, parameter_pattern, return_pattern, construct_pattern,
                 member_pattern; filters: ast_keyword, modifier_keyword.
   - SEMANTIC    how_question (how/why/explain/cómo), intent_question (where/which/what/dónde),
                 intent_verb, handles_pattern ("code that parses ..."), conceptual_noun, cross_cutting,
                 design_pattern, similarity_indicator.
   - HYBRID      vague_qualifier ("related"), broad_scope ("across the codebase", "all classes that ..."),
                 literal_with_question ("shutil.copytree: where ..."), conjunction + mixed_types /
                 multi_part.
2. Conjunctions ("X and Y", "X y Y", outside quotes): HYBRID when the clauses are of different kinds, or a
   later clause is a question of its own and code is named; otherwise the query is one clause.
3. Rules for one clause, the first that applies:
   only code, no prose                       -> PATTERN
   vague qualifier                           -> HYBRID
   named code, then ": where/how/why ..."    -> HYBRID
   similarity                                -> HYBRID next to code or constructs, else SEMANTIC
   broad scope over behaviour or concepts    -> HYBRID
   explicit literal request (grep, "the string") -> PATTERN
   a structural relation                     -> STRUCTURAL; with a how-question SEMANTIC, or HYBRID when
                                                code is named; HYBRID with a concept and no named code
                                                ("classes that implement caching")
   named code                                -> HYBRID with behaviour words or a long question,
                                                STRUCTURAL with plural construct names, else PATTERN
   construct names                           -> SEMANTIC when behaviour words ride along, else STRUCTURAL
   behaviour, questions, concepts            -> SEMANTIC
   broad scope alone                         -> HYBRID
   three or more plain words                 -> SEMANTIC (0.6): a description of behaviour
   nothing                                   -> HYBRID at 0.5 (also empty and too short)
4. Confidence, calibrated on the spec's tables (which win over its scoring sketch), capped at 0.95:
   pattern 0.60 + 0.15/unit, structural 0.80 + 0.05/unit, semantic 0.75 + 0.05/unit (-0.05 for a single
   content word), hybrid 0.60 + 0.05 per hybrid unit and per kind of evidence present (cap 0.90);
   -0.05 when another kind also has strong evidence.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Literal

import attrs

MAX_CONFIDENCE = 0.95
FALLBACK_CONFIDENCE = 0.5
DESCRIPTION_CONFIDENCE = 0.6
_DESCRIPTION_MIN_WORDS = 3
MIN_QUERY_CHARS = 3
# Classification reads at most this much of a query: enough for any real question, bounded time for any input.
MAX_CLASSIFY_CHARS = 600


class QueryCategory(enum.StrEnum):
    PATTERN = "pattern"
    STRUCTURAL = "structural"
    SEMANTIC = "semantic"
    HYBRID = "hybrid"


SuggestedTool = Literal["grep_search", "ast_grep_search", "semantic_search", "enhanced_search"]

TOOL_ROUTING: Mapping[QueryCategory, SuggestedTool] = MappingProxyType(
    {
        QueryCategory.PATTERN: "grep_search",
        QueryCategory.STRUCTURAL: "ast_grep_search",
        QueryCategory.SEMANTIC: "semantic_search",
        QueryCategory.HYBRID: "enhanced_search",
    }
)


@attrs.frozen(kw_only=True)
class Classification:
    category: QueryCategory
    confidence: float
    indicators: tuple[str, ...]
    suggested_tool: SuggestedTool
    reasoning: str

    def to_data(self) -> dict[str, Any]:
        return {
            "category": self.category.value,
            "confidence": self.confidence,
            "indicators": list(self.indicators),
            "suggested_tool": self.suggested_tool,
            "reasoning": self.reasoning,
        }


# --- indicator kinds and units ------------------------------------------------------------------------


class _Kind(enum.StrEnum):
    P = "pattern"
    P_EXPLICIT = "pattern_explicit"  # asks for literal text outright: quotes, grep, regex, markers
    S_REL = "structural_relation"
    S_WEAK = "structural_filter"
    M_HOW = "semantic_how"
    M_QUESTION = "semantic_question"
    M_VERB = "semantic_verb"
    M_CONCEPT = "semantic_concept"
    SIMILAR = "similarity"
    VAGUE = "vague"
    BROAD = "broad"
    SUPPORT = "support"  # named, but neither decides nor scores


_UNITS: dict[str, int] = {
    # pattern
    "quoted_identifier": 1,
    "function_call": 1,
    "dot_notation": 1,
    "file_path": 1,
    "regex_pattern": 1,
    "constant_name": 1,
    "code_marker": 1,
    "explicit_grep": 1,
    "exact_import": 1,
    "identifier": 1,
    "subscript": 1,
    "url": 1,
    "numeric_literal": 1,
    "literal_target": 1,
    "usage_lookup": 0,
    # structural
    "ast_keyword": 1,
    "modifier_keyword": 1,
    "inheritance_pattern": 2,
    "override_pattern": 2,
    "implements_pattern": 2,
    "decorator_pattern": 2,
    "decorator_syntax": 1,
    "declaration_term": 2,
    "parameter_pattern": 2,
    "return_pattern": 2,
    "construct_pattern": 2,
    "member_pattern": 1,
    # semantic
    "how_question": 2,
    "intent_question": 1,
    "intent_verb": 1,
    "handles_pattern": 1,
    "conceptual_noun": 1,
    "cross_cutting": 1,
    "design_pattern": 1,
    "similarity_indicator": 1,
    # hybrid
    "vague_qualifier": 1,
    "broad_scope": 2,
    "conjunction": 1,
    "mixed_types": 2,
    "multi_part": 2,
    "literal_with_question": 2,
    "plain_description": 0,
}

_PATTERN_KINDS = frozenset({_Kind.P, _Kind.P_EXPLICIT})
_LITERAL_KINDS = _PATTERN_KINDS | {_Kind.SUPPORT}
_STRUCTURAL_KINDS = frozenset({_Kind.S_REL, _Kind.S_WEAK})
_SEMANTIC_KINDS = frozenset({_Kind.M_HOW, _Kind.M_QUESTION, _Kind.M_VERB, _Kind.M_CONCEPT})


def _fold(text: str) -> str:
    """Lower-case and drop accents: Spanish matches with or without them."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _c(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


# --- vocabularies ---------------------------------------------------------------------------------------
# Word lists are matched as sets against the 1- to 4-word n-grams of the query's prose, which is far cheaper
# than regex alternations. A list entry may use `(?:a|b)`, `[ab]` and `x?` for its forms, and `_` for a space.

_TOKEN = _c(r"[^\W_]+(?:['’-][^\W_]+)*")
_MAX_GRAM = 4


def _forms(spec: str) -> list[str]:
    """All spellings of one list entry: `handl(?:e|es)` -> handle, handles; `clases?` -> clase, clases."""
    results = [""]
    i = 0
    while i < len(spec):
        if spec.startswith("(?:", i):
            end = spec.index(")", i)
            options = spec[i + 3 : end].split("|")
            i = end + 1
        elif spec[i] == "[":
            end = spec.index("]", i)
            options = list(spec[i + 1 : end])
            i = end + 1
        else:
            options = [spec[i]]
            i += 1
        if i < len(spec) and spec[i] == "?":
            options = [*options, ""]
            i += 1
        results = [r + o for r in results for o in options]
    return results


def _phrase(text: str) -> str:
    return " ".join(_TOKEN.findall(_fold(text.replace("_", " "))))


def _lexicon(specs: str) -> frozenset[str]:
    return frozenset(p for spec in specs.split() for form in _forms(spec) if (p := _phrase(form)))


def _grams(tokens: list[str]) -> set[str]:
    """The words, and the 2- to 4-word n-grams that start a phrase of some list (`_PHRASE_STARTS`);
    a hyphenated word also counts as its parts ("security-related")."""
    grams = set(tokens)
    for i, token in enumerate(tokens):
        if token in _PHRASE_STARTS:
            for n in range(2, _MAX_GRAM + 1):
                if i + n <= len(tokens):
                    grams.add(" ".join(tokens[i : i + n]))
        if "-" in token:
            grams.update(token.split("-"))
    return grams


# --- pattern evidence (on the original text: case matters) ---------------------------------------------

# Quoted text with a letter or digit inside; an apostrophe inside a word ("don't") does not open a quote.
_QUOTED = _c(r"(?<!\w)([\"'`“‘])(?=[^\"'`”’\n]*\w)([^\"'`”’\n]{1,200}?)[\"'`”’](?!\w)")
_QUOTE_CHARS = frozenset("\"'`“‘")
_FUNCTION_CALL = _c(r"(?<![\w@.$])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\((?:(?!e?s\))[^()\n]{0,80}\)|(?=\s|$))")
_DOTTED = _c(r"(?<![\w@./\\-])([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)(?![\w/])")
_FILE_EXT = (
    "py pyi pyx js jsx mjs cjs ts tsx go rs java kt c h cc cpp hpp cs rb php swift scala sh bash zsh "
    "md rst txt json yaml yml toml ini cfg conf xml html css scss sql csv lock env gradle proto"
)
_FILE_EXT_SET = frozenset(_FILE_EXT.split())
_FILE_PATH = _c(
    r"(?<![\w/])(?:\.{1,2}/|/)?(?:[\w.*-]+/)+(?:[\w.*-]*\.[A-Za-z]\w{0,5})?(?![\w/])"
    r"|(?<![\w./])[\w*-]*[\w*]\.(?:" + "|".join(_FILE_EXT.split()) + r")(?:\.\w+)?\b"
    r"|(?<!\w)\*\.[\w.]+"  # a glob: *.test.js
)
_URL = _c(r"\b[a-z][a-z0-9+.-]{1,10}://\S+")
_REGEX = _c(
    r"(?:^|\s)/[^/\s][^/\n]*/(?=\s|$)"  # /pattern/
    r"|\\[bBdDsSwW]|\.\*|\.\+|\[\^?[^\]\s]{1,20}-[^\]\s]{1,20}\]|\(\?[:=!<]"  # regex syntax
    r"|(?:^|\s)\^[\w\\(\[]"  # an anchor at the start of a term
)
_REGEX_CHARS = frozenset("\\/*+[(^")
_CONSTANT = _c(r"(?<![\w.])(?:_*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|_+[A-Z][A-Z0-9]{2,})\b")
_NUMERIC_LITERAL = _c(r"\b0[xX][0-9a-fA-F_]+\b|\b0[bBoO][0-7_]+\b")
_CAPS_WORD = _c(r"(?<![\w.])[A-Z][A-Z0-9]{3,}\b")
_MARKER = _c(
    r"\b(?:TODO|FIXME|XXX|HACK|NOQA)\b|\b(?i:todos?|fixmes?|todo/fixme)\b(?=\s+(?:comments?|notes?|markers?))"
)
_IDENTIFIER = _c(
    r"(?<![\w.])(?:_{0,2}[a-z][a-z0-9]*(?:_[a-z0-9]+)+_{0,2}"  # snake_case
    r"|__[a-z][a-z0-9]*__"  # dunder
    r"|[a-z]+[A-Z][A-Za-z0-9]*"  # camelCase
    r"|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+"  # PascalCase, two humps or more
    r"|[A-Z]{2,}[a-z]+[A-Za-z0-9]*)(?![\w])"  # HTTPServer
)
_SUBSCRIPT = _c(r"[A-Za-z_][\w.]*\[")
_DECORATOR_SYNTAX = _c(r"(?<![\w.])@<?[A-Za-z_][\w.<>]*(?:\([^()\n]{0,80}\))?")
_IMPORT = _c(
    r"\bimport\s+(?!statements?\b|of\b|the\b|paths?\b|errors?\b|cycles?\b|graph\b|order\b)[\w.]+"
    r"|\bfrom\s+[\w.]+\s+import\b|\brequire\(|#include\b"
)
# Product and language names that look like identifiers but are prose.
_NOT_IDENTIFIERS = frozenset(
    _fold(
        "JavaScript TypeScript CoffeeScript GitHub GitLab PostgreSQL MySQL SQLite MongoDB MariaDB FastAPI "
        "PyTorch TensorFlow WebSocket WebSockets GraphQL OpenAI YouTube LinkedIn macOS iOS iPhone iPad "
        "NodeJS PyPI DevOps OAuth JetBrains VSCode IntelliJ PowerShell DynamoDB BigQuery RabbitMQ ZeroMQ "
        "NumPy SciPy OpenSSL LibreSSL OpenAPI OpenID WordPress HashiCorp"
    ).split()
)
# Upper-case words that are prose in a question, not constants.
_ACRONYMS = frozenset(
    (
        "HTTP HTTPS JSON YAML TOML HTML REST GRPC UUID UTF8 ASCII AJAX CORS CSRF SAML LDAP SMTP IMAP POSIX "
        "UNIX WSGI ASGI CGI NTFS FIFO LIFO CRUD SOAP OAUTH JWKS HMAC SHA1 SHA256 MD5 LZMA BZIP GZIP ZLIB "
        "TCP UDP DNS TLS SSL SSH FTP SFTP ISO8601 RFC JSONL IPV4 IPV6 HTTP2 UTF16 UTF32 MIME XML ZIP64 "
        "ANSI NOTE"
    ).split()
)
_EXPLICIT_GREP = _lexicon(
    "grep rg ripgrep egrep fgrep ack literally verbatim exact_match exact_string exact_text "
    "exact_phrase the_string the_text the_literal literal_(?:string|text|match|search) "
    "text_search full-text la_cadena el_texto texto_exacto literalmente "
    "error_messages? log_messages? warning_messages? the_message the_phrase the_words? "
    "mensajes?_de_error el_mensaje la_frase"
)
_USAGE = _lexicon(
    "usages? occurrences? references?_to calls?_to call_sites? callers_of callers instances_of "
    "mentions?_of invocations?_of uses_of usos_de apariciones llamadas_a referencias_a"
)
# "usages of getattr": the word after a usage phrase is a literal name, even without code syntax.
_USAGE_TARGET = _c(
    r"\b(?:usages?|occurrences?|references?|calls?|callers|invocations?|mentions?|uses|usos|apariciones"
    r"|llamadas|referencias)\s+(?:of|to|a|de)\s+(?:the\s+|la\s+|el\s+|los\s+|las\s+)?([^\s?!,;:]+)"
)
# "where is X used": verbs that ask where a named thing occurs, not how something behaves.
_USAGE_VERBS = frozenset(
    "use used uses using call called calls calling reference referenced references import imported imports "
    "define defined defines declare declared set sets read reads assign assigned raise raised raises "
    "throw thrown throws catch caught instantiate instantiated create created load loaded loads mention "
    "mentioned mentions appear appears occur occurs access accessed modify modified change changed pass "
    "passed return returned returns initialize initialized initialised live lives located found named "
    "usa usan usado usada se llama llaman llamada define definido definida importa importado aparece "
    "aparecen lee leen asigna asignado lanza lanzado crea creado carga cargado".split()
)

# --- structural evidence --------------------------------------------------------------------------------

_AST_PLURAL = _lexicon(
    "classes functions funcs defs methods interfaces structs enums traits constructors destructors "
    "dataclasses lambdas closures generators coroutines decorators properties getters setters protocols "
    "subroutines procedures abstract_classes type_aliases impls impl_blocks macros namespaces "
    "clases funciones metodos interfaces estructuras enumeraciones constructores decoradores propiedades "
    "generadores corrutinas"
)
_AST_KEYWORD = _AST_PLURAL | _lexicon(
    "class function func def method interface struct enum trait constructor destructor dataclass lambda "
    "closure generator coroutine decorator property getter setter protocol subroutine procedure "
    "impl impl_block type_alias macro namespace "
    "clase funcion metodo interfaz estructura enumeracion constructor decorador propiedad generador corrutina"
)
_MODIFIER = _lexicon(
    "async asynchronous await awaitable static abstract private public protected virtual final sealed "
    "generic nested inner top-level top_level overloaded exported inline readonly synchronous "
    "classmethods? staticmethods? abstractmethods? "
    "asincron[oa]s? asincronic[oa]s? estatic[oa]s? abstract[oa]s? privad[oa]s? public[oa]s? anidad[oa]s?"
)
_INHERITANCE = _lexicon(
    "inherit inherits inheriting inherited inheritance extend extends extending extended subclass "
    "subclasses subclassing subclassed superclass superclasses derived_from derives_from deriving_from "
    "derive_from base_class base_classes parent_class parent_classes child_class child_classes "
    "class_hierarchy class_hierarchies inheritance_tree mro metaclass metaclasses "
    "hereda heredan heredar heredando herencia extiende extienden subclase subclases superclase "
    "derivan_de deriva_de derivadas_de clase_base clases_base clase_padre clases_hijas"
)
_OVERRIDE = _lexicon(
    "override overrides overriding overridden overrode overload overloads overloading "
    "sobrescribe sobrescriben sobreescribe sobreescriben sobrecarga sobrecargan redefinen redefine"
)
_IMPLEMENTS = _c(
    r"\b(?:class(?:es)?|interfaces?|types?|structs?|enums?|that|which|who|clases?|estructuras?|tipos?|que)"
    r"\s+implement(?:s|ing|an|a|en)?\b"
    r"|\bimplement(?:s|ing)\s+(?:the\s+|an?\s+)?[a-z_]+(?:\s+(?:interface|protocol|abc|trait))\b"
    r"|\bimplemented\s+by\b|\bimplementad[oa]s?\s+por\b"
    r"|\b(?:implementations|implementors|implementers|impls)\s+of\b|\bimpls?\s+for\b"
    r"|\b(?:types?|structs?|classes|that|which)\s+satisf(?:y|ies|ying)\b"
)
_DECORATOR_STEMS = ("decora", "marked", "wrapped", "annotated", "marcad", "anotad")
_DECORATOR_PHRASE = _c(
    r"\b(?:decorated|decorad[oa]s?|wrapped|marked|annotated|anotad[oa]s?|marcad[oa]s?)\s+(?:with|by|using|con|por)\b"
    r"|\bwith\s+(?:the\s+|a\s+)?decorators?\b|\bcon\s+(?:el\s+)?decorador\b"
)
_DECLARATION = _lexicon("definitions? declarations? definicion definiciones declaracion declaraciones")
# "signature" is structural next to a construct ("function signatures"), prose otherwise ("webhook signature").
_SIGNATURE = _lexicon("signatures? firmas?")
_DEFINED_IN = _c(
    r"\b(?:classes|functions|methods|properties|constants|variables|constructors|enums|interfaces"
    r"|clases|funciones|metodos|propiedades|constantes)\s+(?:\w+\s+)?(?:defined|declared|definid[oa]s|declarad[oa]s)\b"
)
_PARAMETER = _c(
    r"\b(?:with|without|taking|takes?|accept(?:s|ing)?|having|has|receiv(?:e|es|ing)|con|sin|que\s+reciben?)"
    r"\s+(?:\S+\s+){0,4}?(?:parameters?|params?|arguments?|args|kwargs|keyword[- ]arguments?|parametros?|argumentos?)\b"
    r"|\b(?:parameters?|arguments?|parametros?|argumentos?)\s+(?:named|called|of\s+type|typed|llamad[oa]s?)\b"
    r"|\bparameters?\s+[a-z_]\w*_\w*\b|\b(?:with|con)\s+(?:a\s+|un\s+)?parameter\b"
)
_RETURN_STEMS = ("return", "yield", "devuelv", "retorn")
_RETURN = _c(
    r"\b(?:functions?|methods?|funciones|metodos|callables?)\s+(?:that\s+|which\s+|que\s+)?"
    r"(?:return|returns|returning|yield|yields|devuelven|retornan)\b"
    r"|\b(?:return\s+types?|return\s+annotations?|tipo\s+de\s+retorno)\b"
)
_CONSTRUCT = _lexicon(
    "try/except try/catch try-except try_blocks? try_statements? except_blocks? except_clauses? "
    "catch_blocks? if_statements? for_loops? while_loops? switch_statements? match_statements? "
    "list_comprehensions? dict_comprehensions? comprehensions context_managers? with_statements? "
    "return_statements? yield_statements? yield import_statements? assert_statements? raise_statements? "
    "global_variables? class_variables? instance_variables? class_attributes? instance_attributes? "
    "type_hints? type_annotations? docstrings? lambda_expressions? nested_functions? nested_classes? "
    "inner_functions? inner_classes? call_graph ast_nodes? bloques_try sentencias_if bucles_for"
)
# "functions that raise ValueError": the exception is named, capitalised (so searched on the original text).
_RAISE_STEMS = ("rais", "throw", "catch", "lanza")
_RAISES = _c(
    r"(?i:\b(?:functions?|methods?|code|blocks?|that|which|que)\s+(?:raise|raises|throw|throws|catch|catches|lanzan?)\s+)"
    r"[A-Z]\w+"
)
# "methods of X": the members of a named thing (plural: a singular "method on Unix" is prose).
_MEMBER_NOUNS = _lexicon(
    "methods attributes fields properties members constructors metodos atributos campos propiedades constructores"
)
_MEMBER = _c(
    r"\b(?:methods|attributes|fields|properties|members|constructors|metodos|atributos|campos|propiedades"
    r"|constructores)\s+(?:of|in|on|from|de|del)\s+(?:the\s+|la\s+|el\s+)?(?:class\s+|clase\s+)?[a-z_][\w.]*"
)

# --- semantic evidence ----------------------------------------------------------------------------------

_HOW = _c(
    r"\bhow\b(?!\s+(?:many|much)\b)|\bwhy\b|\bwhat\s+happens\b|\bwhat\s+does\s+(?:\S+\s+){0,3}?do\b"
    r"|\bexplain\w*|\bwalk\s+me\s+through\b|\bdescribe\s+how\b|\bpurpose\s+of\b"
    r"|(?:^|[¿:;,]\s*)como\b|\bpor\s+que\b|\bque\s+pasa\b"
    r"|\bque\s+ocurre\b|\bexplica\w*|\bpara\s+que\s+sirve\b"
)
_QUESTION_OPENERS = frozenset("what which who when what's who's que cual cuales quien cuando".split())
_WHICH_NOUNS = _lexicon(
    "code module modules file files part parts component components function functions class classes "
    "method methods service services layer handler handlers piece place"
)
_QUESTION_PHRASES = _lexicon(
    "where where's donde in_which "
    "what_(?:code|part|module|component|file|function|class) "
    "en_que_(?:parte|archivo|fichero|modulo|lugar|clase|funcion)"
)
_SEGMENT_BREAK = _c(r"[¿:;]")
_VERBS = _lexicon(
    "handl(?:e|es|ed|ing) manag(?:e|es|ed|ing) process(?:es|ed|ing) validat(?:e|es|ed|ing) "
    "transform(?:s|ed|ing)? pars(?:e|es|ed|ing) comput(?:e|es|ed|ing) calculat(?:e|es|ed|ing) "
    "check(?:s|ed|ing)? verif(?:y|ies|ied|ying) stor(?:e|es|ed|ing) sav(?:e|es|ed|ing) persist(?:s|ed|ing)? "
    "send(?:s|ing)? sent build(?:s|ing)? built generat(?:e|es|ed|ing) convert(?:s|ed|ing)? "
    "sanitiz(?:e|es|ed|ing) normaliz(?:e|es|ed|ing) infer(?:s|red|ring)? resolv(?:e|es|ed|ing) "
    "decid(?:e|es|ed|ing) determin(?:e|es|ed|ing) retr(?:y|ies|ied|ying) clean(?:s|ed|ing)?_up "
    "refresh(?:es|ed|ing)? schedul(?:e|es|ed|ing) dispatch(?:es|ed|ing)? rout(?:es|ed|ing) "
    "authenticat(?:e|es|ed|ing) authoriz(?:e|es|ed|ing) encrypt(?:s|ed|ing)? decrypt(?:s|ed|ing)? "
    "hash(?:es|ed|ing) serializ(?:e|es|ed|ing) deserializ(?:e|es|ed|ing) enforc(?:e|es|ed|ing) "
    "deduplicat(?:e|es|ed|ing) merg(?:e|es|ed|ing) evict(?:s|ed|ing)? expir(?:e|es|ed|ing) "
    "emit(?:s|ted|ting)? publish(?:es|ed|ing)? subscrib(?:e|es|ed|ing) connect(?:s|ed|ing)? "
    "talks?_to respond(?:s|ed|ing)? fetch(?:es|ed|ing)? filter(?:s|ed|ing)? encod(?:e|es|ed|ing) "
    "decod(?:e|es|ed|ing) skip(?:s|ped|ping)? throttl(?:e|es|ed|ing) collect(?:s|ed|ing)? "
    "reject(?:s|ed|ing)? captur(?:e|es|ed|ing) detect(?:s|ed|ing)? expand(?:s|ed|ing)? "
    "releas(?:e|es|ed|ing) spawn(?:s|ed|ing)? launch(?:es|ed|ing)? quot(?:e|es|ed|ing) escap(?:e|es|ed|ing) "
    "pickl(?:e|es|ed|ing) unpickl(?:e|es|ed|ing) reap(?:s|ed|ing)? wait(?:s|ed|ing)?_for clos(?:e|es|ed|ing) "
    "cleanup recover(?:s|ed|ing)? compress(?:es|ed|ing)? decompress(?:es|ed|ing)? guess(?:es|ed|ing)? "
    "split(?:s|ting)? join(?:s|ed|ing)? register(?:s|ed|ing)? prevent(?:s|ed|ing)? ensur(?:e|es|ed|ing) "
    "track(?:s|ed|ing)? propagat(?:e|es|ed|ing) report(?:s|ed|ing)? appl(?:y|ies|ied|ying) "
    "maneja manejan gestiona gestionan valida validan procesa procesan calcula calculan guarda guardan "
    "envia envian genera generan convierte convierten detecta detectan resuelve resuelven construye "
    "construyen libera liberan evita evitan expande expanden espera esperan mata decide deciden "
    "comprueba comprueban verifica verifican almacena almacenan transforma transforman analiza analizan "
    "limpia limpian recupera recuperan reintenta reintentan serializa cifra descifra registra registran "
    "se_encarga encarga"
)
# "code that parses ...": a thing described by what it does.
_HANDLE_NOUNS = _lexicon(
    "code logic part parts place places piece pieces component components module modules function "
    "functions method methods class classes service services layer thread threads handler handlers thing "
    "things something anything routine routines codigo logica parte partes componente modulo funcion "
    "funciones metodo metodos clase clases servicio"
)
_RELATIVES = frozenset("that which who que".split())
_HANDLE_PHRASES = _lexicon(
    "responsible_for in_charge_of takes_care_of deals_with se_encarga_de responsable_de encargad[oa]_de"
)
_FIND_CODE_NOUNS = frozenset("code places instances logic".split())
_CONCEPTUAL = _lexicon(
    "logic mechanism mechanisms strategy strategies approach workflow workflows flow implementation "
    "behaviou?r algorithm algorithms lifecycle life_cycle pipeline architecture heuristics? "
    "logica mecanismo mecanismos estrategia enfoque flujo implementacion comportamiento algoritmo "
    "ciclo_de_vida arquitectura heuristica"
)
_CROSS_CUTTING = _lexicon(
    "authentication authorization authorisation caching cache logging error_handling "
    "exception_handling error_reporting retry retries retrying validation serialization "
    "deserialization persistence concurrency security encryption telemetry monitoring "
    "observability i18n internationali[sz]ation localization "
    "autenticacion autorizacion manejo_de_errores gestion_de_errores manejo_de_excepciones "
    "reintentos validacion serializacion persistencia concurrencia seguridad cifrado registro_de_logs"
)
_DESIGN_PATTERN = _lexicon(
    "middlewares? singletons? factory factories observers? adapters? facades? proxy proxies "
    "repository_pattern strategy_pattern decorator_pattern builder_pattern visitor_pattern "
    "observer_pattern factory_pattern dependency_injection pub/sub pubsub publish-subscribe "
    "event_bus event_loop state_machine plugin_system design_patterns? anti-patterns? mvc "
    "patron_de_diseno patrones_de_diseno inyeccion_de_dependencias maquina_de_estados"
)
_SIMILAR = _lexicon(
    "similar similarly resembl(?:e|es|ing) akin_to analogous_to comparable_to same_as "
    "similares parecid[oa]s? semejantes?"
)
# "like" compares, except in "would like", "looks like", ...
_NOT_BEFORE_LIKE = frozenset("would i'd i look looks seems seem feel feels".split())

# --- hybrid evidence ------------------------------------------------------------------------------------

_VAGUE = _lexicon(
    "related relating relates relevant associated_with kind_of sort_of stuff anything everything "
    "whatever todo_lo relacionad[oa]s? asociad[oa]s? cualquier_cosa"
)
_BROAD = _lexicon(
    "across throughout system-wide system_wide codebase-wide project-wide repo-wide everywhere "
    "entire_(?:codebase|project|repo|repository|system|app) whole_(?:codebase|project|repo|repository|system|app) "
    "en_todo_el en_todos_los en_todas_las a_lo_largo_de "
    "in_(?:all|every)_(?:the_)?(?:modules?|files?|packages?|services?|components?|layers?|places?)"
)
# "all classes that ...": a quantifier over a kind of thing, then a relative clause.
_QUANTIFIERS = frozenset("all every each any toda todas todos".split())
_ARTICLES = frozenset("the las los".split())
_SCOPE_NOUNS = _lexicon(
    "class(?:es)? functions? methods? modules? files? services? components? handlers? endpoints? "
    "clases funciones metodos modulos servicios"
)
_SCOPE_RELATIVES = frozenset("that which where que".split())

_PHRASE_STARTS = frozenset(
    phrase.split()[0]
    for lexicon in (
        _EXPLICIT_GREP,
        _USAGE,
        _AST_KEYWORD,
        _MODIFIER,
        _INHERITANCE,
        _OVERRIDE,
        _DECLARATION,
        _CONSTRUCT,
        _MEMBER_NOUNS,
        _WHICH_NOUNS,
        _QUESTION_PHRASES,
        _VERBS,
        _HANDLE_PHRASES,
        _CONCEPTUAL,
        _CROSS_CUTTING,
        _DESIGN_PATTERN,
        _SIMILAR,
        _VAGUE,
        _BROAD,
        _SCOPE_NOUNS,
    )
    for phrase in lexicon
    if " " in phrase
)

# --- clause structure -----------------------------------------------------------------------------------

# Split points between clauses, found outside quotes.
_CONJUNCTION = _c(
    r"\s+(?:and\s+then|and\s+also|as\s+well\s+as|and|then|also|plus|y\s+luego|y\s+tambi[eé]n|y|e"
    r"|adem[aá]s|luego|tambi[eé]n)\s+|\s*;\s*",
    re.IGNORECASE,
)
# A clause that opens with its own question.
_OPENER = _c(
    r"^\W*(?:how|where|what|which|why|who|when|explain|describe|como|donde|que|cual|cuales|por\s+que"
    r"|quien|cuando|explica)\b"
)
_HEAD_COLON = _c(r"^([^:]{1,120}?):\s+(\S.*)$", re.DOTALL)
_WORD = _c(r"[^\W\d_]+(?:['-][^\W\d_]+)*")
_STOPWORDS = frozenset(
    (
        "a an the of in on at to for from by with without and or not no is are was were be been being do does "
        "did done this that these those it its it's they them their there here we us our you your i me my "
        "what which who whom whose where when why how all any every each some find show list search get "
        "give tell locate look looking for code me please can could would should will just only also "
        "into about over under up down out as than then so such via per use using file files have has "
        "el la los las un una unos unas de del al a en con sin por para que se su sus es son esta estan "
        "lo le les y o u como donde cual cuales quien cuando muestra muestrame busca buscar encuentra "
        "codigo este esta estos estas mi tu nos hay"
    ).split()
)


@attrs.frozen(kw_only=True)
class _Evidence:
    hits: tuple[tuple[str, _Kind], ...]
    content_words: int  # natural-language words outside code spans and stop words
    colon_question: bool
    plural_construct: bool
    prose_like: bool = False  # mostly letters and spaces: words, not noise
    kinds: frozenset[_Kind] = attrs.field(init=False)
    named_code: bool = attrs.field(init=False)  # some literal code is named (usage_lookup alone is not)

    @kinds.default
    def _kinds(self) -> frozenset[_Kind]:
        return frozenset(kind for _, kind in self.hits)

    @named_code.default
    def _named_code(self) -> bool:
        return any(_UNITS[name] > 0 for name, kind in self.hits if kind in _PATTERN_KINDS)

    def has(self, *kinds: _Kind) -> bool:
        return not self.kinds.isdisjoint(kinds)

    def names(self, *kinds: _Kind) -> tuple[str, ...]:
        return tuple(name for name, kind in self.hits if kind in kinds)

    def units(self, kinds: frozenset[_Kind]) -> int:
        return sum(_UNITS[name] for name, kind in self.hits if kind in kinds)

    def categories_present(self) -> int:
        return sum((self.named_code, self.has(*_STRUCTURAL_KINDS), self.has(*_SEMANTIC_KINDS)))


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _spans(matches: list[re.Match[str]]) -> list[tuple[int, int]]:
    return [m.span() for m in matches]


def _handles(tokens: list[str], grams: set[str]) -> bool:
    """`code that parses ...`, `responsible for ...`, `find the code that ...`."""
    if not _HANDLE_PHRASES.isdisjoint(grams):
        return True
    if _RELATIVES.isdisjoint(grams) and "find" not in grams:
        return False
    for i, token in enumerate(tokens):
        if token in _RELATIVES and i and tokens[i - 1] in _HANDLE_NOUNS:
            after = tokens[i + 1 : i + 4]
            candidates = {*after[:2], " ".join(after[:2]), " ".join(after[1:3])}
            if not _VERBS.isdisjoint(candidates):
                return True
        if token == "find":
            rest = [t for t in tokens[i + 1 : i + 5] if t not in ("all", "the")]
            if len(rest) >= 2 and rest[0] in _FIND_CODE_NOUNS and rest[1] in ("that", "which", "where"):
                return True
    return False


def _question(prose: str, tokens: list[str], grams: set[str]) -> bool:
    """`where ...`, `which module ...`, a clause opening with what/who/when (or qué/cuál/quién/cuándo)."""
    if not _QUESTION_PHRASES.isdisjoint(grams):
        return True
    if "which" in grams:
        for i, token in enumerate(tokens):
            if token == "which" and not _WHICH_NOUNS.isdisjoint(tokens[i + 1 : i + 4]):
                return True
    if tokens and tokens[0] in _QUESTION_OPENERS:
        return True
    if _QUESTION_OPENERS.isdisjoint(grams):
        return False
    for segment in _SEGMENT_BREAK.split(prose):
        first = _TOKEN.search(segment)
        if first and first.group(0) in _QUESTION_OPENERS:
            return True
    return False


def _similar(tokens: list[str], grams: set[str]) -> bool:
    if not _SIMILAR.isdisjoint(grams):
        return True
    return "like" in grams and any(
        t == "like" and (i == 0 or tokens[i - 1] not in _NOT_BEFORE_LIKE) for i, t in enumerate(tokens)
    )


def _broad(tokens: list[str], grams: set[str]) -> bool:
    if not _BROAD.isdisjoint(grams):
        return True
    if _QUANTIFIERS.isdisjoint(grams):
        return False
    for i, token in enumerate(tokens):
        if token in _QUANTIFIERS:
            rest = tokens[i + 1 : i + 5]
            if rest and rest[0] in _ARTICLES:
                rest = rest[1:]
            for k in (0, 1):
                if len(rest) > k + 1 and rest[k] in _SCOPE_NOUNS and rest[k + 1] in _SCOPE_RELATIVES:
                    return True
    return False


_Hit = Callable[[str, _Kind], None]


@attrs.frozen(kw_only=True)
class _Code:
    """The code named in a clause, and the prose left once it is blanked out."""

    rest: str
    quoted: list[tuple[int, int]]
    decorators: bool
    constants: bool
    identifiers: bool
    caps: bool  # upper-case words that may be constants (`EINTR`) or prose (`WSGI`)


def _code(text: str, low: str, hit: _Hit) -> _Code:
    """Literal evidence, case-sensitive; each match is blanked so it is not counted twice. Every regex is
    guarded by a cheap test for the characters it needs: most questions have no code in them at all."""
    has_upper = text.lower() != text
    spans: list[tuple[int, int]] = []
    quoted = _spans(list(_QUOTED.finditer(text))) if not _QUOTE_CHARS.isdisjoint(text) else []
    if quoted:
        hit("quoted_identifier", _Kind.P_EXPLICIT)
        spans += quoted
    urls = _spans(list(_URL.finditer(text))) if "://" in text else []
    if urls:
        hit("url", _Kind.P)
        spans += urls
    decorators = _spans(list(_DECORATOR_SYNTAX.finditer(text))) if "@" in text else []
    spans += decorators
    work = _blank(text, decorators)
    calls = list(_FUNCTION_CALL.finditer(work)) if "(" in work else []
    if calls:
        hit("function_call", _Kind.P)
    work = _blank(work, _spans(calls))
    paths = _spans(list(_FILE_PATH.finditer(work))) if ("/" in work or "." in work) else []
    if paths:
        hit("file_path", _Kind.P)
    work = _blank(work, paths)
    dots = (
        [
            m.span()
            for m in _DOTTED.finditer(work)
            if len(m.group(1)) > 1 and m.group(2).rsplit(".", 1)[-1].lower() not in _FILE_EXT_SET
        ]
        if "." in work
        else []
    )
    if dots or any("." in m.group(0).split("(")[0] for m in calls):
        hit("dot_notation", _Kind.P)
    if not _REGEX_CHARS.isdisjoint(text) and _REGEX.search(text):
        hit("regex_pattern", _Kind.P_EXPLICIT)
    rest = _blank(text, spans + _spans(calls) + paths + dots)
    if "0" in rest and (numbers := _spans(list(_NUMERIC_LITERAL.finditer(rest)))):
        hit("numeric_literal", _Kind.P)
        rest = _blank(rest, numbers)
    if (has_upper or "todo" in low or "fixme" in low) and _MARKER.search(rest):
        hit("code_marker", _Kind.P_EXPLICIT)
    if "[" in rest and (subscripts := _spans(list(_SUBSCRIPT.finditer(rest)))):
        hit("subscript", _Kind.P)
        rest = _blank(rest, subscripts)
    named = has_upper or "_" in rest
    constants = _spans(list(_CONSTANT.finditer(rest))) if named else []
    identifiers = (
        [m.span() for m in _IDENTIFIER.finditer(rest) if _fold(m.group(0)) not in _NOT_IDENTIFIERS]
        if named
        else []
    )
    caps = has_upper and any(
        m.group(0) not in _ACRONYMS and not _MARKER.fullmatch(m.group(0)) for m in _CAPS_WORD.finditer(rest)
    )
    return _Code(
        rest=_blank(rest, constants + identifiers),
        quoted=quoted,
        decorators=bool(decorators),
        constants=bool(constants),
        identifiers=bool(identifiers),
        caps=caps,
    )


def _shouting(text: str) -> bool:
    """A query written in capitals names no constants."""
    words = _WORD.findall(text)
    return len(words) >= 3 and sum(1 for w in words if w.isupper() and len(w) > 1) * 2 > len(words)


def _structure(text: str, low: str, grams: set[str], code: _Code, hit: _Hit) -> None:
    # Keywords are read in the prose (the `dataclass` of `@dataclass(...)` is code, not a request).
    if not _AST_KEYWORD.isdisjoint(grams):
        hit("ast_keyword", _Kind.S_WEAK)
    if not _MODIFIER.isdisjoint(grams):
        hit("modifier_keyword", _Kind.S_WEAK)
    if not _INHERITANCE.isdisjoint(grams):
        hit("inheritance_pattern", _Kind.S_REL)
    if not _OVERRIDE.isdisjoint(grams):
        hit("override_pattern", _Kind.S_REL)
    if ("impl" in low or "satisf" in low) and _IMPLEMENTS.search(low):
        hit("implements_pattern", _Kind.S_REL)
    if any(stem in low for stem in _DECORATOR_STEMS) and _DECORATOR_PHRASE.search(low):
        hit("decorator_pattern", _Kind.S_REL)
    if code.decorators:
        hit("decorator_syntax", _Kind.S_REL)
    if (
        not _DECLARATION.isdisjoint(grams)
        or (not _SIGNATURE.isdisjoint(grams) and not _AST_KEYWORD.isdisjoint(grams))
        or (("defin" in low or "declar" in low) and _DEFINED_IN.search(low))
    ):
        hit("declaration_term", _Kind.S_REL)
    if ("param" in low or "arg" in low) and _PARAMETER.search(low):
        hit("parameter_pattern", _Kind.S_REL)
    if any(stem in low for stem in _RETURN_STEMS) and _RETURN.search(low):
        hit("return_pattern", _Kind.S_REL)
    if not _CONSTRUCT.isdisjoint(grams) or (
        any(stem in low for stem in _RAISE_STEMS) and _RAISES.search(text)
    ):
        hit("construct_pattern", _Kind.S_REL)
    if not _MEMBER_NOUNS.isdisjoint(grams) and _MEMBER.search(low):
        hit("member_pattern", _Kind.S_REL)


def _semantics(prose: str, tokens: list[str], grams: set[str], hit: _Hit) -> None:
    # Read on the prose only (code blanked: the `save` of `UserRepository.save` is no verb).
    if _HOW.search(prose):
        hit("how_question", _Kind.M_HOW)
    if _question(prose, tokens, grams):
        hit("intent_question", _Kind.M_QUESTION)
    cross = _CROSS_CUTTING & grams
    if _handles(tokens, grams):
        hit("handles_pattern", _Kind.M_CONCEPT)
    else:
        # A word inside a concept ("error handling", "retry") is not read again as a verb.
        verbs = _VERBS & grams
        if verbs and (not cross or verbs - {w for phrase in cross for w in phrase.split()}):
            hit("intent_verb", _Kind.M_VERB)
    if not _CONCEPTUAL.isdisjoint(grams):
        hit("conceptual_noun", _Kind.M_CONCEPT)
    if cross:
        hit("cross_cutting", _Kind.M_CONCEPT)
    if not _DESIGN_PATTERN.isdisjoint(grams):
        hit("design_pattern", _Kind.M_CONCEPT)
    if _similar(tokens, grams):
        hit("similarity_indicator", _Kind.SIMILAR)
    if not _VAGUE.isdisjoint(grams):
        hit("vague_qualifier", _Kind.VAGUE)
    if _broad(tokens, grams):
        hit("broad_scope", _Kind.BROAD)


def _collect(text: str) -> _Evidence:
    """Every indicator in one clause, in a fixed order."""
    found: dict[str, _Kind] = {}

    def hit(name: str, kind: _Kind) -> None:
        found.setdefault(name, kind)

    low = _fold(text)
    code = _code(text, low, hit)
    # The prose: what is left once code is blanked, folded, as tokens and n-grams.
    prose = _fold(code.rest)
    tokens = _TOKEN.findall(prose)
    grams = _grams(tokens)
    content = [
        w
        for w in tokens
        if len(w) > 1
        and not w[0].isdigit()
        and w not in _STOPWORDS
        and w not in _USAGE_VERBS
        and w not in _AST_KEYWORD
        and w not in _MODIFIER
    ]
    if not _EXPLICIT_GREP.isdisjoint(grams):
        hit("explicit_grep", _Kind.P_EXPLICIT)
    if ("import" in low or "require(" in text or "#include" in text) and _IMPORT.search(text):
        hit("exact_import", _Kind.P_EXPLICIT)
    # A bare upper-case word is a constant only in a short, code-like query (`EINTR`, not a WSGI question).
    if code.constants or (code.caps and len(content) <= 3 and not _shouting(text)):
        hit("constant_name", _Kind.P)
    if code.identifiers:
        hit("identifier", _Kind.P)
    if not _USAGE.isdisjoint(grams):
        hit("usage_lookup", _Kind.SUPPORT)
        target = _USAGE_TARGET.search(prose)
        if target and target.group(1) not in _STOPWORDS and target.group(1) not in _AST_KEYWORD:
            hit("literal_target", _Kind.P)
    _structure(text, low, grams, code, hit)
    _semantics(prose, tokens, grams, hit)

    colon_question = False
    head_tail = _HEAD_COLON.match(_blank(text, code.quoted)) if ":" in text else None
    if head_tail:
        tail = _fold(text[head_tail.start(2) :])
        colon_question = bool(_OPENER.match(tail)) and len(tail.split()) >= 3
    return _Evidence(
        hits=tuple(found.items()),
        content_words=len(content),
        colon_question=colon_question,
        plural_construct=not _AST_PLURAL.isdisjoint(grams),
        prose_like=sum(1 for ch in text if ch.isalpha() or ch == " ") >= 0.9 * len(text),
    )


# --- decisions -----------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class _Decision:
    category: QueryCategory
    reasoning: str
    extra: tuple[str, ...] = ()  # indicators the rule itself contributes (mixed_types, ...)
    confidence: float | None = None  # fixed by the rule instead of computed from the evidence


# prose words beside quoted code that make a description of behaviour, not a look-up of the code
_DESCRIPTION_WITH_CODE_WORDS = 2


def _decide(ev: _Evidence) -> _Decision | None:
    """The priority rules for one clause; None when there is no usable evidence."""
    pattern = ev.named_code
    explicit = ev.has(_Kind.P_EXPLICIT)
    relation = ev.has(_Kind.S_REL)
    construct = ev.has(_Kind.S_WEAK)
    how = ev.has(_Kind.M_HOW)
    concept = ev.has(_Kind.M_CONCEPT)
    behaviour = how or concept or ev.has(_Kind.M_VERB)
    semantic = ev.has(*_SEMANTIC_KINDS)

    if (
        ev.hits
        and ev.content_words == 0
        and all(
            kind in _PATTERN_KINDS or kind is _Kind.SUPPORT or name == "decorator_syntax"
            for name, kind in ev.hits
        )
    ):
        return _Decision(
            category=QueryCategory.PATTERN, reasoning="The query is code: a literal search finds it"
        )
    if ev.has(_Kind.VAGUE):
        return _Decision(category=QueryCategory.HYBRID, reasoning="Vague qualifier: related code of any kind")
    if ev.colon_question and (pattern or relation):
        return _Decision(
            category=QueryCategory.HYBRID,
            reasoning="Names exact code, then asks a question about its behaviour",
            extra=("literal_with_question",),
        )
    if ev.has(_Kind.SIMILAR):
        if pattern or construct or relation:
            return _Decision(
                category=QueryCategory.HYBRID, reasoning="Similarity to concrete code: pattern plus semantic"
            )
        return _Decision(category=QueryCategory.SEMANTIC, reasoning="Asks for semantically similar code")
    if ev.has(_Kind.BROAD) and semantic and not explicit:
        return _Decision(category=QueryCategory.HYBRID, reasoning="Wide scope over a concept")
    if "explicit_grep" in ev.names(_Kind.P_EXPLICIT) and not how:
        return _Decision(category=QueryCategory.PATTERN, reasoning="Asks for literal text outright")
    if relation:
        if how and pattern:
            return _Decision(
                category=QueryCategory.HYBRID,
                reasoning="Named code structure plus a question about behaviour",
                extra=("mixed_types",),
            )
        if how:
            return _Decision(
                category=QueryCategory.SEMANTIC,
                reasoning="A question about how a kind of structure behaves",
            )
        if concept and not pattern:
            return _Decision(
                category=QueryCategory.HYBRID,
                reasoning="Structure applied to a concept: structural plus semantic",
                extra=("mixed_types",),
            )
        return _Decision(
            category=QueryCategory.STRUCTURAL, reasoning="Requires AST-level understanding of code structure"
        )
    if pattern:
        # "where is ENABLE_CACHE checked" is a lookup; a verb with more prose around it is a question.
        lookup = not (how or concept) and ev.content_words <= 1
        if (behaviour and not lookup) or (semantic and ev.content_words >= 4):
            return _Decision(
                category=QueryCategory.HYBRID,
                reasoning="Exact code plus a conceptual question",
                extra=("mixed_types",),
            )
        if ev.plural_construct and not explicit:
            return _Decision(
                category=QueryCategory.STRUCTURAL, reasoning="Constructs of a kind, scoped by exact names"
            )
        if ev.content_words >= _DESCRIPTION_WITH_CODE_WORDS and {
            name for name, kind in ev.hits if kind in _PATTERN_KINDS
        } == {"quoted_identifier"}:
            # "Removes `f` from the list of change listeners": a description that quotes code, not a lookup
            return _Decision(
                category=QueryCategory.HYBRID,
                reasoning="A description that quotes code: its words first, the code as a literal too",
                extra=("mixed_types",),
            )
        return _Decision(category=QueryCategory.PATTERN, reasoning="Exact text: a literal search finds it")
    if construct:
        # A modifier alone ("the public key", "the final result") is prose next to a question.
        if behaviour or (semantic and "ast_keyword" not in ev.names(_Kind.S_WEAK)):
            return _Decision(
                category=QueryCategory.SEMANTIC,
                reasoning="Asks what code does; construct names are incidental",
            )
        return _Decision(category=QueryCategory.STRUCTURAL, reasoning="Asks for code constructs of a kind")
    if semantic:
        return _Decision(
            category=QueryCategory.SEMANTIC, reasoning="Asks about behaviour or concepts, not identifiers"
        )
    if ev.has(_Kind.BROAD):
        return _Decision(category=QueryCategory.HYBRID, reasoning="Wide scope query")
    if ev.content_words >= _DESCRIPTION_MIN_WORDS and ev.prose_like:
        # No indicator, but several words of prose: a description of behaviour ("webhook signature check").
        return _Decision(
            category=QueryCategory.SEMANTIC,
            reasoning="A plain description, no code or structure named",
            extra=("plain_description",),
            confidence=DESCRIPTION_CONFIDENCE,
        )
    return None


def _strong_other(ev: _Evidence, category: QueryCategory) -> bool:
    """Does another category have strong evidence (which lowers confidence)?"""
    strong = {
        QueryCategory.PATTERN: ev.named_code,
        QueryCategory.STRUCTURAL: ev.has(_Kind.S_REL),
        QueryCategory.SEMANTIC: ev.has(_Kind.M_HOW, _Kind.M_VERB, _Kind.M_CONCEPT),
    }
    return any(value for cat, value in strong.items() if cat is not category)


def _confidence(ev: _Evidence, decision: _Decision, extra_hybrid: tuple[str, ...] = ()) -> float:
    if decision.confidence is not None:
        return decision.confidence
    category = decision.category
    if category is QueryCategory.HYBRID:
        units = sum(_UNITS[n] for n in (*extra_hybrid, *decision.extra))
        units += ev.units(frozenset({_Kind.VAGUE, _Kind.BROAD, _Kind.SIMILAR}))
        units += ev.categories_present()
        return round(min(0.90, 0.60 + 0.05 * units), 2)
    if category is QueryCategory.PATTERN:
        value = 0.60 + 0.15 * ev.units(_PATTERN_KINDS)
    elif category is QueryCategory.STRUCTURAL:
        value = 0.80 + 0.05 * ev.units(_STRUCTURAL_KINDS)
    else:
        value = 0.75 + 0.05 * ev.units(_SEMANTIC_KINDS | {_Kind.SIMILAR})
        if ev.content_words <= 1:
            value -= 0.05
    value = min(MAX_CONFIDENCE, value)
    if _strong_other(ev, category):
        value -= 0.05
    return round(max(0.55, value), 2)


def _indicators(ev: _Evidence, decision: _Decision, extra_hybrid: tuple[str, ...] = ()) -> tuple[str, ...]:
    names = tuple(name for name, _ in ev.hits)
    first = (*extra_hybrid, *decision.extra)
    if decision.category is QueryCategory.HYBRID:
        first += tuple(n for n in names if n in ("vague_qualifier", "broad_scope", "similarity_indicator"))
    return tuple(dict.fromkeys((*first, *names)))


def _fallback(indicators: tuple[str, ...], reasoning: str) -> Classification:
    return Classification(
        category=QueryCategory.HYBRID,
        confidence=FALLBACK_CONFIDENCE,
        indicators=indicators,
        suggested_tool=TOOL_ROUTING[QueryCategory.HYBRID],
        reasoning=reasoning,
    )


_MAX_PARTS = 4  # clauses read in a long query: bounded time, and four clauses already say what it is


def _split_clauses(text: str, limit: int) -> list[str]:
    """The first `limit` clauses between conjunctions outside quotes (a clause needs a word of its own)."""
    masked = _blank(text, _spans(list(_QUOTED.finditer(text)))) if not _QUOTE_CHARS.isdisjoint(text) else text
    parts: list[str] = []
    start = 0
    for m in _CONJUNCTION.finditer(masked):
        part = text[start : m.start()].strip()
        start = m.end()
        if _WORD.search(part):
            parts.append(part)
            if len(parts) == limit:
                return parts
    part = text[start:].strip()
    if _WORD.search(part):
        parts.append(part)
    return parts


def _part_decision(ev: _Evidence, later: bool) -> _Decision | None:
    if later and ev.content_words == 0 and ev.kinds <= _LITERAL_KINDS:
        # A later part that is only code ("__enter__ and __exit__") continues the first part's list.
        return None
    return _decide(ev)


def _classify_conjunction(text: str) -> Classification | None:
    """HYBRID when the clauses of a query are of different kinds, or a later clause asks its own question
    about named code; None to classify the query as one clause."""
    parts = _split_clauses(text, _MAX_PARTS)
    if len(parts) < 2:
        return None
    evidences: list[_Evidence] = []
    decisions: list[_Decision | None] = []
    kinds: set[QueryCategory] = set()
    for k, part in enumerate(parts):
        evidences.append(_collect(part))
        decisions.append(_part_decision(evidences[-1], later=k > 0))
        if decisions[-1] is not None:
            kinds.add(decisions[-1].category)
        if len(kinds) >= 2:  # decided: the remaining parts cannot undo it
            break
    if len(kinds) >= 2:
        extra = ("conjunction", "mixed_types")
    elif (
        kinds
        and any(_OPENER.match(_fold(p)) for p in parts[1:])
        and (None in decisions or any(ev.named_code for ev in evidences))
    ):
        extra = ("conjunction", "multi_part")
    else:
        return None
    merged = _Evidence(
        hits=tuple(dict.fromkeys(h for ev in evidences for h in ev.hits)),
        content_words=sum(ev.content_words for ev in evidences),
        colon_question=False,
        plural_construct=any(ev.plural_construct for ev in evidences),
    )
    decision = _Decision(
        category=QueryCategory.HYBRID,
        reasoning="Clauses of different kinds: " + " + ".join(sorted(k.value for k in kinds)),
    )
    return Classification(
        category=QueryCategory.HYBRID,
        confidence=_confidence(merged, decision, extra),
        indicators=_indicators(merged, decision, extra),
        suggested_tool=TOOL_ROUTING[QueryCategory.HYBRID],
        reasoning=decision.reasoning,
    )


def classify(query: str) -> Classification:
    """Classify a search query and suggest the tool to route it to. Total and deterministic."""
    text = " ".join(unicodedata.normalize("NFC", query[: MAX_CLASSIFY_CHARS * 4]).split())[
        :MAX_CLASSIFY_CHARS
    ]
    if not text:
        return _fallback(("empty_query",), "Empty query, using safe default")
    if len(text) < MIN_QUERY_CHARS:
        return _fallback(("too_short",), "Query too short for accurate classification")
    by_parts = _classify_conjunction(text)
    if by_parts is not None:
        return by_parts
    evidence = _collect(text)
    decision = _decide(evidence)
    if decision is None:
        return _fallback(
            tuple(name for name, _ in evidence.hits), "Ambiguous query, using multi-modal search"
        )
    return Classification(
        category=decision.category,
        confidence=_confidence(evidence, decision),
        indicators=_indicators(evidence, decision),
        suggested_tool=TOOL_ROUTING[decision.category],
        reasoning=decision.reasoning,
    )
