"""Weak labels from the agent's own use of memory: mine OpenClaw transcripts.

Every ``memory_search`` tool call in a transcript (an assistant ``toolCall`` block named
``memory_search``) becomes a query: its ``query`` argument is the text, the time of the
message is ``now``. What the agent then *used* becomes that query's judgments:

- a ``memory_get`` call (``path``, optional ``from`` and ``lines``) of a path the search
  returned: the lines it read (``from`` .. ``from + lines - 1``; without them, the returned
  hit's lines), grade 1;
- a ``path#Lx`` / ``path#Lx-Ly`` citation (OpenClaw's citation form) in the assistant's
  text: the cited lines, grade 2 (a citation is a stronger sign of use than a read).

Overlapping uses of one file by one query merge into one span with the highest grade.

Uses are attributed to the latest search before them whose results contain the path (any
search of the turn when the tool result is not readable), up to the next user message.
Queries with such uses are tagged ``weak``; searches whose results were not used are kept
and tagged ``unused`` (they have no judgments, so evaluation reports them apart). Spans are
checked against the workspace: a path outside it or missing is skipped, line ranges are
clipped to the file.

>>> mined = mine_transcripts("tests/data/mining", "tests/data/mining/workspace")  # doctest: +SKIP
>>> mined.queries[["qid", "query", "tags"]]  # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

WEAK_TAG, UNUSED_TAG = "weak", "unused"
SEARCH_TOOL, GET_TOOL = "memory_search", "memory_get"
GET_GRADE, CITE_GRADE = 1, 2
#: ``path#L3`` or ``path#L3-L9`` (also ``#L3-9``), path ending in .md or .jsonl.
CITATION = re.compile(r"(?<![\w./-])((?:[\w.@-]+/)*[\w.@-]+\.(?:md|jsonl))#L(\d+)(?:-L?(\d+))?")


@dataclass
class _Search:
    qid: str
    query: str
    now: Any
    source: str
    results: list[tuple[str, int, int]] | None  # None: tool result not seen / unreadable
    call_id: str | None
    uses: list[tuple[str, int, int, int]] = field(default_factory=list)


@dataclass
class MinedLabels:
    """Mined ``queries`` (``qid, query, tags, now, source``) and ``qrels`` (``qid, path,
    start_line, end_line, grade``), and ``skipped`` uses that named no workspace file."""

    queries: pd.DataFrame
    qrels: pd.DataFrame
    skipped: list[str] = field(default_factory=list)

    def summary(self) -> str:
        weak = sum(WEAK_TAG in t for t in self.queries["tags"])
        return (f"{len(self.queries)} searches mined: {weak} with used results "
                f"({len(self.qrels)} judged spans), {len(self.queries) - weak} unused"
                + (f"; {len(self.skipped)} use(s) skipped" if self.skipped else ""))


def _blocks(content: Any) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _when(record: dict, message: dict) -> pd.Timestamp | None:
    for value in (message.get("timestamp"), record.get("timestamp")):
        if value is None:
            continue
        try:
            if isinstance(value, int | float) and not isinstance(value, bool):
                return pd.Timestamp(value * (1 if value > 1e12 else 1000), unit="ms", tz="UTC")
            return pd.Timestamp(value).tz_convert("UTC") if pd.Timestamp(value).tzinfo \
                else pd.Timestamp(value).tz_localize("UTC")
        except (ValueError, TypeError, OverflowError):
            continue
    return None


def _results(content: Any) -> list[tuple[str, int, int]] | None:
    text = "\n".join(b.get("text", "") for b in _blocks(content) if b.get("type") == "text")
    try:
        payload = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    items = payload.get("results") if isinstance(payload, dict) else None
    if not isinstance(items, list):
        return None
    out = []
    for r in items:
        try:
            out.append((str(r["path"]), int(r["startLine"]), int(r["endLine"])))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _attribute(searches: list[_Search], path: str) -> _Search | None:
    """The latest search whose results hold ``path`` (or whose results are unknown)."""
    for s in reversed(searches):
        if s.results is None or any(p == path for p, _, _ in s.results):
            return s
    return None


def _hit_lines(search: _Search, path: str) -> tuple[int, int] | None:
    spans = [(a, b) for p, a, b in (search.results or []) if p == path]
    return (min(a for a, _ in spans), max(b for _, b in spans)) if spans else None


def mine_file(path: str | Path, *, first_qid: int = 1) -> list[_Search]:
    """The searches of one transcript with their uses (unvalidated), in order."""
    path = Path(path)
    searches: list[_Search] = []
    turn: list[_Search] = []  # searches since the last user message
    by_call: dict[str, _Search] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").split("\n"),
                             start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict) or record.get("type") != "message":
            continue
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "user":
            turn = []
            continue
        if role == "toolResult":
            s = by_call.get(str(message.get("toolCallId")))
            if s is not None:
                s.results = _results(message.get("content"))
            continue
        if role != "assistant":
            continue
        for block in _blocks(message.get("content")):
            kind = block.get("type")
            if kind == "toolCall" and block.get("name") == SEARCH_TOOL:
                args = block.get("arguments") or {}
                query = str(args.get("query") or "").strip() if isinstance(args, dict) else ""
                if not query:
                    continue
                s = _Search(qid=f"m{first_qid + len(searches):04d}", query=query,
                            now=_when(record, message), source=f"{path.name}:{n}",
                            results=None, call_id=block.get("id"))
                searches.append(s)
                turn.append(s)
                if s.call_id is not None:
                    by_call[str(s.call_id)] = s
            elif kind == "toolCall" and block.get("name") == GET_TOOL:
                args = block.get("arguments") or {}
                target = str(args.get("path") or "") if isinstance(args, dict) else ""
                s = _attribute(turn, target) if target else None
                if s is None:
                    continue
                start, count = _int(args.get("from")), _int(args.get("lines"))
                if start is not None:
                    end = start + max(count or 1, 1) - 1
                    s.uses.append((target, start, end, GET_GRADE))
                elif (span := _hit_lines(s, target)) is not None:
                    s.uses.append((target, *span, GET_GRADE))
                else:
                    s.uses.append((target, 1, 0, GET_GRADE))  # whole file: resolved later
            elif kind == "text":
                for m in CITATION.finditer(str(block.get("text") or "")):
                    s = _attribute(turn, m.group(1))
                    if s is not None:
                        start = int(m.group(2))
                        s.uses.append((m.group(1), start, int(m.group(3) or start),
                                       CITE_GRADE))
    return searches


def _merge(spans: dict[tuple[str, int, int], int]) -> list[tuple[str, int, int, int]]:
    """Overlapping uses of one file merged into one span with their highest grade (a passage
    read and then cited is one judgment, not two that a single hit could not both earn).

    >>> _merge({("a.md", 4, 5): 1, ("a.md", 4, 4): 2, ("a.md", 9, 9): 1})
    [('a.md', 4, 5, 2), ('a.md', 9, 9, 1)]
    """
    out: list[list] = []
    for (path, a, b), grade in sorted(spans.items()):
        if out and out[-1][0] == path and a <= out[-1][2]:
            out[-1][2] = max(out[-1][2], b)
            out[-1][3] = max(out[-1][3], grade)
        else:
            out.append([path, a, b, grade])
    return [tuple(x) for x in out]


def _transcripts(sessions: Path) -> list[Path]:
    if sessions.is_file():
        return [sessions]
    if not sessions.is_dir():
        raise FileNotFoundError(f"{sessions}: no such transcript file or folder")
    return sorted(p for p in sessions.rglob("*") if p.is_file()
                  and (p.name.endswith(".jsonl") or ".jsonl.reset." in p.name
                       or ".jsonl.deleted." in p.name))


def mine_transcripts(sessions: str | Path | Iterable[str | Path], workspace: str | Path
                     ) -> MinedLabels:
    """Mine every transcript under ``sessions`` (a file, a folder searched recursively, or a
    list of files) against ``workspace`` (see the module docstring)."""
    files = (_transcripts(Path(sessions)) if isinstance(sessions, str | Path)
             else [Path(p) for p in sessions])
    root = Path(workspace).resolve()
    if not root.is_dir():
        raise FileNotFoundError(f"{workspace}: workspace folder not found")
    searches: list[_Search] = []
    for f in files:
        searches.extend(mine_file(f, first_qid=len(searches) + 1))
    line_counts: dict[str, int | None] = {}
    queries, qrels, skipped = [], [], []
    for s in searches:
        best: dict[tuple[str, int, int], int] = {}
        for p, a, b, grade in s.uses:
            if p not in line_counts:
                target = (root / p).resolve()
                ok = target.is_relative_to(root) and target.is_file()
                line_counts[p] = (len(target.read_text(encoding="utf-8", errors="replace")
                                      .split("\n")) if ok else None)
            count = line_counts[p]
            if count is None:
                skipped.append(f"{s.source}: {p} is not a file of the workspace")
                continue
            start, end = (1, count) if b < a else (max(a, 1), min(b, count))
            if start > end:
                skipped.append(f"{s.source}: {p}#L{a}-L{b} is outside the file")
                continue
            best[p, start, end] = max(grade, best.get((p, start, end), 0))
        for p, a, b, grade in _merge(best):
            qrels.append({"qid": s.qid, "path": p, "start_line": a, "end_line": b,
                          "grade": grade})
        queries.append({"qid": s.qid, "query": s.query,
                        "tags": [WEAK_TAG if best else UNUSED_TAG], "now": s.now,
                        "source": s.source})
    qframe = pd.DataFrame(queries, columns=["qid", "query", "tags", "now", "source"])
    qframe["now"] = pd.to_datetime(qframe["now"], utc=True)
    rframe = pd.DataFrame(qrels, columns=["qid", "path", "start_line", "end_line", "grade"])
    return MinedLabels(queries=qframe, qrels=rframe, skipped=skipped)


def write_mined(mined: MinedLabels, workspace: str | Path, out: str | Path) -> Path:
    """Write mined labels as a memory dataset ``out`` (``workspace/`` copied from
    ``workspace``, ``queries.jsonl``, ``qrels.jsonl``); returns ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if Path(workspace).resolve() != (out / "workspace").resolve():
        shutil.copytree(workspace, out / "workspace", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".git"))
    with (out / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for r in mined.queries.itertuples(index=False):
            row = {"id": r.qid, "text": r.query, "tags": list(r.tags), "source": r.source}
            if not pd.isna(r.now):
                row["now"] = r.now.strftime("%Y-%m-%dT%H:%M:%SZ")
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    with (out / "qrels.jsonl").open("w", encoding="utf-8") as fh:
        for r in mined.qrels.itertuples(index=False):
            fh.write(json.dumps({"query_id": r.qid, "path": r.path,
                                 "start_line": int(r.start_line), "end_line": int(r.end_line),
                                 "grade": int(r.grade)}, ensure_ascii=False) + "\n")
    return out
