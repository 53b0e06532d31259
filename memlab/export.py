"""Export a tuned memlab configuration as an OpenClaw config file, and import OpenClaw configs.

:func:`export_config` writes JSON5 text OpenClaw reads as ``~/.openclaw/openclaw.json``:

* schema ``"2026.7"`` (OpenClaw 2026.7.x): the whole-config shape
  ``{agents: {defaults: {memorySearch: {...}}}}``, every key valid per the reference
  (section 10). Only the keys that were configured are written unless ``full=True``.
* schema ``"2026.8"`` (2026.8.x and later): ``{memory: {search: {...}}}`` with only the keys
  still configurable there (reference section 15). Everything else is a fixed constant in
  2026.8+ (weights 0.7/0.3, candidate multiplier 4, chunks 400/80 tokens, MMR on with
  lambda 0.7, temporal decay on with a 30-day half-life, cache 50 000 entries); a tuned value
  that differs from those cannot be expressed: it is listed in a :class:`ExportWarning`
  (``warnings.warn``), in the returned text's ``.warnings`` and in the file's comment header.

memlab-only research choices have no OpenClaw equivalent (fusion by RRF / min-max / z-score,
a BM25 or TF-IDF keyword leg instead of FTS5, OR matching, no keyword fallback, an
approximate FAISS index, the 2026.8 decay path rule under schema 2026.7): exporting them is
refused with an :class:`ExportError` saying why, unless ``allow_lossy=True``, in which case
they are dropped and listed in the header. Secrets (plain-string ``remote.apiKey``,
authorization-like ``remote.headers``) are never written; a ``//`` comment marks their place.
Secret references (``{source: "env", provider: "default", id: "OPENAI_API_KEY"}``) are
written: they name where the secret lives, not the secret.

:func:`import_config` reads any OpenClaw config file (2026.7 ``agents.defaults.memorySearch``
with per-agent ``agents.list[].memorySearch``; 2026.8 ``memory.search`` with per-agent
``agents.entries.<id>.memory.search``) into a :class:`~memlab.config.MemlabConfig`. A 2026.8
config is mapped onto the 2026.7 model with its fixed constants written out explicitly, and
``memlab.decayRule = "2026.8"``. Import then export (same schema) is lossless for every key
memlab knows (plain-string secrets aside).

``export_config(cfg, base=ORIGINAL)`` merges the tuned block into an existing whole config
(a path or JSON5 text): every key outside the memory search block is kept as it was. JSON5
parsing does not keep comments or formatting, so comments of ``base`` are lost in the output
(its keys and values are not). Other sections of ``base`` are copied as they are (including
whatever credentials the user keeps there: they are the user's own, and dropping them would
break the config).

The ``memlab export`` command (:func:`add_export_parser`) exports one row of a sweep results
file (Parquet or CSV: one row per configuration, axis columns named by config key paths such
as ``query.hybrid.vectorWeight`` or ``memlab.fusion.method``, metric columns such as
``ndcg@10``) or a config file.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import math
import re
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from memlab.config import (
    ConfigError,
    ConfigIssue,
    MemlabConfig,
    MemlabOptions,
    MemorySearchConfig,
    _Comment,
    _dump_tree,
    _emit,
    _field_named,
    _inner_model,
    _plain,
    _read_source,
    _show,
    _validate,
    load_config,
    merge_memory_search,
    normalize_agent_id,
)

__all__ = [
    "ExportError",
    "ExportWarning",
    "ExportedConfig",
    "add_export_parser",
    "export_config",
    "import_config",
    "overrides_from_results",
]

Schema = Literal["2026.7", "2026.8"]
SCHEMAS: tuple[str, ...] = ("2026.7", "2026.8")

#: The keys of ``memory.search`` still configurable in OpenClaw 2026.8+ (reference section 15):
#: ``True`` = the whole subtree, a dict = only those sub-keys.
CONFIGURABLE_2026_8: dict[str, Any] = {
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
_ONLY_2026_8 = ("rememberAcrossConversations", "experimental")

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


class ExportError(ConfigError):
    """The configuration cannot be exported (memlab-only choices without ``allow_lossy``)."""


class ExportWarning(UserWarning):
    """Tuned values the target schema cannot express (they are dropped from the file)."""


class ExportedConfig(str):
    """The exported JSON5 text, with what could not be written attached.

    ``warnings``: tuned values the schema cannot express (2026.8+ constants, keys no longer
    configurable); ``dropped``: memlab-only choices left out because ``allow_lossy=True``.
    """

    warnings: list[str]
    dropped: list[str]

    def __new__(cls, text: str, warnings_: Sequence[str] = (),
                dropped: Sequence[str] = ()) -> ExportedConfig:
        obj = super().__new__(cls, text)
        obj.warnings = list(warnings_)
        obj.dropped = list(dropped)
        return obj


# ---------------------------------------------------------------------------------------------
# key paths
# ---------------------------------------------------------------------------------------------

_ALIASES = {
    "fusion": "memlab.fusion.method",
    "fusion.method": "memlab.fusion.method",
    "fusion.rrfK": "memlab.fusion.rrfK",
    "rrfK": "memlab.fusion.rrfK",
    "rrf_k": "memlab.fusion.rrfK",
    "keyword": "memlab.keyword",
}


def canonical_key_path(column: str) -> str | None:
    """``column`` as a config key path (``memlab.`` prefixed for memlab options), or ``None``.

    Accepts ``query.hybrid.vectorWeight``, ``memorySearch.query.hybrid.vectorWeight``,
    ``memlab.fusion.method`` and a few short aliases (``fusion``, ``rrfK``, ``keyword``).
    """
    name = _ALIASES.get(column.strip(), column.strip())
    parts = name.split(".")
    if parts[0] == "memorySearch":
        parts = parts[1:]
    if not parts or not all(parts):
        return None
    cls: Any = MemorySearchConfig
    prefix = ""
    if parts[0] == "memlab":
        cls, parts, prefix = MemlabOptions, parts[1:], "memlab."
        if not parts:
            return None
    for i, part in enumerate(parts):
        if cls is None:
            return None
        found = _field_named(cls, part)
        if found is None or (found[1].alias and found[1].alias != part):
            return None
        if i < len(parts) - 1:
            cls = _inner_model(found[1].annotation)
    return prefix + ".".join(parts)


def _get(tree: Mapping[str, Any], path: str, default: Any = None) -> Any:
    node: Any = tree
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return default
        node = node[part]
    return node


def _leaves(tree: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for key, value in tree.items():
        here = f"{prefix}.{key}" if prefix else key
        if isinstance(value, Mapping) and value:
            out.extend(_leaves(value, here))
        else:
            out.append((here, value))
    return out


# ---------------------------------------------------------------------------------------------
# import
# ---------------------------------------------------------------------------------------------


def import_config(path_or_text: str | Path | Mapping[str, Any] | MemlabConfig, *,
                  agent_id: str | None = None) -> MemlabConfig:
    """Any OpenClaw config (path, JSON5 text or dict) as a :class:`MemlabConfig`.

    * 2026.7 layout (``agents.defaults.memorySearch``, per-agent ``agents.list[]``; also a
      ``{memorySearch: ...}`` wrapper or a bare memorySearch object): exactly
      :func:`memlab.config.load_config` (``agent_id`` picks the agent).
    * 2026.8+ layout (``memory.search``, per-agent ``agents.entries.<id>.memory.search``):
      the configurable keys are validated against the 2026.7 model and the 2026.8 fixed
      constants are set explicitly (``query.hybrid`` weights 0.7/0.3, candidateMultiplier 4,
      MMR on with lambda 0.7, temporal decay on with 30 days, chunking 400/80,
      ``cache.maxEntries`` 50 000) together with ``memlab.decayRule = "2026.8"``. 2026.8-only
      keys (``rememberAcrossConversations``, ``experimental``) and ``{path, pattern}``
      extraPaths patterns have no 2026.7 equivalent: they are reported with an
      :class:`ExportWarning` and not kept. ``"sessions"`` in ``sources`` turns on
      ``experimental.sessionMemory`` (2026.7 gates session indexing behind it).

    Keys outside the memory search block are ignored (and left alone by
    ``export_config(..., base=...)``).
    """
    if isinstance(path_or_text, MemlabConfig):
        return path_or_text
    raw, name = _read_source(path_or_text)
    if not isinstance(raw, dict):
        raise ConfigError(f"the config must be an object, got {_show(raw)}", source=name)
    if _is_2026_8(raw):
        return _import_2026_8(raw, name, agent_id)
    return load_config(raw, agent_id=agent_id)


def _is_2026_8(raw: Mapping[str, Any]) -> bool:
    memory = raw.get("memory")
    agents = raw.get("agents")
    return (isinstance(memory, Mapping) and "search" in memory) or (
        isinstance(agents, Mapping) and "entries" in agents)


def _import_2026_8(raw: dict[str, Any], name: str, agent_id: str | None) -> MemlabConfig:
    agents = raw.get("agents") if isinstance(raw.get("agents"), dict) else {}
    defaults = agents.get("defaults") if isinstance(agents.get("defaults"), dict) else {}
    if "memorySearch" in defaults or any(
            isinstance(e, dict) and "memorySearch" in e for e in agents.get("list", []) or []):
        raise ConfigError("the file mixes the 2026.7 layout (agents.*.memorySearch) with the "
                          "2026.8 layout (memory.search / agents.entries); keep one",
                          source=name)
    issues: list[ConfigIssue] = []
    root = _get(raw, "memory.search", {})
    if not isinstance(root, dict):
        raise ConfigError([ConfigIssue("memory.search", f"expected an object, got {_show(root)}")],
                          source=name)
    notes: list[str] = []
    block = _from_2026_8(root, "memory.search", issues, notes)
    entries = agents.get("entries", {})
    if not isinstance(entries, dict):
        issues.append(ConfigIssue("agents.entries", f"expected an object, got {_show(entries)}"))
        entries = {}
    per_agent: dict[str, dict[str, Any]] = {}
    for eid, entry in entries.items():
        search = _get(entry, "memory.search") if isinstance(entry, dict) else None
        if search is None:
            continue
        where = f"agents.entries.{eid}.memory.search"
        if not isinstance(search, dict):
            issues.append(ConfigIssue(where, f"expected an object, got {_show(search)}"))
            continue
        per_agent[normalize_agent_id(eid)] = _from_2026_8(search, where, issues, notes)
    if issues:
        raise ConfigError(issues, source=name)
    target = None
    if agent_id is not None:
        target = normalize_agent_id(agent_id)
        known = [normalize_agent_id(e) for e in entries] or ["main"]
        if target not in known:
            raise ConfigError(f"agent {agent_id!r} is not configured; agents: "
                              f"{', '.join(known)}", source=name)
    else:
        target = next((normalize_agent_id(eid) for eid, e in entries.items()
                       if isinstance(e, dict) and e.get("default")), None)
    merged = merge_memory_search(block, per_agent.get(target or "", {}))
    if "sessions" in merged.get("sources", []):
        merged.setdefault("experimental", {})["sessionMemory"] = True
    hybrid = merged.setdefault("query", {}).setdefault("hybrid", {})
    for path, value in FIXED_2026_8.items():
        node = merged
        *parents, leaf = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    del hybrid  # (set through FIXED_2026_8)
    memlab_raw = raw.get("memlab", {})
    if not isinstance(memlab_raw, dict):
        memlab_raw = {}
    memlab_raw = {**memlab_raw, "decayRule": "2026.8"}
    cfg = load_config({"memorySearch": merged, "memlab": memlab_raw})
    if notes:
        warnings.warn(ExportWarning(f"{name}: not kept (no 2026.7 equivalent): "
                                    + "; ".join(notes)), stacklevel=3)
    return cfg


def _from_2026_8(search: dict[str, Any], where: str, issues: list[ConfigIssue],
                 notes: list[str]) -> dict[str, Any]:
    """The configurable 2026.8 keys of ``search`` as a 2026.7 memorySearch object."""
    out: dict[str, Any] = {}
    for key, value in search.items():
        if key in _ONLY_2026_8:
            notes.append(f"{where}.{key} = {_show(value)}")
            continue
        if key not in CONFIGURABLE_2026_8:
            allowed_keys = ", ".join(sorted([*CONFIGURABLE_2026_8, *_ONLY_2026_8]))
            issues.append(ConfigIssue(f"{where}.{key}", "unknown or not configurable in "
                                      f"2026.8+; allowed keys here: {allowed_keys}"))
            continue
        if key == "extraPaths" and isinstance(value, list):
            paths = []
            for i, entry in enumerate(value):
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    if entry.keys() - {"path"}:
                        notes.append(f"{where}.extraPaths[{i}] pattern "
                                     f"{_show(entry.get('pattern'))} (path kept)")
                    paths.append(entry["path"])
                else:
                    paths.append(entry)
            value = paths
        allowed = CONFIGURABLE_2026_8[key]
        if isinstance(allowed, dict):
            value = _filter_allowed(value, allowed, f"{where}.{key}", issues)
        out[key] = _plain(value)
    _validate(MemorySearchConfig, out, where, issues)
    return out


def _filter_allowed(value: Any, allowed: dict[str, Any], where: str,
                    issues: list[ConfigIssue]) -> Any:
    if not isinstance(value, dict):
        return value  # the schema check reports it
    out = {}
    for key, sub in value.items():
        rule = allowed.get(key)
        if rule is None:
            issues.append(ConfigIssue(f"{where}.{key}", "not configurable in 2026.8+; allowed "
                                      f"keys here: {', '.join(sorted(allowed))}"))
        elif isinstance(rule, dict):
            out[key] = _filter_allowed(sub, rule, f"{where}.{key}", issues)
        else:
            out[key] = sub
    return out


# ---------------------------------------------------------------------------------------------
# export
# ---------------------------------------------------------------------------------------------


def _memlab_only(cfg: MemlabConfig, schema: str) -> list[str]:
    """memlab-only choices in effect, each with why OpenClaw cannot do it."""
    ms, ml = cfg.memory_search, cfg.memlab
    hybrid = ms.query.hybrid
    vector = ms.resolved_provider() != "none"
    keyword_used = not vector or hybrid.enabled
    fused = vector and hybrid.enabled
    out = []
    if fused and ml.fusion.method != "openclaw":
        out.append(f"memlab.fusion.method = {ml.fusion.method!r}: OpenClaw merges the legs only "
                   "by the weighted sum vectorWeight*vectorScore + textWeight*textScore (no "
                   "RRF or normalised fusion)")
    if keyword_used and ml.keyword != "fts5":
        out.append(f"memlab.keyword = {ml.keyword!r}: OpenClaw's keyword leg is SQLite FTS5 "
                   "bm25() (an in-process BM25/TF-IDF leg, its tokenizer and parameters have no "
                   "OpenClaw setting)")
    if keyword_used and ml.keyword != "fts5" and ml.match != "all":
        out.append("memlab.match = 'any': OpenClaw's FTS query joins the tokens with AND")
    if keyword_used and not ml.keyword_fallback:
        out.append("memlab.keywordFallback = false: OpenClaw always runs the <=6-keyword "
                   "fallback when the AND query finds nothing")
    if vector and ml.vector_index != "Flat":
        out.append(f"memlab.vectorIndex = {ml.vector_index!r}: OpenClaw searches vectors "
                   "exactly (sqlite-vec); an approximate FAISS index has no setting")
    decay_on = hybrid.temporal_decay.enabled
    if schema == "2026.7" and decay_on and ml.decay_rule != "2026.7":
        out.append(f"memlab.decayRule = {ml.decay_rule!r}: OpenClaw 2026.7 decides which paths "
                   "are dated/evergreen by its own 2026.7 rule")
    return out


def _start_config(config_or_overrides: Any, base: str | Path | None) -> MemlabConfig:
    if isinstance(config_or_overrides, MemlabConfig):
        return config_or_overrides
    if isinstance(config_or_overrides, MemorySearchConfig):
        return MemlabConfig(memory_search=config_or_overrides)
    if isinstance(config_or_overrides, Mapping):
        start = import_config(base) if base is not None else MemlabConfig()
        return start.with_overrides(_sweep_overrides(config_or_overrides))
    if config_or_overrides is None:
        return import_config(base) if base is not None else MemlabConfig()
    return import_config(config_or_overrides)


def _sweep_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Overrides with canonical key paths; ``vectorWeight`` alone implies ``textWeight = 1-w``
    (the sweep's convention)."""
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        path = canonical_key_path(key) or key  # with_overrides reports bad paths
        out[path] = value
    vw = out.get("query.hybrid.vectorWeight")
    if isinstance(vw, int | float) and not isinstance(vw, bool) \
            and "query.hybrid.textWeight" not in out and 0 <= vw <= 1:
        out["query.hybrid.textWeight"] = round(1.0 - float(vw), 12)
    return out


def _header_lines(schema: str, header: Mapping[str, Any] | None, notes: Sequence[str],
                  dropped: Sequence[str]) -> list[str]:
    title = ("OpenClaw 2026.7 memory search config (agents.defaults.memorySearch)"
             if schema == "2026.7" else
             "OpenClaw 2026.8+ memory search config (memory.search)")
    lines = [f"{title}, written by memlab"]
    for key, value in (header or {}).items():
        if value is None:
            continue
        if isinstance(value, float):
            value = f"{value:.4f}"
        text = re.sub(r"[\r\n]+", " ", str(value))
        lines.append(f"{str(key).replace('_', ' ')}: {text}")
    if notes:
        lines.append(f"not expressible in OpenClaw {schema}+ (dropped; OpenClaw uses its own "
                     "values):" if schema == "2026.8" else "warnings:")
        lines += [f"  - {n}" for n in notes]
    if dropped:
        lines.append("memlab-only choices dropped (--allow-lossy); OpenClaw will rank "
                     "differently from the tuned pipeline:")
        lines += [f"  - {d}" for d in dropped]
    return lines


#: 2026.7 keys compared with the 2026.8 constants instead of being reported one by one.
_COMPARED = ("query.hybrid", "chunking", "cache.maxEntries", "experimental")


def _block_2026_8(cfg: MemlabConfig, full: bool) -> tuple[dict[str, Any], list[str]]:
    ms = cfg.memory_search
    tree = _dump_tree(ms, full)
    notes: list[str] = []

    def keep(node: dict[str, Any], rule: dict[str, Any], prefix: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in node.items():
            here = f"{prefix}{key}"
            sub = rule.get(key)
            if sub is True:
                out[key] = value
            elif isinstance(sub, dict) and isinstance(value, dict):
                kept = keep(value, sub, here + ".")
                if kept:
                    out[key] = kept
            elif any(here == c or here.startswith(c + ".") for c in _COMPARED) or isinstance(
                    value, _Comment):
                continue  # compared below / comments of unset keys
            elif isinstance(value, dict):
                for leaf, v in _leaves(value, here):
                    notes.append(f"{leaf} = {_show(v)}: not configurable in 2026.8+")
            else:
                notes.append(f"{here} = {_show(value)}: not configurable in 2026.8+")
        return out

    block = keep(tree, CONFIGURABLE_2026_8, "")
    hybrid = ms.query.hybrid
    if not hybrid.enabled:
        notes.append("query.hybrid.enabled = false: 2026.8+ always runs hybrid search")
    vw, tw = hybrid.normalized_weights()
    if abs(vw - 0.7) > 1e-9 or abs(tw - 0.3) > 1e-9:
        notes.append(f"query.hybrid weights vector {vw:.4g} / text {tw:.4g}: 2026.8+ fixes "
                     "0.7 / 0.3")
    if hybrid.resolved_candidate_multiplier() != 4:
        notes.append(f"query.hybrid.candidateMultiplier = {hybrid.candidate_multiplier}: "
                     "2026.8+ fixes 4 (and a 200-candidate universe per leg)")
    if not hybrid.mmr.enabled:
        notes.append("query.hybrid.mmr.enabled = false: 2026.8+ always applies MMR "
                     "(lambda 0.7)")
    elif abs(hybrid.mmr.resolved_lambda() - 0.7) > 1e-9:
        notes.append(f"query.hybrid.mmr.lambda = {hybrid.mmr.lambda_}: 2026.8+ fixes 0.7")
    if not hybrid.temporal_decay.enabled:
        notes.append("query.hybrid.temporalDecay.enabled = false: 2026.8+ always applies "
                     "temporal decay (half-life 30 days)")
    elif ms.half_life_days() != 30:
        notes.append(f"query.hybrid.temporalDecay.halfLifeDays = "
                     f"{hybrid.temporal_decay.half_life_days}: 2026.8+ fixes 30")
    if (ms.chunking.tokens, ms.resolved_overlap()) != (400, 80):
        notes.append(f"chunking {ms.chunking.tokens}/{ms.chunking.overlap} tokens: 2026.8+ "
                     "fixes 400/80")
    if ms.cache.max_entries is not None and ms.cache.max_entries != 50_000:
        notes.append(f"cache.maxEntries = {ms.cache.max_entries}: 2026.8+ fixes 50000")
    if "sessions" in ms.sources and not ms.experimental.session_memory:
        notes.append('sources includes "sessions" without experimental.sessionMemory: 2026.7 '
                     "ignores sessions, 2026.8+ indexes them")
    if hybrid.temporal_decay.enabled and cfg.memlab.decay_rule != "2026.8":
        notes.append("memlab.decayRule = '2026.7': 2026.8+ decides dated/evergreen paths by "
                     "its own rule (memlab.decayRule '2026.8')")
    return block, notes


def export_config(config_or_overrides: Any = None, schema: str = "2026.7", *,
                  header: Mapping[str, Any] | None = None, allow_lossy: bool = False,
                  full: bool = False, base: str | Path | None = None) -> ExportedConfig:
    """The OpenClaw JSON5 config text for a tuned configuration (see the module docstring).

    ``config_or_overrides``: a :class:`MemlabConfig` / :class:`MemorySearchConfig`, a config
    path or JSON5 text (read with :func:`import_config`), or a mapping of key-path overrides
    (``{"query.hybrid.vectorWeight": 0.5, "memlab.fusion.method": "openclaw"}``, e.g. a sweep
    row) applied to ``base``'s configuration (OpenClaw defaults without ``base``); an override
    of ``vectorWeight`` without ``textWeight`` sets ``textWeight = 1 - vectorWeight``.

    ``schema``: ``"2026.7"`` or ``"2026.8"`` (2026.8 and later). ``header``: items written as
    ``//`` comment lines at the top (e.g. ``dataset``, ``metric``, ``score``,
    ``out_of_sample``, ``date``). ``full``: write every key with its effective value, not only
    the configured ones. ``base``: an existing whole OpenClaw config (path or text) to merge
    into; its other keys are kept (its comments are not: JSON5 parsing drops them).

    Returns an :class:`ExportedConfig` (a ``str``) whose ``.warnings`` list the values the
    schema cannot express (also emitted as one :class:`ExportWarning`) and ``.dropped`` the
    memlab-only choices left out under ``allow_lossy``. Raises :class:`ExportError` for
    memlab-only choices without ``allow_lossy`` and ``ValueError`` for an unknown schema.
    """
    schema = {"2026.7.35": "2026.7", "2026.9": "2026.8"}.get(schema, schema)
    if schema not in SCHEMAS:
        raise ValueError(f"schema must be one of {', '.join(SCHEMAS)} (2026.8 covers 2026.8 "
                         f"and later), not {schema!r}")
    cfg = _start_config(config_or_overrides, base)
    lossy = _memlab_only(cfg, schema)
    if lossy and not allow_lossy:
        raise ExportError([ConfigIssue("", "cannot export a memlab-only choice to OpenClaw "
                                           f"{schema}: {why}") for why in lossy]
                          + [ConfigIssue("", "pass allow_lossy=True (--allow-lossy) to drop "
                                             "them and export the rest")])
    base_doc: dict[str, Any] = {}
    if base is not None:
        raw, name = _read_source(base)
        if not isinstance(raw, dict):
            raise ConfigError(f"the base config must be an object, got {_show(raw)}",
                              source=name)
        base_doc = raw
    shadowed: list[str] = []  # per-agent values of base that override the exported ones
    if schema == "2026.7":
        block = _dump_tree(cfg.memory_search, full)
        notes: list[str] = []
        doc = _merge_2026_7(base_doc, block, shadowed)
    else:
        block, notes = _block_2026_8(cfg, full)
        doc = _merge_2026_8(base_doc, block, shadowed)
    text = "".join(f"// {line}\n" for line in _header_lines(schema, header, notes, lossy))
    if shadowed:
        text += "// per-agent settings kept from the base config that override these values:\n"
        text += "".join(f"//   - {s}\n" for s in shadowed)
    text += _emit(doc, 0, "json5") + "\n"
    message = []
    if notes:
        message.append(f"{len(notes)} tuned value(s) cannot be expressed in OpenClaw {schema} "
                       "and are not in the file:\n  - " + "\n  - ".join(notes))
    if shadowed:
        message.append("per-agent settings of the base config override exported values:\n  - "
                       + "\n  - ".join(shadowed))
    if message:
        warnings.warn(ExportWarning("\n".join(message)), stacklevel=2)
    return ExportedConfig(text, [*notes, *shadowed], lossy if allow_lossy else [])


def _merge_2026_7(base: dict[str, Any], block: dict[str, Any],
                  notes: list[str]) -> dict[str, Any]:
    doc = dict(base)
    doc.pop("memlab", None)  # memlab's own key: OpenClaw rejects it
    if isinstance(_get(doc, "memory"), dict) and "search" in doc["memory"]:
        raise ExportError("the base config uses the 2026.8 layout (memory.search); export "
                          "with schema 2026.8 or start from a 2026.7 config")
    agents = dict(doc.get("agents") or {})
    defaults = dict(agents.get("defaults") or {})
    defaults["memorySearch"] = block
    agents = {"defaults": defaults, **{k: v for k, v in agents.items() if k != "defaults"}}
    for i, entry in enumerate(agents.get("list") or []):
        over = entry.get("memorySearch") if isinstance(entry, dict) else None
        if isinstance(over, dict):
            for leaf, value in _leaves(over):
                tuned = _get(block, leaf, _MISSING)
                if tuned is not _MISSING and tuned != value and not isinstance(tuned, _Comment):
                    notes.append(f"agents.list[{i}].memorySearch.{leaf} = {_show(value)} "
                                 f"overrides the exported {_show(tuned)} for agent "
                                 f"{entry.get('id', i)!r}")
    doc["agents"] = agents
    return doc


def _merge_2026_8(base: dict[str, Any], block: dict[str, Any],
                  notes: list[str]) -> dict[str, Any]:
    doc = dict(base)
    doc.pop("memlab", None)
    if _get(doc, "agents.defaults.memorySearch") is not None:
        raise ExportError("the base config uses the 2026.7 layout "
                          "(agents.defaults.memorySearch); export with schema 2026.7 or run "
                          "`openclaw doctor --fix` on it first")
    memory = dict(doc.get("memory") or {})
    memory["search"] = block
    doc["memory"] = memory
    for eid, entry in (_get(doc, "agents.entries") or {}).items():
        over = _get(entry, "memory.search") if isinstance(entry, dict) else None
        if isinstance(over, dict):
            for leaf, value in _leaves(over):
                tuned = _get(block, leaf, _MISSING)
                if tuned is not _MISSING and tuned != value and not isinstance(tuned, _Comment):
                    notes.append(f"agents.entries.{eid}.memory.search.{leaf} = {_show(value)} "
                                 f"overrides the exported {_show(tuned)}")
    return doc


_MISSING = object()


# ---------------------------------------------------------------------------------------------
# sweep results
# ---------------------------------------------------------------------------------------------

_METRIC = re.compile(r"^(ndcg|recall|mrr|map|p|precision|success|hit|hits)(@\d+)?$", re.I)
_META = {"dataset", "rank", "config_id", "config", "trial", "fold", "seconds", "time",
         "duration", "n_queries", "queries", "params", "system"}
_OOS_PATTERNS = ("{m}_oos", "oos_{m}", "{m} (oos)", "{m}_cv", "cv_{m}", "{m}_test", "test_{m}",
                 "{m}_out_of_sample", "out_of_sample_{m}")


def _native(value: Any) -> Any:
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        try:
            value = value.item()
        except (ValueError, AttributeError):
            pass
    return value


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def read_results(path: str | Path) -> Any:
    """A sweep results file (Parquet, CSV or TSV) as a DataFrame."""
    import pandas as pd

    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"results file not found: {path}")
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return pd.read_parquet(path)
    if suffix in (".csv", ".tsv"):
        return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",")
    raise ValueError(f"{path}: not a results file (.parquet, .csv or .tsv)")


def overrides_from_results(frame: Any, *, rank: int = 1, metric: str | None = None,
                           dataset: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(overrides, header)`` for the ``rank``-th best row of a sweep results DataFrame.

    Axis columns are those named by config key paths (:func:`canonical_key_path`); rows are
    ordered by ``metric`` (default: the first metric column such as ``ndcg@10``), best first.
    Missing values (an axis that does not apply to a row, e.g. ``rrfK`` with weighted fusion)
    are left unset. A ``dataset`` column is checked against ``dataset`` when given.
    """
    columns = [str(c) for c in frame.columns]
    if not len(frame):
        raise ValueError("the results file has no rows")
    if dataset is not None and ("/" in dataset or "\\" in dataset):
        dataset = Path(dataset.rstrip("/\\")).name  # a dataset folder: its name, as sweeps write
    if "dataset" in columns:
        names = sorted({str(v) for v in frame["dataset"].dropna().unique()})
        if dataset is not None and dataset not in names:
            raise ValueError(f"the results are for dataset {', '.join(names) or '?'}, not "
                             f"{dataset!r}: export a results file of {dataset!r}, or drop "
                             "--dataset")
        if dataset is not None:
            frame = frame[frame["dataset"].astype(str) == dataset]
        elif len(names) > 1:
            raise ValueError(f"the results hold several datasets ({', '.join(names)}); pick "
                             "one with --dataset")
    axes = {c: canonical_key_path(c) for c in columns}
    axes = {c: p for c, p in axes.items() if p is not None}
    if not axes:
        raise ValueError("the results have no axis columns named by config key paths (e.g. "
                         f"query.hybrid.vectorWeight); columns: {', '.join(columns)}")
    numeric = [c for c in columns if c not in axes and c.lower() not in _META
               and str(frame[c].dtype).startswith(("float", "int"))]
    metrics = [c for c in numeric if _METRIC.match(c.split("[")[0])] or numeric
    if metric is None:
        if not metrics:
            raise ValueError("the results have no metric column (e.g. ndcg@10); columns: "
                             f"{', '.join(columns)}")
        metric = metrics[0]
    elif metric not in columns:
        raise ValueError(f"no metric column {metric!r}; metric columns: "
                         f"{', '.join(metrics) or 'none'}")
    n = len(frame)
    if not 1 <= rank <= n:
        raise ValueError(f"rank {rank} is out of range: the results have {n} row(s)")
    ordered = frame.sort_values(metric, ascending=False, kind="mergesort", na_position="last")
    row = ordered.iloc[rank - 1]
    overrides = {}
    for column, path in axes.items():
        value = _native(row[column])
        if _is_missing(value):
            continue
        overrides[path] = _coerce(path, value)
    header: dict[str, Any] = {}
    if "dataset" in columns and not _is_missing(row["dataset"]):
        header["dataset"] = str(row["dataset"])
    elif dataset is not None:
        header["dataset"] = dataset
    header["metric"] = metric
    header["score"] = _native(row[metric])
    for pattern in _OOS_PATTERNS:
        col = pattern.format(m=metric)
        if col in columns and col != metric and not _is_missing(_native(row[col])):
            header["out_of_sample"] = _native(row[col])
            break
    header["rank"] = f"{rank} of {n}"
    return overrides, header


def _coerce(path: str, value: Any) -> Any:
    """CSV cells: "true"/"false" for booleans, integral floats for integer keys."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------


def add_export_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``memlab export`` on an ``argparse`` sub-parser collection."""
    p = subparsers.add_parser(
        "export", help="write a tuned configuration (a sweep results row or a config file) as "
        "an OpenClaw config file")
    p.add_argument("source", metavar="RESULTS_OR_CONFIG",
                   help="sweep results (.parquet/.csv/.tsv, one row per configuration) or an "
                   "OpenClaw/memlab config file")
    p.add_argument("--rank", type=int, default=1, help="which row of the results, best first "
                   "(default 1)")
    p.add_argument("--metric", help="rank by this metric column (default: the first one)")
    p.add_argument("--dataset", help="the dataset the results must be for (checked against a "
                   "`dataset` column)")
    p.add_argument("--schema", choices=SCHEMAS, default="2026.7",
                   help="2026.7: agents.defaults.memorySearch; 2026.8: memory.search (2026.8 "
                   "and later; fixed constants are reported)")
    p.add_argument("--out", required=True, help="output file ('-' for standard output)")
    p.add_argument("--allow-lossy", action="store_true", help="drop memlab-only choices "
                   "(RRF fusion, BM25 keyword leg, ...) instead of refusing")
    p.add_argument("--base", metavar="OPENCLAW_CONFIG", help="an existing OpenClaw config: "
                   "the tuned values are merged into it, its other keys are kept (comments "
                   "are not)")
    p.add_argument("--full", action="store_true", help="write every memory search key with its "
                   "effective value, not only the configured ones")
    p.add_argument("--agent", help="with a config file: the agent whose settings to export")
    p.set_defaults(func=run_export)
    return p


def run_export(args: argparse.Namespace) -> int:
    src = Path(args.source).expanduser()
    header: dict[str, Any] = {}
    if src.suffix.lower() in (".parquet", ".pq", ".csv", ".tsv"):
        overrides, header = overrides_from_results(read_results(src), rank=args.rank,
                                                   metric=args.metric, dataset=args.dataset)
        header = {"source": str(src), **header}
        config: Any = overrides
    else:
        if not src.is_file():
            raise FileNotFoundError(f"results or config file not found: {src}")
        config = import_config(src, agent_id=args.agent)  # replaces --base's search block
        header = {"source": str(src)}
        if args.dataset:
            header["dataset"] = args.dataset
    header["date"] = _dt.date.today().isoformat()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ExportWarning)
        text = export_config(config, args.schema, header=header, allow_lossy=args.allow_lossy,
                             full=args.full, base=args.base)
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    for d in text.dropped:
        print(f"warning: dropped (memlab-only): {d}", file=sys.stderr)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        out = Path(args.out).expanduser()
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out} (OpenClaw {args.schema} schema)")
    return 0
