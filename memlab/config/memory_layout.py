"""OpenClaw 2026.9's ``memory.search`` config: the strict schema, the per-agent layout, the
retired keys ``openclaw doctor --fix`` removes and the resolved values.

Read from ``openclaw@2026.9.6`` (docs/openclaw-2026.9.md section 1): the zod
``MemorySearchSchema`` of ``src/config/zod-schema.memory-search.ts``, the resolution in
``src/agents/memory-search.ts`` (``resolveMemorySearchIndexConfig``), the source policy
(``memory-search-source-policy.ts``), ``stripRetiredTuningKnobs`` with ``RETIRED_TUNING_PATHS``
and the legacy-layout messages of the doctor rules.

Layout: top-level ``memory.search``; per agent ``agents.entries.<id>.memory.search`` (a value
set there wins; ``extraPaths`` are concatenated). Everything else in the file is left alone.

>>> cfg = read_config({"memory": {"search": {"provider": "none", "query": {"maxResults": 3}}}})
>>> cfg.resolve().max_results, cfg.resolve().min_score, cfg.resolve().search_sources
(3, 0.35, ('memory',))
>>> cleaned, removed = strip_retired({"memory": {"search": {"chunking": {"tokens": 200}}}})
>>> cleaned, removed
({}, ['memory.search.chunking'])
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, SecretStr, model_validator

from memlab.config.errors import ConfigError, ConfigIssue, validate_block
from memlab.config.types import (
    NonEmptyStr,
    PosInt,
    SecretRef,
    StrictModel,
    Unit,
    check_env_style_id,
)
from memlab.lines import detected_line

__all__ = [
    "MEMORY_DEFAULTS",
    "LEGACY_LAYOUT",
    "MEMORY_SEARCH_RELEASE",
    "RETIRED_PATHS",
    "MemoryLayoutConfig",
    "doctor_fix",
    "MemorySearchBlock",
    "ResolvedMemorySearch",
    "read_config",
    "retired_message",
    "strip_retired",
]

_LINE = detected_line("memory.search")
#: The OpenClaw release whose ``memory.search`` schema and defaults these models mirror.
MEMORY_SEARCH_RELEASE = _LINE.release
#: Resolved values (``src/agents/memory-search.ts``): the line's fixed knobs (what 2026.9 no
#: longer lets a user set) and the defaults of those it does.
MEMORY_DEFAULTS: dict[str, Any] = {**_LINE.fixed, **_LINE.defaults}
#: ``RETIRED_TUNING_PATHS`` (top level) / ``RETIRED_AGENT_TUNING_PATHS`` (per agent scope) of
#: the memory search, relative to ``memory.search``: ``openclaw doctor --fix`` deletes them.
RETIRED_PATHS: tuple[tuple[str, ...], ...] = (
    ("chunking",),
    ("sync", "watchDebounceMs"),
    ("sync", "intervalMinutes"),
    ("query", "hybrid", "vectorWeight"),
    ("query", "hybrid", "textWeight"),
    ("query", "hybrid", "candidateMultiplier"),
    ("query", "hybrid", "mmr", "lambda"),
    ("query", "hybrid", "temporalDecay", "halfLifeDays"),
    ("cache", "maxEntries"),
)
#: The doctor's messages for the 2026.7 layout (legacy rules of 2026.9.6).
LEGACY_LAYOUT: dict[str, str] = {
    "memorySearch": 'top-level memorySearch was moved; use memory.search instead. Run '
                    '"openclaw doctor --fix".',
    "agents.defaults.memorySearch": 'agents.defaults.memorySearch moved to memory.search. Run '
                                    '"openclaw doctor --fix".',
    "agents.entries.*.memorySearch": "agents.entries.*.memorySearch moved to "
                                     'agents.entries.*.memory.search. Run "openclaw doctor '
                                     '--fix".',
}


class BlockSecretRef(SecretRef):
    """2026.9's secret reference adds ``source: "store"`` (id like an env variable name)."""

    source: Literal["env", "file", "exec", "store"]  # type: ignore[assignment]

    @model_validator(mode="after")
    def _store_id(self) -> BlockSecretRef:
        if self.source == "store":
            check_env_style_id(self.id, "store")
        return self


class ExtraPath(StrictModel):
    path: str
    pattern: str | None = None


class Multimodal(StrictModel):
    enabled: bool | None = None
    modalities: list[Literal["image", "audio", "all"]] | None = None
    max_file_bytes: PosInt | None = Field(None, alias="maxFileBytes")


class Experimental(StrictModel):
    session_memory: bool | None = Field(None, alias="sessionMemory")


class RemoteBatch(StrictModel):
    enabled: bool | None = None


class Remote(StrictModel):
    base_url: str | None = Field(None, alias="baseUrl")
    api_key: SecretStr | BlockSecretRef | None = Field(None, alias="apiKey", repr=False)
    headers: dict[str, str] | None = Field(None, repr=False)
    batch: RemoteBatch | None = None


class Local(StrictModel):
    model_path: str | None = Field(None, alias="modelPath")


class StoreFts(StrictModel):
    tokenizer: Literal["unicode61", "trigram"] | None = None


class StoreVector(StrictModel):
    enabled: bool | None = None
    extension_path: str | None = Field(None, alias="extensionPath")


class Store(StrictModel):
    fts: StoreFts | None = None
    vector: StoreVector | None = None


class Query(StrictModel):
    max_results: PosInt | None = Field(None, alias="maxResults")
    min_score: Unit | None = Field(None, alias="minScore")


class Cache(StrictModel):
    enabled: bool | None = None


class MemorySearchBlock(StrictModel):
    """``MemorySearchSchema`` of openclaw@2026.9.6 (every object strict; unset = ``None``)."""

    enabled: bool | None = None
    remember_across_conversations: bool | None = Field(None, alias="rememberAcrossConversations")
    sources: list[Literal["memory", "sessions"]] | None = None
    extra_paths: list[str | ExtraPath] | None = Field(None, alias="extraPaths")
    multimodal: Multimodal | None = None
    experimental: Experimental | None = None
    provider: str | None = None
    remote: Remote | None = None
    fallback: str | None = None
    model: str | None = None
    input_type: NonEmptyStr | None = Field(None, alias="inputType")
    query_input_type: NonEmptyStr | None = Field(None, alias="queryInputType")
    document_input_type: NonEmptyStr | None = Field(None, alias="documentInputType")
    output_dimensionality: PosInt | None = Field(None, alias="outputDimensionality")
    local: Local | None = None
    store: Store | None = None
    query: Query | None = None
    cache: Cache | None = None


@dataclass(frozen=True)
class ResolvedMemorySearch:
    """What ``resolveMemorySearchIndexConfig``/``produceMemorySearchConfig`` make of one
    agent's settings (the ranking constants are :data:`MEMORY_DEFAULTS`)."""

    enabled: bool
    provider: str
    model: str | None
    fallback: str
    max_results: int
    min_score: float
    sources: tuple[str, ...]
    search_sources: tuple[str, ...]
    session_memory: bool
    remember_across_conversations: bool
    extra_paths: tuple[Any, ...]
    fts_tokenizer: str
    vector_enabled: bool
    cache_enabled: bool
    batch_enabled: bool


def _normalize_sources(sources: list[str] | None, sessions_allowed: bool) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for source in sources or ["memory"]:
        if source == "memory" or (source == "sessions" and sessions_allowed):
            out[source] = None
    return tuple(out) or ("memory",)


@dataclass(frozen=True)
class MemoryLayoutConfig:
    """A validated 2026.9 config: the defaults and each agent's override (raw kept)."""

    defaults: MemorySearchBlock
    agents: dict[str, MemorySearchBlock]
    session_dm_scope: str | None = None
    bindings_set_dm_scope: bool = False

    def _get(self, agent_id: str | None, *path: str) -> Any:
        for model in (self.agents.get(agent_id or ""), self.defaults):
            value: Any = model
            for name in path:
                value = getattr(value, name, None) if value is not None else None
            if value is not None:
                return value
        return None

    def resolve(self, agent_id: str | None = None) -> ResolvedMemorySearch:
        """The resolved settings of ``agent_id`` (``None``: the top-level defaults only).

        >>> read_config({"memory": {"search": {"query": {"minScore": 0.2}}}}).resolve().min_score
        0.2
        """
        provider = (self._get(agent_id, "provider") or "").strip()
        provider = MEMORY_DEFAULTS["provider"] if provider in ("", "auto") else provider
        remember = self._get(agent_id, "remember_across_conversations")
        if remember is None:
            remember = (self.session_dm_scope in (None, "main")
                        and not self.bindings_set_dm_scope)
        configured_sessions = bool(self._get(agent_id, "experimental", "session_memory"))
        configured = self._get(agent_id, "sources")
        session_memory = remember or configured_sessions
        search = _normalize_sources(configured, configured_sessions or (
            remember and "sessions" in (configured or [])))
        sources = _normalize_sources([*search, "sessions"] if remember else configured,
                                     session_memory)
        extra = [*(self.defaults.extra_paths or []),
                 *((self.agents.get(agent_id or "") or MemorySearchBlock()).extra_paths or [])]
        min_score = self._get(agent_id, "query", "min_score")
        return ResolvedMemorySearch(
            enabled=self._get(agent_id, "enabled") is not False,
            provider=provider, model=self._get(agent_id, "model"),
            fallback=self._get(agent_id, "fallback") or MEMORY_DEFAULTS["fallback"],
            max_results=self._get(agent_id, "query", "max_results")
            or MEMORY_DEFAULTS["query.maxResults"],
            min_score=min(1.0, max(0.0, MEMORY_DEFAULTS["query.minScore"]
                                   if min_score is None else min_score)),
            sources=sources, search_sources=search, session_memory=session_memory,
            remember_across_conversations=bool(remember), extra_paths=tuple(extra),
            fts_tokenizer=self._get(agent_id, "store", "fts", "tokenizer")
            or MEMORY_DEFAULTS["store.fts.tokenizer"],
            vector_enabled=self._get(agent_id, "store", "vector", "enabled") is not False,
            cache_enabled=self._get(agent_id, "cache", "enabled") is not False,
            batch_enabled=bool(self._get(agent_id, "remote", "batch", "enabled")),
        )


def _at(tree: Any, *keys: str) -> Any:
    for key in keys:
        tree = tree.get(key) if isinstance(tree, Mapping) else None
    return tree


def _retired_in(search: Any, prefix: str) -> list[str]:
    found = []
    for path in RETIRED_PATHS:
        if _at(search, *path[:-1]) is not None and isinstance(_at(search, *path[:-1]), Mapping) \
                and path[-1] in _at(search, *path[:-1]):
            found.append(".".join((prefix, *path)))
    return found


def read_config(config: Mapping[str, Any], source: str = "<dict>") -> MemoryLayoutConfig:
    """Validate the memory-search parts of a whole 2026.9 config (``memory.search``,
    ``agents.entries.<id>.memory.search``) as 2026.9.6 does; every problem is reported in one
    :class:`ConfigError` naming the key path: schema violations, retired keys (with the
    doctor's fix) and the 2026.7 layout (with the doctor's message).

    >>> try:
    ...     read_config({"memory": {"search": {"query": {"hybrid": {"vectorWeight": 0.5}}}}})
    ... except ConfigError as exc:
    ...     print(exc.issues[0].path, "|", exc.issues[0].message[:42])
    memory.search.query.hybrid.vectorWeight | retired in OpenClaw 2026.9 (built-in defau
    """
    issues: list[ConfigIssue] = []
    for where, message in LEGACY_LAYOUT.items():
        if where == "agents.entries.*.memorySearch":
            hits = [f"agents.entries.{aid}.memorySearch" for aid, entry in
                    (_at(config, "agents", "entries") or {}).items()
                    if isinstance(entry, Mapping) and "memorySearch" in entry]
        else:
            hits = [where] if _at(config, *where.split(".")) is not None else []
        issues.extend(ConfigIssue(hit, message) for hit in hits)
    scopes: list[tuple[str, str | None, Any]] = [("memory.search", None,
                                                  _at(config, "memory", "search"))]
    entries = _at(config, "agents", "entries")
    if isinstance(entries, Mapping):
        scopes += [(f"agents.entries.{aid}.memory.search", aid, _at(entry, "memory", "search"))
                   for aid, entry in entries.items()]
    models: dict[str | None, MemorySearchBlock] = {}
    for prefix, agent_id, raw in scopes:
        if raw is None:
            continue
        retired = _retired_in(raw, prefix)
        for path in retired:
            key = path.removeprefix(prefix + ".")
            default = MEMORY_DEFAULTS.get(key)
            issues.append(ConfigIssue(path, "retired in OpenClaw 2026.9 (built-in default "
                                      f"{default if default is not None else 'applies'}"
                                      f"{' applies' if default is not None else ''}); "
                                      "`openclaw doctor --fix` removes it"))
        cleaned = copy.deepcopy(dict(raw)) if isinstance(raw, Mapping) else raw
        if isinstance(cleaned, dict):
            _strip_paths(cleaned)
        model = validate_block(MemorySearchBlock, cleaned, prefix, issues)
        if model is not None:
            models[agent_id] = model
    if issues:
        raise ConfigError(issues, source=source)
    return MemoryLayoutConfig(
        defaults=models.get(None, MemorySearchBlock()),
        agents={k: v for k, v in models.items() if k is not None},
        session_dm_scope=_at(config, "session", "dmScope"),
        bindings_set_dm_scope=any(isinstance(b, Mapping) and isinstance(b.get("session"), Mapping)
                                  and b["session"].get("dmScope") is not None
                                  for b in (config.get("bindings") or [])),
    )


def _strip_paths(search: dict[str, Any], removed: list[str] | None = None,
                 prefix: str = "") -> bool:
    """``deleteRetiredPath`` for every retired path under one ``memory.search`` object:
    delete the leaf, then every parent left empty."""
    changed = False
    for path in RETIRED_PATHS:
        owners = [search]
        for key in path[:-1]:
            nxt = owners[-1].get(key)
            if not isinstance(nxt, dict):
                break
            owners.append(nxt)
        else:
            if path[-1] in owners[-1]:
                del owners[-1][path[-1]]
                changed = True
                if removed is not None:
                    removed.append(prefix + ".".join(path))
                for depth in range(len(path) - 1, 0, -1):
                    if not owners[depth]:
                        del owners[depth - 1][path[depth - 1]]
    return changed


def strip_retired(config: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """What ``stripRetiredTuningKnobs`` (``openclaw doctor --fix``) does to a 2026.9 config:
    a copy without the retired memory-search keys (top level, ``agents.defaults`` and each
    ``agents.entries.<id>``; emptied parents removed) and the removed key paths.

    >>> cfg = {"agents": {"entries": {"a": {"memory": {"search": {
    ...     "query": {"maxResults": 4, "hybrid": {"textWeight": 0.2}}}}}}}}
    >>> cleaned, removed = strip_retired(cfg)
    >>> cleaned["agents"]["entries"]["a"]
    {'memory': {'search': {'query': {'maxResults': 4}}}}
    >>> removed
    ['agents.entries.a.memory.search.query.hybrid.textWeight']
    """
    out = copy.deepcopy(dict(config))
    removed: list[str] = []
    scopes: list[tuple[str, Any]] = [("", out)]
    agents = out.get("agents")
    if isinstance(agents, dict):
        if isinstance(agents.get("defaults"), dict):
            scopes.append(("agents.defaults.", agents["defaults"]))
        if isinstance(agents.get("entries"), dict):
            scopes += [(f"agents.entries.{aid}.", entry)
                       for aid, entry in agents["entries"].items() if isinstance(entry, dict)]
    for prefix, owner in scopes:
        memory = owner.get("memory")
        search = memory.get("search") if isinstance(memory, dict) else None
        if isinstance(search, dict) and _strip_paths(search, removed, f"{prefix}memory.search."):
            if not search:
                del memory["search"]
            if not memory:
                del owner["memory"]
    return out, removed


def _known_keys(model: type[StrictModel]) -> dict[str, type[StrictModel] | None]:
    """camelCase key -> its sub-model (``None`` for a leaf) of ``model``."""
    out: dict[str, type[StrictModel] | None] = {}
    for name, info in model.model_fields.items():
        sub = next((a for a in getattr(info.annotation, "__args__", (info.annotation,))
                    if isinstance(a, type) and issubclass(a, StrictModel)), None)
        out[info.alias or name] = None if sub is BlockSecretRef else sub
    return out


def _drop_unknown(tree: dict[str, Any], model: type[StrictModel], prefix: str,
                  removed: list[str]) -> None:
    known = _known_keys(model)
    for key in list(tree):
        if key not in known:
            del tree[key]
            removed.append(prefix + key)
        elif known[key] is not None and isinstance(tree[key], dict):
            _drop_unknown(tree[key], known[key], f"{prefix}{key}.", removed)
            if not tree[key]:
                del tree[key]


def _move_legacy_layout(config: Mapping[str, Any]) -> dict[str, Any]:
    """The doctor's layout migration of the memory search: top-level ``memorySearch`` and
    ``agents.defaults.memorySearch`` to ``memory.search``, ``agents.entries.<id>.memorySearch``
    to ``agents.entries.<id>.memory.search`` (an existing ``memory.search`` value wins)."""
    out = copy.deepcopy(dict(config))
    agents = out.get("agents") if isinstance(out.get("agents"), dict) else {}
    defaults = agents.get("defaults") if isinstance(agents.get("defaults"), dict) else {}
    for owner, key in ((out, "memorySearch"), (defaults, "memorySearch")):
        legacy = owner.pop(key, None)
        if isinstance(legacy, dict):
            memory = out.setdefault("memory", {})
            memory["search"] = {**legacy, **memory.get("search", {})}
    for entry in (agents.get("entries") or {}).values():
        if isinstance(entry, dict) and isinstance(entry.get("memorySearch"), dict):
            legacy = entry.pop("memorySearch")
            memory = entry.setdefault("memory", {})
            memory["search"] = {**legacy, **memory.get("search", {})}
    return out


def doctor_fix(config: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """What ``openclaw doctor --fix --non-interactive`` of 2026.9.6 leaves of the memory-search
    settings (checked against the real doctor, tests/data/openclaw-2026.9/config_cases.json):
    the 2026.7 layout moved to ``memory.search``, :func:`strip_retired`, then every key the
    strict schema does not know (e.g.
    ``query.hybrid.enabled``, ``sync.onSearch``) removed too, emptied parents with it.
    Returns the fixed copy and every removed key path.

    >>> doctor_fix({"memory": {"search": {"provider": "none",
    ...                                   "query": {"hybrid": {"enabled": False}}}}})
    ({'memory': {'search': {'provider': 'none'}}}, ['memory.search.query.hybrid'])
    """
    out, removed = strip_retired(_move_legacy_layout(config))
    scopes: list[tuple[str, Any]] = [("", out)]
    entries = _at(out, "agents", "entries")
    if isinstance(entries, dict):
        scopes += [(f"agents.entries.{aid}.", e) for aid, e in entries.items()
                   if isinstance(e, dict)]
    for prefix, owner in scopes:
        search = _at(owner, "memory", "search")
        if isinstance(search, dict):
            _drop_unknown(search, MemorySearchBlock, f"{prefix}memory.search.", removed)
    return out, removed


def retired_message(removed: list[str]) -> str | None:
    """The doctor's change line for ``removed`` (``None`` when nothing was removed)."""
    if not removed:
        return None
    return (f"Removed retired runtime tuning knobs: {', '.join(removed)}; built-in defaults "
            "now apply.")
