"""The ``voyage`` provider: Voyage AI's ``/v1/embeddings`` (reference §7).

OpenClaw's ``extensions/voyage/embedding-provider.ts``: ``POST {base}/embeddings`` with
``{"model", "input", "input_type"}`` where ``input_type`` is always ``"query"`` for queries and
``"document"`` for documents (OpenClaw's ``inputType`` settings do not apply to voyage);
``Authorization: Bearer <VOYAGE_API_KEY>``; base URL ``remote.baseUrl`` or
``https://api.voyageai.com/v1``; default model ``voyage-4-large`` (a ``voyage/`` prefix is
dropped). Response ``data[i].embedding``. Cache key (§8): baseUrl, model, non-auth headers.

Batch API (``remote.batch.enabled``, ``extensions/voyage/embedding-batch.ts``): JSONL lines
``{"custom_id", "body": {"input": <text>}}`` through ``/files`` + ``/batches`` with
``completion_window: "12h"``, ``request_params: {model, input_type: "document"}`` and
``metadata: {source: "clawdbot-memory", agent}``; see :mod:`memlab.embed.batch`.

    >>> VoyageProvider(api_key="k-secret")._body(["q"], "query")
    {'model': 'voyage-4-large', 'input': ['q'], 'input_type': 'query'}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memlab.embed.base import register_provider
from memlab.embed.batch import COMPLETION_WINDOWS, EMBEDDING_BATCH_ENDPOINT, attach_batch
from memlab.embed.http import BearerEmbedder


@register_provider
class VoyageProvider(BearerEmbedder):
    """Voyage embeddings with ``input_type`` query/document; ``batch`` is ``remote.batch``."""

    id = "voyage"
    batch_api = "voyage"
    default_base_url = "https://api.voyageai.com/v1"
    default_model = "voyage-4-large"
    model_prefixes = ("voyage/",)
    env_vars = ("VOYAGE_API_KEY",)
    max_tokens_by_model = {"voyage-3": 32000, "voyage-3-lite": 16000, "voyage-code-3": 32000}

    def __init__(self, api_key: str | None = None, model: str | None = None,
                 base_url: str | None = None, headers: Mapping[str, str] | None = None,
                 batch: Any = None, **http: Any):
        super().__init__(api_key=api_key, model=model, base_url=base_url, headers=headers,
                         **http)
        attach_batch(self, batch)

    def batch_line(self, custom_id: str, text: str) -> dict[str, Any]:
        """One JSONL request line of a Voyage batch (OpenClaw's ``batchEmbed``)."""
        return {"custom_id": custom_id, "body": {"input": text}}

    def batch_create_body(self, input_file_id: str, agent_id: str) -> dict[str, Any]:
        """The ``POST /batches`` body (``submitVoyageBatch``)."""
        return {"input_file_id": input_file_id, "endpoint": EMBEDDING_BATCH_ENDPOINT,
                "completion_window": COMPLETION_WINDOWS["voyage"],
                "request_params": {"model": self.model, "input_type": "document"},
                "metadata": {"source": "clawdbot-memory", "agent": agent_id}}

    def _body(self, texts: list[str], kind: str) -> dict[str, Any]:
        return {"model": self.model, "input": texts,
                "input_type": "query" if kind == "query" else "document"}
