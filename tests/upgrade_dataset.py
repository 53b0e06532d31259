"""The small memory dataset the upgrade-report and 2026.9-sweep tests share: four queries whose
answers 2026.7 and 2026.9 rank differently (USER.md is indexed by 2026.9 only; dated notes
decay under 2026.9's always-on decay)."""

from __future__ import annotations

import json
from pathlib import Path

from memlab.eval.datasets import load_dataset

QUERIES = [("q1", "allergy peanuts", ["exact"]), ("q2", "deploy window tuesday", ["exact"]),
           ("q3", "standup notes june", ["temporal"]), ("q4", "backup bucket region",
                                                       ["temporal"])]
NOW = "2026-10-01T00:00:00Z"
NOTES = {
    "USER.md": "- Sam has an allergy to peanuts\n",  # q1's answer, indexed by 2026.9 only
    "memory/health.md": "Allergy clinic visit notes.\nNothing on peanuts.\n",
    "memory/deploys.md": "The deploy window is Tuesday morning.\n",
    "memory/2026-06-03.md": "Standup notes June: shipped ledger fix.\n",
    "memory/2026-09-20.md": "Standup notes: june backlog closed.\n",
    "memory/backup.md": "Backup bucket region is eu-central.\n",
}
QRELS = [("q1", "USER.md", 1, 1), ("q2", "memory/deploys.md", 1, 1),
         ("q3", "memory/2026-06-03.md", 1, 1), ("q4", "memory/backup.md", 1, 1)]


def write_dataset(root: Path, extra_notes: dict[str, str] | None = None):
    """The dataset under ``root`` (``workspace/``, ``queries.jsonl``, ``qrels.jsonl``), with
    ``extra_notes`` (path -> text) added to the workspace; returns it loaded."""
    ws = root / "workspace"
    for rel, text in {**NOTES, **(extra_notes or {})}.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    with open(root / "queries.jsonl", "w") as f:
        for qid, text, tags in QUERIES:
            f.write(json.dumps({"id": qid, "text": text, "tags": tags, "now": NOW}) + "\n")
    with open(root / "qrels.jsonl", "w") as f:
        for qid, path, s, e in QRELS:
            f.write(json.dumps({"query_id": qid, "path": path, "start_line": s,
                                "end_line": e, "grade": 1}) + "\n")
    return load_dataset(root)
