"""LongMemEval (``longmemeval_s.json`` / ``_m`` / ``_oracle``) → memory datasets, one per
question.

LongMemEval (Wu et al., ICLR 2025; https://github.com/xiaowu0162/LongMemEval, data on the
Hugging Face Hub as the dataset ``xiaowu0162/longmemeval``; not redistributable, download it
yourself) is a list of questions, each with its own haystack of chat sessions::

    {"question_id": "e47becba", "question_type": "single-session-user",
     "question": "...", "answer": "...", "question_date": "2023/05/30 (Tue) 23:40",
     "haystack_dates": ["2023/05/20 (Sat) 02:21", ...],
     "haystack_session_ids": ["sharegpt_yywfLeS_0", ...],
     "haystack_sessions": [[{"role": "user", "content": "...", "has_answer": true}, ...], ...],
     "answer_session_ids": ["answer_280352e9"]}

Each question becomes a dataset ``OUT/<question_id>/``: its haystack in the chosen layout
(roles kept), one query tagged with its ``question_type``, ``now`` = ``question_date``,
qrels = the turns marked ``has_answer`` (grade 2; when a question marks none, the whole
answer sessions at grade 1, tag ``session-evidence``), session qrels = its
``answer_session_ids``. Ids ending in ``_abs`` are abstention questions (tag ``none``, no
qrels).

>>> parse_longmemeval_date("2023/05/20 (Sat) 02:21").isoformat()
'2023-05-20T02:21:00'
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memlab.convert.dataset import (
    ABSTENTION_TAG,
    ConversionReport,
    DatasetReport,
    Question,
    convert_each,
    read_json,
    strptime_first,
    write_dataset,
)
from memlab.convert.layout import Session, Turn

#: Suffix of LongMemEval's abstention question ids.
ABSTENTION_SUFFIX = "_abs"
#: Tag of questions whose evidence falls back to whole sessions (no ``has_answer`` turn).
SESSION_EVIDENCE_TAG = "session-evidence"
REQUIRED = ("question_id", "question", "haystack_sessions", "haystack_session_ids",
            "haystack_dates")


class LongMemEvalError(ValueError):
    """The file is not LongMemEval-shaped; the message names the question and key."""


def parse_longmemeval_date(text: str) -> dt.datetime:
    """LongMemEval's ``"2023/05/20 (Sat) 02:21"`` as a naive datetime (the weekday is
    dropped; a date without a time is midnight)."""
    cleaned = " ".join(re.sub(r"\([^)]*\)", " ", str(text)).split())
    when = strptime_first(cleaned, ("%Y/%m/%d %H:%M", "%Y/%m/%d %H:%M:%S", "%Y/%m/%d",
                                    "%Y-%m-%d %H:%M", "%Y-%m-%d"))
    if when is not None:
        return when
    raise LongMemEvalError(f"unrecognised LongMemEval date {text!r} (expected e.g. "
                           "'2023/05/20 (Sat) 02:21')")


def question_dataset(entry: Mapping[str, Any], out: str | Path, *, layout: str = "notes"
                     ) -> DatasetReport:
    """Write one LongMemEval question and its haystack as a memory dataset folder ``out``."""
    qid = str(entry.get("question_id", "?"))
    for key in REQUIRED:
        if key not in entry:
            raise LongMemEvalError(f"question {qid}: missing {key!r}")
    ids, dates, hay = (entry["haystack_session_ids"], entry["haystack_dates"],
                       entry["haystack_sessions"])
    if not len(ids) == len(dates) == len(hay):
        raise LongMemEvalError(f"question {qid}: haystack_session_ids, haystack_dates and "
                               f"haystack_sessions differ in length ({len(ids)}, "
                               f"{len(dates)}, {len(hay)})")
    sessions, evidence = [], []
    seen: dict[str, int] = {}
    for n, (sid, date, turns) in enumerate(zip(ids, dates, hay, strict=True), start=1):
        sid = str(sid)
        if sid in seen:  # a session repeated in the haystack: keep both, distinctly
            seen[sid] += 1
            sid = f"{sid}~{seen[sid]}"
        else:
            seen[sid] = 1
        rows = []
        for i, turn in enumerate(turns, start=1):
            if not isinstance(turn, Mapping) or "role" not in turn:
                raise LongMemEvalError(f"question {qid}: session {sid} turn {i} needs a "
                                       "'role'")
            role = str(turn["role"])
            if role not in ("user", "assistant"):
                raise LongMemEvalError(f"question {qid}: session {sid} turn {i}: role "
                                       f"{role!r} is not 'user' or 'assistant'")
            tid = f"{sid}#{i}"
            rows.append(Turn(id=tid, role=role, speaker=None,
                             text=str(turn.get("content") or "")))
            if turn.get("has_answer"):
                evidence.append(tid)
        sessions.append(Session(id=sid, when=parse_longmemeval_date(date),
                                title=f"Session {n} · {date}", turns=rows))
    answer_sessions = [str(s) for s in entry.get("answer_session_ids") or []]
    tags = [str(entry.get("question_type") or "untagged")]
    grade = 2
    if qid.endswith(ABSTENTION_SUFFIX):
        tags.append(ABSTENTION_TAG)
    elif not evidence and answer_sessions:
        tags.append(SESSION_EVIDENCE_TAG)
        by_id = {s.id: s for s in sessions}
        evidence = [t.id for sid in answer_sessions if sid in by_id for t in by_id[sid].turns]
        grade = 1
    now = (parse_longmemeval_date(entry["question_date"]) if entry.get("question_date")
           else max(s.when for s in sessions) + dt.timedelta(days=1))
    question = Question(id=qid, text=str(entry["question"]), tags=tags, now=now,
                        evidence=evidence, sessions=answer_sessions, grade=grade,
                        extra={"answer": entry.get("answer"),
                               "question_type": entry.get("question_type")})
    meta = {"source": "longmemeval", "question_id": qid}
    return write_dataset(out, sessions, [question], layout=layout, meta=meta)


def convert_longmemeval(path: str | Path, out: str | Path, *, layout: str = "notes",
                        limit: int | None = None) -> ConversionReport:
    """Convert a LongMemEval file into datasets under ``out``, one folder per question
    (named by ``question_id``); ``limit`` converts only the first N questions.

    >>> convert_longmemeval("tests/data/longmemeval/longmemeval_mini.json",
    ...                     "/tmp/lme").summary()  # doctest: +SKIP
    """
    data = read_json(path)
    if isinstance(data, Mapping):
        data = [data]
    if not isinstance(data, list) or not all(isinstance(e, Mapping) for e in data):
        raise LongMemEvalError(f"{path}: expected a list of question objects")
    return convert_each(data[:limit] if limit else data, out, id_key="question_id",
                        fallback="question",
                        convert=lambda entry, folder, _: question_dataset(entry, folder,
                                                                          layout=layout))
