"""Loading a config: whole OpenClaw configs (per-agent overrides merged), wrappers and bare
``memorySearch`` blocks, validated into a :class:`~memlab.config.MemlabConfig`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memlab.config.errors import ConfigError, ConfigIssue, join_path, show_value, validate_block
from memlab.config.json5io import plain_copy, read_source
from memlab.config.options import MemlabConfig, MemlabOptions
from memlab.config.overrides import OPENCLAW_ROOT_KEYS as _OPENCLAW_ROOT_KEYS
from memlab.config.overrides import apply_active_overrides, current_overrides
from memlab.config.providers import custom_provider_issue
from memlab.config.schema import MemorySearchConfig
from memlab.config.types import DEFAULT_AGENT_ID
from memlab.lines import detect_line
from memlab.text.js import js_trim

#: memlab's configuration when none is given: OpenClaw's defaults, but the embedded local
#: model instead of OpenAI, so everything runs offline with no API key.
DEFAULT_CONFIG: dict[str, Any] = {"memorySearch": {"provider": "local"}}


def normalize_agent_id(value: str | None) -> str:
    """OpenClaw's ``normalizeAgentId``: trimmed (JavaScript ``trim()``), lower-cased, runs of
    characters outside ``[a-z0-9_-]`` become ``-``, at most 64 characters; empty -> ``main``.

    >>> normalize_agent_id(" Ops "), normalize_agent_id("my agent!"), normalize_agent_id("")
    ('ops', 'my-agent', 'main')
    """
    trimmed = js_trim(value or "")
    if not trimmed:
        return DEFAULT_AGENT_ID
    lowered = trimmed.lower()
    if re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", trimmed, re.I | re.A):
        return lowered
    cleaned = re.sub(r"[^a-z0-9_-]+", "-", lowered).lstrip("-").rstrip("-")[:64]
    return cleaned or DEFAULT_AGENT_ID


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
        return DEFAULT_AGENT_ID
    raw, _name = read_source(source)
    agents = raw.get("agents") if isinstance(raw, dict) else None
    entries = agents.get("list") if isinstance(agents, dict) else None
    if not isinstance(entries, list):
        return DEFAULT_AGENT_ID
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
    return ident(chosen) if chosen is not None else DEFAULT_AGENT_ID


_TRIM_OR_KEYS = ("inputType", "queryInputType", "documentInputType")


def merge_memory_search(defaults: Mapping[str, Any] | None,
                        override: Mapping[str, Any] | None) -> dict[str, Any]:
    """OpenClaw's per-agent merge of raw ``memorySearch`` objects.

    Leaf by leaf ``override ?? defaults`` (nested objects merged key by key; lists and
    ``remote.headers`` replaced whole), except ``extraPaths`` and ``qmd.extraCollections``,
    which concatenate defaults then agent (extraPaths de-duplicated), and the input types,
    where a blank override falls through to the defaults.
    """
    return _merge(plain_copy(defaults or {}), plain_copy(override or {}), ())


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
        if not current_overrides():
            return MemlabConfig()
        source = {}
    raw, name = apply_active_overrides(*read_source(source))  # --set (memlab.config.overrides)
    if not isinstance(raw, dict):
        raise ConfigError(f"the config must be an object, got {show_value(raw)}", source=name)
    _check_stage_line(raw, name)

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
            issues.append(ConfigIssue(ms_prefix, f"expected an object, got {show_value(ms_raw)}"))
            ms_raw = {}
    # Whole configs had every block validated on its own; do not report them twice.
    memory_search = None if issues and whole else validate_block(
        MemorySearchConfig, ms_raw, ms_prefix, issues)
    memlab = validate_block(MemlabOptions, memlab_raw, "memlab", issues)
    if memory_search is not None:
        where = ms_prefix if ms_prefix in ("", "memorySearch") else "agents.*.memorySearch"
        for problem in memory_search.resolution_problems():
            issues.append(ConfigIssue(join_path(where, ["multimodal"]), problem))
    providers = _model_providers(raw, issues) if whole else {}
    if memory_search is not None:
        problem = custom_provider_issue(memory_search.provider, providers)
        if problem is not None:
            key, message = problem
            if key == "memorySearch.provider" and ms_prefix != "memorySearch":
                key = join_path(ms_prefix, ["provider"])
            issues.append(ConfigIssue(key, message))
    if issues or memory_search is None or memlab is None:
        raise ConfigError(issues, source=name)
    return MemlabConfig(memory_search=memory_search, memlab=memlab, model_providers=providers)


def _check_stage_line(raw: dict[str, Any], name: str) -> None:
    """A config for a line the stage pipeline does not run (``memory.search``, or
    ``memlab.profile`` naming such a line) is an error here, never silently read as the
    ``agents.defaults.memorySearch`` defaults."""
    try:
        line = detect_line(raw)
    except ValueError:  # an unknown memlab.profile: the memlab options' schema names it
        return
    if line.engine == "stages":
        return
    key = "memlab.profile" if (raw.get("memlab") or {}).get("profile") else line.config_key
    raise ConfigError([ConfigIssue(key, (
        f"this config is for OpenClaw {line.name} ({line.config_key}), which memlab runs "
        f"with its own search, not this {detect_line(None).config_key} pipeline: use "
        f"MemorySearch(workspace, config) or the CLI (it picks the line: --profile "
        f"{line.name}); memlab export --schema {line.name} converts a tuned pipeline config"))],
        source=name)


def _model_providers(raw: dict[str, Any], issues: list[ConfigIssue]) -> dict[str, Any]:
    """``models.providers`` of a whole config (entries that are objects), for custom ids."""
    models = raw.get("models", {})
    providers = models.get("providers", {}) if isinstance(models, dict) else {}
    if not isinstance(providers, dict):
        issues.append(ConfigIssue("models.providers",
                                  f"expected an object, got {show_value(providers)}"))
        return {}
    return {str(k): dict(v) for k, v in providers.items() if isinstance(v, dict)}


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
            out.append(join_path("", list(here)))
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
        issues.append(ConfigIssue("agents", f"expected an object, got {show_value(agents)}"))
        agents = {}
    for where in _misplaced_memory_search(raw):  # it would be silently ignored otherwise
        issues.append(ConfigIssue(where, "memorySearch is not read here; put it at "
                                         "agents.defaults.memorySearch (every agent) or "
                                         "agents.list[].memorySearch (one agent)"))
    defaults = agents.get("defaults", {})
    if not isinstance(defaults, dict):
        issues.append(ConfigIssue("agents.defaults",
                                  f"expected an object, got {show_value(defaults)}"))
        defaults = {}
    base = defaults.get("memorySearch", {})
    prefix = "agents.defaults.memorySearch"
    if not isinstance(base, dict):
        issues.append(ConfigIssue(prefix, f"expected an object, got {show_value(base)}"))
        base = {}
    else:
        validate_block(MemorySearchConfig, base, prefix, issues)

    entries = agents.get("list", [])
    if not isinstance(entries, list):
        issues.append(ConfigIssue("agents.list", f"expected a list, got {show_value(entries)}"))
        entries = []
    indexed = [(i, e) for i, e in enumerate(entries) if isinstance(e, dict)]
    for i, entry in indexed:  # OpenClaw validates every agent's block
        block = entry.get("memorySearch")
        if block is not None and not isinstance(block, dict):
            issues.append(ConfigIssue(f"agents.list[{i}].memorySearch",
                                      f"expected an object, got {show_value(block)}"))
        elif block is not None:
            validate_block(MemorySearchConfig, block, f"agents.list[{i}].memorySearch", issues)

    ids = [normalize_agent_id(e.get("id") if isinstance(e.get("id"), str) else None)
           for _, e in indexed]
    if agent_id is None:
        chosen = next((e for _, e in indexed if e.get("default")), indexed[0][1] if indexed
                      else None)
        raw_id = chosen.get("id") if chosen is not None else None
        target = normalize_agent_id(raw_id.strip() if isinstance(raw_id, str) else None)
    else:
        target = normalize_agent_id(agent_id)
        known = list(dict.fromkeys(ids)) or [DEFAULT_AGENT_ID]
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
