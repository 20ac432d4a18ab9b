"""LLM query rewriting: the reply parser, the chat adapter over httpx.MockTransport, the decide/cache/report
flow with in-memory fakes, the search's fusion of rewritten terms, and the [query_rewrite] settings."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trifecta.application.ports import IndexStats, ScoredChunk
from trifecta.application.rewrite import (
    RewriteFailed,
    RewriteFlow,
    RewriteKey,
    Trigger,
    decide,
)
from trifecta.application.search import SearchRequest, SearchSegment
from trifecta.domain.code import Chunk, ChunkKind
from trifecta.domain.rewrite_policy import (
    MAX_TERMS,
    BadReply,
    Focus,
    RewrittenQuery,
    parse_rewrite_reply,
)
from trifecta.infrastructure.chat_rewriter import SYSTEM_PROMPT, ChatRewriter
from trifecta.infrastructure.config import ConfigError, load_settings

URL = "http://llm.test/v1/chat/completions"
QUESTION = "how are products reserved in the inventory?"


# --- the reply parser (domain) ------------------------------------------------------------------------


def test_parses_plain_json() -> None:
    got = parse_rewrite_reply('{"terms": ["insert_call", "INSERT INTO"], "focus": "implementation"}')
    assert got == RewrittenQuery(terms=("insert_call", "INSERT INTO"), focus=Focus.IMPLEMENTATION)


def test_strips_markdown_fences_and_prose() -> None:
    fenced = 'Sure! Here it is:\n```json\n{"terms": ["foo", "bar"], "focus": "tests"}\n```\nHope it helps.'
    assert parse_rewrite_reply(fenced) == RewrittenQuery(terms=("foo", "bar"), focus=Focus.TESTS)
    prose = 'The answer is {"terms": ["foo"]} as requested.'
    assert parse_rewrite_reply(prose).terms == ("foo",)


@pytest.mark.parametrize("focus", [None, "everything", 3, "IMPLEMENTATION "])
def test_missing_or_bad_focus_is_all_or_normalized(focus: object) -> None:
    doc: dict[str, Any] = {"terms": ["find_oldest", "animal"]}
    if focus is not None:
        doc["focus"] = focus
    expected = Focus.IMPLEMENTATION if focus == "IMPLEMENTATION " else Focus.ALL
    assert parse_rewrite_reply(json.dumps(doc)).focus is expected


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("not json at all", "not a JSON object"),
        ('{"focus": "implementation"}', '"terms"'),
        ('{"terms": []}', "hold no text"),
        ('{"terms": [1, null, "  "]}', "hold no text"),
        ('["a", "b"]', "not a JSON object"),
        (None, "no text"),
        ("[" * 5000, "not a JSON object"),
    ],
)
def test_unusable_replies_say_why(content: object, reason: str) -> None:
    with pytest.raises(BadReply, match=reason):
        parse_rewrite_reply(content)


def test_terms_are_cleaned_deduplicated_and_capped() -> None:
    reply = json.dumps({"terms": ["  a  b ", "A B", "x" * 500, *[f"t{i}" for i in range(20)]]})
    terms = parse_rewrite_reply(reply).terms
    assert terms[0] == "a b" and terms.count("A B") == 0
    assert len(terms[1]) == 80 and len(terms) == MAX_TERMS
    assert parse_rewrite_reply('{"terms": "parse, header ,"}').terms == ("parse", "header")


@given(st.one_of(st.text(max_size=300), st.none(), st.integers(), st.lists(st.text(max_size=5))))
def test_parser_answers_a_rewrite_or_bad_reply_on_anything(content: object) -> None:
    try:
        got = parse_rewrite_reply(content)
    except BadReply:
        return
    assert got.terms and all(t.strip() for t in got.terms)


# --- the chat adapter over httpx.MockTransport ------------------------------------------------------------


def completion(content: str, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json={"choices": [{"message": {"role": "assistant", "content": content}}]})


def adapter(handler: Any, **kwargs: Any) -> ChatRewriter:
    kwargs.setdefault("timeout", 2.0)
    return ChatRewriter(api_url=URL, model="qwen2.5:3b", transport=httpx.MockTransport(handler), **kwargs)


def test_sends_an_openai_chat_request_with_vocabulary_and_key() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return completion('{"terms": ["reserveStock", "Inventory"], "focus": "implementation"}')

    rewriter = adapter(handler, api_key="sk-secret", api_key_env="MY_KEY")
    got = rewriter.rewrite(QUESTION, ["Inventory", "reserveStock", "Product"])
    assert got == RewrittenQuery(terms=("reserveStock", "Inventory"), focus=Focus.IMPLEMENTATION)
    body = json.loads(seen[0].content)
    assert str(seen[0].url) == URL and seen[0].method == "POST"
    assert body["model"] == "qwen2.5:3b" and body["temperature"] == 0 and body["stream"] is False
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert "Inventory, reserveStock, Product" in body["messages"][1]["content"]
    assert body["messages"][1]["content"].endswith(QUESTION)
    assert seen[0].headers["authorization"] == "Bearer sk-secret"
    assert "sk-secret" not in repr(rewriter)


def test_no_key_sends_no_authorization_and_a_missing_key_variable_fails_early() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return completion('{"terms": ["a"]}')

    adapter(handler).rewrite("q", [])
    assert "authorization" not in seen[0].headers
    with pytest.raises(RewriteFailed, match="OPENAI_API_KEY is not set"):
        adapter(handler, api_key_env="OPENAI_API_KEY").rewrite("q", [])
    assert len(seen) == 1


@pytest.mark.parametrize(
    ("handler", "reason"),
    [
        (lambda r: httpx.Response(500, text="model not loaded"), "HTTP 500 .*model not loaded"),
        (lambda r: httpx.Response(200, text="<html>oops</html>"), "API reply is not JSON"),
        (lambda r: httpx.Response(200, json={"error": "x"}), r"no choices\[0\].message.content"),
        (lambda r: completion("I think you want the insert function."), "unusable model reply"),
        (lambda r: completion('{"focus": "tests"}'), 'no "terms" list'),
    ],
)
def test_http_and_reply_failures_become_reasons(handler: Any, reason: str) -> None:
    with pytest.raises(RewriteFailed, match=reason):
        adapter(handler).rewrite("q", [])


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (httpx.ConnectError("[Errno 111] Connection refused"), "cannot connect .*refused"),
        (httpx.ReadTimeout("timed out"), "no complete reply within the 2 s timeout"),
        (httpx.RemoteProtocolError("peer closed"), "RemoteProtocolError"),
    ],
)
def test_transport_errors_become_reasons(error: Exception, reason: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error

    with pytest.raises(RewriteFailed, match=reason):
        adapter(handler).rewrite("q", [])


def test_a_hanging_server_is_cut_at_the_wall_clock_deadline() -> None:
    release = threading.Event()

    def handler(request: httpx.Request) -> httpx.Response:
        release.wait(10)  # a transport that never times out by itself
        return completion('{"terms": ["late"]}')

    started = time.monotonic()
    with pytest.raises(RewriteFailed, match="within the 0.3 s timeout"):
        adapter(handler, timeout=0.3).rewrite("q", [])
    assert time.monotonic() - started < 1.0
    release.set()


def test_an_endless_dripping_body_is_cut_at_the_deadline() -> None:
    def drip() -> Iterator[bytes]:
        while True:
            time.sleep(0.02)
            yield b" "

    started = time.monotonic()
    with pytest.raises(RewriteFailed, match="timeout"):
        adapter(lambda r: httpx.Response(200, content=drip()), timeout=0.3).rewrite("q", [])
    assert time.monotonic() - started < 1.0


def test_an_oversized_reply_is_refused() -> None:
    def flood() -> Iterator[bytes]:
        while True:
            yield b"x" * 65536

    with pytest.raises(RewriteFailed, match="exceeds"):
        adapter(lambda r: httpx.Response(200, content=flood())).rewrite("q", [])


def test_long_vocabularies_are_cut_to_keep_the_prompt_small() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return completion('{"terms": ["a"]}')

    adapter(handler).rewrite("q", [f"name_{i:04d}" for i in range(1000)])
    assert len(seen[0]["messages"][1]["content"]) < 1600


# --- the flow: decide, cache, report (fakes) -----------------------------------------------------------


class FakeRewriter:
    def __init__(self, reply: RewrittenQuery | Exception) -> None:
        self.model = "fake-model"
        self.reply = reply
        self.calls: list[tuple[str, list[str]]] = []

    def rewrite(self, query: str, vocabulary: Sequence[str]) -> RewrittenQuery:
        self.calls.append((query, list(vocabulary)))
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


class MemoryCache:
    def __init__(self, broken: bool = False) -> None:
        self.rows: dict[RewriteKey, RewrittenQuery] = {}
        self.broken = broken

    def get(self, key: RewriteKey) -> RewrittenQuery | None:
        if self.broken:
            raise OSError("disk gone")
        return self.rows.get(key)

    def put(self, key: RewriteKey, rewrite: RewrittenQuery) -> None:
        self.rows[key] = rewrite


def chunk(path: str, name: str, body: str, start: int = 1) -> Chunk:
    return Chunk(
        id=f"{path}:{start}",
        path=path,
        start_line=start,
        end_line=start + 3,
        kind=ChunkKind.FUNCTION,
        language="python",
        symbol=name,
        name=name,
        body=body,
    )


CHUNKS = [
    chunk("shop/inventory.py", "reserve_stock", "def reserve_stock(product, quantity): hold items"),
    chunk("shop/inventory.py", "add_product", "def add_product(product): shelf products", 10),
    chunk("shop/checkout.py", "charge_card", "async def charge_card(card, amount): payment gateway"),
    chunk("tests/test_inventory.py", "test_reserve_stock", "def test_reserve_stock(): reserve_stock product"),
]


class FakeReader:
    """Just enough IndexReader for lexical search: a word matches a chunk whose body or name holds it."""

    def __init__(self, chunks: list[Chunk] = CHUNKS, built_at: str = "t1") -> None:
        self.chunks = chunks
        self.built_at = built_at
        self.vocabulary_reads = 0

    def stats(self) -> IndexStats:
        return IndexStats(
            files=3, symbols=len(self.chunks), chunks=len(self.chunks), built_at=self.built_at,
            parse_errors=0, db_bytes=0,
        )  # fmt: skip

    def vocabulary(self, limit: int) -> list[str]:
        self.vocabulary_reads += 1
        return sorted({c.name for c in self.chunks})[:limit]

    def search_terms(
        self,
        groups: Sequence[Sequence[str]],
        *,
        require_all: bool,
        limit: int,
        alternative_weights: Sequence[float] = (),
    ) -> list[ScoredChunk]:
        found = []
        for c in self.chunks:
            text = (c.body + " " + c.name).lower()
            matched = sum(any(alt in text for alt in group) for group in groups)
            if matched and (matched == len(groups) or not require_all):
                found.append(ScoredChunk(chunk=c, score=float(matched)))
        return sorted(found, key=lambda s: -s.score)[:limit]

    def call_names(
        self, paths: Sequence[str], names: Sequence[str], callers: Sequence[str] = ()
    ) -> list[tuple[str, str, str]]:
        return []  # no call graph: no hit lifts another

    def substring_candidates(self, needles: Sequence[str], *, limit: int) -> list[Chunk]:
        return []

    def files(self) -> list[Any]:
        return []  # no file or folder names to lift hits in

    def structural_candidates(self, **_: Any) -> list[Any]:
        return []

    def find_symbols(self, **_: Any) -> list[Any]:
        return []  # no symbol table: nothing the question names is pinned first


@pytest.mark.parametrize(
    ("query", "requested", "auto", "mode", "zero", "expected"),
    [
        (QUESTION, None, True, "auto", False, Trigger.GATE),
        (QUESTION, None, False, "auto", False, "enabled is false"),
        (QUESTION, False, True, "auto", True, "rewrite=False"),
        ("reserveStock", True, False, "auto", False, Trigger.FORCED),
        ("reserveStock", None, True, "auto", False, "identifier-like"),
        ("reserveStock", None, True, "auto", True, Trigger.ZERO_RESULTS),
        (QUESTION, None, True, "pattern", False, "--mode pattern"),
        (QUESTION, True, False, "structural", False, "--mode structural"),
    ],
)
def test_decide(query: str, requested: bool | None, auto: bool, mode: str, zero: bool, expected: Any) -> None:
    got = decide(query, requested=requested, auto=auto, mode=mode, zero_hits=zero)
    if isinstance(expected, Trigger):
        assert got is expected
    else:
        assert isinstance(got, str) and expected in got


def test_flow_caches_by_query_model_and_vocabulary_version() -> None:
    reader, cache = FakeReader(), MemoryCache()
    rewriter = FakeRewriter(RewrittenQuery(terms=("reserve_stock",), focus=Focus.IMPLEMENTATION))
    flow = RewriteFlow(rewriter=rewriter, reader=reader, cache=cache, auto=True)
    first = flow.run(QUESTION, requested=None, mode="auto", hits=[])
    second = flow.run(QUESTION, requested=None, mode="auto", hits=[])
    assert first.to_data()["status"] == "tried" and not first.cached
    assert second.cached and second.rewrite == first.rewrite and len(rewriter.calls) == 1
    assert reader.vocabulary_reads == 1  # read again only when the index changes
    reader.chunks = [*CHUNKS, chunk("shop/new.py", "brand_new_name", "x")]
    reader.built_at = "t2"
    third = flow.run(QUESTION, requested=None, mode="auto", hits=[])
    assert not third.cached and len(rewriter.calls) == 2 and len(cache.rows) == 2
    assert "brand_new_name" in rewriter.calls[1][1]


def test_flow_puts_names_of_the_original_hits_first_in_the_vocabulary() -> None:
    from trifecta.domain.code import Hit

    rewriter = FakeRewriter(RewrittenQuery(terms=("x",)))
    flow = RewriteFlow(rewriter=rewriter, reader=FakeReader(), auto=True)
    hits = [Hit(chunk=CHUNKS[2], score=1.0, match_type="lexical")]
    flow.run(QUESTION, requested=True, mode="auto", hits=hits)
    assert rewriter.calls[0][1][:2] == ["charge_card", "checkout"]


@pytest.mark.parametrize(
    ("error", "reason"),
    [(RewriteFailed("HTTP 500 from x"), "HTTP 500 from x"), (KeyError("boom"), "KeyError: 'boom'")],
)
def test_flow_reports_failures_and_never_raises(error: Exception, reason: str) -> None:
    flow = RewriteFlow(rewriter=FakeRewriter(error), reader=FakeReader(), cache=MemoryCache(), auto=True)
    data = flow.run(QUESTION, requested=True, mode="auto", hits=[]).to_data()
    assert data["status"] == "failed" and data["reason"] == reason and data["trigger"] == "forced"
    assert data["terms"] == [] and data["latency_ms"] >= 0 and data["model"] == "fake-model"


def test_a_broken_cache_is_a_miss_with_a_note() -> None:
    rewriter = FakeRewriter(RewrittenQuery(terms=("a",)))
    flow = RewriteFlow(rewriter=rewriter, reader=FakeReader(), cache=MemoryCache(broken=True), auto=True)
    out = flow.run(QUESTION, requested=None, mode="auto", hits=[])
    assert out.to_data()["status"] == "tried" and "cache unavailable (OSError: disk gone)" in out.reason


# --- the search: fused, never replaced; fallback; focus -----------------------------------------------


def search(flow: RewriteFlow | None, query: str, **kwargs: Any) -> dict[str, Any]:
    segment = SearchSegment(reader=FakeReader(), rewriter=flow)  # type: ignore[arg-type]
    response = segment.execute(SearchRequest(query=query, mode="lexical", **kwargs))
    assert response.ok, response.errors
    return dict(response.data)


def test_rewritten_terms_are_fused_with_the_original_ranking() -> None:
    rewriter = FakeRewriter(RewrittenQuery(terms=("payment", "gateway"), focus=Focus.ALL))
    flow = RewriteFlow(rewriter=rewriter, reader=FakeReader(), auto=True)
    plain = search(flow, "reserve products quickly", rewrite=False)
    fused = search(flow, "reserve products quickly", rewrite=True)
    plain_symbols = [h["symbol"] for h in plain["hits"]]
    fused_symbols = [h["symbol"] for h in fused["hits"]]
    assert "charge_card" not in plain_symbols and "charge_card" in fused_symbols
    assert set(plain_symbols) <= set(fused_symbols)  # the original answer is kept
    assert fused["plan"]["rewrite"]["terms"] == ["payment", "gateway"]
    assert "rewrite" in fused["plan"]["engines"] and fused["plan"]["weights"]["rewrite"] > 0


def test_zero_results_fall_back_to_a_rewrite() -> None:
    rewriter = FakeRewriter(RewrittenQuery(terms=("charge_card",)))
    flow = RewriteFlow(rewriter=rewriter, reader=FakeReader(), auto=True)
    data = search(flow, "xyzzy plugh")
    assert data["plan"]["rewrite"]["trigger"] == "zero_results"
    assert [h["symbol"] for h in data["hits"]] == ["charge_card"]


def test_the_models_focus_replaces_the_inferred_one() -> None:
    rewriter = FakeRewriter(RewrittenQuery(terms=("reserve_stock",), focus=Focus.TESTS))
    flow = RewriteFlow(rewriter=rewriter, reader=FakeReader(), auto=True)
    data = search(flow, "how are things kept aside for buyers", rewrite=True)
    assert data["plan"]["focus"] == "tests"
    assert data["hits"][0]["path"] == "tests/test_inventory.py"
    implementation = search(
        RewriteFlow(
            rewriter=FakeRewriter(RewrittenQuery(terms=("reserve_stock",), focus=Focus.IMPLEMENTATION)),
            reader=FakeReader(),
        ),
        "how are things kept aside for buyers",
        rewrite=True,
    )
    assert implementation["hits"][0]["path"] == "shop/inventory.py"


def test_without_a_rewriter_the_plan_says_so() -> None:
    data = search(None, QUESTION, rewrite=True)
    assert data["plan"]["rewrite"]["status"] == "skipped"
    assert "no query rewriter" in data["plan"]["rewrite"]["reason"]


def test_identifier_queries_pass_through_untouched() -> None:
    rewriter = FakeRewriter(RewrittenQuery(terms=("charge_card",)))
    data = search(RewriteFlow(rewriter=rewriter, reader=FakeReader(), auto=True), "reserve_stock")
    assert data["plan"]["rewrite"]["status"] == "skipped" and rewriter.calls == []


# --- [query_rewrite] settings ---------------------------------------------------------------------------


def test_query_rewrite_section_and_environment(tmp_path: Path) -> None:
    (tmp_path / ".trifecta").mkdir()
    (tmp_path / ".trifecta" / "config.toml").write_text(
        '[query_rewrite]\nenabled = true\napi_url = "https://api.example/v1/chat/completions"\n'
        'model = "gpt-4o-mini"\ntimeout = 2.5\napi_key_env = "OPENAI_API_KEY"\n'
    )
    s = load_settings(tmp_path, env={"TRIFECTA_TRUST": "1"})  # a trusted segment may name the URL and key
    assert (s.rewrite_enabled, s.rewrite_model, s.rewrite_timeout) == (True, "gpt-4o-mini", 2.5)
    assert s.rewrite_api_url.startswith("https://api.example") and s.rewrite_api_key_env == "OPENAI_API_KEY"
    s = load_settings(tmp_path, env={"TRIFECTA_REWRITE": "0", "TRIFECTA_REWRITE_MODEL": "qwen2.5:7b"})
    assert not s.rewrite_enabled and s.rewrite_model == "qwen2.5:7b"
    assert load_settings(tmp_path, {"rewrite_timeout": 1}, env={}).rewrite_timeout == 1.0
    defaults = load_settings(tmp_path / ".trifecta", env={})
    assert not defaults.rewrite_enabled and defaults.rewrite_model == "qwen2.5:3b"
    assert defaults.rewrite_api_url == "http://localhost:11434/v1/chat/completions"
    assert defaults.rewrite_timeout == 5.0


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TRIFECTA_REWRITE_TIMEOUT": "soon"}, "timeout must be a number of seconds"),
        ({"TRIFECTA_REWRITE_TIMEOUT": "0"}, "timeout must be a number of seconds"),
        ({"TRIFECTA_REWRITE_API_URL": "localhost:11434"}, "api_url must be an http"),
        ({"TRIFECTA_REWRITE": "maybe"}, "enabled must be true or false"),
    ],
)
def test_bad_query_rewrite_settings_are_config_errors(
    tmp_path: Path, env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(tmp_path, env=env)


class RecordingReader(FakeReader):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[bool, list[str]]] = []
        self.weights: list[list[float]] = []

    def search_terms(
        self,
        groups: Sequence[Sequence[str]],
        *,
        require_all: bool,
        limit: int,
        alternative_weights: Sequence[float] = (),
    ) -> list[ScoredChunk]:
        self.asked.append((require_all, [g[0] for g in groups]))
        if not require_all:
            self.weights.append(list(alternative_weights))
        return super().search_terms(groups, require_all=require_all, limit=limit)


def test_a_spanish_question_searches_its_content_words_only() -> None:
    from trifecta.infrastructure.lexicon_data import load_lexicon

    reader = RecordingReader()
    segment = SearchSegment(reader=reader, lexicon=load_lexicon())  # type: ignore[arg-type]
    segment.execute(
        SearchRequest(query="¿dónde se valida cada contraseña según su longitud?", mode="lexical")
    )
    # "cada", "según": no code word; each content word is searched as its first translation
    assert (True, ["validate", "password", "length"]) in reader.asked


def test_synonyms_weigh_less_than_the_word_and_a_spanish_words_other_translations_less_too() -> None:
    from trifecta.application.search import ALTERNATIVE_WEIGHT, SPANISH_ALTERNATIVE_WEIGHT
    from trifecta.infrastructure.lexicon_data import load_lexicon

    lexicon = load_lexicon()
    assert lexicon.expand("produce") and lexicon.expand("contraseña")  # both have alternatives
    reader = RecordingReader()
    segment = SearchSegment(reader=reader, lexicon=lexicon)  # type: ignore[arg-type]
    segment.execute(SearchRequest(query="produce a checker from parse_rules and its types", mode="lexical"))
    words = [w for all_words, w in reader.asked if not all_words][-1]
    weights = dict(zip(words, reader.weights[-1], strict=True))
    assert weights["produce"] == ALTERNATIVE_WEIGHT < 1.0
    assert weights["parse_rules"] == 1.0  # its parts are the same words, not synonyms
    segment.execute(
        SearchRequest(query="¿dónde se valida cada contraseña según su longitud?", mode="lexical")
    )
    # the first translation at 1.0 heads each group; the others (check, len, the Spanish word) count less
    assert reader.weights[-1] and set(reader.weights[-1]) == {SPANISH_ALTERNATIVE_WEIGHT}
    assert ALTERNATIVE_WEIGHT < SPANISH_ALTERNATIVE_WEIGHT < 1.0
