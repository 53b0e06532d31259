"""Live session transcripts from OpenClaw 2026.9's SQLite session store, read-only.

OpenClaw 2026.9.6 keeps an agent's live sessions in its agent database
(``~/.openclaw/agents/<agentId>/agent/openclaw-agent.sqlite``; a memlab dataset keeps a copy
at ``workspace/sessions/<agentId>/openclaw-agent.sqlite``, :data:`STORE_FILE`) and indexes
them through ``listSessionTranscriptCorpusEntriesForAgent`` and ``buildSessionEntry``
(``packages/memory-host-sdk/src/host/session-files.ts`` and
``session-transcript-corpus.ts`` in the bundle's ``session-files-*.mjs``;
docs/openclaw-2026.9.md 11.1). This module reproduces what those read:

* **Sessions** (:func:`read_live_sessions`): the rows of ``session_nodes`` in
  ``session_key`` order (``loadSessionEntrySnapshot``), skipping internal session-effects
  keys; each row's ``entry_json`` is the session entry, ``sessionId`` its transcript. A key
  ``agent:<id>:...`` belongs to that agent, any other key to the agent being indexed
  (``resolveSessionAgentId`` with the fallback); another agent's sessions are left out.
  ``classifySessionEntry``/``collectCronGeneratedSessionKeys``: dreaming-narrative keys (or
  ``spawnedBy``), cron-run keys and sessions spawned from them, and ``heartbeat`` sessions
  (``heartbeatIsolatedBaseSessionKey``) are not indexed (``isMemorySessionIndexable``).
* **Records**: ``transcript_events`` of the session ordered by ``seq``
  (``loadTranscriptEventsFromDatabase``); ``event_json`` is the record, or, for a record
  OpenClaw compressed (``prepareTranscriptPayload``: records of 1024+ bytes that shrink), a
  zstd frame of its UTF-8 JSON in ``event_zstd``, ``event_utf8_bytes`` long. A transcript in
  cold storage (which OpenClaw restores before reading) is refused with :class:`StoreError`.
  The header record (``{"type": "session", "version": 3, "id": ...}``) is
  record 1, so rendered lines map to record numbers exactly as to JSONL lines.
* **Rendering**: the records go through :func:`memlab.sessions.render.parse_session`, the
  one renderer (``buildSessionEntryInProcess`` runs the same loop over ``snapshot.events``
  as over a file's lines). A transcript with a dreaming-narrative record is not indexed.
* **Path, mtime, size** (``sqliteSessionFileState``): path
  ``sessions/<agentId>/<sessionId>.jsonl`` (``sessionPathForSessionIdentity``), mtime the
  entry's ``updatedAt`` (else the highest ``seq``), size the JSONL byte size
  (``sum(event_utf8_bytes or UTF-8 length of event_json)`` plus one newline between records).
  Session hits decay by that mtime.
* **Reset cutoff** (``resolveSessionResetRecallCutoff``): after a ``reset`` record the
  rendered text is chunked in two parts, before and from the first line owned by the reset
  generation (:func:`reset_cutoff_line`, :func:`chunk_at_reset_boundary`).

Not mirrored (outside what this store holds): ``memory forget`` tombstones, the read fence
of an in-flight turn (only inside a running agent turn), transcripts whose every line has a
system origin, the per-message ``sessionKind`` provenance.

>>> import sqlite3, tempfile, pathlib, json
>>> db = pathlib.Path(tempfile.mkdtemp()) / STORE_FILE
>>> con = sqlite3.connect(db)
>>> _ = con.executescript(
...     "CREATE TABLE session_nodes (session_key TEXT, current_session_id TEXT, entry_json TEXT);"
...     "CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT,"
...     " event_zstd BLOB, event_utf8_bytes INTEGER);")
>>> _ = con.execute("INSERT INTO session_nodes VALUES (?, ?, ?)", ("agent:main:main", "s1",
...     json.dumps({"sessionId": "s1", "updatedAt": 1700000000000})))
>>> for seq, rec in enumerate([{"type": "session", "version": 3, "id": "s1"},
...         {"type": "message", "id": "m1", "message": {"role": "user", "content": "hi"}}]):
...     _ = con.execute("INSERT INTO transcript_events VALUES ('s1', ?, ?, NULL, NULL)",
...                     (seq, json.dumps(rec)))
>>> con.commit(); con.close()
>>> [(s.path, s.transcript.text, s.transcript.line_map, s.mtime_ms)
...  for s in read_live_sessions(db, "main")]
[('sessions/main/s1.jsonl', 'User: hi', [2], 1700000000000.0)]
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

try:  # the standard library's zstd from Python 3.14 on, its backport before
    from compression import zstd  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the Python version
    from backports import zstd  # type: ignore[no-redef]

from memlab.chunking import Chunk, chunk_memory_file
from memlab.config.load import normalize_agent_id
from memlab.sessions.files import cron_generated_keys
from memlab.sessions.keys import agent_of_key, is_dreaming_key, trimmed_or_none
from memlab.sessions.render import SessionTranscript, parse_session

#: The agent database's file name (``openclaw-agent.sqlite``).
STORE_FILE = "openclaw-agent.sqlite"
#: ``INTERNAL_SESSION_EFFECTS_SEGMENT``: keys ``agent:<id>:internal-session-effects:...``
#: are not sessions (``isInternalSessionEffectsKey``).
_INTERNAL_EFFECTS_PREFIX = "internal-session-effects:"


class StoreError(RuntimeError):
    """The store holds a record this reader cannot decode, or a transcript in cold storage."""


@dataclass(frozen=True)
class LiveSession:
    """One live session as 2026.9 indexes it.

    ``path`` is the indexed path, ``mtime_ms`` the mtime its hits decay by, ``size`` the JSONL
    size in bytes, ``transcript`` the rendering (``line_map`` holds record numbers, the header
    being 1), ``cutoff_line`` the reset cutoff (:func:`reset_cutoff_line`) or ``None``.
    """

    session_key: str
    session_id: str
    session_kind: str
    path: str
    mtime_ms: float
    size: int
    transcript: SessionTranscript
    cutoff_line: int | None


def _is_internal_effects_key(key: str) -> bool:
    if not key.startswith("agent:"):
        return False
    end = key.find(":", 6)
    return end >= 0 and key.startswith(_INTERNAL_EFFECTS_PREFIX, end + 1)


def _session_kind(key: str, entry: dict[str, Any], cron_keys: set[str]) -> tuple[str, bool, bool]:
    """``classifySessionEntry``: (sessionKind, generatedByDreamingNarrative, generatedByCron)."""
    dreaming = is_dreaming_key(key) or is_dreaming_key(entry.get("spawnedBy"))
    cron = key in cron_keys
    if cron:
        kind = "cron"
    elif trimmed_or_none(entry.get("heartbeatIsolatedBaseSessionKey")):
        kind = "heartbeat"
    elif dreaming or entry.get("spawnedBy") or ":subagent:" in key:
        kind = "subagent"
    else:
        kind = "interactive"
    return kind, dreaming, cron


def reset_cutoff_line(records: Sequence[Any]) -> int | None:
    """``resolveSessionResetRecallCutoff``: the first record number (1-based) owned by the last
    ``reset`` record's generation; ``None`` without a (valid) reset.

    >>> reset_cutoff_line([{"type": "session"}, {"id": "a"}, {"type": "reset"}])
    3
    >>> reset_cutoff_line([{"id": "a"}, {"id": "b"}, {"type": "reset", "firstKeptEntryId": "b"}])
    2
    >>> reset_cutoff_line([{"id": "a"}]) is None
    True
    """
    reset_at = next((i for i in range(len(records) - 1, -1, -1)
                     if isinstance(records[i], dict) and records[i].get("type") == "reset"), -1)
    if reset_at < 0:
        return None
    kept = records[reset_at].get("firstKeptEntryId")
    if kept is None:
        return reset_at + 1
    if not isinstance(kept, str) or not kept.strip():
        return None
    for i in range(reset_at):
        rid = records[i].get("id") if isinstance(records[i], dict) else None
        if isinstance(rid, str) and rid.strip() and rid == kept:
            return i + 1
    return None


def chunk_at_reset_boundary(path: str, content: str, line_map: Sequence[int],
                            cutoff_line: int | None, version: int = 5) -> list[Chunk]:
    """``chunkSessionContentAtResetBoundary``: the rendered lines before the first one that
    comes from record ``cutoff_line`` or later, and the rest, chunked separately (lines of
    the rendered text, not yet remapped); one piece when there is no such split.

    >>> text = "User: a\\nAssistant: b\\nUser: c"
    >>> [(c.start_line, c.end_line) for c in chunk_at_reset_boundary("s", text, [2, 3, 5], 4)]
    [(1, 2), (3, 3)]
    """
    cut = (next((i for i, line in enumerate(line_map) if line >= cutoff_line), -1)
           if cutoff_line is not None else -1)
    if cut <= 0:
        return chunk_memory_file(path, content, source="sessions", version=version)
    lines = content.split("\n")
    head = chunk_memory_file(path, "\n".join(lines[:cut]), source="sessions", version=version)
    tail = chunk_memory_file(path, "\n".join(lines[cut:]), source="sessions", version=version)
    return head + [replace(c, start_line=c.start_line + cut, end_line=c.end_line + cut)
                   for c in tail]


def _has_table(con: sqlite3.Connection, name: str) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                       (name,)).fetchone() is not None


def _decompress(session_id: str, seq: int, packed: Any, utf8_bytes: Any) -> str:
    """``coalesce(event_json, decode(event_zstd, event_utf8_bytes))``: a record stored as a
    zstd frame of its UTF-8 JSON (``prepareTranscriptPayload``), its length checked."""
    if not isinstance(packed, bytes) or not isinstance(utf8_bytes, int) or utf8_bytes < 1:
        raise StoreError(f"session {session_id}: record {seq} has no JSON and no valid "
                         "compressed payload")
    raw = zstd.decompress(packed)
    if len(raw) != utf8_bytes:
        raise StoreError(f"session {session_id}: record {seq} decompresses to {len(raw)} "
                         f"bytes, not the recorded {utf8_bytes}")
    return raw.decode("utf-8")


def _events(con: sqlite3.Connection, session_id: str, cold: bool) -> tuple[list[str], int, int]:
    """The records' JSON in ``seq`` order, the JSONL byte size and the highest ``seq``."""
    if cold and con.execute("SELECT 1 FROM session_transcript_cold_archives WHERE session_id = ?",
                            (session_id,)).fetchone():
        raise StoreError(f"session {session_id}: transcript is in cold storage")
    texts: list[str] = []
    size = 0
    max_seq = 0
    for seq, text, packed, utf8_bytes in con.execute(
            "SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events "
            "WHERE session_id = ? ORDER BY seq", (session_id,)):
        if text is None:
            text = _decompress(session_id, seq, packed, utf8_bytes)
        texts.append(text)
        size += utf8_bytes if utf8_bytes is not None else len(text.encode("utf-8"))
        max_seq = max(max_seq, int(seq))
    return texts, size + max(0, len(texts) - 1), max_seq


def live_store_path(sessions_root: str | os.PathLike[str], agent_id: str) -> Path:
    """Where a memlab dataset keeps an agent's session store:
    ``<sessions_root>/<agentId>/openclaw-agent.sqlite`` (the agent id normalised).

    >>> live_store_path("ws/sessions", "Main").as_posix()
    'ws/sessions/main/openclaw-agent.sqlite'
    """
    return Path(sessions_root) / normalize_agent_id(agent_id) / STORE_FILE


def read_live_sessions(store: str | os.PathLike[str], agent_id: str) -> list[LiveSession]:
    """The live sessions of ``agent_id`` in the session store file ``store`` that 2026.9.6
    indexes, in its order (module docstring). Opens the file read-only; a file without the
    session tables gives ``[]``. Raises :class:`StoreError` on records it cannot decode.
    """
    agent = normalize_agent_id(agent_id)
    uri = Path(store).resolve().as_uri() + "?mode=ro"
    con = sqlite3.connect(uri, uri=True)
    try:
        if not (_has_table(con, "session_nodes") and _has_table(con, "transcript_events")):
            return []
        cold = _has_table(con, "session_transcript_cold_archives")
        rows: list[tuple[str, dict[str, Any]]] = []
        for key, entry_json in con.execute(
                "SELECT session_key, entry_json FROM session_nodes ORDER BY session_key"):
            if _is_internal_effects_key(key):
                continue
            try:
                entry = json.loads(entry_json)
            except (TypeError, ValueError):
                continue
            if isinstance(entry, dict):
                rows.append((key, entry))
        cron_keys = cron_generated_keys(dict(rows))
        out: list[LiveSession] = []
        for key, entry in rows:
            session_id = trimmed_or_none(entry.get("sessionId"))
            if not session_id or agent_of_key(key, agent) != agent:
                continue
            kind, dreaming, cron = _session_kind(key.strip(), entry, cron_keys)
            if dreaming or cron or kind in ("cron", "heartbeat"):
                continue
            texts, size, max_seq = _events(con, session_id, cold)
            path = f"sessions/{agent}/{session_id}.jsonl"
            transcript = parse_session("\n".join(texts), path=path, generated_by_dreaming=False,
                                       generated_by_cron=False, archive=False)
            if transcript.skip_reason is not None:  # a dreaming-narrative record inside
                continue
            updated = entry.get("updatedAt")
            mtime = (float(updated) if isinstance(updated, (int, float))
                     and not isinstance(updated, bool) and math.isfinite(updated)
                     else float(max_seq))
            records = [json.loads(t) for t in texts]
            out.append(LiveSession(key, session_id, kind, path, mtime, size, transcript,
                                   reset_cutoff_line(records)))
        return out
    finally:
        con.close()
