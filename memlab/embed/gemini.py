"""The ``gemini`` provider: Google's Generative Language embeddings (reference §7).

OpenClaw's ``extensions/google/embedding-provider.ts``:

* Queries: ``POST {base}/models/{model}:embedContent`` with
  ``{"content": {"parts": [{"text"}]}, "taskType": "RETRIEVAL_QUERY"}``; answer
  ``{"embedding": {"values": [...]}}``.
* Documents: ``POST {base}/models/{model}:batchEmbedContents`` with ``{"requests": [{"content",
  "taskType": "RETRIEVAL_DOCUMENT", "model": "models/{model}"}, ...]}``; answer
  ``{"embeddings": [{"values"}, ...]}``.
* ``outputDimensionality`` is sent only for ``gemini-embedding-2-preview`` (768/1536/3072,
  default 3072); other models ignore the setting.
* Auth ``x-goog-api-key: <GEMINI_API_KEY or GOOGLE_API_KEY>`` (a JSON ``{"token": ...}`` key
  becomes ``Authorization: Bearer``); base ``remote.baseUrl`` (an ``/openai`` suffix is cut) or
  ``https://generativelanguage.googleapis.com/v1beta``; model prefixes ``models/``,
  ``gemini/``, ``google/`` are dropped.
* Vectors are sanitised and L2-normalised; a blank query embeds as the zero vector.
* Cache key (§8): baseUrl, model, outputDimensionality, headers without auth.
* Batch API (``remote.batch.enabled``, ``extensions/google/embedding-batch.ts``): JSONL lines
  ``{"key", "request": <the batchEmbedContents request>}`` uploaded (multipart/related) to
  ``{upload base}/files``, then ``:asyncBatchEmbedContent``; structured (image/audio) inputs
  always go inline. See :mod:`memlab.embed.batch`.

    >>> g = GeminiProvider(api_key="AIza-secret", model="models/gemini-embedding-2-preview")
    >>> g.output_dimensionality, g.embed_url.endswith("gemini-embedding-2-preview:embedContent")
    (3072, True)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlparse, urlunparse

import numpy as np

from memlab.embed.base import EmbeddingInput, ProviderUnavailable, register_provider
from memlab.embed.batch import attach_batch
from memlab.embed.http import (
    RemoteEmbedder,
    clean_headers,
    is_sensitive_header,
    malformed,
)

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
GEMINI_EMBEDDING_2_MODELS = frozenset({"gemini-embedding-2-preview"})
GEMINI_EMBEDDING_2_DIMS = (768, 1536, 3072)
MAX_INPUT_TOKENS = {"text-embedding-004": 2048, "gemini-embedding-001": 2048,
                    "gemini-embedding-2-preview": 8192}


def normalize_gemini_model(model: str | None) -> str:
    trimmed = (model or "").strip()
    if not trimmed:
        return "gemini-embedding-001"
    if trimmed.startswith("models/"):
        trimmed = trimmed[len("models/"):]
    for prefix in ("gemini/", "google/"):
        if trimmed.startswith(prefix):
            return trimmed[len(prefix):]
    return trimmed


def normalize_gemini_base_url(raw: str | None) -> str:
    trimmed = (raw or "").strip().rstrip("/")
    if "/openai" in trimmed:
        trimmed = trimmed[:trimmed.index("/openai")].rstrip("/")
    if not trimmed:
        return DEFAULT_BASE_URL
    parsed = urlparse(trimmed)
    if f"{parsed.scheme}://{parsed.netloc}".lower() == \
            "https://generativelanguage.googleapis.com" and parsed.path.strip("/") == "":
        return DEFAULT_BASE_URL
    return urlunparse(parsed._replace(query="", fragment="")).rstrip("/")


@register_provider
class GeminiProvider(RemoteEmbedder):
    """Gemini embeddings with RETRIEVAL_QUERY / RETRIEVAL_DOCUMENT task types."""

    id = "gemini"
    batch_api = "gemini"
    normalize = True
    secret_settings = frozenset({"api_key"})
    auth_fix = "check memorySearch.remote.apiKey (or GEMINI_API_KEY / GOOGLE_API_KEY)"

    def __init__(self, api_key: str | None = None, model: str | None = None,
                 base_url: str | None = None, headers: Mapping[str, str] | None = None,
                 output_dimensionality: int | None = None, task_type: str | None = None,
                 batch: Any = None, **http: Any):
        key = api_key.strip() if isinstance(api_key, str) else ""
        if not key:
            raise ProviderUnavailable(
                'No API key found for provider "google" (gemini embeddings): set '
                "memorySearch.remote.apiKey or GEMINI_API_KEY / GOOGLE_API_KEY, or choose "
                "another memorySearch.provider.")
        self._api_key = key
        self.model = normalize_gemini_model(model)
        self.base_url = normalize_gemini_base_url(base_url)
        self._extra_headers = clean_headers(headers)
        self.task_type = (task_type or "").strip() or None
        if self.model in GEMINI_EMBEDDING_2_MODELS:
            dims = 3072 if output_dimensionality is None else output_dimensionality
            if dims not in GEMINI_EMBEDDING_2_DIMS:
                raise ProviderUnavailable(
                    f"Invalid outputDimensionality {dims} for {self.model}. Valid values: "
                    f"{', '.join(map(str, GEMINI_EMBEDDING_2_DIMS))}")
            self.output_dimensionality: int | None = dims
        else:
            self.output_dimensionality = None  # older models do not take the parameter
        self.max_input_tokens = MAX_INPUT_TOKENS.get(self.model, self.max_input_tokens)
        self._dims = self.output_dimensionality
        token = None
        if key.startswith("{"):
            try:
                token = json.loads(key).get("token") or None
            except (ValueError, AttributeError):
                token = None
        self._token = token if isinstance(token, str) else None
        # the key and the credential-like headers are registered by _init_http itself
        self._init_http(secrets=[self._token], **http)
        attach_batch(self, batch)

    def batch_line(self, custom_id: str, text: str) -> dict[str, Any]:
        """One request of an async batch (``buildGeminiEmbeddingRequest``, documents)."""
        return {"custom_id": custom_id, "request": self._request(text, "document", True)}

    @property
    def model_path(self) -> str:
        return f"models/{self.model}"

    @property
    def embed_url(self) -> str:
        return f"{self.base_url}/{self.model_path}:embedContent"

    @property
    def batch_url(self) -> str:
        return f"{self.base_url}/{self.model_path}:batchEmbedContents"

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/{self.model_path}"

    def key_settings(self) -> dict[str, Any]:
        data: dict[str, Any] = {"base_url": self.base_url}
        if self.output_dimensionality is not None:
            data["output_dimensionality"] = self.output_dimensionality
        safe = {k: v for k, v in sorted(self._extra_headers.items())
                if k not in ("authorization", "x-goog-api-key") and not is_sensitive_header(k)}
        if safe:
            data["headers"] = safe
        if self.task_type:
            data["task_type"] = self.task_type
        return data

    def request_headers(self) -> dict[str, str]:
        if self._token:
            auth = {"authorization": f"Bearer {self._token}"}
        else:
            auth = {"x-goog-api-key": self._api_key}
        return {**auth, "content-type": "application/json", **self._extra_headers}

    def supports_multimodal(self) -> bool:
        """Gemini Embedding 2 takes inline image/audio parts (OpenClaw's
        ``supportsGeminiMultimodalEmbeddings``)."""
        return self.model in GEMINI_EMBEDDING_2_MODELS

    def _request(self, text: str | EmbeddingInput, kind: str, with_model: bool
                 ) -> dict[str, Any]:
        """OpenClaw's ``buildGeminiEmbeddingRequest``: text parts become ``{"text"}``, inline
        data ``{"inlineData": {"mimeType", "data"}}``; a plain text is one text part."""
        task = self.task_type or ("RETRIEVAL_QUERY" if kind == "query" else "RETRIEVAL_DOCUMENT")
        if isinstance(text, EmbeddingInput) and text.parts:
            parts = [{"text": p.get("text", "")} if p.get("type") == "text" else
                     {"inlineData": {"mimeType": p.get("mimeType"), "data": p.get("data")}}
                     for p in text.parts]
        else:
            parts = [{"text": text.text if isinstance(text, EmbeddingInput) else text}]
        req: dict[str, Any] = {"content": {"parts": parts}, "taskType": task}
        if with_model:
            req["model"] = self.model_path
        if self.output_dimensionality is not None:
            req["outputDimensionality"] = self.output_dimensionality
        return req

    def _embed_request(self, texts: list[Any], kind: str, timeout: float) -> Any:
        if kind == "query":
            payload = self._request_json("POST", self.embed_url, headers=self.request_headers(),
                                         body=self._request(texts[0], kind, False),
                                         timeout=timeout)
            emb = payload.get("embedding") if isinstance(payload, dict) else None
            if not isinstance(emb, dict):
                raise malformed("no embedding.values")
            return [emb.get("values")]
        body = {"requests": [self._request(t, kind, True) for t in texts]}
        payload = self._request_json("POST", self.batch_url, headers=self.request_headers(),
                                     body=body, timeout=timeout)
        embs = payload.get("embeddings") if isinstance(payload, dict) else None
        if not isinstance(embs, list) or len(embs) != len(texts) or not all(
                isinstance(e, dict) for e in embs):
            raise malformed("embeddings[] does not match the requests")
        return [e.get("values") for e in embs]

    def embed_query(self, text: str) -> np.ndarray:
        if not str(text).strip():  # OpenClaw returns an empty vector for a blank query
            return np.zeros(self.dims, dtype=np.float32)
        return super().embed_query(text)
