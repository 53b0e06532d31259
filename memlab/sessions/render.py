"""Rendering a JSONL transcript as OpenClaw indexes it (``buildSessionEntry``), and its chunks.
"""

from __future__ import annotations

import os
import re
import stat as stat_mod
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memlab.chunking import Chunk, chunk_markdown, sha256_hex
from memlab.sessions.envelopes import strip_inbound_metadata, strip_internal_runtime_context
from memlab.sessions.files import classify_from_store
from memlab.sessions.generated import (
    CRON_PROMPT,
    SYSTEM_WRAPPER,
    is_exec_completion,
    is_heartbeat_prompt,
    is_silent_payload,
)
from memlab.sessions.keys import is_cron_run_key
from memlab.sessions.names import (
    is_checkpoint_name,
    is_usage_counted_archive,
    session_path_for_file,
    skip_for_dreaming,
)
from memlab.sessions.redact import redact_sensitive_text
from memlab.text.js import (
    JS_WHITESPACE_CLASS,
    MAX_DATE_MS,
    date_parse,
    from_utf16_units,
    is_high_surrogate,
    is_js_number,
    is_low_surrogate,
    js_float,
    js_number_string,
    js_trim,
    json_parse,
    to_utf16_units,
)
from memlab.workspace import MemlabWarning

#: ``SESSION_EXPORT_CONTENT_WRAP_CHARS``: longest rendered message piece, in UTF-16 units.
SESSION_WRAP_CHARS = 800
_JS_WS_RUN = re.compile(f"[{JS_WHITESPACE_CLASS}]+")


def _normalize_whitespace(value: str) -> str:
    return js_trim(_JS_WS_RUN.sub(" ", value))


def _wrap(text_units: str, max_chars: int = SESSION_WRAP_CHARS) -> list[str]:
    """``splitLongSessionLine`` on UTF-16 units: cut at the last space within ``max_chars``."""
    normalized = js_trim(text_units)
    if not normalized:
        return []
    n = len(normalized)
    if n <= max_chars:
        return [normalized]
    segments: list[str] = []
    cursor = 0
    while cursor < n:
        if n - cursor <= max_chars:
            segments.append(js_trim(normalized[cursor:]))
            break
        limit = cursor + max_chars
        split_at = normalized.rfind(" ", cursor + 1, limit + 1)
        if split_at == -1:
            split_at = limit
        if (split_at < n and split_at > cursor and is_high_surrogate(normalized[split_at - 1])
                and is_low_surrogate(normalized[split_at])):
            split_at -= 1
        segments.append(js_trim(normalized[cursor:split_at]))
        cursor = split_at
        while cursor < n and normalized[cursor] == " ":
            cursor += 1
    return [s for s in segments if s]


def _raw_text(content: Any) -> str | None:
    """``collectRawSessionText``: a string, or the ``text`` blocks joined by newlines."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = [block["text"] for block in content
             if isinstance(block, dict) and block.get("type") == "text"
             and isinstance(block.get("text"), str)]
    return "\n".join(parts) if parts else None


def _sanitize(raw: str, role: str) -> tuple[str | None, str]:
    """``sanitizeSessionText`` on UTF-16 units: ``(text, "")`` or ``(None, drop reason)``."""
    text = to_utf16_units(raw)
    if role == "user":
        text = strip_inbound_metadata(text)
    text = _normalize_whitespace(strip_internal_runtime_context(text))
    if not text:
        return None, "empty"
    if role == "user" and SYSTEM_WRAPPER.search(text):
        return None, "system-wrapper"
    if role == "user" and CRON_PROMPT.search(text):
        return None, "cron-prompt"
    if role == "user" and is_heartbeat_prompt(text):
        return None, "heartbeat-prompt"
    if is_silent_payload(text):
        return None, "silent-reply"
    if role == "assistant" and text == "HEARTBEAT_OK":
        return None, "heartbeat-ok"
    if is_exec_completion(js_trim(SYSTEM_WRAPPER.sub("", text, count=1))):
        return None, "exec-completion"
    return text, ""


def _timestamp_ms(record: dict, message: dict) -> float:
    """``parseSessionTimestampMs``: message then record ``timestamp``; seconds become ms."""
    for value in (message.get("timestamp"), record.get("timestamp")):
        if is_js_number(value):
            number = js_float(value)
            if number == number and number not in (float("inf"), float("-inf")):
                ms = number * 1e3 if 0 < number < 1e11 else number
                if ms == ms and 0 < ms <= MAX_DATE_MS:
                    return ms
        if isinstance(value, str):
            parsed = date_parse(value)
            if parsed == parsed and parsed > 0:
                return parsed
    return 0.0


# --------------------------------------------------------------------------- transcripts


@dataclass(frozen=True)
class SessionTranscript:
    """A transcript rendered for indexing (OpenClaw's session file entry).

    ``text`` is the rendered content (``User: ...``/``Assistant: ...`` lines joined by
    ``\\n``), ``line_map[i]`` the 1-based JSONL line of rendered line ``i + 1``,
    ``timestamps[i]`` its message time in ms (0 when unknown), ``hash`` OpenClaw's entry hash.
    ``message_count`` counts the kept messages. ``skip_reason`` says why a whole transcript
    indexes as empty (``"compaction-checkpoint"``, ``"archive-not-usage-counted"``,
    ``"dreaming-narrative"``, ``"cron-run"``), ``dropped`` counts messages dropped per reason,
    ``warnings`` lists malformed JSONL lines.
    """

    path: str
    text: str
    line_map: list[int]
    timestamps: list[float]
    hash: str
    message_count: int
    skip_reason: str | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        """Rendered lines (``[]`` for an empty transcript)."""
        return self.text.split("\n") if self.text else []


def _entry_hash(content: str, line_map: Sequence[int], timestamps: Sequence[float]) -> str:
    return sha256_hex(content + "\n" + ",".join(str(n) for n in line_map) + "\n"
                      + ",".join(js_number_string(t) for t in timestamps))


def _ms(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _is_dreaming_record(record: Any) -> bool:
    if not isinstance(record, dict):
        return False
    data = record.get("data")
    if (record.get("type") == "custom" and record.get("customType")
            == "openclaw:bootstrap-context:full" and isinstance(data, dict)):
        run_id = data.get("runId")
        if isinstance(run_id, str) and run_id.startswith("dreaming-narrative-"):
            return True

    def dreaming(value: Any) -> bool:
        return isinstance(value, str) and value.startswith("dreaming-narrative-")

    if dreaming(record.get("runId")) or dreaming(record.get("sessionKey")):
        return True
    return isinstance(data, dict) and (dreaming(data.get("runId"))
                                       or dreaming(data.get("sessionKey")))


def _is_cron_record(record: Any) -> bool:
    if not isinstance(record, dict):
        return False
    if is_cron_run_key(record.get("sessionKey")):
        return True
    data = record.get("data")
    return isinstance(data, dict) and is_cron_run_key(data.get("sessionKey"))


def _has_inter_session_provenance(message: dict) -> bool:
    provenance = message.get("provenance")
    return isinstance(provenance, dict) and provenance.get("kind") == "inter_session"


def parse_session(
    source: str | bytes | os.PathLike[str],
    *,
    path: str | None = None,
    generated_by_dreaming: bool | None = None,
    generated_by_cron: bool | None = None,
    archive: bool | None = None,
) -> SessionTranscript:
    """Render a JSONL transcript exactly as OpenClaw's ``buildSessionEntry`` does.

    Args:
        source: a transcript file (``Path``, or a ``str`` naming an existing file or ending in
            ``.jsonl``), raw JSONL text (a ``str`` with a newline or starting with ``{``), or
            bytes (decoded as UTF-8 with replacement, like Node).
        path: the indexed path to report; default ``sessions/<agentId>/<basename>`` from the
            file's OpenClaw location (``sessions/<basename>`` elsewhere, ``sessions/inline.jsonl``
            for text).
        generated_by_dreaming, generated_by_cron: classification from the session store (as
            :func:`list_session_files` reports it); default: read from a ``sessions.json``
            next to the file, else ``False``.
        archive: treat the file as a usage-counted ``.reset``/``.deleted`` archive (cron-run
            records then empty the transcript); default from the file name.

    Malformed lines are skipped with a :class:`~memlab.workspace.MemlabWarning` (and listed in
    ``warnings``); records that are not user/assistant messages, tool calls/results and
    images are ignored. Never raises on bad content; a missing file raises
    ``FileNotFoundError``.

    >>> jsonl = "\\n".join([
    ...     '{"type":"session","id":"s1"}',
    ...     '{"type":"message","message":{"role":"user","content":"Deploy   on\\\\nFriday?"}}',
    ...     '{"type":"message","message":{"role":"assistant","content":[{"type":"text",'
    ...     '"text":"Yes."},{"type":"toolCall","name":"calendar"}]}}'])
    >>> t = parse_session(jsonl)
    >>> print(t.text)
    User: Deploy on Friday?
    Assistant: Yes.
    >>> t.line_map, t.message_count
    ([2, 3], 2)
    """
    abs_path: str | None = None
    if isinstance(source, bytes):
        raw = _decode(source)
    elif isinstance(source, os.PathLike) or (
            isinstance(source, str) and "\n" not in source and not source.lstrip().startswith(
                "{") and (source.endswith(".jsonl") or os.path.isfile(source))):
        abs_path = os.path.abspath(os.fspath(source))
        raw = ""
    else:
        raw = str(source)
    name = os.path.basename(abs_path) if abs_path else "inline.jsonl"
    shown = path or (session_path_for_file(abs_path) if abs_path else f"sessions/{name}")

    if abs_path is not None:
        st = os.lstat(abs_path)  # FileNotFoundError propagates
        if stat_mod.S_ISLNK(st.st_mode) or not stat_mod.S_ISREG(st.st_mode):
            raise ValueError(f"session transcript must be a regular file: {abs_path}")
        if skip_for_dreaming(name):
            reason = ("compaction-checkpoint" if is_checkpoint_name(name)
                      else "archive-not-usage-counted")
            return SessionTranscript(shown, "", [], [], _entry_hash("", [], []), 0, reason)
        with open(abs_path, "rb") as fh:
            raw = _decode(fh.read())
        if generated_by_dreaming is None or generated_by_cron is None:
            store_dreaming, store_cron = classify_from_store(abs_path)
            if generated_by_dreaming is None:
                generated_by_dreaming = store_dreaming
            if generated_by_cron is None:
                generated_by_cron = store_cron
    dreaming = bool(generated_by_dreaming)
    cron = bool(generated_by_cron)
    if archive is None:
        archive = abs_path is not None and is_usage_counted_archive(name)

    collected: list[str] = []
    line_map: list[int] = []
    stamps: list[float] = []
    messages = 0
    dropped: Counter[str] = Counter()
    problems: list[str] = []
    for index, line in enumerate(raw.split("\n")):
        if not js_trim(line):
            continue
        ok, record = json_parse(line)
        if not ok:
            problems.append(f"{shown}:{index + 1}: not valid JSON, line skipped")
            continue
        if not dreaming and _is_dreaming_record(record):
            dreaming = True
        if not cron and archive and _is_cron_record(record):
            cron = True
            collected.clear()
            line_map.clear()
            stamps.clear()
            messages = 0
        if not isinstance(record, dict) or record.get("type") != "message":
            continue
        message = record.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            continue
        role = message["role"]
        if role not in ("user", "assistant"):
            continue
        if role == "user" and _has_inter_session_provenance(message):
            dropped["inter-session"] += 1
            continue
        raw_text = _raw_text(message.get("content"))
        if raw_text is None:
            dropped["no-text"] += 1
            continue
        text, reason = _sanitize(raw_text, role)
        if text is None:
            dropped[reason] += 1
            continue
        if dreaming or cron:
            continue
        safe = to_utf16_units(redact_sensitive_text(from_utf16_units(text)))
        label = "User" if role == "user" else "Assistant"
        rendered = [from_utf16_units(f"{label}: {segment}") for segment in _wrap(safe)]
        stamp = _timestamp_ms(record, message)
        collected.extend(rendered)
        line_map.extend([index + 1] * len(rendered))
        stamps.extend([stamp] * len(rendered))
        messages += 1
    for problem in problems:
        warnings.warn(problem, MemlabWarning, stacklevel=2)
    content = "\n".join(collected)
    skip = "dreaming-narrative" if dreaming else "cron-run" if cron else None
    return SessionTranscript(
        path=shown, text=content, line_map=line_map, timestamps=[_ms(t) for t in stamps],
        hash=_entry_hash(content, line_map, stamps), message_count=messages, skip_reason=skip,
        dropped=dict(dropped), warnings=problems)


# --------------------------------------------------------------------------- chunks


def remap_chunk_lines(chunks: Iterable[Chunk], line_map: Sequence[int]) -> list[Chunk]:
    """``remapChunkLines``: chunk lines of the rendered text become JSONL line numbers.

    >>> c = Chunk(1, 2, "User: a\\nAssistant: b", "h")
    >>> m = remap_chunk_lines([c], [4, 9])[0]
    >>> m.start_line, m.end_line
    (4, 9)
    """
    chunks = list(chunks)
    if not line_map:
        return chunks

    def lookup(line: int) -> int:
        return line_map[line - 1] if 1 <= line <= len(line_map) else line

    return [Chunk(lookup(c.start_line), lookup(c.end_line), c.text, c.hash) for c in chunks]


def session_chunks(transcript: SessionTranscript, tokens: int = 400,
                   overlap: int = 80) -> list[Chunk]:
    """Chunks of a transcript as OpenClaw indexes them: :func:`chunk_markdown` on the rendered
    text (blank chunks dropped), lines remapped to JSONL lines.

    With an embedding provider, split over-long chunks (``split_for_provider``) before or after
    this call: splitting keeps line numbers, so the order does not matter.

    >>> t = parse_session('\\n{"type":"message","message":{"role":"user","content":"hi"}}')
    >>> [(c.start_line, c.end_line, c.text) for c in session_chunks(t)]
    [(2, 2, 'User: hi')]
    """
    return remap_chunk_lines(chunk_markdown(transcript.text, tokens=tokens, overlap=overlap),
                             transcript.line_map)
