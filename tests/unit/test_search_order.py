"""How search orders a fused list: a type's header below its own method, a window shown at its matching line."""

from __future__ import annotations

import attrs

from trifecta.application.search import (
    ALTERNATIVE_WEIGHT,
    FILE_EVIDENCE,
    OWNER_EVIDENCE,
    SPANISH_ALTERNATIVE_WEIGHT,
    SearchSegment,
    _at_matching_lines,
    _members_before_their_type,
    _weighted_groups,
    _with_file_evidence,
    _with_owner_evidence,
    asks_a_question,
    described_kinds,
    describes_a_definition,
    describes_a_predicate,
    describes_an_action,
    stop_words_naming_code,
    without_doc_roles,
)
from trifecta.domain.code import Chunk, ChunkKind, Hit
from trifecta.domain.ranking import name_stem
from trifecta.domain.rewrite_policy import Focus


def hit(kind: ChunkKind, symbol: str, path: str = "src/retry.ts", body: str = "", start: int = 1) -> Hit:
    chunk = Chunk(
        id=f"{path}:{symbol}:{kind}",
        path=path,
        start_line=start,
        end_line=start + max(body.count("\n"), 1),
        kind=kind,
        language="typescript",
        symbol=symbol,
        name=symbol.rsplit(".", 1)[-1],
        body=body,
    )
    return Hit(chunk=chunk, score=1.0, match_type="lexical")


def test_a_type_header_moves_just_below_its_first_method() -> None:
    header, other, method = (
        hit(ChunkKind.CLASS, "Retrier"),
        hit(ChunkKind.FUNCTION, "backoff", path="src/other.ts"),
        hit(ChunkKind.METHOD, "Retrier.delay"),
    )
    ordered = _members_before_their_type([header, other, method], frozenset())
    assert [h.chunk.symbol for h in ordered] == ["backoff", "Retrier.delay", "Retrier"]


def test_a_type_the_question_names_or_without_a_listed_method_keeps_its_place() -> None:
    header, method = hit(ChunkKind.CLASS, "Retrier"), hit(ChunkKind.METHOD, "Retrier.delay")
    assert _members_before_their_type([header, method], frozenset({"Retrier"}))[0] is header
    alone = hit(ChunkKind.CLASS, "Retrier")
    other = hit(ChunkKind.METHOD, "Backoff.delay", path="src/backoff.ts")
    assert _members_before_their_type([alone, other], frozenset())[0] is alone


def test_a_long_window_is_shown_from_the_line_with_most_question_words() -> None:
    body = "".join(f"row {n}\n" for n in range(20)) + "the cycle was detected here\n"
    window = hit(ChunkKind.TEXT, "", body=body, start=100)
    [shown] = _at_matching_lines([window], "where is a cycle detected")
    assert shown.line == 120
    near_top = hit(ChunkKind.TEXT, "", body="a cycle detected\n" + body, start=1)
    assert _at_matching_lines([near_top], "where is a cycle detected")[0].line == 0  # the preview shows it
    method = hit(ChunkKind.METHOD, "Retrier.delay", body=body)
    assert _at_matching_lines([method], "where is a cycle detected")[0].line == 0  # signature first


def scored(symbol: str, path: str, score: float) -> Hit:
    return attrs.evolve(hit(ChunkKind.FUNCTION, symbol, path=path), score=score)


def test_a_hit_gains_a_share_of_the_best_other_hit_in_its_file() -> None:
    lone, first, second, third = (
        scored("lone", "src/other.ts", 10.0),
        scored("first", "src/pool.ts", 9.0),
        scored("second", "src/pool.ts", 6.0),
        scored("third", "src/pool.ts", 1.0),
    )
    out = {h.chunk.symbol: h.score for h in _with_file_evidence([lone, first, second, third])}
    assert out == {
        "lone": 10.0,  # nothing else in its file
        "first": 9.0 + FILE_EVIDENCE * 6.0,  # the best other is the second best
        "second": 6.0 + FILE_EVIDENCE * 9.0,
        "third": 1.0 + FILE_EVIDENCE * 9.0,
    }
    assert out["first"] > out["lone"]  # neighbours that answer too outweigh a slightly better lone hit


def test_two_hits_with_the_same_best_score_each_count_the_other() -> None:
    a, b = scored("a", "src/pool.ts", 5.0), scored("b", "src/pool.ts", 5.0)
    assert [h.score for h in _with_file_evidence([a, b])] == [5.0 + FILE_EVIDENCE * 5.0] * 2
    assert _with_file_evidence([]) == []


def test_a_member_gains_a_share_of_its_owner_when_the_owner_is_a_hit() -> None:
    owner, member, nested, stranger, elsewhere = (
        scored("Promise", "memoize.go", 8.0),
        scored("Promise.Get", "memoize.go", 5.0),
        scored("Promise.Get.wait", "memoize.go", 2.0),  # a function nested in a method: the method owns it
        scored("Store.Get", "memoize.go", 6.0),  # its owner is no hit
        scored("Promise.Get", "other.go", 1.0),  # same name, another file: another Promise
    )
    out = [h.score for h in _with_owner_evidence([owner, member, nested, stranger, elsewhere])]
    assert out == [8.0, 5.0 + OWNER_EVIDENCE * 8.0, 2.0 + OWNER_EVIDENCE * 5.0, 6.0, 1.0]
    assert out[1] > out[3]  # the member of the class that answers passes the lone better method


def test_test_members_gain_from_their_owner_only_when_the_question_asks_for_tests() -> None:
    owner, member = (
        scored("HashTest", "tests/test_hash.py", 8.0),
        scored("HashTest.check", "tests/test_hash.py", 5.0),
    )
    assert [h.score for h in _with_owner_evidence([owner, member])] == [8.0, 5.0]
    asked = _with_owner_evidence([owner, member], Focus.TESTS)
    assert [h.score for h in asked] == [8.0, 5.0 + OWNER_EVIDENCE * 8.0]


def test_a_question_word_names_a_definition_in_another_form() -> None:
    # "suggested" is a word of `SuggestionsFor`, as "suggest" or "suggestions" would be; "suggestive" is not
    chunk = hit(ChunkKind.METHOD, "Command.SuggestionsFor", path="command.go").chunk

    def score(*words: str) -> float:
        return SearchSegment._rescore(chunk, 1.0, frozenset(name_stem(w) for w in words), Focus.ALL)

    assert score("suggested") == score("suggestions") == 1.25
    assert score("suggested", "command") == 1.25  # the owner's name is not the definition's
    assert score("suggestive") == score("similar") == 1.0


def test_stop_words_that_may_name_code_count_toward_a_name() -> None:
    # "would" and "all" are words of `WouldBlock` and `get_all_backends`; articles and question words never are
    assert stop_words_naming_code("Return the names of all backends, or None when it would block") >= {
        "would",
        "all",
        "return",
    }
    assert not stop_words_naming_code("what is the way it does this") & {"what", "the", "it", "does", "this"}


def test_a_documentation_cross_reference_is_words_not_the_named_code() -> None:
    assert without_doc_roles("Raised by :meth:`~anyio.to_process.run_sync` if it dies") == (
        "Raised by anyio to process run sync if it dies"
    )
    assert without_doc_roles("of a :class:`.Future` that was cancelled") == "of a Future that was cancelled"
    assert without_doc_roles(":py:func:`os.path.join <join>` joins") == "os path join joins"
    assert without_doc_roles("where is `parse_header` called") == "where is `parse_header` called"


def test_a_question_is_told_from_a_description_of_one_definition() -> None:
    # a question about behaviour gets a type's method before its header; a description may be the type itself
    assert asks_a_question("how does the pool decide to recycle a connection")
    assert asks_a_question("¿cómo se comprime un archivo?") and asks_a_question("pool recycle?")
    assert not asks_a_question("A type checker was asked to check a type it did not have registered.")
    assert not asks_a_question("Raised when the call would block.")


def test_quoted_constants_and_one_letter_names_are_no_literals() -> None:
    from trifecta.application.engines import literals

    assert literals("A property which is `True` for 1xx status codes, `False` otherwise.") == []
    assert literals("Removes ``f`` from the list of ``listeners``") == ["listeners"]
    assert literals("where is `parse_header` called") == ["parse_header"]


def test_a_docstring_sentence_describes_one_definition() -> None:
    # a description gets no call evidence: the definition it describes, not the code around it, is the answer
    assert describes_a_definition("Raised when a stream was closed from the other end.")
    assert describes_a_definition("Return the names of all active rules.")
    assert not describes_a_definition("Find the code that produces the error `flags must all be set`.")
    assert not describes_a_definition("List the Command methods that return a *flag.FlagSet.")
    assert not describes_a_definition("how does the pool recycle a connection.")
    assert not describes_a_definition("parse a date string in ISO format")
    # a docstring's opening without its period: what a pasted first line looks like
    assert describes_a_definition("Return the names of all active rules")
    assert describes_a_definition("A strategy for generating email addresses as unicode strings")
    assert not describes_a_definition("This Session's transaction has been rolled back")
    # a predicate's opening without its period (JSDoc's "Tests if `action` is a fulfilled thunk action")
    assert describes_a_definition("Tests if `action` is a fulfilled thunk action")
    assert describes_a_predicate("Checks whether the given value is a plain object")
    assert not describes_a_definition("tests that cover parse_header")  # a structural request
    assert not describes_a_definition("Events subclasses that define the ORM's listener hooks")


def test_a_description_opening_with_a_verb_describes_an_action() -> None:
    assert describes_an_action("Returns the URL for the redirect to follow.")
    assert describes_an_action("reports whether the pointer is nil.")  # Go, its leading name dropped
    assert describes_an_action("Handles incrementally decoding bytes into text.")
    for query in (
        "A strategy for generating email addresses.",
        "Raised when a stream was closed.",
        "Represents a struct field access.",
        "is an index operation on a slice.",
        "how does it return the URL.",  # a question
        "`ChunkLazy` is the storage for a lazy chunking operation.",
    ):
        assert not describes_an_action(query), query


def test_what_a_description_says_lowers_the_kinds_it_seldom_describes() -> None:
    from trifecta.application.search import ACTION_TYPE_MULTIPLIER, THING_CALLABLE_MULTIPLIER

    types, callables = {ChunkKind.CLASS, ChunkKind.DECLARATION}, {ChunkKind.FUNCTION, ChunkKind.METHOD}
    assert described_kinds("Returns the URL for the redirect to follow.") == (types, ACTION_TYPE_MULTIPLIER)
    assert described_kinds("A wrapper that adds a prefix to a node.") == (
        callables,
        THING_CALLABLE_MULTIPLIER,
    )
    assert described_kinds("is a comma-separated list of nodes.") == (callables, THING_CALLABLE_MULTIPLIER)
    # a callable that says it is one
    assert described_kinds("A higher-order function that checks an action.") == (
        types,
        ACTION_TYPE_MULTIPLIER,
    )
    assert described_kinds("An internal helper to merge two maps.") == (types, ACTION_TYPE_MULTIPLIER)
    assert described_kinds("The raw bytes of the URL scheme.") == (set(), 1.0)  # either
    assert described_kinds("what is a wrapper that adds a prefix") == (set(), 1.0)  # a question
    assert 0 < ACTION_TYPE_MULTIPLIER < 1 and 0 < THING_CALLABLE_MULTIPLIER < 1


def test_a_predicates_description_and_name() -> None:
    from trifecta.application.search import _PREDICATE_NAME

    for query in (
        "Returns `True` for 5xx status codes, `False` otherwise.",
        "Check if the instance is valid under the current `schema`.",
        "reports whether the pointer is nil.",
        "Determines whether a value is a `Blob`.",
        "Returns true if the map contains no elements.",
    ):
        assert describes_a_predicate(query), query
    assert not describes_a_predicate("Returns the URL for the redirect.")
    assert not describes_a_predicate("how does it check if the instance is valid")  # a question
    for name in ("is_valid", "isEmpty", "IsNil", "has_key", "can_cast", "_isValidUTF8", "EqualFunc"):
        assert _PREDICATE_NAME.match(name), name
    for name in ("issue", "hash", "canvas", "island", "Isolate", "validate"):
        assert not _PREDICATE_NAME.match(name), name


def test_each_language_marks_a_definition_deprecated_its_own_way() -> None:
    from trifecta.application.search import _is_deprecated

    def chunk(body: str = "", doc: str = "", kind: ChunkKind = ChunkKind.FUNCTION) -> Chunk:
        return Chunk(id="x", path="a/b.py", start_line=1, end_line=3, kind=kind, language="python", body=body,
                     doc=doc)  # fmt: skip

    none: frozenset[str] = frozenset()
    assert _is_deprecated(chunk(body="@deprecated('use g')\ndef f():\n    pass"), none)
    assert _is_deprecated(chunk(body="@typing_extensions.deprecated('x')\ndef f(): ..."), none)
    assert _is_deprecated(chunk(body='#[deprecated(since = "1.2")]\npub fn f() {}'), none)
    assert _is_deprecated(chunk(doc="Parse parses.\n\nDeprecated: use ParseFull."), none)
    assert _is_deprecated(chunk(doc="* Old API.\n * @deprecated use next()"), none)
    assert not _is_deprecated(chunk(body="@util.deprecated_params(x=('2.0', 'gone'))\ndef f(x): ..."), none)
    assert not _is_deprecated(chunk(doc="Parse.\n\n.. deprecated:: 8.2\n    The public alias goes."), none)
    assert _is_deprecated(chunk(body="def f(): ..."), frozenset({"a/"}))
    assert _is_deprecated(chunk(body="def f(): ..."), frozenset({"a/b.py"}))
    assert not _is_deprecated(chunk(body="def f(): ..."), frozenset({"a/b"}))  # a module "a/b" is no folder
    assert not _is_deprecated(chunk(body="x = 1", kind=ChunkKind.MODULE), none)


def test_a_spanish_word_says_its_first_translation_and_its_other_alternatives_count_less() -> None:
    translations = {"genera": ("generate", "create"), "nombre": ("name",)}
    groups, weights = _weighted_groups(
        ["genera", "nombre", "MetaData", "datetime"],
        [
            ["genera", "generate", "create", "make", "build"],
            ["nombre", "name"],
            ["metadata", "meta data"],
            ["datetime"],
        ],
        translations,
    )
    assert groups[0] == [
        "generate",
        "genera",
        "create",
        "make",
        "build",
    ]  # the translation is the word searched
    assert groups[1] == ["name", "nombre"]
    assert weights == [
        SPANISH_ALTERNATIVE_WEIGHT,
        SPANISH_ALTERNATIVE_WEIGHT,
        1.0,
        1.0,
    ]  # names, loans: as written
    assert ALTERNATIVE_WEIGHT < SPANISH_ALTERNATIVE_WEIGHT < 1.0


def test_an_english_words_synonyms_count_less_than_the_word_written() -> None:
    groups, weights = _weighted_groups(
        ["produce", "parse_url"], [["produce", "create"], ["parse_url", "parse url"]], {}
    )
    assert groups == [["produce", "create"], ["parse_url", "parse url"]]
    assert weights == [ALTERNATIVE_WEIGHT, 1.0]
