"""LoCoMo (``locomo10.json``) → memory datasets, one per conversation.

LoCoMo (Maharana et al., ACL 2024; https://github.com/snap-research/locomo, file
``data/locomo10.json``; not redistributable, download it yourself) is a list of
conversations::

    {"sample_id": "conv-26",
     "conversation": {"speaker_a": "Caroline", "speaker_b": "Melanie",
                      "session_1_date_time": "1:56 pm on 8 May, 2023",
                      "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "...",
                                     "img_url": [...], "blip_caption": "..."}, ...], ...},
     "qa": [{"question": "...", "answer": "...", "evidence": ["D1:3"], "category": 2},
            {"question": "...", "adversarial_answer": "...", "evidence": [...],
             "category": 5}, ...]}

A file may also hold one conversation (the object itself). Each conversation becomes a
dataset ``OUT/<sample_id>/``: its sessions in the chosen layout (``speaker_a`` is the
``user`` role of a transcript, ``speaker_b`` the ``assistant``; names stay in the text; an
image turn gets ``[shares a photo: <caption>]``), one query per question with tags from the
category (:data:`CATEGORY_TAGS`), ``now`` = the day after the last session, its evidence turns
as grade-2 line qrels and its evidence sessions as session qrels. Category 5 (adversarial)
questions ask about something the conversation never says: they are abstention questions
(tag ``none``, no qrels), reported apart.

>>> parse_locomo_date("1:56 pm on 8 May, 2023").isoformat()
'2023-05-08T13:56:00'
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

#: LoCoMo's question categories, as numbered in its repository's evaluation code.
CATEGORY_TAGS = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
                 5: "adversarial"}
#: Categories whose questions memory cannot answer (abstention).
ABSTENTION_CATEGORIES = frozenset({5})

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DIA_ID = re.compile(r"D(\d+):(\d+)")


class LocomoError(ValueError):
    """The file is not LoCoMo-shaped; the message names the conversation and key."""


def parse_locomo_date(text: str) -> dt.datetime:
    """LoCoMo's ``session_N_date_time`` (``"1:56 pm on 8 May, 2023"``) as a naive datetime."""
    cleaned = " ".join(str(text).replace(",", " ").split())
    when = strptime_first(cleaned, ("%I:%M %p on %d %B %Y", "%I:%M %p on %d %b %Y",
                                    "%H:%M on %d %B %Y"))
    if when is not None:
        return when
    raise LocomoError(f"unrecognised LoCoMo date {text!r} (expected e.g. "
                      "'1:56 pm on 8 May, 2023')")


def _sessions(conv: Mapping[str, Any], where: str) -> list[Session]:
    for key in ("speaker_a", "speaker_b"):
        if key not in conv:
            raise LocomoError(f"{where}: conversation has no {key!r}")
    speaker_a = str(conv["speaker_a"])
    numbers = sorted(int(m.group(1)) for k, v in conv.items()
                     if (m := _SESSION_KEY.match(k)) and isinstance(v, list))
    if not numbers:
        raise LocomoError(f"{where}: conversation has no session_N lists")
    sessions = []
    for n in numbers:
        date_key = f"session_{n}_date_time"
        if date_key not in conv:
            raise LocomoError(f"{where}: session_{n} has no {date_key!r}")
        when = parse_locomo_date(conv[date_key])
        turns = []
        for i, raw in enumerate(conv[f"session_{n}"]):
            if not isinstance(raw, Mapping) or "dia_id" not in raw or "speaker" not in raw:
                raise LocomoError(f"{where}: session_{n}[{i}] needs 'speaker' and 'dia_id'")
            text = str(raw.get("text") or "")
            caption = raw.get("blip_caption")
            if caption:
                text = f"{text} [shares a photo: {caption}]".strip()
            speaker = str(raw["speaker"])
            turns.append(Turn(id=str(raw["dia_id"]).strip(),
                              role="user" if speaker == speaker_a else "assistant",
                              speaker=speaker, text=text))
        sessions.append(Session(id=f"session_{n}", when=when,
                                title=f"Session {n} · {conv[date_key]}", turns=turns))
    return sessions


def evidence_ids(value: Any) -> list[str]:
    """LoCoMo evidence as turn ids; tolerates the real file's ``"D8:6; D9:17"`` strings.

    >>> evidence_ids(["D1:3", "D8:6; D9:17"])
    ['D1:3', 'D8:6', 'D9:17']
    """
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        found = [f"D{a}:{b}" for a, b in _DIA_ID.findall(str(item))]
        out.extend(found or [str(item).strip()])
    return [x for x in out if x]


def conversation_dataset(sample: Mapping[str, Any], out: str | Path, *, index: int = 0,
                         layout: str = "notes") -> DatasetReport:
    """Write one LoCoMo conversation as a memory dataset folder ``out``."""
    where = str(sample.get("sample_id", f"conversation {index}"))
    if "conversation" not in sample or "qa" not in sample:
        raise LocomoError(f"{where}: expected keys 'conversation' and 'qa'")
    sessions = _sessions(sample["conversation"], where)
    session_of = {t.id: s.id for s in sessions for t in s.turns}
    now = max(s.when for s in sessions) + dt.timedelta(days=1)
    questions = []
    for n, qa in enumerate(sample["qa"], start=1):
        if "question" not in qa:
            raise LocomoError(f"{where}: qa[{n - 1}] has no 'question'")
        category = qa.get("category")
        tag = CATEGORY_TAGS.get(int(category)) if category is not None else None
        abstains = category is not None and int(category) in ABSTENTION_CATEGORIES
        evidence = evidence_ids(qa.get("evidence", []))
        tags = [t for t in (tag, ABSTENTION_TAG if abstains else None) if t]
        answer = qa.get("answer", qa.get("adversarial_answer"))
        extra = {"answer": answer, "category": category, "evidence": evidence}
        questions.append(Question(
            id=f"q{n:03d}", text=str(qa["question"]), tags=tags or ["untagged"], now=now,
            evidence=evidence,
            sessions=list(dict.fromkeys(session_of[e] for e in evidence if e in session_of)),
            extra=extra))
    meta = {"source": "locomo", "sample_id": where,
            "speakers": [sample["conversation"]["speaker_a"],
                         sample["conversation"]["speaker_b"]]}
    return write_dataset(out, sessions, questions, layout=layout, meta=meta)


def convert_locomo(path: str | Path, out: str | Path, *, layout: str = "notes"
                   ) -> ConversionReport:
    """Convert a LoCoMo file (a list of conversations, or one) into datasets under ``out``,
    one folder per conversation (named by ``sample_id``, else ``conv-<n>``).

    >>> report = convert_locomo("tests/data/locomo/locomo_mini.json", "/tmp/lc")  # doctest: +SKIP
    >>> report.summary()  # doctest: +SKIP
    """
    data = read_json(path)
    samples = data if isinstance(data, list) else [data]
    if not samples or not all(isinstance(s, Mapping) for s in samples):
        raise LocomoError(f"{path}: expected a list of conversation objects (or one)")
    return convert_each(samples, out, id_key="sample_id", fallback="conv",
                        convert=lambda sample, folder, i: conversation_dataset(
                            sample, folder, index=i, layout=layout))
