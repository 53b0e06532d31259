"""The ``deepinfra`` provider: DeepInfra's OpenAI-compatible embeddings (reference §7).

OpenClaw's DeepInfra plugin (external in 2026.7): ``POST {base}/embeddings`` with
``{"model", "input"}`` and ``Authorization: Bearer <DEEPINFRA_API_KEY>``; base URL
``remote.baseUrl`` or ``https://api.deepinfra.com/v1/openai``; default model ``BAAI/bge-m3``
(a ``deepinfra/`` prefix is dropped). Cache key (§8): model, plus the base URL when it is not
the default or custom headers are set, plus a hash of the non-auth headers.

    >>> DeepInfraProvider(api_key="k-secret").key_settings()
    {}
    >>> DeepInfraProvider(api_key="k", base_url="http://h/v1").key_settings()
    {'base_url': 'http://h/v1'}
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from memlab.embed.base import register_provider
from memlab.embed.http import BearerEmbedder

DEEPINFRA_BASE_URL = "https://api.deepinfra.com/v1/openai"


@register_provider
class DeepInfraProvider(BearerEmbedder):
    """DeepInfra embeddings (default ``BAAI/bge-m3``, 1024 dimensions)."""

    id = "deepinfra"
    default_base_url = DEEPINFRA_BASE_URL
    default_model = "BAAI/bge-m3"
    model_prefixes = ("deepinfra/",)
    env_vars = ("DEEPINFRA_API_KEY",)

    def key_settings(self) -> dict[str, Any]:
        # buildEmbeddingEndpointCacheIdentity: empty for the shipped default endpoint
        headers = self.safe_headers()
        data: dict[str, Any] = {}
        if self.base_url != DEEPINFRA_BASE_URL or headers:
            data["base_url"] = self.base_url
        if headers:
            raw = json.dumps(sorted(headers.items()), separators=(",", ":"))
            data["headers_hash"] = hashlib.sha256(raw.encode("utf-8")).hexdigest()
        return data
