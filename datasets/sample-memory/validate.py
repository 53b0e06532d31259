#!/usr/bin/env python3
"""Check the sample-memory dataset: queries.jsonl, qrels.jsonl and the workspace they point at.

Stdlib only. Run from anywhere:  python3 datasets/sample-memory/validate.py [--show]

Checks: JSON on every line; query ids unique and well-formed; tags from the allowed set;
``now`` (if present) is an ISO-8601 UTC timestamp; every qrel's query_id exists; every path
exists under workspace/ and is a file OpenClaw would index (MEMORY.md or memory/**/*.md);
1 <= start_line <= end_line <= number of lines; the spanned lines are not all blank;
grade is 1 or 2; no duplicate (query, path, span); ``none`` queries have no qrels and every
other query has at least one grade-2 qrel. Prints counts; exits 1 on any error.
``--show`` also prints every query with the text of its spans, for reading them by eye.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKSPACE = HERE / "workspace"
ALLOWED_TAGS = {"paraphrase", "exact", "temporal", "multi", "duplicate-heavy", "cjk", "thai",
                "evergreen", "none"}


def read_jsonl(path: Path, errors: list[str]) -> list[dict]:
    rows = []
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline
    for n, line in enumerate(lines, 1):
        if not line.strip():
            errors.append(f"{path.name}:{n}: blank line")
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{path.name}:{n}: invalid JSON ({exc})")
            continue
        if not isinstance(obj, dict):
            errors.append(f"{path.name}:{n}: not a JSON object")
            continue
        rows.append(obj)
    return rows


def is_indexed(rel: str) -> bool:
    """OpenClaw's memory sources: root MEMORY.md (exact case) and memory/**/*.md."""
    return rel == "MEMORY.md" or (rel.startswith("memory/") and rel.endswith(".md"))


def main(show: bool = False) -> int:
    errors: list[str] = []
    queries = read_jsonl(HERE / "queries.jsonl", errors)
    qrels = read_jsonl(HERE / "qrels.jsonl", errors)

    ids: dict[str, dict] = {}
    tag_counts: Counter = Counter()
    for q in queries:
        qid = q.get("id")
        if not isinstance(qid, str) or not qid:
            errors.append(f"query without id: {q}")
            continue
        if qid in ids:
            errors.append(f"duplicate query id {qid}")
        ids[qid] = q
        if not isinstance(q.get("text"), str) or not q["text"].strip():
            errors.append(f"{qid}: empty text")
        tags = q.get("tags")
        if not isinstance(tags, list) or not tags:
            errors.append(f"{qid}: tags must be a non-empty list")
            tags = []
        for t in tags:
            if t not in ALLOWED_TAGS:
                errors.append(f"{qid}: unknown tag {t!r}")
        if len(set(tags)) != len(tags):
            errors.append(f"{qid}: repeated tag")
        tag_counts.update(tags)
        if "now" in q:
            try:
                datetime.strptime(q["now"], "%Y-%m-%dT%H:%M:%SZ")
            except (TypeError, ValueError):
                errors.append(f"{qid}: bad now {q['now']!r}")
        extra = set(q) - {"id", "text", "tags", "now"}
        if extra:
            errors.append(f"{qid}: unexpected keys {sorted(extra)}")

    file_lines: dict[str, list[str]] = {}
    per_query: dict[str, list[dict]] = {qid: [] for qid in ids}
    seen = set()
    grades: Counter = Counter()
    for r in qrels:
        qid, path = r.get("query_id"), r.get("path")
        s, e, g = r.get("start_line"), r.get("end_line"), r.get("grade")
        where = f"qrel {qid} {path}:{s}-{e}"
        if set(r) != {"query_id", "path", "start_line", "end_line", "grade"}:
            errors.append(f"{where}: keys must be query_id, path, start_line, end_line, grade")
        if qid not in ids:
            errors.append(f"{where}: unknown query_id")
            continue
        if not isinstance(path, str) or not is_indexed(path):
            errors.append(f"{where}: path is not an indexed memory file")
            continue
        full = WORKSPACE / path
        if not full.is_file():
            errors.append(f"{where}: file does not exist under workspace/")
            continue
        if path not in file_lines:
            file_lines[path] = full.read_text(encoding="utf-8").split("\n")
            if file_lines[path] and file_lines[path][-1] == "":
                file_lines[path].pop()  # trailing newline is not a line
        lines = file_lines[path]
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (s, e)):
            errors.append(f"{where}: start_line/end_line must be integers")
            continue
        if not 1 <= s <= e <= len(lines):
            errors.append(f"{where}: span outside 1..{len(lines)}")
            continue
        if all(not ln.strip() for ln in lines[s - 1:e]):
            errors.append(f"{where}: spanned lines are all blank")
        if g not in (1, 2):
            errors.append(f"{where}: grade must be 1 or 2")
        key = (qid, path, s, e)
        if key in seen:
            errors.append(f"{where}: duplicate qrel")
        seen.add(key)
        grades[g] += 1
        per_query[qid].append(r)

    for qid, q in ids.items():
        rels = per_query[qid]
        if "none" in q.get("tags", []):
            if rels:
                errors.append(f"{qid}: 'none' query has {len(rels)} qrel(s)")
        elif not rels:
            errors.append(f"{qid}: no qrels (tag it 'none' if memory has no answer)")
        elif not any(r["grade"] == 2 for r in rels):
            errors.append(f"{qid}: no grade-2 qrel")

    if show:
        for qid, q in ids.items():
            print(f"\n{qid} {q['tags']} {q.get('now', '')}\n  Q: {q['text']}")
            for r in per_query[qid]:
                lines = file_lines.get(r["path"], [])
                print(f"  [{r['grade']}] {r['path']}:{r['start_line']}-{r['end_line']}")
                for ln in lines[r["start_line"] - 1:r["end_line"]]:
                    print(f"      | {ln}")

    md_files = sorted(p for p in WORKSPACE.rglob("*.md"))
    indexed = [p for p in md_files if is_indexed(p.relative_to(WORKSPACE).as_posix())]
    n_lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in indexed)
    n_chars = sum(len(p.read_text(encoding="utf-8")) for p in indexed)
    print(f"workspace: {len(md_files)} .md files ({len(indexed)} indexed, "
          f"{len(md_files) - len(indexed)} decoy), {n_lines} lines, {n_chars} chars indexed")
    print(f"queries: {len(ids)}  qrels: {len(qrels)} (grade 2: {grades[2]}, grade 1: {grades[1]})"
          f"  files referenced by qrels: {len(file_lines)}")
    print("queries per tag: " + ", ".join(f"{t}={tag_counts[t]}" for t in sorted(ALLOWED_TAGS)))
    answered = [qid for qid in ids if per_query[qid]]
    if answered:
        print(f"qrels per answered query: min {min(len(per_query[q]) for q in answered)}, "
              f"max {max(len(per_query[q]) for q in answered)}, "
              f"mean {sum(len(per_query[q]) for q in answered) / len(answered):.2f}")
    if errors:
        print(f"\n{len(errors)} error(s):")
        for err in errors:
            print("  - " + err)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(show="--show" in sys.argv[1:]))
