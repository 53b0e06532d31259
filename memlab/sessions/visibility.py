"""Which session hits a requester may see under ``tools.sessions.visibility``
(``filterMemorySearchHitsBySessionVisibility`` of the ``memory_search`` tool).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from memlab.config.load import normalize_agent_id
from memlab.pipeline import Stage
from memlab.sessions.keys import agent_of_key, is_cron_run_key
from memlab.sessions.names import usage_counted_session_id
from memlab.sessions.tree import SessionNode, as_session_tree
from memlab.text.js import (
    js_trim,
)

#: ``tools.sessions.visibility`` values (anything else resolves to ``tree`` in OpenClaw).
VISIBILITY_MODES = ("self", "tree", "agent", "all")


def _session_identity(hit_path: str) -> tuple[str, str | None, bool] | None:
    """``extractTranscriptIdentityFromSessionsMemoryHit``: ``(stem, owner agent, archived)``."""
    normalized = hit_path.replace("\\", "/")
    from_root = normalized[9:] if normalized.startswith("sessions/") else normalized
    parts = [p for p in from_root.split("/") if p]
    base = posixpath.basename(from_root.rstrip("/")) if from_root.strip("/") else ""
    owner = (normalize_agent_id(parts[0]) if normalized.startswith("sessions/")
             and len(parts) == 2 else None)
    archived_stem = usage_counted_session_id(base)
    if archived_stem and base != f"{archived_stem}.jsonl":
        return archived_stem, owner, True
    if base.endswith(".jsonl"):
        stem = base[:-6]
        return (stem, owner, False) if stem else None
    if base.endswith(".md"):
        stem = base[:-3]
        return (stem, owner, False) if stem else None
    return None


def _stem_keys(tree: Mapping[str, SessionNode], stem: str, archived_owner: str | None
               ) -> list[str]:
    """``resolveTranscriptStemToSessionKeys`` (builtin index: no QMD slug fallback)."""
    parsed = usage_counted_session_id(stem if stem.endswith(".jsonl") else f"{stem}.jsonl")
    matches: list[str] = []
    for key, node in tree.items():
        if node.session_file:
            base = posixpath.basename(node.session_file.replace("\\", "/"))
            if (base[:-6] if base.endswith(".jsonl") else base) == stem:
                if key not in matches:
                    matches.append(key)
                continue
        if node.session_id == stem or (parsed and node.session_id == parsed):
            if key not in matches:
                matches.append(key)
    if matches:
        return matches
    return [f"agent:{normalize_agent_id(archived_owner)}:{stem}"] if archived_owner else []


def _spawned_keys(tree: Mapping[str, SessionNode], requester: str, transitive: bool) -> set[str]:
    """Sessions listed as spawned by ``requester`` (``sessions.list`` with ``spawnedBy``)."""
    out: set[str] = set()
    frontier = [requester]
    while frontier:
        parent = frontier.pop()
        for key, node in tree.items():
            if key in out or key in ("global", "unknown") or is_cron_run_key(key):
                continue
            if node.archived:
                continue
            if node.spawned_by == parent or node.parent_session_key == parent:
                out.add(key)
                if transitive:
                    frontier.append(key)
    return out


def _a2a_allows(policy: bool | Sequence[str], requester: str, target: str) -> bool:
    if policy is True:
        return True
    if not policy:
        return False
    patterns = [policy] if isinstance(policy, str) else list(policy)

    def matches(agent: str) -> bool:
        for raw in patterns:
            pattern = js_trim(str(raw))
            if pattern == "*":
                return True
            if not pattern:
                continue
            if "*" not in pattern:
                if pattern == agent:
                    return True
                continue
            pieces = pattern.lower().split("*")
            if _wildcard(pieces, agent.lower()):
                return True
        return False

    return matches(requester) and matches(target)


def _wildcard(pieces: list[str], lower: str) -> bool:
    first, last, interior = pieces[0], pieces[-1], [p for p in pieces[1:-1] if p]
    pos = len(first) if first and lower.startswith(first) else (0 if not first else -1)
    if pos < 0:
        return False
    end = len(lower) - len(last) if last else len(lower)
    if last and (not lower.endswith(last) or end < pos):
        return False
    for part in interior:
        idx = lower.find(part, pos)
        if idx == -1 or idx + len(part) > end:
            return False
        pos = idx + len(part)
    return True


def _check_mode(mode: str) -> str:
    value = js_trim(str(mode)).lower()
    if value not in VISIBILITY_MODES:
        raise ValueError(f"unknown session visibility {mode!r}; use one of {VISIBILITY_MODES}")
    return value


def is_session_path_visible(
    path: str,
    session_tree: Any,
    current_session: str | None,
    mode: str = "tree",
    agent_id: str | None = None,
    *,
    transitive: bool = False,
    agent_to_agent: bool | Sequence[str] = False,
    _spawned: set[str] | None = None,
) -> bool:
    """May ``current_session`` see hits from the transcript indexed at ``path``?

    Reproduces ``filterMemorySearchHitsBySessionVisibility`` of the ``memory_search`` tool for
    builtin-index hits: the path names a transcript (``sessions/<agent>/<file>``), which maps to
    session keys of the tree through ``sessionFile``/``sessionId`` (archives of this agent map
    to a synthetic key); keys of another agent than ``agent_id`` (default: the requester's)
    never pass; then the requester must be allowed to read one of the keys:

    * ``self``: only ``current_session``;
    * ``tree``: ``current_session`` and the sessions it spawned (``spawnedBy`` or
      ``parentSessionKey`` equal to it; direct children only, as in 2026.7.35 --
      ``transitive=True`` also admits their descendants);
    * ``agent``: every session of the same agent;
    * ``all``: like ``agent`` plus other agents' sessions when ``agent_to_agent`` allows them
      (True, or a list of ``tools.agentToAgent.allow`` patterns).

    Without a ``current_session`` no session hit is visible (OpenClaw drops them all). A
    transcript the tree does not know (an orphan file) is hidden.
    """
    if not current_session:
        return False
    visibility = _check_mode(mode)
    tree = as_session_tree(session_tree)
    requester_agent = agent_of_key(current_session)
    scoped = js_trim(agent_id or "") or requester_agent
    identity = _session_identity(path)
    if identity is None:
        return False
    stem, owner, archived = identity
    if owner and js_trim(owner).lower() != scoped.lower():
        return False
    archived_owner = owner if archived and owner else None
    keys = [k for k in _stem_keys(tree, stem, archived_owner)
            if agent_of_key(k).lower() == scoped.lower()]
    if not keys:
        return False
    spawned = _spawned if _spawned is not None else (
        _spawned_keys(tree, current_session, transitive) if visibility in ("tree", "all")
        else set())
    for key in keys:
        target_agent = agent_of_key(key)
        is_self = key == current_session or key == "current"
        owned = key in spawned
        if not is_self and owned and visibility in ("tree", "all"):
            return True
        if target_agent != requester_agent:
            if visibility == "all" and _a2a_allows(agent_to_agent, requester_agent, target_agent):
                return True
            continue
        if visibility == "self" and not is_self:
            continue
        if visibility == "tree" and not is_self and not owned:
            continue
        return True
    return False


def visible_session_paths(
    session_tree: Any,
    current_session: str | None,
    mode: str = "tree",
    agent_id: str | None = None,
    *,
    paths: Iterable[str] | None = None,
    transitive: bool = False,
    agent_to_agent: bool | Sequence[str] = False,
) -> set[str]:
    """The indexed session paths ``current_session`` may see (see
    :func:`is_session_path_visible` for the rules of each ``mode``).

    ``paths`` are the candidates, e.g. the ``sessions`` paths of a corpus (archives included);
    by default the live transcript of every session in the tree,
    ``sessions/<agent>/<sessionFile basename or sessionId.jsonl>``.

    >>> tree = {"agent:main:main": {"sessionId": "a"},
    ...         "agent:main:subagent:1": {"sessionId": "b", "spawnedBy": "agent:main:main"},
    ...         "agent:main:telegram:direct:42": {"sessionId": "c"}}
    >>> sorted(visible_session_paths(tree, "agent:main:main", "tree"))
    ['sessions/main/a.jsonl', 'sessions/main/b.jsonl']
    >>> sorted(visible_session_paths(tree, "agent:main:subagent:1", "agent"))
    ['sessions/main/a.jsonl', 'sessions/main/b.jsonl', 'sessions/main/c.jsonl']
    """
    tree = as_session_tree(session_tree)
    if paths is None:
        candidates = []
        for node in tree.values():
            base = (posixpath.basename(node.session_file.replace("\\", "/"))
                    if node.session_file else f"{node.session_id}.jsonl"
                    if node.session_id else None)
            if base:
                candidates.append(f"sessions/{node.agent_id}/{base}")
    else:
        candidates = list(paths)
    if not current_session:
        return set()
    visibility = _check_mode(mode)
    spawned = (_spawned_keys(tree, current_session, transitive)
               if visibility in ("tree", "all") else set())
    return {p for p in candidates if is_session_path_visible(
        p, tree, current_session, visibility, agent_id, transitive=transitive,
        agent_to_agent=agent_to_agent, _spawned=spawned)}


class SessionVisibility(Stage):
    """Drop ``source == "sessions"`` hits the requester may not see; memory hits pass.

    Where it sits decides the result count, never whether a hidden session can appear (it
    cannot, anywhere):

    * **after** ``Threshold`` -- production parity. OpenClaw's ``memory_search`` tool filters
      the manager's results, which are already cut to ``minScore``/``maxResults``, so a hidden
      hit costs a slot and the tool may return fewer than ``maxResults`` hits;
    * **before** ``Threshold`` -- every slot goes to a visible hit (and the relaxed keyword
      fallback only sees visible hits); a research variant, not what OpenClaw returns.

    >>> SessionVisibility({}, "agent:main:main", mode="agent")  # doctest: +NORMALIZE_WHITESPACE
    SessionVisibility(current_session='agent:main:main', mode='agent', session_tree={})
    """

    def __init__(self, session_tree: Any, current_session: str | None, mode: str = "tree",
                 agent_id: str | None = None, transitive: bool = False,
                 agent_to_agent: bool | Sequence[str] = False):
        self.session_tree = session_tree
        self.current_session = current_session
        self.mode = mode
        self.agent_id = agent_id
        self.transitive = transitive
        self.agent_to_agent = agent_to_agent

    def transform(self, hits: pd.DataFrame) -> pd.DataFrame:
        _check_mode(self.mode)
        if hits.empty:
            return hits
        is_session = hits["source"].to_numpy() == "sessions"
        if not is_session.any():
            return hits
        session_paths = set(hits.loc[is_session, "path"])
        visible = visible_session_paths(
            self.session_tree, self.current_session, self.mode, self.agent_id,
            paths=session_paths, transitive=self.transitive,
            agent_to_agent=self.agent_to_agent)
        keep = ~is_session | hits["path"].isin(visible).to_numpy()
        out = hits[keep].copy()
        out["rank"] = out.groupby("qid", sort=False).cumcount() + 1
        return out.reset_index(drop=True)
