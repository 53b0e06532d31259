"""OpenClaw 2026.9 (latest, ``openclaw@2026.9.6``): a different ranking, most knobs retired.

Config: ``memory.search`` (per agent ``agents.entries.<id>.memory.search``); the knobs 2026.9
retired are :data:`LINE`'s ``fixed`` values. The search is :class:`memlab.tiered.TieredSearch`
running :data:`LINE`'s recipe (``docs/openclaw-2026.9.md``, sections 0-11): 200 candidates per
leg, the path index and exact-path tiers, the keyword score boosted against the whole query in
the fusion, temporal decay and MMR always on, importance and project multipliers, then
``selectHybridSearchResults`` on the candidate universe and the cut to ``maxResults``.

>>> LINE.config_key, LINE.param("fusion", "vector_weight"), LINE.param("decay", "half_life_days")
('memory.search', 0.7, 30.0)
"""

from __future__ import annotations

from memlab.lines.line import DateRule, Line, Step

__all__ = ["DATE_RULE", "LINE"]

#: 2026.9.6's fixed ranking constants (``src/agents/memory-search.ts``), each written once:
#: the recipe's parameters and the retired keys' values below both use them.
VECTOR_WEIGHT, TEXT_WEIGHT, MMR_LAMBDA, HALF_LIFE_DAYS = 0.7, 0.3, 0.7, 30
CANDIDATE_UNIVERSE = 200

#: temporal-decay.ts since 2026.8 (``memlab.decayRule: "2026.8"``): a dated note may sit at any
#: depth under ``memory/`` (``memory/dreaming/light/YYYY-MM-DD.md``) and carry a slug
#: (``memory/YYYY-MM-DD-topic.md``); ``USER.md`` is evergreen too.
DATE_RULE = DateRule(
    name="2026.8",
    dated=r"(?:^|/)memory/(?:[^/]+/)*([0-9]{4})-([0-9]{2})-([0-9]{2})(?:-[^/]+)?\.md\Z",
    evergreen=frozenset({"MEMORY.md", "USER.md"}),
)

LINE = Line(
    name="2026.9",
    release="2026.9.6",
    layout="memory.search",
    engine="tiered",
    detected=True,
    recipe=(
        # Both legs to the candidate universe: keyword = body FTS + path FTS + exact-path
        # tiers + the fallback, boosted against the full query; vector = sqlite-vec's cosine.
        Step("legs"),
        # mergeHybridResults: 0.7 v + 0.3 b (b: the boosted keyword score, the path score for
        # non-exact path-only hits, 0 for exact ones); exact hits rank by (1 + clamp(c)) / 2.
        Step("fusion", {"method": "openclaw", "vector_weight": VECTOR_WEIGHT,
                        "text_weight": TEXT_WEIGHT,
                        "keyword_score": "boosted"}),
        # temporal decay, always on: dated paths at any depth (slugs too), USER.md evergreen,
        # session hits by their indexed mtime.
        Step("decay", {"half_life_days": float(HALF_LIFE_DAYS)}),
        # <!-- importance: N --> on the entry: x multiplier.
        Step("importance"),
        # applyProjectRanking: x1.15 active project, x0.9 another one (memlab.annotations).
        Step("projects"),
        # mmrRerank, always on, within each exact tier and on the rest (empty-token rule).
        Step("mmr", {"lambda": MMR_LAMBDA}),
        # selectHybridSearchResults on the candidate universe, then maxResults.
        Step("selection", {"universe": CANDIDATE_UNIVERSE}),
    ),
    tunable=(
        "provider", "model", "fallback", "outputDimensionality", "inputType",
        "queryInputType", "documentInputType", "store.fts.tokenizer", "store.vector.enabled",
        "query.minScore", "query.maxResults", "sources", "experimental.sessionMemory",
        "extraPaths",
    ),
    # the retired knobs (RETIRED_TUNING_PATHS) and the values 2026.9.6 resolves them to
    fixed={
        "chunking.tokens": 400, "chunking.overlap": 80,
        "query.hybrid.enabled": True, "query.hybrid.vectorWeight": VECTOR_WEIGHT,
        "query.hybrid.textWeight": TEXT_WEIGHT, "query.hybrid.candidateMultiplier": 4,
        "query.hybrid.mmr.enabled": True, "query.hybrid.mmr.lambda": MMR_LAMBDA,
        "query.hybrid.temporalDecay.enabled": True,
        "query.hybrid.temporalDecay.halfLifeDays": HALF_LIFE_DAYS,
        "cache.maxEntries": 50_000,
    },
    # what memory.search resolves when a key a user may set is unset
    defaults={
        "query.maxResults": 6, "query.minScore": 0.35, "provider": "openai",
        "fallback": "none", "store.fts.tokenizer": "unicode61",
    },
    chunking_version=5,
    date_rule=DATE_RULE.name,
    index_suffix=".2026.9",
    # "2026.8": memory.search of 2026.8 and later, the retired knobs' fixed values reported;
    # "2026.9": 2026.9.6's strict memory.search, a value it cannot express refused.
    schemas=("2026.8", "2026.9"),
)
