"""The ``voyage`` provider: Voyage AI's ``/v1/embeddings`` (reference §7).

OpenClaw's ``extensions/voyage/embedding-provider.ts``: ``POST {base}/embeddings`` with
``{"model", "input", "input_type"}`` where ``input_type`` is always ``"query"`` for queries and
``"document"`` for documents (OpenClaw's ``inputType`` settings do not apply to voyage);
``Authorization: Bearer <VOYAGE_API_KEY>``; base URL ``remote.baseUrl`` or
``https://api.voyageai.com/v1``; default model ``voyage-4-large`` (a ``voyage/`` prefix is
dropped). Response ``data[i].embedding``. Cache key (§8): baseUrl, model, non-auth headers.

    >>> VoyageProvider(api_key="k-secret")._body(["q"], "query")
    {'model': 'voyage-4-large', 'input': ['q'], 'input_type': 'query'}
"""

from __future__ import annotations

from typing import Any

from memlab.embed.base import register_provider
from memlab.embed.http import BearerEmbedder


@register_provider
class VoyageProvider(BearerEmbedder):
    """Voyage embeddings with ``input_type`` query/document."""

    id = "voyage"
    default_base_url = "https://api.voyageai.com/v1"
    default_model = "voyage-4-large"
    model_prefixes = ("voyage/",)
    env_vars = ("VOYAGE_API_KEY",)
    max_tokens_by_model = {"voyage-3": 32000, "voyage-3-lite": 16000, "voyage-code-3": 32000}

    def _body(self, texts: list[str], kind: str) -> dict[str, Any]:
        return {"model": self.model, "input": texts,
                "input_type": "query" if kind == "query" else "document"}

    def key_settings(self) -> dict[str, Any]:
        data: dict[str, Any] = {"base_url": self.base_url}
        if self.safe_headers():
            data["headers"] = self.safe_headers()
        return data
