"""The ``openai-compatible`` provider: any server speaking OpenAI's ``/v1/embeddings``.

OpenClaw 2026.7.35's ``openai-compatible`` adapter (``src/plugins/openai-compatible-embedding-
provider.ts``, reference §7) and its embedding loop (``manager-embedding-ops.ts``, §7.4), in
Python:

* ``POST {base_url}/embeddings`` with JSON ``{"model", "input": [...]}``, plus ``dimensions``
  when ``output_dimensionality`` is set and ``input_type`` when an input type applies
  (documents: ``document_input_type`` or ``input_type``; queries: ``query_input_type`` or
  ``input_type``). Headers: ``accept``/``content-type: application/json``, the extra
  ``headers`` (names lower-cased; an ``authorization`` entry is ignored, as in OpenClaw) and
  ``authorization: Bearer <api_key>`` when a key is set. The response must hold one finite
  vector per input under ``data[i].embedding``.
* Documents go in inline batches whose UTF-8 sizes add up to at most 8000 bytes (a single
  bigger text goes alone).
* Each request is tried up to 3 times when it fails with HTTP 429 or 5xx, a timeout or a
  connection error, waiting ``500 ms x 2^(attempt-1)`` with up to +20 % jitter (capped at
  8 s). A batch that still fails with a connection reset is split in halves, recursively.
* Timeouts per attempt: 60 s for a query; 600 s for a document batch (the adapter's runtime
  override of the generic 120 s remote timeout; ``sync.embeddingBatchTimeoutSeconds`` sets it).
* Anything that still fails raises :class:`~memlab.embed.base.ProviderUnavailable`, whose
  message names the URL, the status and a short body excerpt, never the API key.

Vectors are returned as the server sends them (OpenClaw does not re-normalise them either);
memlab's vector stage L2-normalises for cosine.

    >>> p = OpenAICompatibleProvider(base_url="http://127.0.0.1:8000/v1/", model="m",
    ...                              api_key="sk-secret")
    >>> p
    OpenAICompatibleProvider(base_url='http://127.0.0.1:8000/v1', model='m')
    >>> "sk-secret" in p.settings_key or "sk-secret" in repr(p.cache_key_data())
    False
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from memlab.embed.base import (
    DEFAULT_MAX_INPUT_TOKENS,
    EmbeddingProvider,
    ProviderUnavailable,
    check_vectors,
    register_provider,
)

#: Inline batch cap: the UTF-8 bytes of the texts in one request add up to at most this.
MAX_BATCH_BYTES = 8000
#: Attempts per request, first delay and the delay cap (OpenClaw's EMBEDDING_RETRY_*).
MAX_ATTEMPTS = 3
BASE_DELAY_S = 0.5
MAX_DELAY_S = 8.0
#: Timeouts (seconds) per attempt: one query, one document batch.
QUERY_TIMEOUT_S = 60.0
BATCH_TIMEOUT_S = 600.0
#: Longest excerpt of an error body quoted in an error message.
_ERROR_BODY_CHARS = 300
_SENSITIVE_HEADER_PARTS = ("authorization", "api-key", "apikey", "token", "secret", "cookie")


class _RequestFailed(Exception):
    """One failed attempt; ``retryable`` and ``splittable`` say what may be done about it."""

    def __init__(self, message: str, retryable: bool, splittable: bool = False):
        super().__init__(message)
        self.retryable = retryable
        self.splittable = splittable


def _is_sensitive_header(name: str) -> bool:
    return any(part in name for part in _SENSITIVE_HEADER_PARTS)


def batch_by_bytes(texts: Sequence[str], max_bytes: int = MAX_BATCH_BYTES) -> list[list[int]]:
    """Indices of ``texts`` grouped into batches of at most ``max_bytes`` UTF-8 bytes.

    OpenClaw's ``buildMemoryEmbeddingBatches``: texts are taken in order; a text that would
    overflow the current batch starts a new one; a text bigger than the cap goes alone.

    >>> batch_by_bytes(["aaaa", "bb", "cccc", "dddddddddd", "e"], max_bytes=6)
    [[0, 1], [2], [3], [4]]
    """
    batches: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i, text in enumerate(texts):
        n = len(str(text).encode("utf-8"))
        if current and size + n > max_bytes:
            batches.append(current)
            current, size = [], 0
        if not current and n > max_bytes:
            batches.append([i])
            continue
        current.append(i)
        size += n
    if current:
        batches.append(current)
    return batches


def retry_delay(attempt: int, base: float = BASE_DELAY_S, cap: float = MAX_DELAY_S,
                rand: Callable[[], float] = random.random) -> float:
    """Seconds to wait after failed attempt ``attempt`` (1-based): ``base x 2^(attempt-1)``
    with up to +20 % jitter, capped.

    >>> retry_delay(1, rand=lambda: 0.0), retry_delay(2, rand=lambda: 1.0), retry_delay(9)
    (0.5, 1.2, 8.0)
    """
    return min(cap, base * 2 ** (attempt - 1) * (1 + rand() * 0.2))


@register_provider
class OpenAICompatibleProvider(EmbeddingProvider):
    """A remote (or local) server with OpenAI's embeddings API.

    Parameters
    ----------
    base_url
        The API root, e.g. ``"http://127.0.0.1:11434/v1"`` (``/embeddings`` is appended).
    api_key
        Sent as ``Authorization: Bearer ...``; never part of the cache key, ``repr`` or errors.
    model
        Model id sent to the server (required; an ``openai-compatible/`` prefix is dropped).
    headers
        Extra HTTP headers. Sensitive-looking ones (authorization, api-key, token, secret,
        cookie) stay out of the cache key.
    input_type, query_input_type, document_input_type
        ``input_type`` body field (OpenClaw's ``inputType``/``queryInputType``/
        ``documentInputType``).
    output_dimensionality
        Sent as ``dimensions``; also the expected vector length.
    query_timeout, batch_timeout
        Seconds per attempt for a query / a document batch.
    max_attempts, base_delay, max_delay
        Retry policy (see the module docstring).
    max_batch_bytes
        UTF-8 bytes per document request.
    max_input_tokens
        The model's input cap (OpenClaw applies ``min(cap, 8000)`` as a UTF-8 byte cap when
        chunking); 8192 unless the model is known to differ.
    """

    id = "openai-compatible"
    secret_settings = frozenset({"api_key"})

    def __init__(self, base_url: str | None = None, api_key: str | None = None,
                 model: str | None = None, headers: Mapping[str, str] | None = None,
                 input_type: str | None = None, query_input_type: str | None = None,
                 document_input_type: str | None = None,
                 output_dimensionality: int | None = None,
                 query_timeout: float = QUERY_TIMEOUT_S, batch_timeout: float = BATCH_TIMEOUT_S,
                 max_attempts: int = MAX_ATTEMPTS, base_delay: float = BASE_DELAY_S,
                 max_delay: float = MAX_DELAY_S, max_batch_bytes: int = MAX_BATCH_BYTES,
                 max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS):
        url = (base_url or "").strip()
        if not url:
            raise ProviderUnavailable(
                "openai-compatible embeddings: missing remote.baseUrl. Set it to your "
                "OpenAI-compatible embeddings server, for example http://127.0.0.1:11434/v1.")
        name = (model or "").strip()
        if name.startswith("openai-compatible/"):
            name = name[len("openai-compatible/"):]
        if not name:
            raise ProviderUnavailable(
                "openai-compatible embeddings: missing model. Set it to the embedding model id "
                "your server expects.")
        if output_dimensionality is not None and (
                isinstance(output_dimensionality, bool) or not isinstance(
                    output_dimensionality, int) or output_dimensionality <= 0):
            raise ValueError("openai-compatible embeddings: dimensions must be a positive "
                             "integer.")
        self.base_url = url.rstrip("/")
        self.model = name
        self._api_key = api_key.strip() if isinstance(api_key, str) and api_key.strip() else None
        extra: dict[str, str] = {}
        for key, value in (headers or {}).items():
            hname = str(key).strip().lower()
            if not hname or hname == "authorization" or value is None or str(value) == "":
                continue
            extra[hname] = str(value)
        self._extra_headers = extra
        self.input_type = (input_type or "").strip() or None
        self.query_input_type = (query_input_type or "").strip() or None
        self.document_input_type = (document_input_type or "").strip() or None
        self.output_dimensionality = output_dimensionality
        self.query_timeout = float(query_timeout)
        self.batch_timeout = float(batch_timeout)
        self.max_attempts = max(1, int(max_attempts))
        self.base_delay = float(base_delay)
        self.max_delay = float(max_delay)
        self.max_batch_bytes = int(max_batch_bytes)
        self.max_input_tokens = int(max_input_tokens)
        self._dims: int | None = output_dimensionality
        self._client: Any = None
        #: Requests sent (attempts included) and texts embedded, for tests and reports.
        self.requests = 0
        self.texts_embedded = 0

    # -- identity ---------------------------------------------------------------------------

    @property
    def headers(self) -> dict[str, str]:
        """Extra headers with sensitive values masked (for display)."""
        return {k: ("***" if _is_sensitive_header(k) else v)
                for k, v in self._extra_headers.items()}

    def key_settings(self) -> dict[str, Any]:
        # OpenClaw's cacheKeyData: baseUrl, model, dimensions, the input types, and the
        # non-sensitive headers.
        data: dict[str, Any] = {"base_url": self.base_url}
        if self.output_dimensionality is not None:
            data["dimensions"] = self.output_dimensionality
        for name in ("input_type", "query_input_type", "document_input_type"):
            if getattr(self, name):
                data[name] = getattr(self, name)
        safe = {k: v for k, v in sorted(self._extra_headers.items())
                if not _is_sensitive_header(k)}
        if safe:
            data["headers"] = safe
        return data

    def public_settings(self) -> dict[str, Any]:
        out: dict[str, Any] = {"base_url": self.base_url, "model": self.model}
        if self._extra_headers:
            out["headers"] = self.headers
        for name in ("input_type", "query_input_type", "document_input_type",
                     "output_dimensionality"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    @property
    def dims(self) -> int:
        if self._dims is None:
            self._dims = int(self.embed_query("dimension probe").shape[0])
        return self._dims

    # -- HTTP -------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"{self.base_url}/embeddings"

    def _request_headers(self) -> dict[str, str]:
        headers = {"accept": "application/json", "content-type": "application/json"}
        headers.update(self._extra_headers)
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        return headers

    def _http(self) -> Any:
        if self._client is None:
            try:
                import httpx
            except ImportError as exc:  # pragma: no cover - httpx is a dependency
                raise ProviderUnavailable(
                    "the openai-compatible provider needs the Python package 'httpx' "
                    "(pip install httpx)") from exc
            self._client = httpx.Client(follow_redirects=False, trust_env=False)
        return self._client

    def _scrub(self, text: str) -> str:
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return text

    def _post_once(self, texts: list[str], kind: str, timeout: float) -> np.ndarray:
        import httpx

        body: dict[str, Any] = {"model": self.model, "input": texts}
        if self.output_dimensionality is not None:
            body["dimensions"] = self.output_dimensionality
        input_type = (self.query_input_type if kind == "query" else self.document_input_type
                      ) or self.input_type
        if input_type:
            body["input_type"] = input_type
        self.requests += 1
        try:
            response = self._http().post(self.url, content=json.dumps(body).encode("utf-8"),
                                         headers=self._request_headers(),
                                         timeout=httpx.Timeout(timeout))
        except httpx.TimeoutException as exc:
            raise _RequestFailed(f"timed out after {timeout:g}s ({type(exc).__name__})",
                                 retryable=True) from None
        except httpx.TransportError as exc:
            raise _RequestFailed(f"connection error ({type(exc).__name__}: "
                                 f"{self._scrub(str(exc))[:_ERROR_BODY_CHARS]})",
                                 retryable=True, splittable=True) from None
        status = response.status_code
        if status >= 400:
            excerpt = self._scrub(response.text[:_ERROR_BODY_CHARS].strip())
            raise _RequestFailed(f"HTTP {status}" + (f": {excerpt}" if excerpt else ""),
                                 retryable=status == 429 or status >= 500)
        try:
            payload = response.json()
            data = payload["data"]
            if not isinstance(data, list) or len(data) != len(texts):
                raise ValueError("wrong number of vectors")
            # OpenAI may return items out of order; they carry their index.
            if all(isinstance(d, dict) and isinstance(d.get("index"), int) for d in data):
                data = sorted(data, key=lambda d: d["index"])
            rows = [d["embedding"] for d in data]
            for row in rows:
                if not isinstance(row, list) or not all(
                        isinstance(x, int | float) and not isinstance(x, bool) for x in row):
                    raise ValueError("an embedding is not a list of numbers")
            vectors = check_vectors(rows, len(texts), self.output_dimensionality,
                                    f"openai-compatible server {self.url}")
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise _RequestFailed(f"malformed JSON response ({self._scrub(str(exc))[:200]})",
                                 retryable=False) from None
        return vectors

    def _post(self, texts: list[str], kind: str) -> np.ndarray:
        """One request with OpenClaw's retry loop; raises :class:`_RequestFailed` at the end."""
        timeout = self.query_timeout if kind == "query" else self.batch_timeout
        for attempt in range(1, self.max_attempts + 1):
            try:
                return self._post_once(texts, kind, timeout)
            except _RequestFailed as exc:
                if not exc.retryable or attempt >= self.max_attempts:
                    raise
                time.sleep(retry_delay(attempt, self.base_delay, self.max_delay))
        raise AssertionError("unreachable")  # pragma: no cover

    def _post_splitting(self, texts: list[str]) -> np.ndarray:
        try:
            return self._post(texts, "document")
        except _RequestFailed as exc:
            if len(texts) <= 1 or not exc.splittable:
                raise
            half = (len(texts) + 1) // 2
            return np.concatenate([self._post_splitting(texts[:half]),
                                   self._post_splitting(texts[half:])])

    def _fail(self, exc: _RequestFailed, kind: str, n: int) -> ProviderUnavailable:
        what = "a query" if kind == "query" else f"a batch of {n} text(s)"
        return ProviderUnavailable(
            f"openai-compatible embeddings failed for {what} at {self.url} (model "
            f"{self.model!r}) after up to {self.max_attempts} attempt(s): {exc}")

    def _remember_dims(self, vectors: np.ndarray) -> np.ndarray:
        if vectors.shape[0]:
            dims = int(vectors.shape[1])
            if self._dims is not None and dims != self._dims:
                raise ProviderUnavailable(
                    f"openai-compatible server {self.url} returned {dims}-dimensional vectors "
                    f"after {self._dims}-dimensional ones (model {self.model!r})")
            self._dims = dims
        return vectors

    # -- the provider interface -------------------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, self._dims or 0), dtype=np.float32)
        parts = []
        for batch in batch_by_bytes(texts, self.max_batch_bytes):
            chunk = [texts[i] for i in batch]
            try:
                parts.append(self._remember_dims(self._post_splitting(chunk)))
            except _RequestFailed as exc:
                raise self._fail(exc, "document", len(chunk)) from None
            self.texts_embedded += len(chunk)
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        try:
            vectors = self._remember_dims(self._post([str(text)], "query"))
        except _RequestFailed as exc:
            raise self._fail(exc, "query", 1) from None
        self.texts_embedded += 1
        return vectors[0]

    def close(self) -> None:
        """Close the HTTP connection pool."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_client"] = None  # re-created lazily after unpickling / deepcopy
        return state
