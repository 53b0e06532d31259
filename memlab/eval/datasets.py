"""Labeled memory datasets: a workspace, queries and line-span judgments.

A memlab memory dataset is a folder::

    workspace/        MEMORY.md, memory/**.md (the agent's memory)
    queries.jsonl     {"id": "q001", "text": "...", "tags": ["paraphrase"],
                       "now": "2026-10-01T09:00:00Z"}
    qrels.jsonl       {"query_id": "q001", "path": "memory/2026-07-03.md",
                       "start_line": 12, "end_line": 14, "grade": 2}

Judgments are line spans (1-based, inclusive), not chunk ids, so the same labels score any
chunking. Queries without any judgment (tag ``none``) have no answer in memory.

>>> ds = load_memory_dataset("datasets/sample-memory")  # doctest: +SKIP
>>> ds.queries.columns.tolist()  # doctest: +SKIP
['qid', 'query', 'tags', 'now']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd


class DatasetError(ValueError):
    """A dataset file is missing or malformed; the message names the file and line."""


@dataclass
class MemoryDataset:
    """A workspace with queries (``qid``, ``query``, ``tags``, ``now``) and span qrels
    (``qid``, ``path``, ``start_line``, ``end_line``, ``grade``)."""

    root: Path
    queries: pd.DataFrame
    qrels: pd.DataFrame

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def name(self) -> str:
        return self.root.name

    def __repr__(self) -> str:
        return (f"MemoryDataset({self.name}: {len(self.queries)} queries, "
                f"{len(self.qrels)} judged spans)")


def _read_jsonl(path: Path) -> list[tuple[int, dict]]:
    if not path.is_file():
        raise DatasetError(f"{path}: file not found")
    rows = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{n}: malformed JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise DatasetError(f"{path}:{n}: expected a JSON object")
            rows.append((n, obj))
    return rows


def load_memory_dataset(root: str | Path) -> MemoryDataset:
    """Load and validate a memory dataset folder (see the module docstring)."""
    root = Path(root)
    if not (root / "workspace").is_dir():
        raise DatasetError(f"{root}: no workspace/ folder")
    qpath, rpath = root / "queries.jsonl", root / "qrels.jsonl"
    queries = []
    seen: set[str] = set()
    for n, obj in _read_jsonl(qpath):
        for key in ("id", "text"):
            if key not in obj:
                raise DatasetError(f"{qpath}:{n}: missing {key!r}")
        qid = str(obj["id"])
        if qid in seen:
            raise DatasetError(f"{qpath}:{n}: duplicate query id {qid!r}")
        seen.add(qid)
        queries.append({"qid": qid, "query": str(obj["text"]), "tags": list(obj.get("tags", [])),
                        "now": obj.get("now")})
    qrels = []
    line_counts: dict[str, int] = {}
    for n, obj in _read_jsonl(rpath):
        for key in ("query_id", "path", "start_line", "end_line"):
            if key not in obj:
                raise DatasetError(f"{rpath}:{n}: missing {key!r}")
        qid = str(obj["query_id"])
        if qid not in seen:
            raise DatasetError(f"{rpath}:{n}: unknown query_id {qid!r}")
        path = str(obj["path"])
        if path not in line_counts:
            file = root / "workspace" / path
            if not file.is_file():
                raise DatasetError(f"{rpath}:{n}: {path!r} does not exist under workspace/")
            line_counts[path] = len(file.read_text(encoding="utf-8").split("\n"))
        start, end = int(obj["start_line"]), int(obj["end_line"])
        if not 1 <= start <= end <= line_counts[path]:
            raise DatasetError(f"{rpath}:{n}: lines {start}-{end} fall outside {path!r} "
                               f"({line_counts[path]} lines)")
        grade = int(obj.get("grade", 1))
        if grade < 1:
            raise DatasetError(f"{rpath}:{n}: grade must be >= 1, got {grade}")
        qrels.append({"qid": qid, "path": path, "start_line": start, "end_line": end,
                      "grade": grade})
    qframe = pd.DataFrame(queries, columns=["qid", "query", "tags", "now"])
    if qframe["now"].notna().any():
        qframe["now"] = pd.to_datetime(qframe["now"], utc=True)
    else:
        qframe = qframe.drop(columns=["now"])
    rframe = pd.DataFrame(qrels, columns=["qid", "path", "start_line", "end_line", "grade"])
    return MemoryDataset(root=root, queries=qframe, qrels=rframe)
