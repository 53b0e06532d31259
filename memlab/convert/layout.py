"""Write conversations as an OpenClaw workspace: dated daily notes or session transcripts.

Both layouts are what OpenClaw itself indexes:

``notes``
    one Markdown daily note per calendar day, ``memory/YYYY-MM-DD.md``: a ``# YYYY-MM-DD``
    title, then per session a ``## <session title>`` heading and one turn a line
    (``Speaker: text``, whitespace collapsed so a turn never spans lines); sessions of the
    same day share the file, separated by a blank line. A session's span is its heading to
    its last turn.
``transcripts``
    one OpenClaw session transcript per session, ``sessions/<agent>/<session-id>.jsonl``:
    a ``session`` header record, then one ``message`` record a line (``user`` / ``assistant``,
    string content, ISO and millisecond timestamps), the format :mod:`memlab.sessions`
    renders. A turn's line is its JSONL line (what OpenClaw's ``lineMap`` reports); a
    session's span is its first to its last message line. A system must enable sessions
    (``sources: ["memory", "sessions"]``, ``experimental.sessionMemory: true``) to search
    them; :data:`SESSION_OVERRIDES` are those settings.

:func:`write_layout` returns where every turn and session landed, from which the converters
write line-span qrels.

>>> import tempfile, datetime as dt
>>> s = Session("s1", dt.datetime(2023, 5, 8, 13, 56), "Session 1",
...             [Turn("D1:1", "user", "Ann", "Hi!"), Turn("D1:2", "assistant", "Bo", "Hey")])
>>> placed = write_layout([s], tempfile.mkdtemp(), "notes")
>>> placed.turns["D1:2"], placed.sessions["s1"]
(('memory/2023-05-08.md', 5), ('memory/2023-05-08.md', 3, 5))
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memlab.lazy import lazy_exports

__all__ = ["LAYOUTS", "SESSION_OVERRIDES", "Placement", "Session",  # noqa: F822 (lazy, below)
           "Turn", "write_layout"]

# re-exported on first use: memlab.eval.collection pulls in scipy.stats (start-up, issue 16)
__getattr__, __dir__ = lazy_exports(__name__, {"SESSION_OVERRIDES": "memlab.eval.collection"})

LAYOUTS = ("notes", "transcripts")


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class Turn:
    """One utterance: ``id`` (the source's own, e.g. LoCoMo ``"D3:1"``), ``role``
    (``"user"``/``"assistant"``), the ``speaker`` name shown in the text (``None``: the role)
    and the ``text``."""

    id: str
    role: str
    speaker: str | None
    text: str


@dataclass
class Session:
    """One conversation session: an ``id``, its start time ``when`` (UTC), a ``title`` and
    its ``turns`` in order."""

    id: str
    when: dt.datetime
    title: str
    turns: list[Turn]


@dataclass
class Placement:
    """Where :func:`write_layout` put things: ``turns[turn_id] = (path, line)``,
    ``sessions[session_id] = (path, start_line, end_line)`` (paths relative to the workspace,
    lines 1-based) and the ``files`` written."""

    turns: dict[str, tuple[str, int]] = field(default_factory=dict)
    sessions: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


def one_line(text: str) -> str:
    """``text`` with all whitespace runs (newlines included) collapsed to one space.

    >>> one_line("a\\n\\n b  c ")
    'a b c'
    """
    return " ".join(str(text).split())


def safe_name(text: str) -> str:
    """A file-name-safe form of an id (runs of other characters become ``_``).

    >>> safe_name("conv 26/a")
    'conv_26_a'
    """
    return _SAFE.sub("_", str(text)).strip("_") or "x"


def _utc(when: dt.datetime) -> dt.datetime:
    return when.replace(tzinfo=dt.UTC) if when.tzinfo is None else when.astimezone(dt.UTC)


def iso_z(when: dt.datetime) -> str:
    """``when`` as ISO-8601 UTC with a ``Z`` (naive times are taken as UTC).

    >>> iso_z(dt.datetime(2023, 5, 8, 13, 56))
    '2023-05-08T13:56:00Z'
    """
    return _utc(when).strftime("%Y-%m-%dT%H:%M:%SZ")


def _turn_line(turn: Turn) -> str:
    who = turn.speaker or turn.role.capitalize()
    return f"{who}: {one_line(turn.text)}"


def _write_notes(sessions: Sequence[Session], root: Path) -> Placement:
    placed = Placement()
    by_day: dict[str, list[Session]] = {}
    for s in sorted(sessions, key=lambda s: _utc(s.when)):
        by_day.setdefault(_utc(s.when).strftime("%Y-%m-%d"), []).append(s)
    (root / "memory").mkdir(parents=True, exist_ok=True)
    for day, group in by_day.items():
        path = f"memory/{day}.md"
        lines = [f"# {day}"]
        for s in group:
            lines.append("")
            lines.append(f"## {one_line(s.title)}")
            start = len(lines)
            for turn in s.turns:
                lines.append(_turn_line(turn))
                placed.turns[turn.id] = (path, len(lines))
            placed.sessions[s.id] = (path, start, len(lines))
        (root / path).write_text("\n".join(lines) + "\n", encoding="utf-8")
        placed.files.append(path)
    return placed


def _record_id(*parts: str) -> str:
    return hashlib.sha1("\x00".join(parts).encode()).hexdigest()[:8]


def _write_transcripts(sessions: Sequence[Session], root: Path, agent: str) -> Placement:
    placed = Placement()
    folder = root / "sessions" / agent
    folder.mkdir(parents=True, exist_ok=True)
    names: set[str] = set()
    for s in sorted(sessions, key=lambda s: _utc(s.when)):
        name = safe_name(s.id)
        while name in names:  # ids that differ only in unsafe characters
            name += "_"
        names.add(name)
        path = f"sessions/{agent}/{name}.jsonl"
        start = _utc(s.when)
        records = [{"type": "session", "version": 3, "id": name, "timestamp": iso_z(start)}]
        parent = None
        for i, turn in enumerate(s.turns):
            when = start + dt.timedelta(seconds=i + 1)
            text = one_line(turn.text)
            if turn.speaker:
                text = f"{turn.speaker}: {text}"
            rid = _record_id(s.id, turn.id, str(i))
            records.append({"type": "message", "id": rid, "parentId": parent,
                            "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                            "message": {"role": turn.role, "content": text,
                                        "timestamp": int(when.timestamp() * 1000)}})
            parent = rid
            placed.turns[turn.id] = (path, len(records))
        placed.sessions[s.id] = (path, 2, max(len(records), 2))
        (root / path).write_text("\n".join(json.dumps(r, ensure_ascii=False)
                                           for r in records) + "\n", encoding="utf-8")
        placed.files.append(path)
    return placed


def write_layout(sessions: Sequence[Session], workspace: str | Path, layout: str = "notes",
                 *, agent: str = "main") -> Placement:
    """Write ``sessions`` under ``workspace`` in ``layout`` (``"notes"`` or
    ``"transcripts"``, see the module docstring) and say where each turn and session is.

    Turn and session ids must be unique across ``sessions``.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    seen: set[str] = set()
    for s in sessions:
        for turn in s.turns:
            if turn.id in seen:
                raise ValueError(f"duplicate turn id {turn.id!r} (session {s.id!r})")
            seen.add(turn.id)
    if len({s.id for s in sessions}) != len(sessions):
        raise ValueError("duplicate session ids")
    root = Path(workspace)
    root.mkdir(parents=True, exist_ok=True)
    if layout == "notes":
        return _write_notes(sessions, root)
    return _write_transcripts(sessions, root, agent)
