"""Importing OpenClaw configs of any schema (2026.7 ``agents.defaults.memorySearch``, 2026.8
``memory.search``) into a :class:`~memlab.config.MemlabConfig`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memlab.config.errors import ConfigError, ConfigIssue, ExportWarning, show_value, validate_block
from memlab.config.json5io import plain_copy, read_source
from memlab.config.keypaths import get_path
from memlab.config.load import load_config, merge_memory_search, normalize_agent_id
from memlab.config.memory_keys import CONFIGURABLE_KEYS, MEMORY_SEARCH_CONSTANTS, MEMORY_SEARCH_ONLY
from memlab.config.options import MemlabConfig
from memlab.config.schema import MemorySearchConfig
from memlab.lines import detected_line


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
    raw, name = read_source(path_or_text)
    if not isinstance(raw, dict):
        raise ConfigError(f"the config must be an object, got {show_value(raw)}", source=name)
    if _is_memory_search(raw):
        return _import_memory_search(raw, name, agent_id)
    return load_config(raw, agent_id=agent_id)


def _is_memory_search(raw: Mapping[str, Any]) -> bool:
    memory = raw.get("memory")
    agents = raw.get("agents")
    return (isinstance(memory, Mapping) and "search" in memory) or (
        isinstance(agents, Mapping) and "entries" in agents)


def _import_memory_search(raw: dict[str, Any], name: str, agent_id: str | None) -> MemlabConfig:
    agents = raw.get("agents") if isinstance(raw.get("agents"), dict) else {}
    defaults = agents.get("defaults") if isinstance(agents.get("defaults"), dict) else {}
    if "memorySearch" in defaults or any(
            isinstance(e, dict) and "memorySearch" in e for e in agents.get("list", []) or []):
        raise ConfigError("the file mixes the 2026.7 layout (agents.*.memorySearch) with the "
                          "2026.8 layout (memory.search / agents.entries); keep one",
                          source=name)
    issues: list[ConfigIssue] = []
    root = get_path(raw, "memory.search", {})
    if not isinstance(root, dict):
        raise ConfigError([ConfigIssue(
            "memory.search", f"expected an object, got {show_value(root)}")], source=name)
    notes: list[str] = []
    block = _from_memory_search(root, "memory.search", issues, notes)
    entries = agents.get("entries", {})
    if not isinstance(entries, dict):
        issues.append(ConfigIssue("agents.entries",
                                  f"expected an object, got {show_value(entries)}"))
        entries = {}
    per_agent: dict[str, dict[str, Any]] = {}
    for eid, entry in entries.items():
        search = get_path(entry, "memory.search") if isinstance(entry, dict) else None
        if search is None:
            continue
        where = f"agents.entries.{eid}.memory.search"
        if not isinstance(search, dict):
            issues.append(ConfigIssue(where, f"expected an object, got {show_value(search)}"))
            continue
        per_agent[normalize_agent_id(eid)] = _from_memory_search(search, where, issues, notes)
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
    for path, value in MEMORY_SEARCH_CONSTANTS.items():
        node = merged
        *parents, leaf = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    del hybrid  # (set through MEMORY_SEARCH_CONSTANTS)
    memlab_raw = raw.get("memlab", {})
    if not isinstance(memlab_raw, dict):
        memlab_raw = {}
    memlab_raw = {**memlab_raw, "decayRule": detected_line("memory.search").date_rule}
    cfg = load_config({"memorySearch": merged, "memlab": memlab_raw})
    if notes:
        warnings.warn(ExportWarning(f"{name}: not kept (no 2026.7 equivalent): "
                                    + "; ".join(notes)), stacklevel=3)
    return cfg


def _from_memory_search(search: dict[str, Any], where: str, issues: list[ConfigIssue],
                 notes: list[str]) -> dict[str, Any]:
    """The configurable 2026.8 keys of ``search`` as a 2026.7 memorySearch object."""
    out: dict[str, Any] = {}
    for key, value in search.items():
        if key in MEMORY_SEARCH_ONLY:
            notes.append(f"{where}.{key} = {show_value(value)}")
            continue
        if key not in CONFIGURABLE_KEYS:
            allowed_keys = ", ".join(sorted([*CONFIGURABLE_KEYS, *MEMORY_SEARCH_ONLY]))
            issues.append(ConfigIssue(f"{where}.{key}", "unknown or not configurable in "
                                      f"2026.8+; allowed keys here: {allowed_keys}"))
            continue
        if key == "extraPaths" and isinstance(value, list):
            paths = []
            for i, entry in enumerate(value):
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    if entry.keys() - {"path"}:
                        notes.append(f"{where}.extraPaths[{i}] pattern "
                                     f"{show_value(entry.get('pattern'))} (path kept)")
                    paths.append(entry["path"])
                else:
                    paths.append(entry)
            value = paths
        allowed = CONFIGURABLE_KEYS[key]
        if isinstance(allowed, dict):
            value = _filter_allowed(value, allowed, f"{where}.{key}", issues)
        out[key] = plain_copy(value)
    validate_block(MemorySearchConfig, out, where, issues)
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
