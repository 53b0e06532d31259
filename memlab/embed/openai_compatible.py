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
The HTTP loop (batching, retries, timeouts, failing closed) is shared with the other remote
providers in :mod:`memlab.embed.http`:

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

from collections.abc import Callable, Mapping
from typing import Any

from memlab.embed.base import (
    DEFAULT_MAX_INPUT_TOKENS,
    ProviderUnavailable,
    register_provider,
)
from memlab.embed.http import (
    BASE_DELAY_S,
    LOCAL_BATCH_TIMEOUT_S,
    MAX_ATTEMPTS,
    MAX_BATCH_BYTES,
    MAX_DELAY_S,
    REMOTE_QUERY_TIMEOUT_S,
    OpenAIShapedEmbedder,
    RequestFailed,
    batch_by_bytes,
    clean_headers,
    is_sensitive_header,
    retry_delay,
)

__all__ = ["BATCH_TIMEOUT_S", "QUERY_TIMEOUT_S", "OpenAICompatibleProvider", "batch_by_bytes",
           "retry_delay"]

#: Timeouts (seconds) per attempt: one query, one document batch (the adapter's runtime
#: override of the generic 120 s remote timeout).
QUERY_TIMEOUT_S = REMOTE_QUERY_TIMEOUT_S
BATCH_TIMEOUT_S = LOCAL_BATCH_TIMEOUT_S
_RequestFailed = RequestFailed  # backwards-compatible name


def validate_dimensions(value: int | None, who: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value <= 0):
        raise ValueError(f"{who} embeddings: dimensions must be a positive integer.")


@register_provider
class OpenAICompatibleProvider(OpenAIShapedEmbedder):
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
        Retry policy (see :mod:`memlab.embed.http`); ``sleep`` replaces ``time.sleep``.
    max_batch_bytes
        UTF-8 bytes per document request.
    max_input_tokens
        The model's input cap (OpenClaw applies ``min(cap, 8000)`` as a UTF-8 byte cap when
        chunking); 8192 unless the model is known to differ.
    """

    id = "openai-compatible"
    secret_settings = frozenset({"api_key"})
    auth_fix = "check memorySearch.remote.apiKey for this server"

    def __init__(self, base_url: str | None = None, api_key: str | None = None,
                 model: str | None = None, headers: Mapping[str, str] | None = None,
                 input_type: str | None = None, query_input_type: str | None = None,
                 document_input_type: str | None = None,
                 output_dimensionality: int | None = None,
                 query_timeout: float = QUERY_TIMEOUT_S, batch_timeout: float = BATCH_TIMEOUT_S,
                 max_attempts: int = MAX_ATTEMPTS, base_delay: float = BASE_DELAY_S,
                 max_delay: float = MAX_DELAY_S, max_batch_bytes: int = MAX_BATCH_BYTES,
                 max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS,
                 sleep: Callable[[float], None] | None = None):
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
        validate_dimensions(output_dimensionality, "openai-compatible")
        self.base_url = url.rstrip("/")
        self.model = name
        self._api_key = api_key.strip() if isinstance(api_key, str) and api_key.strip() else None
        # an ``authorization`` entry in the configured headers is ignored, as in OpenClaw
        self._extra_headers = clean_headers(headers, drop=("authorization",))
        self.input_type = (input_type or "").strip() or None
        self.query_input_type = (query_input_type or "").strip() or None
        self.document_input_type = (document_input_type or "").strip() or None
        self.output_dimensionality = output_dimensionality
        self.max_input_tokens = int(max_input_tokens)
        self._dims = output_dimensionality
        self._init_http(query_timeout=query_timeout, batch_timeout=batch_timeout,
                        max_attempts=max_attempts, base_delay=base_delay, max_delay=max_delay,
                        max_batch_bytes=max_batch_bytes, sleep=sleep,
                        secrets=[self._api_key, *(v for k, v in self._extra_headers.items()
                                                  if is_sensitive_header(k))])

    # -- identity ---------------------------------------------------------------------------

    def key_settings(self) -> dict[str, Any]:
        # OpenClaw's cacheKeyData: baseUrl, model, dimensions, the input types, and the
        # non-sensitive headers.
        data: dict[str, Any] = {"base_url": self.base_url}
        if self.output_dimensionality is not None:
            data["dimensions"] = self.output_dimensionality
        for name in ("input_type", "query_input_type", "document_input_type"):
            if getattr(self, name):
                data[name] = getattr(self, name)
        safe = self.safe_headers()
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

    # -- wire format ------------------------------------------------------------------------

    def _body(self, texts: list[str], kind: str) -> dict[str, Any]:
        return embeddings_body(self, texts, kind)

    def _embed_request(self, texts: list[str], kind: str, timeout: float) -> Any:
        rows = super()._embed_request(texts, kind, timeout)
        if self.output_dimensionality is not None and any(
                isinstance(r, list) and len(r) != self.output_dimensionality for r in rows):
            raise RequestFailed(
                f"malformed JSON response (vectors are not {self.output_dimensionality}-"
                "dimensional)", retryable=False)
        return rows


def embeddings_body(provider: Any, texts: list[str], kind: str) -> dict[str, Any]:
    """The JSON body of an OpenAI-shaped ``/embeddings`` request (shared with ``openai``):
    ``dimensions`` when ``output_dimensionality`` is set, and ``input_type`` from the query- or
    document-side setting, else the shared ``input_type``."""
    body: dict[str, Any] = {"model": provider.model, "input": texts}
    if provider.output_dimensionality is not None:
        body["dimensions"] = provider.output_dimensionality
    input_type = (provider.query_input_type if kind == "query"
                  else provider.document_input_type) or provider.input_type
    if input_type:
        body["input_type"] = input_type
    return body
