"""Curated-memory annotations of OpenClaw 2026.9 and the ranking multipliers they drive.

A curated entry (a ``- `` bullet of ``MEMORY.md``/``USER.md``, or any chunk of a memory file)
may carry HTML comments::

    - Billing deploy window is Tuesday 10:00 <!-- importance: 9 -->
    - NAS snapshot runs nightly <!-- project: infra/nas; acme/ops -->
    - Freeze before holidays <!-- trigger: deploy freeze, release hold -->

This module reproduces ``packages/memory-host-sdk/src/host/curated-annotations.ts`` of
``openclaw@2026.9.6`` (docs/openclaw-2026.9.md sections 2.3 and 8):

* :func:`strip_annotations` (``stripMemoryAnnotationCarriers``): the single-line comments are
  removed before indexing, line numbers kept;
* :func:`entry_metadata` (``extractCuratedEntryRecallMetadata``): importance (1..10, highest
  wins; curated roots only), triggers (curated roots only) and project keys (any memory file but
  ``USER.md``) of one entry; :func:`chunk_metadata` applies it to the chunks of a file as
  ``prepareMemoryIndexChunks`` does;
* the multipliers (``importance.ts``, ``project-ranking.ts``) as array functions:
  :func:`importance_multiplier`, :func:`project_multiplier`, :func:`project_eligible`.

>>> strip_annotations("- a <!-- importance: 9 -->\\n- b")
'- a\\n- b'
>>> entry_metadata(["- a <!-- importance: 2 --> <!-- importance: 7 -->"], curated_root=True)
RecallMetadata(importance=7, triggers=None, project_key=None)
>>> importance_multiplier([None, 1, 9, 10]).round(2).tolist()
[1.0, 0.8, 1.2, 1.25]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from memlab.text.js import JS_WHITESPACE, js_regex, js_trim

__all__ = [
    "CURATED_ROOTS",
    "INVALID_PROJECT_KEY",
    "Annotation",
    "ProjectKeys",
    "RecallMetadata",
    "chunk_metadata",
    "entry_metadata",
    "importance_multiplier",
    "is_curated_root",
    "normalize_project_key",
    "project_eligible",
    "project_keys",
    "project_multiplier",
    "scan_annotations",
    "split_project_key",
    "strip_annotations",
]

#: ``INVALID_PROJECT_ANNOTATION_KEY``: the project key of an entry with a malformed annotation;
#: such entries are dropped from every search (``applyProjectRanking``).
INVALID_PROJECT_KEY = "!invalid-project-annotation"
#: Workspace-root files whose importance/trigger annotations count
#: (``resolveMemoryPathClassification``: ``curatedRoot``). ``memory.md`` is never indexed.
CURATED_ROOTS = ("MEMORY.md", "memory.md", "USER.md")
IMPORTANCE_BASE = 0.75
IMPORTANCE_STEP = 0.05
IMPORTANCE_RANGE = (1, 10)
PROJECT_MATCH = 1.15
PROJECT_MISMATCH = 0.9

_ANY_MARKER = js_regex(r"<!--\s*(trigger|importance|project)\s*:", "giu")
_PROJECT_MARKER = js_regex(r"<!--\s*(project)\s*:", "giu")
_LINE_BREAK = re.compile(r"[\r\n]")
_TRAILING_BLANKS = re.compile(r"[ \t]+")
_LINE_END_CHARS = "\r\n\u2028\u2029"
_BAD_PROJECT_CHARS = re.compile(r"[\r\n<>]")
_DIGITS = re.compile(r"[0-9]+")  # JavaScript's /^\d+$/u: ASCII digits only
_TRIGGER_SPLIT = re.compile(r"[,;]")


@dataclass(frozen=True)
class Annotation:
    """One ``<!-- kind: value -->`` comment: ``text[start:end]`` is the whole comment."""

    start: int
    end: int
    kind: str
    value: str


def scan_annotations(text: str, marker: re.Pattern[str] = _ANY_MARKER,
                     line_scoped: bool = False) -> Iterator[Annotation]:
    """``scanMemoryAnnotations``: every comment opened by ``marker`` and closed by the next
    ``-->``; with ``line_scoped`` a comment whose ``-->`` lies past the end of its line is
    skipped. The value is trimmed (JavaScript ``trim``); ``kind`` is lower-cased.

    >>> [(a.kind, a.value) for a in scan_annotations("x <!-- Project : a; b --> y")]
    [('project', 'a; b')]
    """
    pos = 0
    while True:
        match = marker.search(text, pos)
        if match is None:
            return
        value_start = match.end()
        closing = text.find("-->", value_start)
        if closing < 0:
            return
        if line_scoped:
            brk = _LINE_BREAK.search(text, value_start)
            newline = brk.start() if brk else len(text)
            if newline < closing:
                pos = value_start
                continue
        yield Annotation(match.start(), closing + 3, (match.group(1) or "").lower(),
                         js_trim(text[value_start:closing]))
        pos = closing + 3


def strip_annotations(text: str) -> str:
    """``stripMemoryAnnotationCarriers``: remove the single-line trigger/importance/project
    comments; when any was removed, also every run of spaces/tabs that ends a line (or the
    text). Newlines stay, so line numbers do not move.

    >>> strip_annotations("a <!-- importance: 3 --> b  \\nc <!-- note --> ")
    'a  b\\nc <!-- note -->'
    >>> strip_annotations("kept  \\n")  # nothing stripped: text unchanged
    'kept  \\n'
    """
    parts: list[str] = []
    cursor = 0
    for annotation in scan_annotations(text, _ANY_MARKER, line_scoped=True):
        parts.append(text[cursor:annotation.start])
        cursor = annotation.end
    if cursor == 0:
        return text
    parts.append(text[cursor:])
    joined = "".join(parts)

    def trailing(match: re.Match[str]) -> str:
        end = match.end()
        return "" if end == len(joined) or joined[end] in _LINE_END_CHARS else match.group(0)

    return _TRAILING_BLANKS.sub(trailing, joined)


def normalize_project_key(value: str) -> str | None:
    """``normalizeProjectAnnotationKey``: trimmed key, ``None`` when empty or containing a line
    break, ``<`` or ``>``; ``path:…`` kept as is; otherwise the owner part before the first
    ``/`` (when there is one) is lower-cased.

    >>> [normalize_project_key(v) for v in (" ACME/Light/House ", "/x", "")]
    ['acme/Light/House', '/x', None]
    """
    trimmed = js_trim(value)
    if not trimmed or _BAD_PROJECT_CHARS.search(trimmed):
        return None
    if trimmed.startswith("path:"):
        return trimmed
    separator = trimmed.find("/")
    if separator < 1:
        return trimmed
    return trimmed[:separator].lower() + trimmed[separator:]


@dataclass(frozen=True)
class ProjectKeys:
    """``extractProjectKeysFromCuratedEntry``'s answer for one entry."""

    annotated: bool
    valid: bool
    keys: tuple[str, ...]
    raw_count: int
    valid_count: int


def project_keys(text: str) -> ProjectKeys:
    """The project annotations of an entry's text: every ``<!-- project: a; b -->`` (comments
    may span lines here), split on ``;``, normalised (:func:`normalize_project_key`),
    de-duplicated in order. Valid when unannotated, or when every marker closes, there is at
    least one key and every key is valid.

    >>> project_keys("<!-- project: a; B/c -->").keys
    ('a', 'b/c')
    >>> project_keys("<!-- project: -->").valid
    False
    """
    marker_count = len(_PROJECT_MARKER.findall(text))
    keys: dict[str, None] = {}
    parsed = raw = valid = 0
    for annotation in scan_annotations(text, _PROJECT_MARKER):
        parsed += 1
        for raw_key in annotation.value.split(";"):
            raw += 1
            key = normalize_project_key(raw_key)
            if key:
                keys[key] = None
                valid += 1
    annotated = marker_count > 0
    ok = not annotated or (parsed == marker_count and raw > 0 and raw == valid)
    return ProjectKeys(annotated, ok, tuple(keys), raw, valid)


@dataclass(frozen=True)
class RecallMetadata:
    """What 2026.9 stores per chunk in ``memory_index_chunk_recall_metadata``."""

    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None


def entry_metadata(source_lines: Sequence[str], curated_root: bool = False,
                   project_scope_eligible: bool = True) -> RecallMetadata:
    """``extractCuratedEntryRecallMetadata`` for the original lines of one entry.

    Importance and triggers only when ``curated_root`` (:func:`is_curated_root`), read from
    lines ending (after trailing whitespace) with ``-->``: importance is the highest value
    that is all ASCII digits and in 1..10; triggers are split on ``,``/``;``, de-duplicated and
    joined with ``"; "``. Project keys when ``project_scope_eligible`` (memory files except
    ``USER.md``): joined with ``"; "``, or :data:`INVALID_PROJECT_KEY`.

    >>> entry_metadata(["- a <!-- trigger: x, y; x -->"], curated_root=True).triggers
    'x; y'
    >>> entry_metadata(["- a <!-- importance: 11 -->"], curated_root=True).importance is None
    True
    """
    projects = (project_keys("\n".join(source_lines)) if project_scope_eligible
                else ProjectKeys(False, True, (), 0, 0))
    phrases: dict[str, None] = {}
    importance: int | None = None
    for line in source_lines if curated_root else ():
        if not line.rstrip(JS_WHITESPACE).endswith("-->"):
            continue
        for annotation in scan_annotations(line, _ANY_MARKER):
            if annotation.kind == "trigger":
                for phrase in _TRIGGER_SPLIT.split(annotation.value):
                    phrase = js_trim(phrase)
                    if phrase:
                        phrases[phrase] = None
            elif annotation.kind == "importance" and _DIGITS.fullmatch(annotation.value):
                value = int(annotation.value)
                if IMPORTANCE_RANGE[0] <= value <= IMPORTANCE_RANGE[1]:
                    importance = value if importance is None else max(importance, value)
    if projects.annotated and not projects.valid:
        project_key: str | None = INVALID_PROJECT_KEY
    else:
        project_key = "; ".join(projects.keys) if projects.keys else None
    return RecallMetadata(importance, "; ".join(phrases) if phrases else None, project_key)


def is_curated_root(path: str) -> bool:
    """True for the workspace-relative paths ``MEMORY.md``, ``memory.md``, ``USER.md``.

    >>> is_curated_root("MEMORY.md"), is_curated_root("memory/MEMORY.md")
    (True, False)
    """
    return path in CURATED_ROOTS


class _SpanLike(Protocol):
    start_line: int
    end_line: int
    entry_start_line: int | None
    entry_end_line: int | None


def chunk_metadata(path: str, content: str, chunks: Iterable[_SpanLike],
                   source: str = "memory") -> list[RecallMetadata]:
    """The recall metadata of each chunk of one file, as ``prepareMemoryIndexChunks`` computes
    it: over the entry's span (``entry_start_line..entry_end_line``) when the chunk has one,
    else its own lines, of the original content (CRLF read as LF).

    >>> from memlab.chunking import chunk_memory_file
    >>> text = "- a <!-- importance: 4 -->\\n- b <!-- project: x -->"
    >>> meta = chunk_metadata("MEMORY.md", text, chunk_memory_file("MEMORY.md", text, version=5))
    >>> [(m.importance, m.project_key) for m in meta]
    [(4, None), (None, 'x')]
    """
    if source != "memory":
        return [RecallMetadata() for _ in chunks]
    lines = content.replace("\r\n", "\n").split("\n")
    curated = is_curated_root(path)
    eligible = path.upper() != "USER.MD"
    cache: dict[tuple[int, int], RecallMetadata] = {}
    out = []
    for chunk in chunks:
        start = chunk.entry_start_line or chunk.start_line
        end = chunk.entry_end_line or chunk.end_line
        if (start, end) not in cache:
            cache[(start, end)] = entry_metadata(lines[start - 1:end], curated, eligible)
        out.append(cache[(start, end)])
    return out


def importance_multiplier(importance: Any) -> np.ndarray:
    """``importanceMultiplier`` over an array: 1 where importance is missing (``None``/NaN),
    else ``0.75 + 0.05 * clip(floor(importance), 1, 10)``.

    >>> importance_multiplier([None, 0, 5.7, 11]).round(2).tolist()
    [1.0, 0.8, 1.0, 1.25]
    """
    import pandas as pd  # here: chunking imports this module, and indexing needs no pandas

    values = pd.to_numeric(pd.Series(np.asarray(importance, dtype=object).ravel()),
                           errors="raise").to_numpy(dtype=float)
    steps = np.clip(np.floor(values), *IMPORTANCE_RANGE)
    return np.where(np.isnan(values), 1.0, IMPORTANCE_BASE + steps * IMPORTANCE_STEP)


def split_project_key(project_key: str | None) -> list[str]:
    """The keys of a stored project key (``"a; b"`` → ``["a", "b"]``; empty parts dropped)."""
    if not isinstance(project_key, str):
        return []
    return [key.strip(JS_WHITESPACE) for key in project_key.split(";")
            if key.strip(JS_WHITESPACE)]


def project_eligible(project_keys_column: Iterable[str | None]) -> np.ndarray:
    """``applyProjectRanking``'s filter: False for entries whose key contains
    :data:`INVALID_PROJECT_KEY` (dropped from every search, with or without active projects).

    >>> project_eligible(["a", None, "b; !invalid-project-annotation"]).tolist()
    [True, True, False]
    """
    return np.array([not isinstance(key, str) or INVALID_PROJECT_KEY not in
                     [part.strip(JS_WHITESPACE) for part in key.split(";")]
                     for key in project_keys_column], dtype=bool)


def project_multiplier(project_keys_column: Iterable[str | None],
                       active: Iterable[str] | None) -> np.ndarray:
    """``projectScoreMultiplier`` over an array: 1 without a key or without active projects;
    1.15 when every key of the entry is active; else 0.9. Keys compare exactly (annotation keys
    were normalised at index time; the session's keys are taken as given).

    >>> project_multiplier(["a", "a; b", None, "c"], {"a"}).tolist()
    [1.15, 0.9, 1.0, 0.9]
    """
    active_set = set(active or ())
    out = []
    for key in project_keys_column:
        keys = split_project_key(key)
        if not isinstance(key, str) or not key or not active_set:
            out.append(1.0)
        else:
            out.append(PROJECT_MATCH if all(k in active_set for k in keys) else PROJECT_MISMATCH)
    return np.array(out, dtype=float)
