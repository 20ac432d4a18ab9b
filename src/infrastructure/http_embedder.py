"""An Embedder over an OpenAI-compatible `POST {api_url}/embeddings` (Ollama, llama.cpp server, vLLM, LM
Studio, OpenAI itself).

    request:  {"model": "nomic-embed-text", "input": ["text", ...]}
    response: {"data": [{"index": 0, "embedding": [0.1, ...]}, ...]}

Texts go in batches of `batch_size`; each request has its own timeout. A server that cannot be reached or
timed out is not asked again for `RETRY_AFTER_SECONDS`, so a search does not wait for a dead server twice
(the semantic route falls back to lexical search meanwhile).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from ..application.embedding import Embedder, EmbedderUnavailable

DEFAULT_API_URL = "http://localhost:11434/v1"  # Ollama's OpenAI-compatible API
DEFAULT_MODEL = "nomic-embed-text"
RETRY_AFTER_SECONDS = 30.0


def embeddings_url(api_url: str) -> str:
    """`http://host:11434/v1` -> `http://host:11434/v1/embeddings`; a URL naming the endpoint is kept."""
    url = api_url.strip().rstrip("/")
    return url if url.endswith("/embeddings") else url + "/embeddings"


class HttpEmbedder(Embedder):
    def __init__(
        self,
        *,
        api_url: str = DEFAULT_API_URL,
        model: str = DEFAULT_MODEL,
        batch_size: int = 32,
        timeout: float = 30.0,
        api_key: str = "",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not api_url.startswith(("http://", "https://")):
            raise ValueError(f"embedding api_url must start with http:// or https://, got {api_url!r}")
        if not model:
            raise ValueError("embedding model must not be empty")
        self._url = embeddings_url(api_url)
        self._model = model
        self._batch_size = max(1, batch_size)
        self._timeout = timeout
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers, transport=transport)
        self._dim = 0
        self._down_until = 0.0
        self._down_reason = ""

    @property
    def name(self) -> str:
        return f"openai:{self._model}"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def url(self) -> str:
        return self._url

    def close(self) -> None:
        self._client.close()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            out.extend(self._request(list(texts[start : start + self._batch_size])))
        return out

    def _request(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        if time.monotonic() < self._down_until:
            raise EmbedderUnavailable(self._down_reason)
        try:
            response = self._client.post(self._url, json={"model": self._model, "input": texts})
        except httpx.TimeoutException:
            raise self._down(
                f"the embedder at {self._url} did not answer within {self._timeout:g} s"
            ) from None
        except httpx.HTTPError as exc:
            raise self._down(
                f"cannot reach the embedder at {self._url} ({type(exc).__name__}: {exc}); start it "
                f"(e.g. `ollama serve` and `ollama pull {self._model}`) or set [embedding] api_url"
            ) from None
        if response.status_code != 200:
            hint = ""
            if response.status_code == 404:
                hint = f"; is the model {self._model!r} available there (`ollama pull {self._model}`)?"
            elif response.status_code in (401, 403):
                hint = "; set the API key in the variable named by [embedding] api_key_env"
            raise EmbedderUnavailable(
                f"the embedder at {self._url} answered HTTP {response.status_code}: "
                f"{response.text[:200].strip()}{hint}"
            )
        try:
            payload = response.json()
        except ValueError:
            raise EmbedderUnavailable(
                f"the embedder at {self._url} answered with something that is not JSON"
            ) from None
        return self._vectors(payload, len(texts))

    def _down(self, reason: str) -> EmbedderUnavailable:
        self._down_until = time.monotonic() + RETRY_AFTER_SECONDS
        self._down_reason = reason
        return EmbedderUnavailable(reason)

    def _vectors(self, payload: Any, expected: int) -> list[list[float]]:
        bad = f"the embedder at {self._url} answered without an OpenAI-style 'data' list of embeddings"
        if not isinstance(payload, Mapping) or not isinstance(payload.get("data"), list):
            raise EmbedderUnavailable(bad)
        items = payload["data"]
        if len(items) != expected:
            raise EmbedderUnavailable(
                f"the embedder at {self._url} returned {len(items)} vectors for {expected} texts"
            )
        rows: list[tuple[int, list[float]]] = []
        for position, item in enumerate(items):
            if not isinstance(item, Mapping) or not isinstance(item.get("embedding"), list):
                raise EmbedderUnavailable(bad)
            index = item.get("index", position)
            vector = item["embedding"]
            if not vector or not all(
                isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in vector
            ):
                raise EmbedderUnavailable(
                    f"the embedder at {self._url} returned a vector that is not numbers"
                )
            rows.append((index if isinstance(index, int) else position, [float(x) for x in vector]))
        rows.sort(key=lambda row: row[0])
        dims = {len(v) for _, v in rows}
        if len(dims) != 1 or (self._dim and dims != {self._dim}):
            raise EmbedderUnavailable(
                f"the embedder at {self._url} returned vectors of {sorted(dims)} dimensions"
                + (f", earlier {self._dim}" if self._dim else "")
            )
        self._dim = dims.pop()
        return [v for _, v in rows]
