"""OpenClaw's ``memorySearch`` config (2026.7.35 schema) plus memlab's research options.

A memlab pipeline is described by OpenClaw's own JSON5 config. :func:`load_config` accepts

* a whole OpenClaw config (``~/.openclaw/openclaw.json``): only
  ``agents.defaults.memorySearch`` and ``agents.list[].memorySearch`` are read and validated,
  everything else in the file is left alone;
* a ``{"memorySearch": {...}, "memlab": {...}}`` wrapper;
* a bare ``memorySearch`` object (optionally with a ``memlab`` key next to its keys),

given as a path, JSON5 text or a dict, and returns a :class:`MemlabConfig`::

    >>> cfg = load_config('{query: {hybrid: {vectorWeight: 0.5, textWeight: 0.5}}}')
    >>> cfg.memory_search.normalized_weights()
    (0.5, 0.5)
    >>> cfg.memory_search.candidates()     # floor(maxResults 6 x candidateMultiplier 4)
    24

The models mirror OpenClaw's zod ``MemorySearchSchema`` (``src/config/zod-schema.agent-runtime.ts``
in openclaw@2026.7.35): every object is strict (unknown keys are errors), types are not coerced
(``"yes"`` is not a boolean, ``"4"`` is not a number), ``null`` is not a value, integers must
be integral. Keys are camelCase in files and snake_case attributes in Python. Field defaults
are the values OpenClaw uses when a key is unset (reference section 10); whether a key was
written in the config is kept in pydantic's ``model_fields_set`` (it matters: an explicitly
configured provider is *required*, the built-in default one only *optional*).

Values OpenClaw derives at resolution time (``src/agents/memory-search.ts``) are methods:
:meth:`MemorySearchConfig.normalized_weights`, :meth:`~MemorySearchConfig.candidates`,
:meth:`~MemorySearchConfig.half_life_days`, :meth:`~MemorySearchConfig.mmr_lambda`,
:meth:`~MemorySearchConfig.resolved_overlap`, :meth:`~MemorySearchConfig.effective_sources`,
:meth:`~MemorySearchConfig.resolved_provider` and more.

Every problem raises one :class:`ConfigError` naming the full key path, the bad value and what
is allowed. Secrets (``remote.apiKey``, authorization-like ``remote.headers``) never appear
in ``repr``, error messages or :func:`dump_config` output.

memlab-only options live under their own top-level key ``memlab`` (:class:`MemlabOptions`);
OpenClaw itself does not know that key, so :func:`dump_config` writes it only when set.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import json5
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    SecretStr,
    Tag,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

__all__ = [
    "DEFAULT_MODELS",
    "KNOWN_PROVIDERS",
    "OPENCLAW_VERSION",
    "STEMMERS",
    "Bm25Options",
    "CacheConfig",
    "ChunkingConfig",
    "ConfigError",
    "ConfigIssue",
    "ExperimentalConfig",
    "FtsConfig",
    "FusionOptions",
    "HybridConfig",
    "LocalConfig",
    "MemlabConfig",
    "MemlabOptions",
    "MemorySearchConfig",
    "MmrConfig",
    "MultimodalConfig",
    "QmdCollection",
    "QmdConfig",
    "QueryConfig",
    "RemoteBatchConfig",
    "RemoteConfig",
    "SecretRef",
    "StoreConfig",
    "SyncConfig",
    "SyncSessionsConfig",
    "TemporalDecayConfig",
    "TokenizerOptions",
    "VectorStoreConfig",
    "default_agent_id",
    "dump_config",
    "load_config",
    "merge_memory_search",
    "normalize_agent_id",
]

#: The OpenClaw release whose schema and defaults these models mirror.
OPENCLAW_VERSION = "2026.7.35"

#: Built-in memory embedding provider ids (reference section 7). OpenClaw's schema accepts any
#: string: plugin providers and ``models.providers`` entries are valid ids too.
KNOWN_PROVIDERS: tuple[str, ...] = (
    "openai", "gemini", "voyage", "mistral", "deepinfra", "bedrock", "github-copilot",
    "local", "ollama", "lmstudio", "openai-compatible", "none", "auto",
)

#: Adapter default models (reference section 7); ``model`` unset falls back to these.
DEFAULT_MODELS: dict[str, str] = {
    "openai": "text-embedding-3-small",
    "gemini": "gemini-embedding-001",
    "voyage": "voyage-4-large",
    "mistral": "mistral-embed",
    "deepinfra": "BAAI/bge-m3",
    "bedrock": "amazon.titan-embed-text-v2:0",
    "local": "hf:ggml-org/embeddinggemma-300m-qat-q8_0-GGUF/embeddinggemma-300m-qat-Q8_0.gguf",
    "ollama": "nomic-embed-text",
    "lmstudio": "text-embedding-nomic-embed-text-v1.5",
}

#: Snowball stemmers (PyStemmer's ``Stemmer.algorithms()``) accepted by ``memlab.tokenizer``.
STEMMERS: tuple[str, ...] = (
    "arabic", "armenian", "basque", "catalan", "czech", "danish", "dutch", "dutch_porter",
    "english", "esperanto", "estonian", "finnish", "french", "german", "greek", "hindi",
    "hungarian", "indonesian", "irish", "italian", "lithuanian", "nepali", "norwegian",
    "persian", "polish", "porter", "portuguese", "romanian", "russian", "serbian", "sesotho",
    "spanish", "swedish", "tamil", "turkish", "yiddish",
)

_MAX_SAFE_INTEGER = 2**53 - 1
_MAX_TIMER_TIMEOUT_MS = 2_147_000_000
_DEFAULT_VECTOR_WEIGHT = 0.7
_DEFAULT_TEXT_WEIGHT = 0.3
_MAX_CANDIDATES = 200
_MAX_CANDIDATE_MULTIPLIER = 20
_DEFAULT_AGENT_ID = "main"
_PLACEHOLDER = "<set; not written: secrets are never dumped>"
#: Header names whose values are treated as secrets.
_SENSITIVE_HEADER = re.compile(r"auth|key|token|secret|cookie|passw|signature|session|credential",
                               re.I)

# ---------------------------------------------------------------------------------------------
# Field types
# ---------------------------------------------------------------------------------------------


def _no_null(value: Any) -> Any:
    if value is None:
        raise PydanticCustomError(
            "null", "null is not allowed here; omit the key to use the default")
    return value


def _integral(value: Any) -> Any:
    """zod's ``number().int()``: integral floats (``4.0``, ``1e3``) are integers; bools are not."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _MAX_SAFE_INTEGER:
        raise PydanticCustomError("safe_int", "must be a safe integer (at most 2^53-1 in size)")
    return value


def _context_size(value: Any) -> Any:
    value = _integral(value)
    if value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
        return value
    raise PydanticCustomError("context_size", 'expected a positive integer or "auto"')


NoNull = BeforeValidator(_no_null)
Integral = BeforeValidator(_integral)
PosInt = Annotated[int, Integral, Field(gt=0)]
NonNegInt = Annotated[int, Integral, Field(ge=0)]
Unit = Annotated[float, Field(ge=0, le=1)]
NonEmptyStr = Annotated[str, Field(min_length=1)]
ContextSize = Annotated[int | Literal["auto"], BeforeValidator(_context_size)]

_SECRET_TEXT_TAG = "__secret_text__"
_SECRET_REF_TAG = "__secret_ref__"
_UNION_TAGS = frozenset({_SECRET_TEXT_TAG, _SECRET_REF_TAG})


def _secret_input_tag(value: Any) -> str | None:
    if isinstance(value, str | SecretStr):
        return _SECRET_TEXT_TAG
    if isinstance(value, dict | SecretRef):
        return _SECRET_REF_TAG
    return None


class _Model(BaseModel):
    """Strict, camelCase-aliased, unknown keys forbidden (zod ``.strict()``)."""

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        populate_by_name=True,
        allow_inf_nan=False,
        validate_assignment=True,
        hide_input_in_errors=True,
    )


_ENV_ID = re.compile(r"^[A-Z][A-Z0-9_]{0,127}$")
_PROVIDER_ALIAS = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")
_EXEC_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/#-]{0,255}$")
_FILE_SEGMENT = re.compile(r"^(?:[^~]|~0|~1)*$")


class SecretRef(_Model):
    """A secret reference, e.g. ``{source: "env", provider: "default", id: "OPENAI_API_KEY"}``.

    It names where the secret lives, not the secret, so it is written by :func:`dump_config`.
    """

    source: Literal["env", "file", "exec"]
    provider: str
    id: str

    @field_validator("provider")
    @classmethod
    def _provider_alias(cls, value: str) -> str:
        if not _PROVIDER_ALIAS.match(value):
            raise PydanticCustomError(
                "secret_ref", 'secret reference provider must match /^[a-z][a-z0-9_-]{0,63}$/ '
                '(example: "default")')
        return value

    @model_validator(mode="after")
    def _id_grammar(self) -> SecretRef:
        if self.source == "env" and not _ENV_ID.match(self.id):
            raise PydanticCustomError(
                "secret_ref", 'env secret reference id must match /^[A-Z][A-Z0-9_]{0,127}$/ '
                '(example: "OPENAI_API_KEY")')
        if self.source == "file" and not (
                self.id == "value" or (self.id.startswith("/") and all(
                    _FILE_SEGMENT.match(s) for s in self.id[1:].split("/")))):
            raise PydanticCustomError(
                "secret_ref", "file secret reference id must be an absolute JSON pointer "
                '(example: "/providers/openai/apiKey") or "value"')
        if self.source == "exec" and (not _EXEC_ID.match(self.id) or any(
                s in (".", "..") for s in self.id.split("/"))):
            raise PydanticCustomError(
                "secret_ref", "exec secret reference id must match "
                "/^[A-Za-z0-9][A-Za-z0-9._:/#-]{0,255}$/ without '.' or '..' segments")
        return self


SecretInput = Annotated[
    Annotated[SecretStr, Tag(_SECRET_TEXT_TAG)] | Annotated[SecretRef, Tag(_SECRET_REF_TAG)],
    Discriminator(_secret_input_tag, custom_error_type="secret_input",
                  custom_error_message="expected a string or a secret reference object "
                                       "{source, provider, id}"),
]

# ---------------------------------------------------------------------------------------------
# memorySearch (agents.defaults.memorySearch / agents.list[].memorySearch)
# ---------------------------------------------------------------------------------------------


class QmdCollection(_Model):
    """One ``qmd.extraCollections[]`` entry (QMD backend only)."""

    path: str
    name: Annotated[str | None, NoNull] = None
    pattern: Annotated[str | None, NoNull] = None


class QmdConfig(_Model):
    extra_collections: list[QmdCollection] = Field(default_factory=list, alias="extraCollections")


class MultimodalConfig(_Model):
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


class ExperimentalConfig(_Model):
    session_memory: bool = Field(False, alias="sessionMemory")


class RemoteBatchConfig(_Model):
    enabled: bool = False
    wait: bool = True
    concurrency: PosInt = 2
    poll_interval_ms: NonNegInt = Field(2000, alias="pollIntervalMs")
    timeout_minutes: PosInt = Field(60, alias="timeoutMinutes")

    def resolved_poll_interval_ms(self) -> int:
        """``0`` falls back to 2000 ms; capped to Node's timer range."""
        if self.poll_interval_ms <= 0:
            return 2000
        return min(self.poll_interval_ms, _MAX_TIMER_TIMEOUT_MS)

    def resolved_timeout_minutes(self) -> int:
        return max(1, min(self.timeout_minutes, _MAX_TIMER_TIMEOUT_MS // 60_000))


class RemoteConfig(_Model):
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
        return {k: "**********" if _SENSITIVE_HEADER.search(k) else v for k, v in headers.items()}


class LocalConfig(_Model):
    model_path: Annotated[str | None, NoNull] = Field(None, alias="modelPath")
    model_cache_dir: Annotated[str | None, NoNull] = Field(None, alias="modelCacheDir")
    context_size: ContextSize = Field(4096, alias="contextSize")


class FtsConfig(_Model):
    tokenizer: Literal["unicode61", "trigram"] = "unicode61"


class VectorStoreConfig(_Model):
    enabled: bool = True
    extension_path: Annotated[str | None, NoNull] = Field(None, alias="extensionPath")


class StoreConfig(_Model):
    """``store``; ``store.path`` was removed in 2026.7 (indexes live in the agent database)."""

    driver: Literal["sqlite"] = "sqlite"
    fts: FtsConfig = Field(default_factory=FtsConfig)
    vector: VectorStoreConfig = Field(default_factory=VectorStoreConfig)


class ChunkingConfig(_Model):
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


class SyncSessionsConfig(_Model):
    delta_bytes: NonNegInt = Field(100_000, alias="deltaBytes")
    delta_messages: NonNegInt = Field(50, alias="deltaMessages")
    post_compaction_force: bool = Field(True, alias="postCompactionForce")


class SyncConfig(_Model):
    on_session_start: bool = Field(True, alias="onSessionStart")
    on_search: bool = Field(True, alias="onSearch")
    watch: bool = True
    watch_debounce_ms: NonNegInt = Field(1500, alias="watchDebounceMs")
    interval_minutes: NonNegInt = Field(0, alias="intervalMinutes")
    embedding_batch_timeout_seconds: Annotated[PosInt | None, NoNull] = Field(
        None, alias="embeddingBatchTimeoutSeconds")
    sessions: SyncSessionsConfig = Field(default_factory=SyncSessionsConfig)


class MmrConfig(_Model):
    enabled: bool = False
    lambda_: Unit = Field(0.7, alias="lambda")

    def resolved_lambda(self) -> float:
        return max(0.0, min(1.0, self.lambda_))


class TemporalDecayConfig(_Model):
    enabled: bool = False
    half_life_days: PosInt = Field(30, alias="halfLifeDays")

    def resolved_half_life_days(self) -> int:
        return max(1, math.floor(self.half_life_days))


class HybridConfig(_Model):
    enabled: bool = True
    vector_weight: Unit = Field(_DEFAULT_VECTOR_WEIGHT, alias="vectorWeight")
    text_weight: Unit = Field(_DEFAULT_TEXT_WEIGHT, alias="textWeight")
    candidate_multiplier: PosInt = Field(4, alias="candidateMultiplier")
    mmr: MmrConfig = Field(default_factory=MmrConfig)
    temporal_decay: TemporalDecayConfig = Field(
        default_factory=TemporalDecayConfig, alias="temporalDecay")

    def normalized_weights(self) -> tuple[float, float]:
        """``(vector, text)``: each clamped to [0, 1], divided by their sum (sum 0 -> 0.7/0.3)."""
        vw = max(0.0, min(1.0, float(self.vector_weight)))
        tw = max(0.0, min(1.0, float(self.text_weight)))
        total = vw + tw
        if total <= 0:
            return _DEFAULT_VECTOR_WEIGHT, _DEFAULT_TEXT_WEIGHT
        return vw / total, tw / total

    def resolved_candidate_multiplier(self) -> int:
        return max(1, min(_MAX_CANDIDATE_MULTIPLIER, math.floor(self.candidate_multiplier)))

    def candidates(self, max_results: int) -> int:
        """``min(200, max(1, floor(max_results * clamp(candidateMultiplier, 1, 20))))``."""
        return _candidates(max_results, self.resolved_candidate_multiplier())


def _candidates(max_results: float, multiplier: float) -> int:
    return min(_MAX_CANDIDATES, max(1, math.floor(max_results * multiplier)))


class QueryConfig(_Model):
    max_results: PosInt = Field(6, alias="maxResults")
    min_score: Unit = Field(0.35, alias="minScore")
    hybrid: HybridConfig = Field(default_factory=HybridConfig)

    def resolved_min_score(self) -> float:
        return max(0.0, min(1.0, float(self.min_score)))


class CacheConfig(_Model):
    enabled: bool = True
    max_entries: Annotated[PosInt | None, NoNull] = Field(None, alias="maxEntries")

    def resolved_max_entries(self) -> int | None:
        """``None`` = unbounded (2026.7 code; 2026.8+ fixes 50 000)."""
        return None if self.max_entries is None else max(1, math.floor(self.max_entries))


class MemorySearchConfig(_Model):
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


# ---------------------------------------------------------------------------------------------
# memlab research options (top-level "memlab")
# ---------------------------------------------------------------------------------------------


class Bm25Options(_Model):
    """Okapi BM25 family for the in-process keyword leg (``memlab.keyword = "bm25"``)."""

    variant: Literal["robertson", "lucene", "atire", "bm25l", "bm25+"] = "lucene"
    k1: float = Field(1.2, ge=0)
    b: Unit = 0.75
    #: The lower bound added by BM25L and BM25+.
    delta: float = Field(0.5, ge=0)


class TokenizerOptions(_Model):
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


class FusionOptions(_Model):
    """How the vector and keyword legs are merged; ``"openclaw"`` is the weighted sum."""

    method: Literal["openclaw", "rrf", "minmax", "zscore"] = "openclaw"
    rrf_k: PosInt = Field(60, alias="rrfK")


class MemlabOptions(_Model):
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
    #: Which release's temporal-decay dated/evergreen path rules to use (reference section 1).
    decay_rule: Literal["2026.7", "2026.8"] = Field("2026.7", alias="decayRule")
    #: Embedding cache file; ``null``/unset = memlab's default location.
    embedding_cache: str | None = Field(None, alias="embeddingCache")
    #: Texts per embedding call for in-process models.
    batch_size: PosInt = Field(32, alias="batchSize")
    #: Persistent index file (SQLite); ``null``/unset = ``$MEMLAB_CACHE_DIR/index/<sha256 of
    #: the workspace realpath>.sqlite`` (``~/.cache/memlab`` by default).
    index_path: str | None = Field(None, alias="indexPath")


class MemlabConfig(_Model):
    """What a memlab pipeline runs with: the resolved ``memorySearch`` plus memlab options."""

    memory_search: MemorySearchConfig = Field(
        default_factory=MemorySearchConfig, alias="memorySearch")
    memlab: MemlabOptions = Field(default_factory=MemlabOptions)

    def with_overrides(self, overrides: Mapping[str, Any]) -> MemlabConfig:
        """A re-validated copy with dotted camelCase keys set, e.g. for parameter sweeps::

            cfg.with_overrides({"query.hybrid.vectorWeight": 0.5, "memlab.fusion.method": "rrf"})

        Keys are relative to ``memorySearch`` unless they start with ``memorySearch.`` or
        ``memlab.``.
        """
        ms = _model_to_raw(self.memory_search)
        ml = _model_to_raw(self.memlab)
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
        new_ms = _validate(MemorySearchConfig, ms, "memorySearch", issues)
        new_ml = _validate(MemlabOptions, ml, "memlab", issues)
        if issues:
            raise ConfigError(issues)
        return MemlabConfig(memory_search=new_ms, memlab=new_ml)


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigIssue:
    """One problem: the full dotted key path and what is wrong with it."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ConfigError(ValueError):
    """An invalid config: syntax error, wrong shape or schema violation(s).

    ``issues`` lists every problem found; ``source`` is the file name (or ``<string>``,
    ``<dict>``), ``line``/``column`` locate a syntax error when the parser reports it.
    """

    MAX_SHOWN = 12

    def __init__(self, issues: list[ConfigIssue] | str, source: str | None = None,
                 line: int | None = None, column: int | None = None):
        if isinstance(issues, str):
            issues = [ConfigIssue("", issues)]
        self.issues = list(issues)
        self.source = source
        self.line = line
        self.column = column
        super().__init__(self._format())

    def _format(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where += f" line {self.line}" + (f", column {self.column}" if self.column else "")
        head = f"{where}: " if where else ""
        if len(self.issues) == 1:
            return f"{head}{self.issues[0]}"
        shown = self.issues[: self.MAX_SHOWN]
        lines = [f"{head}{len(self.issues)} config errors:"]
        lines += [f"  - {issue}" for issue in shown]
        if len(self.issues) > len(shown):
            lines.append(f"  ... and {len(self.issues) - len(shown)} more")
        return "\n".join(lines)


_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")

_LEGACY_HINTS = {
    ("store", "path"): (
        "legacy key (<= 2026.6), rejected by 2026.7: memory indexes now live in each agent "
        "database (~/.openclaw/agents/<agentId>/agent/openclaw-agent.sqlite); remove the key "
        "(openclaw doctor --fix does)"),
}


def _join_path(prefix: str, loc: tuple[Any, ...] | list[Any]) -> str:
    out = prefix
    for seg in loc:
        if isinstance(seg, int):
            out += f"[{seg}]"
        elif _IDENT.match(str(seg)):
            out += f".{seg}" if out else str(seg)
        else:
            out += f"[{json.dumps(str(seg))}]"
    return out


def _show(value: Any, sensitive: bool = False) -> str:
    """A short, safe rendering of a bad value for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if sensitive:
        kind = {str: "a string", int: "a number", float: "a number", list: "a list",
                dict: "an object"}.get(type(value), type(value).__name__)
        return f"{kind} (value hidden)"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        try:
            text = json.dumps(value)
        except (TypeError, ValueError):
            text = ""
        if text and len(text) <= 60 and all(not isinstance(v, dict | list) for v in value):
            return text
        return f"a list of {len(value)} items"
    return type(value).__name__


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _field_named(cls: type[BaseModel], key: Any) -> tuple[str, Any] | None:
    for name, info in cls.model_fields.items():
        if key in (info.alias, name):
            return name, info
    return None


def _model_at(cls: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    cur: type[BaseModel] | None = cls
    for seg in loc:
        if cur is None:
            return None
        if isinstance(seg, int):
            continue
        found = _field_named(cur, seg)
        if found is None:
            return None
        cur = _inner_model(found[1].annotation)
    return cur


def _bounds(cls: type[BaseModel], loc: tuple[Any, ...]) -> tuple[Any, Any, Any, Any]:
    """(gt, ge, lt, le) of the field at ``loc`` (``None`` where absent)."""
    parent = _model_at(cls, loc[:-1]) if loc else None
    found = _field_named(parent, loc[-1]) if parent is not None and loc else None
    gt = ge = lt = le = None
    if found is not None:
        for meta in found[1].metadata:
            gt = getattr(meta, "gt", gt)
            ge = getattr(meta, "ge", ge)
            lt = getattr(meta, "lt", lt)
            le = getattr(meta, "le", le)
    return gt, ge, lt, le


def _allowed_keys(cls: type[BaseModel]) -> list[str]:
    return sorted(info.alias or name for name, info in cls.model_fields.items()
                  if not info.exclude)


def _translate(error: Mapping[str, Any], cls: type[BaseModel], prefix: str) -> ConfigIssue:
    loc = tuple(seg for seg in error["loc"] if seg not in _UNION_TAGS)
    path = _join_path(prefix, loc)
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    sensitive = any(seg in ("apiKey", "headers") for seg in loc)
    got = _show(value, sensitive)
    null_hint = " (omit the key to use the default)" if value is None else ""
    if kind == "extra_forbidden":
        key = loc[-1] if loc else ""
        hint = _LEGACY_HINTS.get(tuple(loc[-2:]))
        if hint:
            return ConfigIssue(path, hint)
        parent = _model_at(cls, loc[:-1])
        allowed = _allowed_keys(parent) if parent is not None else []
        msg = f"unknown key {str(key)!r}"
        by_name = _field_named(parent, key) if parent is not None else None
        suggestion = (by_name[1].alias if by_name and by_name[1].alias else None) or next(
            iter(difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.75)), None)
        if suggestion and suggestion != key:
            msg += f" (did you mean {suggestion!r}?)"
        if allowed:
            msg += "; allowed keys here: " + ", ".join(allowed)
        return ConfigIssue(path, msg)
    if kind == "missing":
        return ConfigIssue(path, "required key is missing")
    if kind == "bool_type":
        return ConfigIssue(path, f"expected a boolean (true or false), got {got}{null_hint}")
    if kind in ("int_type", "int_from_float", "int_parsing"):
        return ConfigIssue(path, f"expected an integer, got {got}{null_hint}")
    if kind in ("float_type", "float_parsing"):
        return ConfigIssue(path, f"expected a number, got {got}{null_hint}")
    if kind == "finite_number":
        return ConfigIssue(path, f"must be a finite number, got {got}")
    if kind == "string_type":
        return ConfigIssue(path, f"expected a string, got {got}{null_hint}")
    if kind == "list_type":
        return ConfigIssue(path, f"expected a list, got {got}{null_hint}")
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return ConfigIssue(path, f"expected an object, got {got}{null_hint}")
    if kind == "literal_error":
        return ConfigIssue(path, f"must be {ctx.get('expected', 'one of the allowed values')}, "
                                 f"got {got}{null_hint}")
    if kind in ("string_too_short", "too_short"):
        return ConfigIssue(path, "must not be empty")
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        gt, ge, lt, le = _bounds(cls, loc)
        is_int = isinstance(value, int) and not isinstance(value, bool)
        if ge is not None and le is not None:
            return ConfigIssue(path, f"must be between {ge} and {le}, got {got}")
        if gt == 0 and is_int:
            return ConfigIssue(path, f"must be a positive integer (> 0), got {got}")
        if ge == 0 and is_int:
            return ConfigIssue(path, f"must be a non-negative integer (>= 0), got {got}")
        bound = ", ".join(f"{op} {b}" for op, b in ((">", gt), (">=", ge), ("<", lt), ("<=", le))
                          if b is not None)
        return ConfigIssue(path, f"must be {bound}, got {got}")
    if kind in ("null", "secret_input", "safe_int", "secret_ref", "stemmer"):
        return ConfigIssue(path, f"{error['msg']}, got {got}" if kind in (
            "secret_input", "safe_int") else error["msg"])
    if kind == "context_size":
        return ConfigIssue(path, f"{error['msg']}, got {got}{null_hint}")
    return ConfigIssue(path, str(error.get("msg", kind)))


_M = typing.TypeVar("_M", bound=BaseModel)


def _validate(cls: type[_M], raw: Any, prefix: str, issues: list[ConfigIssue]) -> _M | None:
    """Validate camelCase ``raw`` (config-file semantics: aliases only); collect issues."""
    try:
        return cls.model_validate(raw, by_alias=True, by_name=False)
    except ValidationError as exc:
        issues.extend(_translate(e, cls, prefix) for e in exc.errors())
        return None

# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------

#: Top-level keys of OpenClaw's root config schema (openclaw@2026.7.35 ``OpenClawSchema``).
_OPENCLAW_ROOT_KEYS = frozenset({
    "$schema", "meta", "env", "wizard", "diagnostics", "audit", "logging", "cli", "crestodian",
    "update", "browser", "ui", "tui", "secrets", "marketplaces", "auth", "accessGroups", "acp",
    "models", "nodeHost", "agents", "tools", "security", "bindings", "broadcast", "audio",
    "media", "messages", "commands", "approvals", "session", "cron", "transcripts",
    "commitments", "hooks", "web", "channels", "discovery", "talk", "gateway", "memory", "mcp",
    "skills", "plugins", "canvasHost", "surfaces", "proxy",
})
_SYNTAX = re.compile(r"^<string>:(\d+)\s+(.*?)(?:\s+at column (\d+))?$", re.S)


def _parse_text(text: str, source: str) -> Any:
    try:
        return json5.loads(text)
    except ValueError as exc:
        msg = str(exc)
        m = _SYNTAX.match(msg)
        if m:
            col = int(m.group(3)) if m.group(3) else None
            raise ConfigError(f"JSON5 syntax error: {m.group(2)}", source=source,
                              line=int(m.group(1)), column=col) from None
        raise ConfigError(f"JSON5 syntax error: {msg}", source=source) from None


def _read_source(source: str | Path | Mapping[str, Any]) -> tuple[Any, str]:
    if isinstance(source, Mapping):
        return _plain(source), "<dict>"
    if isinstance(source, Path):
        return _read_file(source), str(source)
    if not isinstance(source, str):
        raise TypeError(f"load_config() takes a path, JSON5 text, a dict or None, not "
                        f"{type(source).__name__}")
    head = re.sub(r"^(\s+|//[^\n]*\n?|/\*.*?\*/)*", "", source, flags=re.S)
    stripped = source.strip()
    if not stripped or head.startswith(("{", "[")) or head != source.lstrip() or "\n" in stripped:
        return _parse_text(source, "<string>"), "<string>"
    return _read_file(Path(source)), source


def _read_file(path: Path) -> Any:
    path = path.expanduser()
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError("config file not found", source=str(path)) from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file: {exc}", source=str(path)) from None
    return _parse_text(text, str(path))


def _plain(value: Any) -> Any:
    """A deep copy of dict/list structure (so callers' dicts are never mutated)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def normalize_agent_id(value: str | None) -> str:
    """OpenClaw's ``normalizeAgentId``: trimmed, lower-cased, invalid runs -> ``-``."""
    trimmed = (value or "").strip()
    if not trimmed:
        return _DEFAULT_AGENT_ID
    lowered = trimmed.lower()
    if re.match(r"^[a-z0-9][a-z0-9_-]{0,63}$", trimmed, re.I):
        return lowered
    cleaned = re.sub(r"[^a-z0-9_-]+", "-", lowered).lstrip("-").rstrip("-")[:64]
    return cleaned or _DEFAULT_AGENT_ID


def default_agent_id(source: str | Path | Mapping[str, Any] | MemlabConfig | None = None,
                     workspace: str | Path | None = None) -> str:
    """The agent a command acts for when no ``--agent`` is given.

    In a whole OpenClaw config: the ``agents.list[]`` entry whose ``workspace`` is
    ``workspace`` (paths compared resolved), else OpenClaw's default agent (``default: true``,
    else the first entry); otherwise ``"main"``. The agent picks its ``memorySearch``
    override and the transcripts searched (``sessions/<agentId>/``).

    >>> default_agent_id({"agents": {"list": [{"id": "Ops"}, {"id": "x", "default": True}]}})
    'x'
    >>> default_agent_id({"provider": "none"})
    'main'
    """
    if source is None or isinstance(source, MemlabConfig):
        return _DEFAULT_AGENT_ID
    raw, _name = _read_source(source)
    agents = raw.get("agents") if isinstance(raw, dict) else None
    entries = agents.get("list") if isinstance(agents, dict) else None
    if not isinstance(entries, list):
        return _DEFAULT_AGENT_ID
    entries = [e for e in entries if isinstance(e, dict)]

    def ident(entry: dict[str, Any]) -> str:
        value = entry.get("id")
        return normalize_agent_id(value.strip() if isinstance(value, str) else None)

    if workspace is not None:
        here = Path(workspace).expanduser().resolve()
        for entry in entries:
            where = entry.get("workspace")
            if isinstance(where, str) and Path(where).expanduser().resolve() == here:
                return ident(entry)
    chosen = next((e for e in entries if e.get("default")), entries[0] if entries else None)
    return ident(chosen) if chosen is not None else _DEFAULT_AGENT_ID


_TRIM_OR_KEYS = ("inputType", "queryInputType", "documentInputType")


def merge_memory_search(defaults: Mapping[str, Any] | None,
                        override: Mapping[str, Any] | None) -> dict[str, Any]:
    """OpenClaw's per-agent merge of raw ``memorySearch`` objects.

    Leaf by leaf ``override ?? defaults`` (nested objects merged key by key; lists and
    ``remote.headers`` replaced whole), except ``extraPaths`` and ``qmd.extraCollections``,
    which concatenate defaults then agent (extraPaths de-duplicated), and the input types,
    where a blank override falls through to the defaults.
    """
    return _merge(_plain(defaults or {}), _plain(override or {}), ())


def _merge(base: dict[str, Any], over: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        here = (*path, key)
        if value is None:
            continue
        old = out.get(key)
        if here == ("extraPaths",) and isinstance(value, list) and isinstance(old, list):
            out[key] = list(dict.fromkeys([*old, *value]))
        elif here == ("qmd", "extraCollections") and isinstance(value, list) and \
                isinstance(old, list):
            out[key] = [*old, *value]
        elif here == ("remote", "headers"):
            out[key] = value
        elif not path and key in _TRIM_OR_KEYS and isinstance(value, str) and not value.strip():
            if not (isinstance(old, str) and old.strip()):
                out.pop(key, None)
        elif isinstance(value, dict) and isinstance(old, dict):
            out[key] = _merge(old, value, here)
        else:
            out[key] = value
    return out


def load_config(source: str | Path | Mapping[str, Any] | MemlabConfig | None = None, *,
                agent_id: str | None = None) -> MemlabConfig:
    """Load and validate a config; see the module docstring for the accepted shapes.

    ``source`` is a path (``str`` or :class:`~pathlib.Path`) to a JSON5/JSON file, JSON5 text,
    a dict, a :class:`MemlabConfig` (returned as is) or ``None`` (all defaults).

    In a whole OpenClaw config, ``agent_id`` picks the agent whose ``agents.list[]`` entry
    overrides ``agents.defaults.memorySearch`` (:func:`merge_memory_search`); ``None`` means
    OpenClaw's default agent (the entry with ``default: true``, else the first, else
    ``"main"``); :func:`default_agent_id` names it. A bare ``memorySearch`` block applies to
    every agent. Every ``memorySearch`` block in the file is validated, as OpenClaw does.

    Raises :class:`ConfigError` for syntax errors, unknown agents, schema violations and the
    errors OpenClaw raises while resolving the config (multimodal with a fallback provider).
    """
    if isinstance(source, MemlabConfig):
        return source
    if source is None:
        return MemlabConfig()
    raw, name = _read_source(source)
    if not isinstance(raw, dict):
        raise ConfigError(f"the config must be an object, got {_show(raw)}", source=name)

    issues: list[ConfigIssue] = []
    keys = set(raw)
    memlab_raw = raw.get("memlab", {})
    whole = "agents" in keys or bool(keys & (_OPENCLAW_ROOT_KEYS - {"$schema"}))
    if whole:
        ms_raw, ms_prefix = _from_openclaw(raw, agent_id, issues, name)
    else:
        # a bare memorySearch block applies to every agent: agent_id selects nothing here
        if "memorySearch" in keys:
            for extra in sorted(keys - {"memorySearch", "memlab", "$schema"}):
                issues.append(ConfigIssue(extra, f"unknown top-level key {extra!r}; a "
                                                 "{memorySearch, memlab} wrapper allows only "
                                                 "those two keys"))
            ms_raw, ms_prefix = raw["memorySearch"], "memorySearch"
        else:
            ms_raw = {k: v for k, v in raw.items() if k not in ("memlab", "$schema")}
            ms_prefix = ""
        if not isinstance(ms_raw, dict):
            issues.append(ConfigIssue(ms_prefix, f"expected an object, got {_show(ms_raw)}"))
            ms_raw = {}
    # Whole configs had every block validated on its own; do not report them twice.
    memory_search = None if issues and whole else _validate(
        MemorySearchConfig, ms_raw, ms_prefix, issues)
    memlab = _validate(MemlabOptions, memlab_raw, "memlab", issues)
    if memory_search is not None:
        where = ms_prefix if ms_prefix in ("", "memorySearch") else "agents.*.memorySearch"
        for problem in memory_search.resolution_problems():
            issues.append(ConfigIssue(_join_path(where, ["multimodal"]), problem))
    if issues or memory_search is None or memlab is None:
        raise ConfigError(issues, source=name)
    return MemlabConfig(memory_search=memory_search, memlab=memlab)


def _misplaced_memory_search(node: Any, path: tuple[Any, ...] = (), depth: int = 0
                             ) -> list[str]:
    """Paths of ``memorySearch`` keys a whole OpenClaw config would not read (e.g.
    ``agents.memorySearch``); the top level is reported by its own message."""
    out: list[str] = []
    if depth > 6:
        return out
    items = (node.items() if isinstance(node, dict)
             else enumerate(node) if isinstance(node, list) else ())
    for key, value in items:
        here = (*path, key)
        ok = (here in (("memorySearch",), ("agents", "defaults", "memorySearch"))
              or (len(here) == 4 and here[:2] == ("agents", "list")
                  and here[3] == "memorySearch"))
        if key == "memorySearch" and not ok:
            out.append(_join_path("", list(here)))
        elif key != "memorySearch":
            out.extend(_misplaced_memory_search(value, here, depth + 1))
    return out


def _from_openclaw(raw: dict[str, Any], agent_id: str | None, issues: list[ConfigIssue],
                   name: str) -> tuple[dict[str, Any], str]:
    """Pick and merge the memorySearch blocks of a whole OpenClaw config."""
    if "memorySearch" in raw:
        issues.append(ConfigIssue("memorySearch", "top-level memorySearch was moved; use "
                                                  "agents.defaults.memorySearch instead "
                                                  "(openclaw doctor --fix moves it)"))
    agents = raw.get("agents", {})
    if not isinstance(agents, dict):
        issues.append(ConfigIssue("agents", f"expected an object, got {_show(agents)}"))
        agents = {}
    for where in _misplaced_memory_search(raw):  # it would be silently ignored otherwise
        issues.append(ConfigIssue(where, "memorySearch is not read here; put it at "
                                         "agents.defaults.memorySearch (every agent) or "
                                         "agents.list[].memorySearch (one agent)"))
    defaults = agents.get("defaults", {})
    if not isinstance(defaults, dict):
        issues.append(ConfigIssue("agents.defaults", f"expected an object, got {_show(defaults)}"))
        defaults = {}
    base = defaults.get("memorySearch", {})
    prefix = "agents.defaults.memorySearch"
    if not isinstance(base, dict):
        issues.append(ConfigIssue(prefix, f"expected an object, got {_show(base)}"))
        base = {}
    else:
        _validate(MemorySearchConfig, base, prefix, issues)

    entries = agents.get("list", [])
    if not isinstance(entries, list):
        issues.append(ConfigIssue("agents.list", f"expected a list, got {_show(entries)}"))
        entries = []
    indexed = [(i, e) for i, e in enumerate(entries) if isinstance(e, dict)]
    for i, entry in indexed:  # OpenClaw validates every agent's block
        block = entry.get("memorySearch")
        if block is not None and not isinstance(block, dict):
            issues.append(ConfigIssue(f"agents.list[{i}].memorySearch",
                                      f"expected an object, got {_show(block)}"))
        elif block is not None:
            _validate(MemorySearchConfig, block, f"agents.list[{i}].memorySearch", issues)

    ids = [normalize_agent_id(e.get("id") if isinstance(e.get("id"), str) else None)
           for _, e in indexed]
    if agent_id is None:
        chosen = next((e for _, e in indexed if e.get("default")), indexed[0][1] if indexed
                      else None)
        raw_id = chosen.get("id") if chosen is not None else None
        target = normalize_agent_id(raw_id.strip() if isinstance(raw_id, str) else None)
    else:
        target = normalize_agent_id(agent_id)
        known = list(dict.fromkeys(ids)) or [_DEFAULT_AGENT_ID]
        if target not in known:
            raise ConfigError(f"agent {agent_id!r} is not configured; agents: "
                              f"{', '.join(known)}", source=name)
    for (i, entry), eid in zip(indexed, ids, strict=True):
        if eid == target:
            block = entry.get("memorySearch")
            if isinstance(block, dict):
                return merge_memory_search(base, block), f"agents.list[{i}].memorySearch"
            break
    return base, prefix


# ---------------------------------------------------------------------------------------------
# Dumping
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Comment:
    """A key written as a JSON5 comment (secrets, unset-but-meaningful defaults)."""

    text: str


def _model_to_raw(model: BaseModel) -> dict[str, Any]:
    """The explicitly set keys of ``model`` by alias, secrets kept (for re-validation)."""
    out: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        if name not in model.model_fields_set or info.exclude:
            continue
        value = getattr(model, name)
        key = info.alias or name
        if isinstance(value, BaseModel):
            out[key] = _model_to_raw(value)
        elif isinstance(value, list):
            out[key] = [_model_to_raw(v) if isinstance(v, BaseModel) else v for v in value]
        elif isinstance(value, dict):
            out[key] = dict(value)
        elif value is not None:
            out[key] = value
    return out


def _dump_tree(model: BaseModel, full: bool, path: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        if info.exclude:
            continue
        key = info.alias or name
        explicit = name in model.model_fields_set
        value = getattr(model, name)
        if value is None or not (explicit or full):
            continue
        here = (*path, key)
        if isinstance(model, MemorySearchConfig) and key == "provider" and not explicit:
            out[key] = _Comment(f'provider: {json.dumps(value)}  (built-in default; left unset '
                                'so OpenClaw treats the provider as optional)')
        elif isinstance(value, SecretStr):
            out[key] = _Comment(f"{key}: {_PLACEHOLDER}")
        elif isinstance(value, BaseModel):
            out[key] = _dump_tree(value, full, here)
        elif isinstance(value, list):
            out[key] = [_dump_tree(v, full, here) if isinstance(v, BaseModel) else v
                        for v in value]
        elif isinstance(value, dict) and here == ("remote", "headers"):
            out[key] = {h: (_Comment(f"{json.dumps(h)}: {_PLACEHOLDER}")
                            if _SENSITIVE_HEADER.search(h) else v) for h, v in value.items()}
        else:
            out[key] = value
    return out


def _emit(value: Any, indent: int, style: str) -> str:
    pad = "  " * (indent + 1)
    end = "  " * indent
    if isinstance(value, dict):
        lines = []
        items = [(k, v) for k, v in value.items() if style == "json5" or
                 not isinstance(v, _Comment)]
        for n, (k, v) in enumerate(items):
            if isinstance(v, _Comment):
                lines.append(f"{pad}// {v.text}")
                continue
            comma = "," if any(not isinstance(w, _Comment) for _, w in items[n + 1:]) else ""
            key = k if style == "json5" and _IDENT.match(k) else json.dumps(k, ensure_ascii=False)
            lines.append(f"{pad}{key}: {_emit(v, indent + 1, style)}{comma}")
        return "{\n" + "\n".join(lines) + f"\n{end}}}" if lines else "{}"
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(not isinstance(v, dict | list) for v in value):
            return "[" + ", ".join(_emit(v, indent, style) for v in value) + "]"
        inner = [f"{pad}{_emit(v, indent + 1, style)}" for v in value]
        return "[\n" + ",\n".join(inner) + f"\n{end}]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int | str):
        return json.dumps(value, ensure_ascii=False)
    raise TypeError(f"cannot dump {type(value).__name__}")


def dump_config(cfg: MemlabConfig | MemorySearchConfig, schema: str = "2026.7", *,
                full: bool = False, style: Literal["json5", "json"] = "json5") -> str:
    """Write ``cfg`` as the text of a whole OpenClaw config (``agents.defaults.memorySearch``).

    Only keys that were explicitly configured are written unless ``full=True`` (every key with
    its effective default). memlab options go under a top-level ``memlab`` key, written only
    when set (OpenClaw would reject that key). Plain-string secrets (``remote.apiKey``,
    authorization-like ``remote.headers``) are never written: ``style="json5"`` leaves a
    comment in their place, ``style="json"`` omits them; secret references
    (``{source: "env", ...}``) are written. The text round-trips through :func:`load_config`
    (minus those secrets). A per-agent config is written as the merged defaults.
    """
    if schema not in ("2026.7", OPENCLAW_VERSION):
        raise ValueError(f"schema {schema!r} is not supported; only '2026.7' (the "
                         "agents.defaults.memorySearch layout) can be written")
    if style not in ("json5", "json"):
        raise ValueError(f"style must be 'json5' or 'json', not {style!r}")
    if isinstance(cfg, MemorySearchConfig):
        cfg = MemlabConfig(memory_search=cfg)
    doc: dict[str, Any] = {}
    if style == "json5":
        doc["#"] = _Comment(f"OpenClaw {schema} memory search config written by memlab")
    doc["agents"] = {"defaults": {"memorySearch": _dump_tree(cfg.memory_search, full)}}
    memlab = _dump_tree(cfg.memlab, full)
    if memlab:
        doc["memlab"] = memlab
    return _emit(doc, 0, style) + "\n"
