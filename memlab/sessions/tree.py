"""The session tree: ``sessions.json`` stores loaded as the ``memory_search`` visibility check
loads them (``loadCombinedSessionStoreForGateway``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlab.config.load import normalize_agent_id
from memlab.config.types import DEFAULT_AGENT_ID
from memlab.sessions.files import read_store
from memlab.sessions.keys import agent_of_key, parse_agent_key, trimmed_or_none
from memlab.sessions.names import agent_from_session_path
from memlab.text.js import (
    is_js_number,
    js_trim,
)


@dataclass(frozen=True)
class SessionNode:
    """One session of the session tree (a ``sessions.json`` entry).

    ``spawned_by`` / ``parent_session_key`` name the session that spawned this one;
    ``archived`` entries are not listed as spawned children.
    """

    key: str
    session_id: str | None = None
    session_file: str | None = None
    spawned_by: str | None = None
    parent_session_key: str | None = None
    archived: bool = False

    @property
    def agent_id(self) -> str:
        return agent_of_key(self.key)

    @classmethod
    def from_entry(cls, key: str, entry: Mapping[str, Any]) -> SessionNode:
        return cls(
            key=key,
            session_id=entry.get("sessionId") if isinstance(entry.get("sessionId"), str)
            else None,
            session_file=trimmed_or_none(entry.get("sessionFile")),
            spawned_by=entry.get("spawnedBy") if isinstance(entry.get("spawnedBy"), str)
            else None,
            parent_session_key=entry.get("parentSessionKey")
            if isinstance(entry.get("parentSessionKey"), str) else None,
            archived=entry.get("archivedAt") is not None)


SessionTree = Mapping[str, SessionNode]


def _canonical_key(key: str, store_agent: str) -> str:
    """``resolveStoredSessionKeyForAgentStore`` (default config): keys are compared in lower
    case, and a bare key such as ``main`` belongs to the store's agent."""
    raw = js_trim(key)
    lowered = raw.lower()
    if not raw or lowered in ("global", "unknown") or parse_agent_key(raw):
        return lowered
    return f"agent:{normalize_agent_id(store_agent)}:{lowered}"


def _canonical_spawned_by(value: Any, store_agent: str) -> str | None:
    """``canonicalizeSpawnedByForAgent`` (default config)."""
    raw = trimmed_or_none(value)
    if raw is None:
        return None
    lowered = raw.lower()
    if lowered in ("global", "unknown") or lowered.startswith("agent:"):
        return lowered
    return f"agent:{normalize_agent_id(store_agent)}:{lowered}"


def _merge_store(combined: dict[str, dict[str, Any]], store: Mapping[str, Any],
                 store_agent: str) -> None:
    """``loadCombinedSessionStoreForGateway``: canonical keys, duplicates merged (the more
    recently updated entry wins field by field), ``spawnedBy`` canonicalized."""
    for key, entry in store.items():
        if not isinstance(entry, Mapping):
            continue
        canonical = _canonical_key(str(key), store_agent)
        existing = combined.get(canonical)
        if existing is not None and _updated(existing) > _updated(entry):
            spawned = existing.get("spawnedBy")
            merged = {**entry, **existing, "spawnedBy": _canonical_spawned_by(
                spawned if spawned is not None else entry.get("spawnedBy"), store_agent)}
        else:
            spawned = entry.get("spawnedBy")
            if spawned is None and existing is not None:
                spawned = existing.get("spawnedBy")
            merged = {**(existing or {}), **entry,
                      "spawnedBy": _canonical_spawned_by(spawned, store_agent)}
        combined[canonical] = merged


def _updated(entry: Mapping[str, Any]) -> float:
    value = entry.get("updatedAt")
    return float(value) if is_js_number(value) else 0.0


def load_session_tree(*sources: str | os.PathLike[str] | Mapping[str, Any],
                      agent_id: str | None = None) -> dict[str, SessionNode]:
    """The session tree from ``sessions.json`` stores (files, folders holding one, or dicts in
    that format: ``{sessionKey: {"sessionId", "sessionFile", "spawnedBy", ...}}``).

    Keys are canonicalized as OpenClaw loads them for the ``memory_search`` visibility check:
    lower case, and a bare key (``main``) is prefixed with the store's agent
    (``agent:<agentId>:main``; the agent comes from the store's folder, else ``agent_id``,
    else ``main``). Entries that collide are merged, the latest ``updatedAt`` winning.

    >>> tree = load_session_tree({"main": {"sessionId": "s1"},
    ...     "agent:main:subagent:x": {"sessionId": "s2", "spawnedBy": "main"}})
    >>> sorted(tree), tree["agent:main:subagent:x"].spawned_by
    (['agent:main:main', 'agent:main:subagent:x'], 'agent:main:main')
    """
    combined: dict[str, dict[str, Any]] = {}
    for src in sources:
        if isinstance(src, Mapping):
            store: Mapping[str, Any] = src
            store_agent = agent_id or DEFAULT_AGENT_ID
        else:
            p = Path(src).expanduser()
            file = p / "sessions.json" if p.is_dir() else p
            store = read_store(file)
            folder = os.path.abspath(file.parent)
            store_agent = agent_id or agent_from_session_path(
                os.path.join(folder, "x")) or os.path.basename(folder)
        if store and all(isinstance(v, SessionNode) for v in store.values()):
            combined.update({k: {"_node": v} for k, v in store.items()})
            continue
        _merge_store(combined, store, store_agent)
    return {key: entry["_node"] if "_node" in entry else SessionNode.from_entry(key, entry)
            for key, entry in combined.items()}


def as_session_tree(session_tree: Any) -> dict[str, SessionNode]:
    if isinstance(session_tree, Mapping) and all(isinstance(v, SessionNode)
                                                 for v in session_tree.values()):
        return dict(session_tree)
    if isinstance(session_tree, (str, os.PathLike, Mapping)):
        return load_session_tree(session_tree)
    raise TypeError("session_tree must be a sessions.json path, a store dict or a "
                    f"load_session_tree() result, not {type(session_tree).__name__}")
