"""The ``ollama`` provider: Ollama's native ``/api/embed`` (reference §7).

OpenClaw's ``extensions/ollama/src/embedding-provider.ts``:

* ``POST {base}/api/embed`` with ``{"model", "input"}``: a list of texts for documents, a
  single string for a query; answer ``{"embeddings": [[...], ...]}``.
* Queries get the model's instruction template (matched on the lower-cased model name prefix):
  ``nomic-embed-text`` -> ``"search_query: {q}"``, ``qwen3-embedding`` -> ``"Instruct: Given a
  user query, retrieve relevant memory notes and documents\\nQuery:{q}"``,
  ``mxbai-embed-large`` -> ``"Represent this sentence for searching relevant passages: {q}"``.
  Documents are sent as they are.
* Vectors are truncated to ``output_dimensionality`` (when set), non-finite values zeroed, then
  L2-normalised.
* Base ``remote.baseUrl`` (a trailing ``/v1`` is dropped) or ``http://127.0.0.1:11434``;
  ``Authorization: Bearer`` only when an API key is configured (``OLLAMA_API_KEY`` is used
  only for Ollama Cloud, ``https://ollama.com``).
* Timeouts 60 s (query) / 600 s (batch, the adapter's runtime override); OpenClaw indexes
  with concurrency 1 for ollama.
* Cache key (§8): model and outputDimensionality.

    >>> OllamaProvider(model="nomic-embed-text:v1.5")._prepare_query("deploy key")
    'search_query: deploy key'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from memlab.embed.base import register_provider
from memlab.embed.http import (
    LOCAL_BATCH_TIMEOUT_S,
    REMOTE_QUERY_TIMEOUT_S,
    RemoteEmbedder,
    clean_headers,
    l2_normalize,
    malformed,
    read_vector,
)
from memlab.embed.openai_compatible import validate_dimensions

DEFAULT_BASE_URL = "http://127.0.0.1:11434"
OLLAMA_CLOUD_BASE_URL = "https://ollama.com"
QUERY_INSTRUCTION_TEMPLATES = (
    ("qwen3-embedding",
     "Instruct: Given a user query, retrieve relevant memory notes and documents\nQuery:{query}"),
    ("nomic-embed-text", "search_query: {query}"),
    ("mxbai-embed-large", "Represent this sentence for searching relevant passages: {query}"),
)


def query_template(model: str) -> str | None:
    name = model.strip().lower()
    for prefix, template in QUERY_INSTRUCTION_TEMPLATES:
        if name.startswith(prefix):
            return template
    return None


@register_provider
class OllamaProvider(RemoteEmbedder):
    """Ollama embeddings (default ``nomic-embed-text``)."""

    id = "ollama"
    normalize = False  # done in _embed_request, after truncation
    secret_settings = frozenset({"api_key"})
    auth_fix = "check memorySearch.remote.apiKey (or OLLAMA_API_KEY for Ollama Cloud)"

    def __init__(self, model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, headers: Mapping[str, str] | None = None,
                 output_dimensionality: int | None = None,
                 query_timeout: float = REMOTE_QUERY_TIMEOUT_S,
                 batch_timeout: float = LOCAL_BATCH_TIMEOUT_S, **http: Any):
        validate_dimensions(output_dimensionality, "ollama")
        raw = (base_url or "").strip().rstrip("/")
        self.base_url = re.sub(r"/v1$", "", raw, flags=re.IGNORECASE) if raw else \
            DEFAULT_BASE_URL
        self.model = (model or "").strip() or "nomic-embed-text"
        if self.model.startswith("ollama/"):
            self.model = self.model[len("ollama/"):]
        self._api_key = api_key.strip() if isinstance(api_key, str) and api_key.strip() else None
        self._extra_headers = clean_headers(headers)
        self.output_dimensionality = output_dimensionality
        self._dims = output_dimensionality
        self._init_http(query_timeout=query_timeout, batch_timeout=batch_timeout, **http)

    @property
    def url(self) -> str:
        return f"{self.base_url}/api/embed"

    @property
    def endpoint(self) -> str:
        return self.url

    def key_settings(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.output_dimensionality is not None:
            data["output_dimensionality"] = self.output_dimensionality
        return data

    def _prepare_query(self, text: str) -> str:
        template = query_template(self.model)
        return template.replace("{query}", text) if template else text

    def _embed_request(self, texts: list[str], kind: str, timeout: float) -> Any:
        headers = {"content-type": "application/json", **self._extra_headers}
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        body = {"model": self.model, "input": texts[0] if kind == "query" else texts}
        payload = self._request_json("POST", self.url, body=body, headers=headers,
                                     timeout=timeout)
        embs = payload.get("embeddings") if isinstance(payload, dict) else None
        if not isinstance(embs, list):
            raise malformed("Ollama embed response missing embeddings[]")
        if len(embs) != len(texts):
            raise malformed(f"Ollama returned {len(embs)} embeddings for {len(texts)} inputs")
        rows = [read_vector(e, allow_non_finite=True) for e in embs]
        if self.output_dimensionality is not None:
            rows = [r[:self.output_dimensionality] for r in rows]
        if len({len(r) for r in rows}) > 1:
            raise malformed("embeddings of different lengths")
        return l2_normalize(np.asarray(rows, dtype=np.float64))
