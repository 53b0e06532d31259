#!/usr/bin/env python3
"""Check the sample-memory dataset: queries.jsonl, qrels.jsonl and the workspace they point at.

Stdlib only. Run from anywhere:  python3 datasets/sample-memory/validate.py [--show]

Checks: JSON on every line; query ids unique and well-formed; tags from the allowed set;
``now`` (if present) is an ISO-8601 UTC timestamp; every qrel's query_id exists; every path
exists under workspace/ and is a file OpenClaw would index: MEMORY.md or memory/**/*.md
(source ``memory``), or a session transcript sessions/<agentId>/<file>.jsonl (source
``sessions``); 1 <= start_line <= end_line <= number of lines (JSONL lines for transcripts);
for Markdown the spanned lines are not all blank; for transcripts every spanned JSONL line is a
``type: "message"`` record with role user/assistant whose text (string content, or its
``type: "text"`` blocks) is non-empty and is not a HEARTBEAT_OK reply; grade is 1 or 2; no
duplicate (query, path, span); ``none`` queries have no qrels and every other query has at
least one grade-2 qrel; ``session`` queries are judged only on transcripts and every query
judged on a transcript is tagged ``session``; every line of every transcript is a JSON object
with a ``type``. Prints counts; exits 1 on any error.
``--show`` also prints every query with the text of its spans, for reading them by eye
(transcript lines rendered as OpenClaw renders them: ``User: ...`` / ``Assistant: ...``).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKSPACE = HERE / "workspace"
DAILY = re.compile(r"^memory/\d{4}-\d{2}-\d{2}\.md$")
ALLOWED_TAGS = {"paraphrase", "exact", "temporal", "multi", "duplicate-heavy", "cjk", "thai",
                "session", "evergreen", "none"}


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


def is_session(rel: str) -> bool:
    """A session transcript as OpenClaw stores its path: sessions/<agentId>/<basename>.jsonl."""
    parts = rel.split("/")
    return len(parts) == 3 and parts[0] == "sessions" and parts[1] != "" \
        and parts[2].endswith(".jsonl") and len(parts[2]) > len(".jsonl")


def message_text(record: object) -> str | None:
    """The text OpenClaw indexes for one transcript record, or None if the record is skipped:
    only ``type: "message"`` records with role user/assistant count; content is a string or a
    list of blocks of which only ``type: "text"`` blocks are kept (newline-joined)."""
    if not isinstance(record, dict) or record.get("type") != "message":
        return None
    msg = record.get("message")
    if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
        return None
    content = msg.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content
                         if isinstance(b, dict) and b.get("type") == "text"
                         and isinstance(b.get("text"), str))
    return None


def render(record: object) -> str:
    """One transcript line as OpenClaw renders it (whitespace collapsed), for --show."""
    text = message_text(record)
    if text is None:
        kind = record.get("type") if isinstance(record, dict) else type(record).__name__
        role = (record.get("message") or {}).get("role") if isinstance(record, dict) else None
        return f"<skipped: {kind}{'/' + role if role else ''}>"
    role = record["message"]["role"]
    return f"{'User' if role == 'user' else 'Assistant'}: {' '.join(text.split())}"


def load_transcript(full: Path, rel: str, errors: list[str]) -> list[object]:
    """Parse a transcript; one entry per JSONL line (None where the line is not valid JSON)."""
    records: list[object] = []
    for n, line in enumerate(split_lines(full), 1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{rel}:{n}: invalid JSON ({exc})")
            obj = None
        else:
            if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
                errors.append(f"{rel}:{n}: not a JSON object with a 'type'")
        records.append(obj)
    return records


def split_lines(full: Path) -> list[str]:
    lines = full.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # trailing newline is not a line
    return lines


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
    transcripts: dict[str, list[object]] = {}
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
        if not isinstance(path, str) or not (is_indexed(path) or is_session(path)):
            errors.append(f"{where}: path is neither an indexed memory file nor a session "
                          "transcript (sessions/<agentId>/<file>.jsonl)")
            continue
        full = WORKSPACE / path
        if not full.is_file():
            errors.append(f"{where}: file does not exist under workspace/")
            continue
        if path not in file_lines:
            file_lines[path] = split_lines(full)
            if is_session(path):
                transcripts[path] = load_transcript(full, path, errors)
        lines = file_lines[path]
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (s, e)):
            errors.append(f"{where}: start_line/end_line must be integers")
            continue
        if not 1 <= s <= e <= len(lines):
            errors.append(f"{where}: span outside 1..{len(lines)}")
            continue
        if is_session(path):
            for n in range(s, e + 1):
                text = message_text(transcripts[path][n - 1])
                if text is None:
                    errors.append(f"{where}: JSONL line {n} is not a user/assistant message record")
                elif not text.strip():
                    errors.append(f"{where}: JSONL line {n} has no text (OpenClaw indexes nothing)")
                elif text.strip() == "HEARTBEAT_OK":
                    errors.append(f"{where}: JSONL line {n} is a HEARTBEAT_OK reply "
                                  "(dropped by OpenClaw)")
        elif all(not ln.strip() for ln in lines[s - 1:e]):
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
        on_sessions = [r for r in rels if is_session(r["path"])]
        if "session" in q.get("tags", []):
            if len(on_sessions) != len(rels):
                errors.append(f"{qid}: 'session' query judged on non-transcript files "
                              "(its answer should live only in a transcript)")
        elif on_sessions:
            errors.append(f"{qid}: judged on a transcript but not tagged 'session'")

    # Every transcript in the workspace must parse, whether or not a qrel points at it.
    session_files = sorted(p for p in (WORKSPACE / "sessions").rglob("*.jsonl")) \
        if (WORKSPACE / "sessions").is_dir() else []
    n_records = n_messages = 0
    for p in session_files:
        rel = p.relative_to(WORKSPACE).as_posix()
        if not is_session(rel):
            errors.append(f"{rel}: transcripts must sit at sessions/<agentId>/<file>.jsonl")
            continue
        records = transcripts.get(rel)
        if records is None:
            records = transcripts[rel] = load_transcript(p, rel, errors)
        n_records += len(records)
        n_messages += sum(1 for r in records if (message_text(r) or "").strip())

    if show:
        for qid, q in ids.items():
            print(f"\n{qid} {q['tags']} {q.get('now', '')}\n  Q: {q['text']}")
            for r in per_query[qid]:
                lines = file_lines.get(r["path"], [])
                print(f"  [{r['grade']}] {r['path']}:{r['start_line']}-{r['end_line']}")
                if is_session(r["path"]):
                    for rec in transcripts[r["path"]][r["start_line"] - 1:r["end_line"]]:
                        print(f"      | {render(rec)}")
                    continue
                for ln in lines[r["start_line"] - 1:r["end_line"]]:
                    print(f"      | {ln}")

    md_files = sorted(p for p in WORKSPACE.rglob("*.md"))
    indexed = [p for p in md_files if is_indexed(p.relative_to(WORKSPACE).as_posix())]
    n_lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in indexed)
    n_chars = sum(len(p.read_text(encoding="utf-8")) for p in indexed)
    print(f"workspace: {len(md_files)} .md files ({len(indexed)} indexed, "
          f"{len(md_files) - len(indexed)} decoy), {n_lines} lines, {n_chars} chars indexed")
    daily = [p for p in indexed if DAILY.match(p.relative_to(WORKSPACE).as_posix())]
    print(f"daily notes: {len(daily)}  session transcripts: {len(session_files)} "
          f"({n_records} JSONL records, {n_messages} user/assistant messages with text)")
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
