"""OpenClaw's ``memorySearch`` block (``agents.defaults.memorySearch`` /
``agents.list[].memorySearch``) as strict pydantic models of the 2026.7.35 zod schema,
with the values OpenClaw derives from it.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Literal

from pydantic import (
    Field,
    field_serializer,
)

from memlab.config.types import (
    DEFAULT_MODELS,
    DEFAULT_TEXT_WEIGHT,
    DEFAULT_VECTOR_WEIGHT,
    KNOWN_PROVIDERS,
    MAX_CANDIDATE_MULTIPLIER,
    MAX_CANDIDATES,
    MAX_TIMER_TIMEOUT_MS,
    SENSITIVE_HEADER,
    ContextSize,
    NonEmptyStr,
    NonNegInt,
    NoNull,
    PosInt,
    SecretInput,
    StrictModel,
    Unit,
)


class QmdCollection(StrictModel):
    """One ``qmd.extraCollections[]`` entry (QMD backend only)."""

    path: str
    name: Annotated[str | None, NoNull] = None
    pattern: Annotated[str | None, NoNull] = None


class QmdConfig(StrictModel):
    extra_collections: list[QmdCollection] = Field(default_factory=list, alias="extraCollections")


class MultimodalConfig(StrictModel):
    enabled: bool = False
    modalities: Annotated[list[Literal["image", "audio", "all"]] | None, NoNull] = None
    max_file_bytes: PosInt = Field(10 * 1024 * 1024, alias="maxFileBytes")

    def resolved_modalities(self) -> list[str]:
        """``[]`` when disabled; ``"all"`` or unset means image and audio."""
        if not self.enabled:
            return []
        if self.modalities is None or "all" in self.modalities:
            return ["image", "audio"]
        return [m for m in ("image", "audio") if m in self.modalities]

    def active(self) -> bool:
        return self.enabled and bool(self.resolved_modalities())


class ExperimentalConfig(StrictModel):
    session_memory: bool = Field(False, alias="sessionMemory")


class RemoteBatchConfig(StrictModel):
    enabled: bool = False
    wait: bool = True
    concurrency: PosInt = 2
    poll_interval_ms: NonNegInt = Field(2000, alias="pollIntervalMs")
    timeout_minutes: PosInt = Field(60, alias="timeoutMinutes")

    def resolved_poll_interval_ms(self) -> int:
        """``0`` falls back to 2000 ms; capped to Node's timer range."""
        if self.poll_interval_ms <= 0:
            return 2000
        return min(self.poll_interval_ms, MAX_TIMER_TIMEOUT_MS)

    def resolved_timeout_minutes(self) -> int:
        return max(1, min(self.timeout_minutes, MAX_TIMER_TIMEOUT_MS // 60_000))


class RemoteConfig(StrictModel):
    base_url: Annotated[str | None, NoNull] = Field(None, alias="baseUrl")
    api_key: Annotated[SecretInput | None, NoNull] = Field(None, alias="apiKey")
    #: Extra HTTP headers. Values are hidden from ``repr``; authorization-like ones are never
    #: dumped either (see :func:`dump_config`).
    headers: Annotated[dict[str, str] | None, NoNull] = Field(None, repr=False)
    non_batch_concurrency: Annotated[PosInt | None, NoNull] = Field(
        None, alias="nonBatchConcurrency")
    batch: RemoteBatchConfig = Field(default_factory=RemoteBatchConfig)

    @field_serializer("headers", when_used="json")
    def _hide_sensitive_headers(self, headers: dict[str, str] | None) -> dict[str, str] | None:
        if headers is None:
            return None
        return {k: "**********" if SENSITIVE_HEADER.search(k) else v for k, v in headers.items()}


class LocalConfig(StrictModel):
    model_path: Annotated[str | None, NoNull] = Field(None, alias="modelPath")
    model_cache_dir: Annotated[str | None, NoNull] = Field(None, alias="modelCacheDir")
    context_size: ContextSize = Field(4096, alias="contextSize")


class FtsConfig(StrictModel):
    tokenizer: Literal["unicode61", "trigram"] = "unicode61"


class VectorStoreConfig(StrictModel):
    enabled: bool = True
    extension_path: Annotated[str | None, NoNull] = Field(None, alias="extensionPath")


class StoreConfig(StrictModel):
    """``store``; ``store.path`` was removed in 2026.7 (indexes live in the agent database)."""

    driver: Literal["sqlite"] = "sqlite"
    fts: FtsConfig = Field(default_factory=FtsConfig)
    vector: VectorStoreConfig = Field(default_factory=VectorStoreConfig)


class ChunkingConfig(StrictModel):
    tokens: PosInt = 400
    overlap: NonNegInt = 80

    def resolved_tokens(self) -> int:
        return max(1, self.tokens)

    def resolved_overlap(self) -> int:
        """Overlap clamped to ``[0, tokens - 1]``."""
        return max(0, min(self.overlap, max(0, self.tokens - 1)))

    def max_chars(self) -> int:
        """Chunk budget in (CJK-weighted) characters: ``max(32, tokens * 4)``."""
        return max(32, self.resolved_tokens() * 4)

    def overlap_chars(self) -> int:
        return max(0, self.resolved_overlap() * 4)


class SyncSessionsConfig(StrictModel):
    delta_bytes: NonNegInt = Field(100_000, alias="deltaBytes")
    delta_messages: NonNegInt = Field(50, alias="deltaMessages")
    post_compaction_force: bool = Field(True, alias="postCompactionForce")


class SyncConfig(StrictModel):
    on_session_start: bool = Field(True, alias="onSessionStart")
    on_search: bool = Field(True, alias="onSearch")
    watch: bool = True
    watch_debounce_ms: NonNegInt = Field(1500, alias="watchDebounceMs")
    interval_minutes: NonNegInt = Field(0, alias="intervalMinutes")
    embedding_batch_timeout_seconds: Annotated[PosInt | None, NoNull] = Field(
        None, alias="embeddingBatchTimeoutSeconds")
    sessions: SyncSessionsConfig = Field(default_factory=SyncSessionsConfig)


class MmrConfig(StrictModel):
    enabled: bool = False
    lambda_: Unit = Field(0.7, alias="lambda")

    def resolved_lambda(self) -> float:
        return max(0.0, min(1.0, self.lambda_))


class TemporalDecayConfig(StrictModel):
    enabled: bool = False
    half_life_days: PosInt = Field(30, alias="halfLifeDays")

    def resolved_half_life_days(self) -> int:
        return max(1, math.floor(self.half_life_days))


class HybridConfig(StrictModel):
    enabled: bool = True
    vector_weight: Unit = Field(DEFAULT_VECTOR_WEIGHT, alias="vectorWeight")
    text_weight: Unit = Field(DEFAULT_TEXT_WEIGHT, alias="textWeight")
    candidate_multiplier: PosInt = Field(4, alias="candidateMultiplier")
    mmr: MmrConfig = Field(default_factory=MmrConfig)
    temporal_decay: TemporalDecayConfig = Field(
        default_factory=TemporalDecayConfig, alias="temporalDecay")

    def normalized_weights(self) -> tuple[float, float]:
        """``(vector, text)``: each clamped to [0, 1], divided by their sum (sum 0 -> 0.7/0.3;
        :func:`memlab.kernels.fusion.normalize_weights`)."""
        from memlab.kernels.fusion import normalize_weights

        return normalize_weights(self.vector_weight, self.text_weight)

    def resolved_candidate_multiplier(self) -> int:
        return max(1, min(MAX_CANDIDATE_MULTIPLIER, math.floor(self.candidate_multiplier)))

    def candidates(self, max_results: int) -> int:
        """``min(200, max(1, floor(max_results * clamp(candidateMultiplier, 1, 20))))``."""
        return _candidates(max_results, self.resolved_candidate_multiplier())


def _candidates(max_results: float, multiplier: float) -> int:
    return min(MAX_CANDIDATES, max(1, math.floor(max_results * multiplier)))


class QueryConfig(StrictModel):
    max_results: PosInt = Field(6, alias="maxResults")
    min_score: Unit = Field(0.35, alias="minScore")
    hybrid: HybridConfig = Field(default_factory=HybridConfig)

    def resolved_min_score(self) -> float:
        return max(0.0, min(1.0, float(self.min_score)))


class CacheConfig(StrictModel):
    enabled: bool = True
    max_entries: Annotated[PosInt | None, NoNull] = Field(None, alias="maxEntries")

    def resolved_max_entries(self) -> int | None:
        """``None`` = unbounded (2026.7 code; 2026.8+ fixes 50 000)."""
        return None if self.max_entries is None else max(1, math.floor(self.max_entries))


class MemorySearchConfig(StrictModel):
    """``agents.defaults.memorySearch`` as of OpenClaw 2026.7.35 (reference section 10)."""

    enabled: bool = True
    sources: list[Literal["memory", "sessions"]] = Field(default_factory=lambda: ["memory"])
    extra_paths: list[str] = Field(default_factory=list, alias="extraPaths")
    qmd: QmdConfig = Field(default_factory=QmdConfig)
    multimodal: MultimodalConfig = Field(default_factory=MultimodalConfig)
    experimental: ExperimentalConfig = Field(default_factory=ExperimentalConfig)
    #: Any string: built-in ids are :data:`KNOWN_PROVIDERS`; ``"auto"`` resolves to ``"openai"``.
    provider: str = "openai"
    remote: RemoteConfig = Field(default_factory=RemoteConfig)
    fallback: str = "none"
    model: Annotated[str | None, NoNull] = None
    input_type: Annotated[NonEmptyStr | None, NoNull] = Field(None, alias="inputType")
    query_input_type: Annotated[NonEmptyStr | None, NoNull] = Field(None, alias="queryInputType")
    document_input_type: Annotated[NonEmptyStr | None, NoNull] = Field(
        None, alias="documentInputType")
    output_dimensionality: Annotated[PosInt | None, NoNull] = Field(
        None, alias="outputDimensionality")
    local: LocalConfig = Field(default_factory=LocalConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    sync: SyncConfig = Field(default_factory=SyncConfig)
    query: QueryConfig = Field(default_factory=QueryConfig)
    cache: CacheConfig = Field(default_factory=CacheConfig)

    # -- resolved values (src/agents/memory-search.ts, mergeConfig) ---------------------------

    def resolved_provider(self) -> str:
        """The provider id in effect: trimmed; unset, empty or ``"auto"`` -> ``"openai"``."""
        raw = self.provider.strip()
        return "openai" if raw in ("", "auto") else raw

    def provider_requirement(self) -> Literal["fts-only", "optional", "required"]:
        """How an unavailable provider is treated (reference section 7.3).

        ``"none"`` -> keyword-only; provider unset, ``"auto"`` or ``"local"`` -> *optional*
        (degrade to keyword-only); any other explicitly configured id -> *required*
        (memory_search reports "unavailable").
        """
        configured = self.provider.strip() if "provider" in self.model_fields_set else ""
        if self.resolved_provider().lower() == "none" or configured.lower() == "none":
            return "fts-only"
        if not configured or configured == "auto" or self.resolved_provider().lower() == "local":
            return "optional"
        return "required"

    def is_known_provider(self) -> bool:
        return self.resolved_provider().lower() in KNOWN_PROVIDERS

    def resolved_model(self) -> str:
        """``model`` if set (even ``""``), else the adapter default, else ``""``."""
        if self.model is not None:
            return self.model
        return DEFAULT_MODELS.get(self.resolved_provider().lower(), "")

    def resolved_fallback(self) -> str | None:
        """The fallback provider id, or ``None`` when there is none (or provider is "none")."""
        if self.resolved_provider().lower() == "none" or not self.fallback or \
                self.fallback == "none":
            return None
        return self.fallback

    def query_input_type_resolved(self) -> str | None:
        """``input_type`` sent with query embeddings: ``queryInputType ?? inputType``."""
        return _trimmed(self.query_input_type) or _trimmed(self.input_type)

    def document_input_type_resolved(self) -> str | None:
        """``input_type`` sent with document embeddings: ``documentInputType ?? inputType``."""
        return _trimmed(self.document_input_type) or _trimmed(self.input_type)

    def effective_sources(self) -> list[str]:
        """``sources`` with ``"sessions"`` dropped unless ``experimental.sessionMemory``."""
        wanted = self.sources or ["memory"]
        out: list[str] = []
        for source in wanted:
            keep = source == "memory" or (
                source == "sessions" and self.experimental.session_memory)
            if keep and source not in out:
                out.append(source)
        return out or ["memory"]

    def effective_extra_paths(self) -> list[str]:
        """``extraPaths`` trimmed, empty entries dropped, first occurrence kept."""
        out: list[str] = []
        for entry in self.extra_paths:
            entry = entry.strip()
            if entry and entry not in out:
                out.append(entry)
        return out

    def normalized_weights(self) -> tuple[float, float]:
        """``(vectorWeight, textWeight)`` as the merge uses them (see :class:`HybridConfig`)."""
        return self.query.hybrid.normalized_weights()

    def candidates(self, max_results: int | None = None) -> int:
        """Candidates per leg for ``max_results`` (default ``query.maxResults``)."""
        n = self.query.max_results if max_results is None else max_results
        return self.query.hybrid.candidates(n)

    def half_life_days(self) -> int:
        return self.query.hybrid.temporal_decay.resolved_half_life_days()

    def mmr_lambda(self) -> float:
        return self.query.hybrid.mmr.resolved_lambda()

    def pipeline_mode(self) -> str:
        """The search mode: ``"fts-only"`` without a provider, else ``"hybrid"``, or
        ``"vector"`` with ``query.hybrid.enabled: false`` (what selects a line's recipe steps).

        >>> MemorySearchConfig(provider="none").pipeline_mode()
        'fts-only'
        """
        if self.resolved_provider() == "none":
            return "fts-only"
        return "hybrid" if self.query.hybrid.enabled else "vector"

    def resolved_overlap(self) -> int:
        return self.chunking.resolved_overlap()

    def index_concurrency(self) -> int:
        """Parallel embedding requests while indexing (reference section 7.4)."""
        if self.remote.batch.enabled:
            return self.remote.batch.concurrency
        if self.remote.non_batch_concurrency is not None:
            return max(1, self.remote.non_batch_concurrency)
        return 1 if self.resolved_provider().lower() == "ollama" else 4

    def batch_timeout_seconds(self) -> int:
        """Inline embedding batch timeout: configured, else 600 s local/ollama/lmstudio, 120 s."""
        if self.sync.embedding_batch_timeout_seconds is not None:
            return self.sync.embedding_batch_timeout_seconds
        slow = ("local", "ollama", "lmstudio")
        return 600 if self.resolved_provider().lower() in slow else 120

    def resolution_problems(self) -> list[str]:
        """Errors OpenClaw raises when it resolves this config (not schema errors)."""
        problems = []
        if not self.multimodal.active():
            return problems
        if self.fallback != "none":
            problems.append('multimodal does not support memorySearch.fallback; set fallback '
                            'to "none"')
        provider = self.resolved_provider().lower()
        if provider != "none" and provider in KNOWN_PROVIDERS:
            model = re.sub(r"^(gemini|google)/", "",
                           re.sub(r"^models/", "", self.resolved_model().strip()))
            if provider != "gemini" or model != "gemini-embedding-2-preview":
                problems.append(
                    "multimodal requires a provider adapter that supports multimodal "
                    'embeddings for the configured model (provider "gemini", model '
                    f'"gemini-embedding-2-preview"); got provider {self.provider!r}, model '
                    f"{self.resolved_model()!r}")
        return problems


def _trimmed(value: str | None) -> str | None:
    return value.strip() or None if value is not None else None
