"""memlab's research options (the top-level ``memlab`` key OpenClaw does not know) and
:class:`MemlabConfig`, the validated pair of ``memorySearch`` and ``memlab``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    Field,
    field_validator,
)
from pydantic_core import PydanticCustomError

from memlab.config.errors import ConfigError, ConfigIssue, validate_block
from memlab.config.schema import MemorySearchConfig
from memlab.config.types import STEMMERS, PosInt, StrictModel, Unit, model_to_raw
from memlab.lines import DATE_RULES, DEFAULT_DATE_RULE, detected_line, line_names

#: ``memlab.decayRule`` values: the names of the lines' dated/evergreen path rules.
_DATE_RULES = tuple(DATE_RULES)

#: The tiered search's fixed values, the what-ifs' defaults (one place: the line's recipe).
_TIERED = detected_line("memory.search")


class Bm25Options(StrictModel):
    """Okapi BM25 family for the in-process keyword leg (``memlab.keyword = "bm25"``)."""

    variant: Literal["robertson", "lucene", "atire", "bm25l", "bm25+"] = "lucene"
    k1: float = Field(1.2, ge=0)
    b: Unit = 0.75
    #: The lower bound added by BM25L and BM25+.
    delta: float = Field(0.5, ge=0)


class TokenizerOptions(StrictModel):
    """Keyword tokenisation; the defaults behave like FTS5's ``unicode61``."""

    lowercase: bool = True
    stopwords: Literal["en"] | None = None
    #: A Snowball stemmer name (:data:`STEMMERS`) or ``null``.
    stemmer: str | None = None
    #: ``"none"`` keeps a CJK run as one token (unicode61); ``"bigram"``/``"jieba"`` segment it.
    cjk: Literal["bigram", "jieba", "none"] = "none"
    thai: Literal["pythainlp", "none"] = "none"

    @field_validator("stemmer")
    @classmethod
    def _known_stemmer(cls, value: str | None) -> str | None:
        if value is not None and value not in STEMMERS:
            raise PydanticCustomError(
                "stemmer", "unknown stemmer {got}; allowed: null or one of {allowed}",
                {"got": repr(value), "allowed": ", ".join(STEMMERS)})
        return value


class FusionOptions(StrictModel):
    """How the vector and keyword legs are merged; ``"openclaw"`` is the weighted sum."""

    method: Literal["openclaw", "rrf", "minmax", "zscore"] = "openclaw"
    rrf_k: PosInt = Field(60, alias="rrfK")


class WhatIf(StrictModel):
    """What-if axes of the tiered search (:class:`memlab.tiered.search.TieredSearch`) for
    upstream discussions; unset, each is what the line's recipe fixes (the defaults shown are
    2026.9.6's, read from :mod:`memlab.lines.v2026_9`). RRF instead of the weighted blend is
    ``memlab.fusion.method: "rrf"`` (with ``rrfK``)."""

    #: The keyword score inside the fusion: 2026.9's ``"boosted"`` one or 2026.7's ``"raw"``
    #: FTS score (``bm25RankToScore``).
    keyword_score: Literal["boosted", "raw"] = Field(_TIERED.param("fusion", "keyword_score"),
                                                     alias="keywordScore")
    #: The candidate universe (candidates per leg and the selection universe).
    candidate_universe: PosInt = Field(_TIERED.param("selection", "universe"),
                                       alias="candidateUniverse")
    #: Temporal decay half-life in days (2026.9 fixes 30).
    half_life_days: float = Field(_TIERED.param("decay", "half_life_days"), alias="halfLifeDays",
                                  gt=0)

    def value(self, name: str, line_value: Any) -> Any:
        """The what-if ``name`` when the config sets it, else ``line_value`` (the line's)."""
        return getattr(self, name) if name in self.model_fields_set else line_value


class MemlabOptions(StrictModel):
    """memlab-only research options (top-level key ``memlab``); defaults mirror OpenClaw."""

    #: Keyword leg: in-process BM25, TF-IDF, or SQLite FTS5 itself.
    keyword: Literal["bm25", "tfidf", "fts5"] = "fts5"
    bm25: Bm25Options = Field(default_factory=Bm25Options)
    tokenizer: TokenizerOptions = Field(default_factory=TokenizerOptions)
    #: ``"all"`` requires every query token (FTS5's AND query); ``"any"`` is OR.
    match: Literal["any", "all"] = "all"
    #: OpenClaw 2026.7's ≤6-keyword fallback when the AND query finds nothing.
    keyword_fallback: bool = Field(True, alias="keywordFallback")
    fusion: FusionOptions = Field(default_factory=FusionOptions)
    #: FAISS ``index_factory`` string for the vector leg (``"Flat"`` = exact search).
    vector_index: str = Field("Flat", alias="vectorIndex", min_length=1)
    #: FAISS search parameters of an approximate ``vectorIndex`` (``faiss.ParameterSpace``),
    #: e.g. ``"nprobe=32"`` for ``"IVF1024,Flat"`` or ``"efSearch=256"`` for
    #: ``"HNSW32,Flat"``; ``null`` = FAISS's defaults (nprobe 1, efSearch 16: low recall).
    #: ``benchmarks/bench_scale.py`` finds the smallest value with recall@10 >= 0.99.
    vector_index_params: str | None = Field(None, alias="vectorIndexParams", min_length=1)
    #: Which release's temporal-decay dated/evergreen path rules to use (reference section 1).
    decay_rule: Literal[_DATE_RULES] = Field(DEFAULT_DATE_RULE, alias="decayRule")
    #: Embedding cache file; ``null``/unset = memlab's default location.
    embedding_cache: str | None = Field(None, alias="embeddingCache")
    #: Texts per embedding call for in-process models.
    batch_size: PosInt = Field(32, alias="batchSize")
    #: Persistent index file (SQLite); ``null``/unset = ``$MEMLAB_CACHE_DIR/index/<sha256 of
    #: the workspace realpath>.sqlite`` (``~/.cache/memlab`` by default).
    index_path: str | None = Field(None, alias="indexPath")
    #: ``"model-window"``: chunks longer than the local model's input window (its own tokens)
    #: are split by lines to fit it (:func:`memlab.embed.window.window_corpus`); OpenClaw
    #: chunks by ``chunking.tokens`` only (``"openclaw"``).
    chunking: Literal["openclaw", "model-window"] = "openclaw"
    #: The OpenClaw release line to reproduce (a name registered in :mod:`memlab.lines`);
    #: ``null``/unset = from the config layout (:func:`memlab.lines.detect_line`).
    profile: str | None = None
    #: What-if axes of the 2026.9 profile (memlab-only; export refuses them).
    what_if: WhatIf = Field(default_factory=WhatIf, alias="whatIf")

    @field_validator("profile")
    @classmethod
    def _known_line(cls, value: str | None) -> str | None:
        if value is not None and value not in line_names():
            raise PydanticCustomError(
                "profile", "unknown OpenClaw line {got}; allowed: {allowed}",
                {"got": repr(value), "allowed": ", ".join(repr(n) for n in line_names())})
        return value


class MemlabConfig(StrictModel):
    """What a memlab pipeline runs with: the resolved ``memorySearch`` plus memlab options."""

    memory_search: MemorySearchConfig = Field(
        default_factory=MemorySearchConfig, alias="memorySearch")
    memlab: MemlabOptions = Field(default_factory=MemlabOptions)
    #: ``models.providers`` of a whole OpenClaw config, for custom ``memorySearch.provider``
    #: ids (:mod:`memlab.config.providers`, :mod:`memlab.embed.custom`); not dumped.
    model_providers: dict[str, dict[str, Any]] = Field(
        default_factory=dict, alias="modelProviders", exclude=True, repr=False)

    def with_overrides(self, overrides: Mapping[str, Any]) -> MemlabConfig:
        """A re-validated copy with dotted camelCase keys set, e.g. for parameter sweeps::

            cfg.with_overrides({"query.hybrid.vectorWeight": 0.5, "memlab.fusion.method": "rrf"})

        Keys are relative to ``memorySearch`` unless they start with ``memorySearch.`` or
        ``memlab.``.
        """
        ms = model_to_raw(self.memory_search)
        ml = model_to_raw(self.memlab)
        for key, value in overrides.items():
            parts = key.split(".")
            target = ms
            if parts[0] == "memlab":
                target, parts = ml, parts[1:]
            elif parts[0] == "memorySearch":
                parts = parts[1:]
            if not parts or not all(parts):
                raise ConfigError([ConfigIssue(key, "not a key path")])
            node = target
            for part in parts[:-1]:
                child = node.setdefault(part, {})
                if not isinstance(child, dict):
                    raise ConfigError([ConfigIssue(key, f"{part!r} is not an object")])
                node = child
            node[parts[-1]] = value
        issues: list[ConfigIssue] = []
        new_ms = validate_block(MemorySearchConfig, ms, "memorySearch", issues)
        new_ml = validate_block(MemlabOptions, ml, "memlab", issues)
        if issues:
            raise ConfigError(issues)
        return MemlabConfig(memory_search=new_ms, memlab=new_ml,
                            model_providers=self.model_providers)
