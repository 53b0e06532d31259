"""The transcripts OpenClaw indexes for an agent: the session store (``sessions.json``) and
the directory listing (``listSessionFilesForAgent``).
"""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlab.config.load import normalize_agent_id
from memlab.config.types import DEFAULT_AGENT_ID
from memlab.sessions.keys import agent_of_key, is_cron_run_key, is_dreaming_key, trimmed_or_none
from memlab.sessions.names import (
    agent_from_session_path,
    is_archive_name,
    is_usage_counted_transcript_name,
    usage_counted_session_id,
)
from memlab.text.js import (
    js_trim,
    json_parse,
)


def read_store(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A ``sessions.json`` session store (``{}`` when missing or invalid)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            ok, parsed = json_parse(fh.read())
    except OSError:
        return {}
    return parsed if ok and isinstance(parsed, dict) else {}


def cron_generated_keys(store: Mapping[str, Any]) -> set[str]:
    """``collectCronGeneratedSessionKeys``: cron-run keys and sessions spawned from them."""
    cache: dict[str, bool] = {}
    resolving: set[str] = set()
    out: set[str] = set()

    def parents(entry: Any) -> list[str]:
        keys: list[str] = []
        if isinstance(entry, dict):
            for value in (entry.get("parentSessionKey"), entry.get("spawnedBy")):
                trimmed = trimmed_or_none(value)
                if trimmed and trimmed not in keys:
                    keys.append(trimmed)
        return keys

    def generated(key: str, entry: Any) -> bool:
        if is_cron_run_key(key):
            cache[key] = True
            out.add(key)
            return True
        if key in cache:
            return cache[key]
        if key in resolving:
            return False
        resolving.add(key)
        result = any(is_cron_run_key(p) or generated(p, store.get(p)) for p in parents(entry))
        resolving.discard(key)
        cache[key] = result
        if result:
            out.add(key)
        return result

    for key, entry in store.items():
        generated(key, entry)
    return out


# --------------------------------------------------------------------------- listing


@dataclass(frozen=True)
class SessionFile:
    """A transcript OpenClaw indexes for an agent.

    ``path`` is the indexed path ``sessions/<agentId>/<basename>``; ``kind`` is
    ``"active-session"`` (listed in ``sessions.json``), ``"archive-artifact"`` (a
    ``.reset``/``.deleted`` archive) or ``"orphan-file-artifact"`` (a transcript the store does
    not list). ``generated_by_dreaming`` / ``generated_by_cron`` come from the store and make
    the whole transcript index as empty.
    """

    path: str
    abs_path: Path
    agent_id: str
    session_id: str
    kind: str
    session_key: str | None = None
    generated_by_dreaming: bool = False
    generated_by_cron: bool = False


def _resolve_agent_sessions_dir(root: str | os.PathLike[str], agent_id: str) -> Path:
    root_path = Path(root).expanduser()
    for candidate in (root_path / "agents" / agent_id / "sessions", root_path / agent_id):
        if candidate.is_dir():
            return candidate
    return root_path / agent_id


def _store_transcript(sessions_dir: str, entry: Any) -> str | None:
    """``resolveSessionStoreTranscriptCorpusPath`` for an agent-owned store (simplified:
    the transcript must sit directly in the sessions directory)."""
    if not isinstance(entry, dict):
        return None
    session_file = trimmed_or_none(entry.get("sessionFile"))
    session_id = trimmed_or_none(entry.get("sessionId")) or (
        usage_counted_session_id(os.path.basename(session_file)) if session_file else None)
    if not session_id:
        return None
    if not session_file:
        return os.path.join(sessions_dir, f"{session_id}.jsonl")
    candidate = session_file if os.path.isabs(session_file) else os.path.normpath(
        os.path.join(sessions_dir, session_file))
    if os.path.realpath(os.path.dirname(candidate)) != os.path.realpath(sessions_dir):
        return None
    return candidate


def _is_regular(path: str) -> bool:
    try:
        return stat_mod.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def real_path(path: str) -> str:
    try:
        return os.path.realpath(path, strict=True)
    except OSError:
        try:
            return os.path.join(os.path.realpath(os.path.dirname(path), strict=True),
                                os.path.basename(path))
        except OSError:
            return os.path.abspath(path)


def list_session_files(sessions_root: str | os.PathLike[str],
                       agent_id: str = DEFAULT_AGENT_ID) -> list[SessionFile]:
    """The transcripts OpenClaw indexes for ``agent_id`` (``listSessionFilesForAgent``).

    ``sessions_root`` is a memlab dataset's ``workspace/sessions`` folder (transcripts in
    ``<agentId>/``) or an OpenClaw state directory (``agents/<agentId>/sessions/``). Transcripts
    listed in the agent's ``sessions.json`` come first, in store order, then the remaining
    usage-counted files of the directory in name order. Archives whose live session belongs to
    another agent, symlinks, compaction checkpoints, ``.bak`` archives, trajectories and
    non-``.jsonl`` files are skipped.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp()); (root / "main").mkdir()
    >>> for name in ["b.jsonl", "a.jsonl", "a.jsonl.reset.2026-01-02T03-04-05Z", "notes.txt"]:
    ...     _ = (root / "main" / name).write_text("")
    >>> [(f.path, f.kind) for f in list_session_files(root)]  # doctest: +NORMALIZE_WHITESPACE
    [('sessions/main/a.jsonl', 'orphan-file-artifact'),
     ('sessions/main/a.jsonl.reset.2026-01-02T03-04-05Z', 'archive-artifact'),
     ('sessions/main/b.jsonl', 'orphan-file-artifact')]
    """
    agent = normalize_agent_id(agent_id)
    directory = _resolve_agent_sessions_dir(sessions_root, agent)
    return list_sessions_dir(os.path.abspath(directory), agent)


def list_sessions_dir(sessions_dir: str, agent: str) -> list[SessionFile]:
    """``listSessionTranscriptCorpusEntriesForAgentSync`` for one agent-owned directory."""
    if not os.path.isdir(sessions_dir):
        return []
    store = read_store(os.path.join(sessions_dir, "sessions.json"))
    cron_keys = cron_generated_keys(store)
    active: dict[str, SessionFile] = {}
    owners: dict[str, str] = {}
    for key, entry in store.items():
        owner = agent_of_key(key, default=agent)
        transcript = _store_transcript(sessions_dir, entry)
        if not transcript or not is_usage_counted_transcript_name(os.path.basename(transcript)):
            continue
        session_id = trimmed_or_none(entry.get("sessionId")) or usage_counted_session_id(
            os.path.basename(transcript))
        if not session_id:
            continue
        real = real_path(transcript)
        owners[real] = owner
        if owner != agent:
            continue
        active[real] = SessionFile(
            path=f"sessions/{agent}/{os.path.basename(transcript)}",
            abs_path=Path(transcript), agent_id=agent, session_id=session_id,
            kind="active-session", session_key=js_trim(key) or None,
            generated_by_dreaming=is_dreaming_key(key) or is_dreaming_key(entry.get(
                "spawnedBy")),
            generated_by_cron=key in cron_keys)
    out = [f for f in active.values() if _is_regular(os.fspath(f.abs_path))]
    try:
        names = sorted((e.name for e in os.scandir(sessions_dir) if e.is_file(
            follow_symlinks=False)), key=os.fsencode)
    except OSError:
        names = []
    for name in names:
        if not is_usage_counted_transcript_name(name):
            continue
        full = os.path.join(sessions_dir, name)
        real = real_path(full)
        if real in active or owners.get(real):
            continue
        session_id = usage_counted_session_id(name)
        if not session_id:
            continue
        archive = is_archive_name(name)
        primary = real_path(os.path.join(sessions_dir, f"{session_id}.jsonl")) if archive else None
        if primary is not None and owners.get(primary, agent) != agent:
            continue
        primary_entry = active.get(primary) if primary is not None else None
        out.append(SessionFile(
            path=f"sessions/{agent}/{name}", abs_path=Path(full), agent_id=agent,
            session_id=session_id,
            kind="archive-artifact" if archive else "orphan-file-artifact",
            generated_by_dreaming=bool(primary_entry and primary_entry.generated_by_dreaming),
            generated_by_cron=bool(primary_entry and primary_entry.generated_by_cron)))
    return out


def classify_from_store(abs_path: str) -> tuple[bool, bool]:
    """Dreaming/cron classification of a transcript from the ``sessions.json`` beside it."""
    directory = os.path.dirname(abs_path)
    if not os.path.exists(os.path.join(directory, "sessions.json")):
        return False, False
    real = real_path(abs_path)
    name = os.path.basename(abs_path)
    session_id = usage_counted_session_id(name)
    primary = (real_path(os.path.join(directory, f"{session_id}.jsonl"))
               if session_id and is_archive_name(name) else None)
    agent = agent_from_session_path(abs_path) or os.path.basename(directory)
    for f in list_sessions_dir(os.path.abspath(directory), normalize_agent_id(agent)):
        if real_path(os.fspath(f.abs_path)) in (real, primary) and f.kind == "active-session":
            return f.generated_by_dreaming, f.generated_by_cron
    return False, False
