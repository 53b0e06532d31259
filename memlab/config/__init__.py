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

Modules: :mod:`~memlab.config.types` (constants, base model, field types),
:mod:`~memlab.config.schema` (``memorySearch``), :mod:`~memlab.config.options` (``memlab``,
:class:`MemlabConfig`), :mod:`~memlab.config.errors`, :mod:`~memlab.config.load`,
:mod:`~memlab.config.json5io` (reading), :mod:`~memlab.config.dump` (writing),
:mod:`~memlab.config.export` / :mod:`~memlab.config.openclaw_import` (OpenClaw 2026.7 and
2026.8 files, :mod:`~memlab.config.memory_keys`), :mod:`~memlab.config.keypaths` and
:mod:`~memlab.config.results` (sweep results to overrides).
"""

from __future__ import annotations

from memlab.config.dump import dump_config
from memlab.config.errors import ConfigError, ConfigIssue, ExportError, ExportWarning
from memlab.config.export import ExportedConfig, export_config
from memlab.config.keypaths import canonical_key_path
from memlab.config.load import (
    DEFAULT_CONFIG,
    default_agent_id,
    load_config,
    merge_memory_search,
    normalize_agent_id,
)
from memlab.config.memory_keys import DEFAULT_SCHEMA, SCHEMAS
from memlab.config.openclaw_import import import_config
from memlab.config.options import (
    Bm25Options,
    FusionOptions,
    MemlabConfig,
    MemlabOptions,
    TokenizerOptions,
)
from memlab.config.results import overrides_from_results, read_results
from memlab.config.schema import (
    CacheConfig,
    ChunkingConfig,
    ExperimentalConfig,
    FtsConfig,
    HybridConfig,
    LocalConfig,
    MemorySearchConfig,
    MmrConfig,
    MultimodalConfig,
    QmdCollection,
    QmdConfig,
    QueryConfig,
    RemoteBatchConfig,
    RemoteConfig,
    StoreConfig,
    SyncConfig,
    SyncSessionsConfig,
    TemporalDecayConfig,
    VectorStoreConfig,
)
from memlab.config.types import (
    DEFAULT_MODELS,
    KNOWN_PROVIDERS,
    OPENCLAW_VERSION,
    STEMMERS,
    SecretRef,
)

__all__ = [
    "DEFAULT_CONFIG",
    "Bm25Options",
    "CacheConfig",
    "ChunkingConfig",
    "ConfigError",
    "ConfigIssue",
    "DEFAULT_MODELS",
    "ExperimentalConfig",
    "ExportError",
    "ExportWarning",
    "ExportedConfig",
    "FtsConfig",
    "FusionOptions",
    "HybridConfig",
    "KNOWN_PROVIDERS",
    "LocalConfig",
    "MemlabConfig",
    "MemlabOptions",
    "MemorySearchConfig",
    "MmrConfig",
    "MultimodalConfig",
    "OPENCLAW_VERSION",
    "QmdCollection",
    "QmdConfig",
    "QueryConfig",
    "RemoteBatchConfig",
    "RemoteConfig",
    "SCHEMAS",
    "DEFAULT_SCHEMA",
    "STEMMERS",
    "SecretRef",
    "StoreConfig",
    "SyncConfig",
    "SyncSessionsConfig",
    "TemporalDecayConfig",
    "TokenizerOptions",
    "VectorStoreConfig",
    "canonical_key_path",
    "default_agent_id",
    "dump_config",
    "export_config",
    "import_config",
    "load_config",
    "merge_memory_search",
    "normalize_agent_id",
    "overrides_from_results",
    "read_results",
]
