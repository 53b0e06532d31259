"""OpenClaw 2026.7 (extended-stable, ``openclaw@2026.7.35``): every knob a user may tune.

Config: ``agents.defaults.memorySearch`` (per agent ``agents.list[].memorySearch``). The
search is memlab's stage pipeline (:func:`memlab.openclaw.openclaw_pipeline` builds it from
:data:`LINE`'s recipe): both legs to ``maxResults × candidateMultiplier`` candidates, the
weighted merge, temporal decay and MMR when enabled, then ``minScore`` (relaxed per mode) and
``maxResults``, then session visibility. Reference: sections 1-16 of
``openclaw-memory-search.md``.

>>> LINE.name, LINE.config_key
('2026.7', 'agents.defaults.memorySearch')
>>> LINE.stages()
('legs', 'fusion', 'decay', 'mmr', 'threshold', 'visibility')
>>> LINE.param("threshold", "relaxed")["fts-only"]
'zero'
"""

from __future__ import annotations

from memlab.lines.line import DateRule, Line, Step

__all__ = ["DATE_RULE", "LINE"]

#: temporal-decay.ts of 2026.7: ``memory/YYYY-MM-DD.md`` directly under a ``memory/`` segment
#: is dated; ``MEMORY.md`` is evergreen. ``[0-9]`` and ``\Z``, not ``\d`` and ``$``: JS ``\d`` is
#: ASCII-only and JS ``$`` (no /m) does not match before a trailing newline.
DATE_RULE = DateRule(
    name="2026.7",
    dated=r"(?:^|/)memory/([0-9]{4})-([0-9]{2})-([0-9]{2})\.md\Z",
    evergreen=frozenset({"MEMORY.md"}),
)

LINE = Line(
    name="2026.7",
    release="2026.7.35",
    layout="memorySearch",
    engine="stages",
    detected=True,
    recipe=(
        # The legs: vector (embeddings) and keyword (FTS5 bm25, AND query, the <=6-keyword
        # fallback), each cut to maxResults x candidateMultiplier.
        Step("legs"),
        # mergeHybridResults: vectorWeight*v + textWeight*t (the config's weights and
        # memlab.fusion).
        Step("fusion"),
        # temporal-decay.ts, when query.hybrid.temporalDecay.enabled (not in vector-only mode).
        Step("decay", {"modes": ("hybrid", "fts-only")}),
        # mmr.ts, when query.hybrid.mmr.enabled (hybrid mode only).
        Step("mmr", {"modes": ("hybrid",)}),
        # minScore with its relaxation per mode, then maxResults.
        Step("threshold", {"relaxed": {"hybrid": "keyword", "fts-only": "zero",
                                       "vector": None}}),
        # the memory_search tool's session visibility (transcripts only).
        Step("visibility"),
    ),
    tunable=(
        "provider", "model", "fallback", "chunking.tokens", "chunking.overlap",
        "query.maxResults", "query.minScore", "query.hybrid.enabled",
        "query.hybrid.vectorWeight", "query.hybrid.textWeight",
        "query.hybrid.candidateMultiplier", "query.hybrid.mmr.enabled",
        "query.hybrid.mmr.lambda", "query.hybrid.temporalDecay.enabled",
        "query.hybrid.temporalDecay.halfLifeDays", "store.fts.tokenizer", "sources",
        "experimental.sessionMemory", "extraPaths",
    ),
    chunking_version=0,  # 2026.7.35 writes no chunkingVersion (memlab.chunking)
    date_rule=DATE_RULE.name,
    schemas=("2026.7",),
)
