"""Write one memory dataset (workspace + queries + line-span qrels) from converted sessions.

A converter turns a benchmark's conversation into :class:`~memlab.convert.layout.Session`
objects and its questions into :class:`Question` objects; :func:`write_dataset` lays the
sessions out (:func:`memlab.convert.layout.write_layout`) and writes

``queries.jsonl``        ``{"id", "text", "tags", "now", "answer", ...source fields}``
``qrels.jsonl``          each evidence turn's line, grade 2 (turn level)
``session_qrels.jsonl``  each evidence session's whole span (session level, for
                         ``session_recall_any@k`` / ``session_recall_all@k``)
``dataset.json``         ``{"source", "layout", "agent", "sessions", ...}``

Abstention questions (tag ``none``) get no qrels, so evaluation reports them apart. With the
``transcripts`` layout every evidence line is checked against OpenClaw's renderer
(:func:`memlab.sessions.parse_session`): a line the renderer drops could never be retrieved.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memlab.convert.layout import Session, iso_z, safe_name, write_layout
from memlab.eval.collection import META_FILE, SESSION_QRELS_FILE

#: The tag of questions that memory cannot answer (no qrels; reported apart).
ABSTENTION_TAG = "none"


@dataclass
class Question:
    """A benchmark question: ``evidence`` turn ids and evidence ``sessions`` ids (both may be
    empty, e.g. for abstention questions), ``now`` (when it is asked), and ``extra`` fields
    kept in ``queries.jsonl`` (the answer, the source's category, ...)."""

    id: str
    text: str
    tags: list[str]
    now: dt.datetime | None
    evidence: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    grade: int = 2

    @property
    def abstains(self) -> bool:
        return ABSTENTION_TAG in self.tags


@dataclass
class DatasetReport:
    """What :func:`write_dataset` wrote: the dataset ``root``, counts, and the problems:
    ``missing`` evidence ids that name no turn (``"qid: D9:99"``) and ``unrenderable``
    evidence lines OpenClaw's transcript renderer drops (``"qid: path:line"``)."""

    root: Path
    queries: int = 0
    abstention: int = 0
    qrels: int = 0
    session_qrels: int = 0
    missing: list[str] = field(default_factory=list)
    unrenderable: list[str] = field(default_factory=list)


@dataclass
class ConversionReport:
    """What a conversion wrote: one :class:`~memlab.convert.dataset.DatasetReport` per
    dataset, and totals."""

    datasets: list[DatasetReport] = field(default_factory=list)

    @property
    def queries(self) -> int:
        return sum(d.queries for d in self.datasets)

    @property
    def abstention(self) -> int:
        return sum(d.abstention for d in self.datasets)

    @property
    def qrels(self) -> int:
        return sum(d.qrels for d in self.datasets)

    @property
    def missing(self) -> list[str]:
        return [f"{d.root.name}/{m}" for d in self.datasets for m in d.missing]

    def summary(self) -> str:
        """One line: datasets, queries (abstention), qrels, skipped evidence."""
        text = (f"{len(self.datasets)} dataset(s), {self.queries} queries "
                f"({self.abstention} abstention), {self.qrels} evidence lines")
        if self.missing:
            text += f"; {len(self.missing)} evidence id(s) skipped (no such turn)"
        return text


def read_json(path: str | Path) -> Any:
    """A JSON file, with errors naming it."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: file not found") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}: malformed JSON ({exc.msg})") from None


def strptime_first(text: str, formats: Sequence[str]) -> dt.datetime | None:
    """``text`` parsed with the first of ``formats`` that fits it, else ``None`` (the
    converters raise their own error, with the format they expect).

    >>> strptime_first("2023/05/20", ("%Y-%m-%d", "%Y/%m/%d")).isoformat()
    '2023-05-20T00:00:00'
    >>> strptime_first("May 20", ("%Y-%m-%d",)) is None
    True
    """
    for fmt in formats:
        try:
            return dt.datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


def convert_each(items: Sequence[Mapping[str, Any]], out: str | Path, *, id_key: str,
                 fallback: str,
                 convert: Callable[[Mapping[str, Any], Path, int], DatasetReport]
                 ) -> ConversionReport:
    """One dataset per item, in a folder ``out/<name>``: ``convert(item, folder, n)`` writes
    it (``n`` counts from 1). ``name`` is the item's ``id_key`` (else ``<fallback>-<n>``)
    made file-safe; a name met before gets ``-<n>`` appended."""
    out = Path(out)
    report = ConversionReport()
    names: set[str] = set()
    for i, item in enumerate(items, start=1):
        name = safe_name(str(item.get(id_key) or f"{fallback}-{i}"))
        if name in names:
            name = f"{name}-{i}"
        names.add(name)
        report.datasets.append(convert(item, out / name, i))
    return report


def _dump(path: Path, rows: Sequence[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")


def write_dataset(out: str | Path, sessions: Sequence[Session], questions: Sequence[Question],
                  *, layout: str = "notes", meta: dict[str, Any] | None = None,
                  agent: str = "main", overwrite: bool = True) -> DatasetReport:
    """Write a memory dataset folder ``out`` (see the module docstring).

    ``overwrite=False`` refuses an existing non-empty folder; otherwise its ``workspace/`` is
    replaced so stale files of an earlier conversion never linger.
    """
    root = Path(out)
    if root.exists() and any(root.iterdir()):
        if not overwrite:
            raise FileExistsError(f"{root}: exists and is not empty")
        shutil.rmtree(root / "workspace", ignore_errors=True)
    workspace = root / "workspace"
    placed = write_layout(sessions, workspace, layout, agent=agent)
    report = DatasetReport(root=root)
    queries, qrels, session_qrels = [], [], []
    for q in questions:
        record: dict[str, Any] = {"id": q.id, "text": q.text, "tags": list(q.tags)}
        if q.now is not None:
            record["now"] = iso_z(q.now)
        record.update(q.extra)
        queries.append(record)
        report.queries += 1
        if q.abstains:
            report.abstention += 1
            continue
        for turn_id in dict.fromkeys(q.evidence):
            if turn_id not in placed.turns:
                report.missing.append(f"{q.id}: {turn_id}")
                continue
            path, line = placed.turns[turn_id]
            qrels.append({"query_id": q.id, "path": path, "start_line": line,
                          "end_line": line, "grade": q.grade})
        for sid in dict.fromkeys(q.sessions):
            if sid not in placed.sessions:
                report.missing.append(f"{q.id}: session {sid}")
                continue
            path, start, end = placed.sessions[sid]
            session_qrels.append({"query_id": q.id, "path": path, "start_line": start,
                                  "end_line": end, "grade": 1})
    report.qrels, report.session_qrels = len(qrels), len(session_qrels)
    if layout == "transcripts":
        report.unrenderable = _unrenderable(workspace, qrels)
    _dump(root / "queries.jsonl", queries)
    _dump(root / "qrels.jsonl", qrels)
    _dump(root / SESSION_QRELS_FILE, session_qrels)
    info = {**(meta or {}), "layout": layout, "agent": agent, "sessions": len(sessions),
            "files": len(placed.files)}
    (root / META_FILE).write_text(json.dumps(info, ensure_ascii=False, indent=2) + "\n",
                                  encoding="utf-8")
    if report.missing:
        warnings.warn(f"{root}: {len(report.missing)} evidence id(s) name no turn or session "
                      f"and were skipped: {', '.join(report.missing[:5])}"
                      + (" ..." if len(report.missing) > 5 else ""), UserWarning, stacklevel=2)
    if report.unrenderable:
        warnings.warn(f"{root}: {len(report.unrenderable)} evidence line(s) are dropped by "
                      f"OpenClaw's transcript renderer: {', '.join(report.unrenderable[:5])}",
                      UserWarning, stacklevel=2)
    return report


def _unrenderable(workspace: Path, qrels: Sequence[dict]) -> list[str]:
    from memlab.sessions import parse_session

    kept: dict[str, set[int]] = {}
    bad = []
    for r in qrels:
        path = r["path"]
        if path not in kept:
            kept[path] = set(parse_session(workspace / path, path=path).line_map)
        if r["start_line"] not in kept[path]:
            bad.append(f"{r['query_id']}: {path}:{r['start_line']}")
    return bad
