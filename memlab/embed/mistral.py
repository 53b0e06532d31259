"""The ``mistral`` provider: Mistral's OpenAI-shaped ``/v1/embeddings`` (reference §7).

OpenClaw's ``extensions/mistral/embedding-provider.ts``: ``POST {base}/embeddings`` with
``{"model", "input"}`` and ``Authorization: Bearer <MISTRAL_API_KEY>``; base URL
``remote.baseUrl`` or ``https://api.mistral.ai/v1``; default model ``mistral-embed`` (a
``mistral/`` prefix is dropped). No input types, no dimensions. Cache key (§8): model only.

    >>> MistralProvider(api_key="k-secret").key_settings()
    {}
"""

from __future__ import annotations

from typing import Any

from memlab.embed.base import register_provider
from memlab.embed.http import BearerEmbedder


@register_provider
class MistralProvider(BearerEmbedder):
    """Mistral embeddings (``mistral-embed``, 1024 dimensions)."""

    id = "mistral"
    default_base_url = "https://api.mistral.ai/v1"
    default_model = "mistral-embed"
    model_prefixes = ("mistral/",)
    env_vars = ("MISTRAL_API_KEY",)

    def key_settings(self) -> dict[str, Any]:
        return {}  # OpenClaw's cacheKeyData: {provider, model}
