"""Transcript file names: which files are usage-counted transcripts, archives, checkpoints
(``src/config/sessions/artifacts.ts``), and the path a transcript is indexed under.
"""

from __future__ import annotations

import os
import posixpath
import re

_ARCHIVE_TS = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}(?:\.[0-9]{3})?Z")
_STORE_BACKUP = re.compile(r"sessions\.json\.bak\.[0-9]+")
_CHECKPOINT = re.compile(
    r"(.+)\.checkpoint\.([0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-"
    r"[0-9a-f]{12})\.jsonl", re.I | re.S)


def _has_archive_suffix(name: str, reason: str) -> bool:
    marker = f".{reason}."
    index = name.rfind(marker)
    return index >= 0 and bool(_ARCHIVE_TS.fullmatch(name[index + len(marker):]))


def is_archive_name(name: str) -> bool:
    return bool(_STORE_BACKUP.fullmatch(name)) or any(
        _has_archive_suffix(name, r) for r in ("deleted", "reset", "bak"))


def is_checkpoint_name(name: str) -> bool:
    return bool(_CHECKPOINT.fullmatch(name))


def _is_primary_name(name: str) -> bool:
    if name == "sessions.json" or not name.endswith(".jsonl"):
        return False
    if name.endswith(".trajectory.jsonl") or is_checkpoint_name(name):
        return False
    return not is_archive_name(name)


def is_usage_counted_transcript_name(name: str) -> bool:
    """OpenClaw's ``isUsageCountedSessionTranscriptFileName``.

    >>> [is_usage_counted_transcript_name(n) for n in (
    ...     "abc.jsonl", "abc.jsonl.reset.2026-01-02T03-04-05Z",
    ...     "abc.jsonl.bak.2026-01-02T03-04-05Z", "abc.trajectory.jsonl", "sessions.json")]
    [True, True, False, False, False]
    """
    if _is_primary_name(name):
        return True
    return _has_archive_suffix(name, "reset") or _has_archive_suffix(name, "deleted")


def usage_counted_session_id(name: str) -> str | None:
    """``parseUsageCountedSessionIdFromFileName``: the session id a transcript belongs to.

    >>> usage_counted_session_id("abc.jsonl"), usage_counted_session_id(
    ...     "abc.jsonl.deleted.2026-01-02T03-04-05.123Z")
    ('abc', 'abc')
    """
    if _is_primary_name(name):
        return name[:-6]
    for reason in ("reset", "deleted"):
        marker = f".jsonl.{reason}."
        index = name.rfind(marker)
        if index > 0 and _has_archive_suffix(name, reason):
            return name[:index]
    return None


def skip_for_dreaming(name: str) -> bool:
    """``shouldSkipTranscriptFileForDreaming``: checkpoints and non-usage-counted archives."""
    return is_checkpoint_name(name) or (is_archive_name(name)
                                         and not is_usage_counted_transcript_name(name))


def is_usage_counted_archive(name: str) -> bool:
    return (is_usage_counted_transcript_name(name) and is_archive_name(name)
            and usage_counted_session_id(name) is not None)


def agent_from_session_path(abs_path: str) -> str | None:
    parts = [p for p in os.path.normpath(os.path.abspath(abs_path)).split(os.sep) if p]
    try:
        index = len(parts) - 1 - parts[::-1].index("sessions")
    except ValueError:
        return None
    if index < 2 or parts[index - 2] != "agents":
        return None
    return parts[index - 1] or None


def session_path_for_file(abs_path: str | os.PathLike[str]) -> str:
    """``sessionPathForFile``: the indexed path of a transcript at its OpenClaw location.

    >>> session_path_for_file("/home/u/.openclaw/agents/main/sessions/abc.jsonl")
    'sessions/main/abc.jsonl'
    >>> session_path_for_file("/elsewhere/abc.jsonl")
    'sessions/abc.jsonl'
    """
    path = os.fspath(abs_path)
    agent = agent_from_session_path(path)
    parts = ["sessions", *([agent] if agent else []), os.path.basename(path)]
    return posixpath.join(*parts).replace("\\", "/")
