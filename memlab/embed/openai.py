"""The ``openai`` provider: OpenAI's ``/v1/embeddings`` (reference §7).

OpenClaw 2026.7.35's ``extensions/openai/embedding-provider.ts``: ``POST {base}/embeddings`` with
``{"model", "input": [...]}``, plus ``dimensions`` when ``output_dimensionality`` is set and
``input_type`` when an input type applies (query: ``query_input_type`` or ``input_type``;
documents: ``document_input_type`` or ``input_type``). Base URL ``remote.baseUrl`` or
``https://api.openai.com/v1``; ``Authorization: Bearer <OPENAI_API_KEY>`` (configured headers
may override it); the native API also gets OpenClaw's attribution headers. Default model
``text-embedding-3-small``; an ``openai/`` prefix is dropped. Timeouts 60 s (query) / 120 s
(batch). Vectors are returned as sent. Cache key (§8): provider, baseUrl, model,
outputDimensionality, the document input type and the non-auth headers.

Batch API (``remote.batch.enabled``, ``extensions/openai/embedding-batch.ts``): documents go as
JSONL lines ``{"custom_id", "method": "POST", "url": "/v1/embeddings", "body": {"model",
"input": <text>, "dimensions"?, "input_type"?}}`` through ``/files`` + ``/batches``
(``completion_window: "24h"``, ``metadata: {source: "openclaw-memory", agent}``); see
:mod:`memlab.embed.batch`.

    >>> p = OpenAIProvider(api_key="sk-secret-123")
    >>> p
    OpenAIProvider(base_url='https://api.openai.com/v1', model='text-embedding-3-small')
    >>> "sk-secret-123" in repr(p.cache_key_data())
    False
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlparse

from memlab.embed.base import register_provider
from memlab.embed.batch import COMPLETION_WINDOWS, EMBEDDING_BATCH_ENDPOINT, attach_batch
from memlab.embed.http import BearerEmbedder
from memlab.embed.openai_compatible import embeddings_body, validate_dimensions


@register_provider
class OpenAIProvider(BearerEmbedder):
    """OpenAI embeddings. See the module docstring; extra settings: ``input_type``,
    ``query_input_type``, ``document_input_type``, ``output_dimensionality``, ``batch``
    (``remote.batch``)."""

    id = "openai"
    batch_api = "openai"
    default_base_url = "https://api.openai.com/v1"
    default_model = "text-embedding-3-small"
    model_prefixes = ("openai/",)
    env_vars = ("OPENAI_API_KEY",)
    max_tokens_by_model = {"text-embedding-3-small": 8192, "text-embedding-3-large": 8192,
                           "text-embedding-ada-002": 8191}

    def __init__(self, api_key: str | None = None, model: str | None = None,
                 base_url: str | None = None, headers: Mapping[str, str] | None = None,
                 input_type: str | None = None, query_input_type: str | None = None,
                 document_input_type: str | None = None,
                 output_dimensionality: int | None = None, batch: Any = None, **http: Any):
        validate_dimensions(output_dimensionality, "openai")
        super().__init__(api_key=api_key, model=model, base_url=base_url, headers=headers,
                         **http)
        raw = (model or "").strip()
        if raw.startswith("openai/") and not self.native:
            self.model = raw  # non-native endpoints keep the routing prefix
        self.input_type = (input_type or "").strip() or None
        self.query_input_type = (query_input_type or "").strip() or None
        self.document_input_type = (document_input_type or "").strip() or None
        self.output_dimensionality = output_dimensionality
        self._dims = output_dimensionality
        attach_batch(self, batch)

    @property
    def native(self) -> bool:
        """Whether the base URL is the native OpenAI API."""
        host = (urlparse(self.base_url).hostname or "").lower().rstrip(".")
        return host == "api.openai.com"

    def request_headers(self) -> dict[str, str]:
        headers = super().request_headers()
        if self.native:
            headers.update({"originator": "openclaw", "user-agent": "openclaw"})
        return headers

    def _body(self, texts: list[str], kind: str) -> dict[str, Any]:
        return embeddings_body(self, texts, kind)

    def batch_line(self, custom_id: str, text: str) -> dict[str, Any]:
        """One JSONL request line of an OpenAI batch (OpenClaw's ``batchEmbed``)."""
        body = embeddings_body(self, [text], "document")
        body["input"] = text
        return {"custom_id": custom_id, "method": "POST", "url": EMBEDDING_BATCH_ENDPOINT,
                "body": body}

    def batch_create_body(self, input_file_id: str, agent_id: str) -> dict[str, Any]:
        """The ``POST /batches`` body."""
        return {"input_file_id": input_file_id, "endpoint": EMBEDDING_BATCH_ENDPOINT,
                "completion_window": COMPLETION_WINDOWS["openai"],
                "metadata": {"source": "openclaw-memory", "agent": agent_id}}

    def key_settings(self) -> dict[str, Any]:
        data: dict[str, Any] = {"base_url": self.base_url}
        if self.output_dimensionality is not None:
            data["dimensions"] = self.output_dimensionality
        doc_type = self.document_input_type or self.input_type
        if doc_type:
            data["document_input_type"] = doc_type
        if self.safe_headers():
            data["headers"] = self.safe_headers()
        return data

    def public_settings(self) -> dict[str, Any]:
        out = super().public_settings()
        for name in ("input_type", "query_input_type", "document_input_type",
                     "output_dimensionality"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out
