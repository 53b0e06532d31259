"""The ``none`` provider: OpenClaw's deliberate keyword-only mode (``provider: "none"``).

It has no vectors (``dims == 0``, model ``fts-only`` as in OpenClaw's chunk ids); asking it to
embed is a configuration error, so it raises instead of returning something. Whether a
pipeline runs keyword-only is the pipeline's decision (check ``provider.id == "none"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memlab.embed.base import EmbeddingProvider, ProviderUnavailable, register_provider


@register_provider
class NoneProvider(EmbeddingProvider):
    """No embeddings: keyword-only search."""

    id = "none"
    model = "fts-only"

    def _refuse(self) -> ProviderUnavailable:
        return ProviderUnavailable(
            "embedding provider 'none' is keyword-only mode and cannot embed text; build a "
            "keyword-only pipeline for it, or choose an embedding provider such as "
            "get_provider('local')"
        )

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        raise self._refuse()

    def embed_query(self, text: str) -> np.ndarray:
        raise self._refuse()

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        raise self._refuse()

    @property
    def dims(self) -> int:
        return 0

    def key_settings(self) -> dict[str, Any]:
        return {}
