"""OpenClaw 2026.8's ``memory.search``: the keys it still configures and the constants it fixed
(reference section 15).
"""

from __future__ import annotations

from typing import Any, Literal

Schema = Literal["2026.7", "2026.8"]
SCHEMAS: tuple[str, ...] = ("2026.7", "2026.8")
#: The keys of ``memory.search`` still configurable in OpenClaw 2026.8+ (reference section 15):
#: ``True`` = the whole subtree, a dict = only those sub-keys.
CONFIGURABLE_KEYS: dict[str, Any] = {
    "enabled": True,
    "sources": True,
    "extraPaths": True,
    "multimodal": True,
    "provider": True,
    "remote": {"baseUrl": True, "apiKey": True, "headers": True, "batch": {"enabled": True}},
    "fallback": True,
    "model": True,
    "inputType": True,
    "queryInputType": True,
    "documentInputType": True,
    "outputDimensionality": True,
    "local": {"modelPath": True},
    "store": {"fts": True, "vector": True},
    "query": {"maxResults": True, "minScore": True},
    "cache": {"enabled": True},
}
#: 2026.8-only keys memlab has no model for (read on import, reported, not kept).
ONLY_2026_8 = ("rememberAcrossConversations", "experimental")
#: Constants OpenClaw 2026.8+ fixes (reference section 15), as 2026.7 key paths.
FIXED_2026_8: dict[str, Any] = {
    "query.hybrid.enabled": True,
    "query.hybrid.vectorWeight": 0.7,
    "query.hybrid.textWeight": 0.3,
    "query.hybrid.candidateMultiplier": 4,
    "query.hybrid.mmr.enabled": True,
    "query.hybrid.mmr.lambda": 0.7,
    "query.hybrid.temporalDecay.enabled": True,
    "query.hybrid.temporalDecay.halfLifeDays": 30,
    "chunking.tokens": 400,
    "chunking.overlap": 80,
    "cache.maxEntries": 50_000,
}
