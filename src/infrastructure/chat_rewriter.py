"""QueryRewriter over any OpenAI-compatible chat-completions API (Ollama by default).

    POST {api_url}   {"model", "messages": [system, user], "temperature": 0, "stream": false}
    200              {"choices": [{"message": {"content": "{\\"terms\\": [...], \\"focus\\": ...}"}}]}

The timeout is a wall-clock deadline for the whole exchange, not httpx's per-read timeout: a server that
accepts and then drips a byte a second, or streams forever, would otherwise hold a search for as long as it
likes. The request runs in a daemon thread that checks the deadline between chunks; the caller waits for it
at most until the deadline and then reports a timeout, and the thread ends on its own soon after (its reads
time out, its loop stops at the deadline). Replies are capped at ``MAX_REPLY_BYTES``.

httpx is imported on first use, not at import time, so searches that never rewrite do not pay for it.
The API key is read by the composition root from the environment variable named in the config and sent as
``Authorization: Bearer``; it never appears in a reason, a repr or the plan.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..application.rewrite import QueryRewriter, RewriteFailed
from ..domain.rewrite_policy import BadReply, RewrittenQuery, parse_rewrite_reply

if TYPE_CHECKING:
    import httpx

DEFAULT_API_URL = "http://localhost:11434/v1/chat/completions"
DEFAULT_MODEL = "qwen2.5:3b"
DEFAULT_TIMEOUT = 5.0
MAX_REPLY_BYTES = 256 * 1024
MAX_VOCABULARY_CHARS = 1500  # keeps the prompt short enough for a small local model to answer fast

SYSTEM_PROMPT = """\
You are a code search assistant. Given a natural language question about a codebase, \
return JSON with search terms a developer would use to find the relevant code.

Return ONLY valid JSON:
{"terms": ["term1", "term2", ...], "focus": "implementation"|"tests"|"all"}

Rules:
- terms: 3-6 short search terms (function names, class names, variable names, SQL keywords, etc.)
- prefer names from the list of names in this codebase when they fit the question
- focus: "implementation" if asking about how code works, "tests" if asking about testing, "all" if unclear
- No explanations, just JSON"""


def user_message(query: str, vocabulary: Sequence[str]) -> str:
    """The question, preceded by the segment's names so the terms the model picks exist."""
    names: list[str] = []
    used = 0
    for name in vocabulary:
        if used + len(name) + 2 > MAX_VOCABULARY_CHARS:
            break
        names.append(name)
        used += len(name) + 2
    if not names:
        return f"Question: {query}"
    return f"Names in this codebase: {', '.join(names)}\n\nQuestion: {query}"


class ChatRewriter(QueryRewriter):
    def __init__(
        self,
        *,
        api_url: str = DEFAULT_API_URL,
        model: str = DEFAULT_MODEL,
        timeout: float = DEFAULT_TIMEOUT,
        api_key: str = "",
        api_key_env: str = "",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.api_url = api_url
        self.model = model
        self.timeout = timeout
        self._api_key = api_key
        self._api_key_env = api_key_env
        self._transport = transport
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ChatRewriter(api_url={self.api_url!r}, model={self.model!r}, timeout={self.timeout!r})"

    def rewrite(self, query: str, vocabulary: Sequence[str]) -> RewrittenQuery:
        if self._api_key_env and not self._api_key:
            raise RewriteFailed(f"the API key variable {self._api_key_env} is not set or empty")
        deadline = time.monotonic() + self.timeout
        box: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                box["value"] = self._exchange(query, vocabulary, deadline)
            except BaseException as exc:  # handed to the caller, who turns it into a reason
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="trifecta-rewrite", daemon=True).start()
        if not done.wait(max(0.0, deadline - time.monotonic())):
            raise RewriteFailed(self._timeout_reason())
        if "error" in box:
            error = box["error"]
            if isinstance(error, RewriteFailed):
                raise error
            raise RewriteFailed(f"{type(error).__name__}: {error}")
        value: RewrittenQuery = box["value"]
        return value

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    # ------------------------------------------------------------------ the exchange (worker thread)
    def _http(self) -> httpx.Client:
        import httpx

        with self._lock:
            if self._client is None:
                # certificates are loaded only for https: a local http endpoint needs none
                self._client = httpx.Client(
                    transport=self._transport,
                    follow_redirects=False,
                    verify=self.api_url.startswith("https://"),
                )
            return self._client

    def _timeout_reason(self) -> str:
        return f"no complete reply within the {self.timeout:g} s timeout from {self.api_url}"

    def _exchange(self, query: str, vocabulary: Sequence[str], deadline: float) -> RewrittenQuery:
        import httpx

        payload = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": user_message(query, vocabulary)},
            ],
            "temperature": 0,
            "stream": False,
        }
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        body = bytearray()
        try:
            client = self._http()
            remaining = max(0.001, deadline - time.monotonic())
            with client.stream(
                "POST", self.api_url, json=payload, headers=headers, timeout=httpx.Timeout(remaining)
            ) as response:
                status = response.status_code
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > MAX_REPLY_BYTES:
                        raise RewriteFailed(f"the reply from {self.api_url} exceeds {MAX_REPLY_BYTES} bytes")
                    if time.monotonic() > deadline:
                        raise RewriteFailed(self._timeout_reason())
        except httpx.TimeoutException:
            raise RewriteFailed(self._timeout_reason()) from None
        except httpx.ConnectError as exc:
            raise RewriteFailed(f"cannot connect to {self.api_url}: {exc}") from None
        except httpx.HTTPError as exc:
            raise RewriteFailed(
                f"HTTP exchange with {self.api_url} failed: {type(exc).__name__}: {exc}"
            ) from None
        except (httpx.InvalidURL, ValueError) as exc:
            raise RewriteFailed(f"cannot send to {self.api_url!r}: {exc}") from None
        if status >= 400:
            excerpt = " ".join(body[:200].decode("utf-8", "replace").split())
            raise RewriteFailed(f"HTTP {status} from {self.api_url}: {excerpt}".rstrip(": "))
        return _read_completion(bytes(body))


def _read_completion(body: bytes) -> RewrittenQuery:
    """The rewrite in a chat-completions body: choices[0].message.content, parsed by the domain."""
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):
        excerpt = " ".join(body[:60].decode("utf-8", "replace").split())
        raise RewriteFailed(f"the API reply is not JSON: {excerpt!r}") from None
    try:
        content = doc["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise RewriteFailed("the API reply has no choices[0].message.content") from None
    try:
        return parse_rewrite_reply(content)
    except BadReply as exc:
        raise RewriteFailed(f"unusable model reply: {exc}") from None
