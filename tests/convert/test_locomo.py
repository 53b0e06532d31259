"""LoCoMo converter: every evidence turn maps to its line, in both layouts; abstention apart;
a converted conversation evaluates end to end (keyword system)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlab.convert.locomo import (
    CATEGORY_TAGS,
    LocomoError,
    convert_locomo,
    evidence_ids,
    parse_locomo_date,
)
from memlab.eval.datasets import load_memory_dataset
from memlab.sessions import parse_session

DATA = Path(__file__).resolve().parents[1] / "data" / "locomo"
MINI = DATA / "locomo_mini.json"


def _turns(sample: dict) -> dict[str, str]:
    conv = sample["conversation"]
    return {t["dia_id"]: t["text"] for k, v in conv.items()
            if k.startswith("session_") and isinstance(v, list) for t in v}


@pytest.mark.parametrize("layout", ["notes", "transcripts"])
def test_every_evidence_turn_maps_to_its_line(tmp_path, layout):
    report = convert_locomo(MINI, tmp_path, layout=layout)
    samples = json.loads(MINI.read_text())
    assert [d.root.name for d in report.datasets] == ["conv-a", "conv-b"]
    assert not report.missing
    for sample, info in zip(samples, report.datasets, strict=True):
        ds = load_memory_dataset(info.root)
        turns = _turns(sample)
        queries = {q["id"]: q for q in map(json.loads, (info.root / "queries.jsonl")
                                           .read_text().splitlines())}
        for r in ds.qrels.itertuples():
            assert r.start_line == r.end_line
            file = info.root / "workspace" / r.path
            if layout == "notes":
                line = file.read_text().split("\n")[r.start_line - 1]
                text = line.split(": ", 1)[1]
            else:
                record = json.loads(file.read_text().split("\n")[r.start_line - 1])
                text = record["message"]["content"].split(": ", 1)[1]
                # OpenClaw's renderer keeps the line, so it can be retrieved
                assert r.start_line in parse_session(file, path=r.path).line_map
            owners = [e for e in queries[r.qid]["evidence"]
                      if " ".join(turns[e].split()) in text]
            assert owners, (r.qid, text)
        # every evidence id of an answerable question has exactly one qrel
        for q in queries.values():
            n = len(ds.qrels[ds.qrels["qid"] == q["id"]])
            assert n == (0 if "none" in q["tags"] else len(q["evidence"]))


def test_queries_tags_now_and_abstention(tmp_path):
    report = convert_locomo(MINI, tmp_path)
    ds = load_memory_dataset(report.datasets[0].root)
    assert report.abstention == 2 and report.queries == 10
    tags = dict(zip(ds.queries["qid"], ds.queries["tags"], strict=True))
    assert tags["q001"] == ["single-hop"] and tags["q006"] == ["adversarial", "none"]
    assert set(ds.unjudged) == {"q006"}
    # now = the day after the last session (21 June 2023, 10:02)
    assert str(ds.queries["now"].iloc[0]) == "2023-06-22 10:02:00+00:00"
    # the photo's caption is in the turn's line
    note = (ds.workspace / "memory/2023-05-08.md").read_text()
    assert "[shares a photo: a photo of a grey dog on a sofa]" in note
    # two sessions on 8 May share one daily note; the third has its own
    assert sorted(p.name for p in (ds.workspace / "memory").iterdir()) == [
        "2023-05-08.md", "2023-06-21.md"]
    meta = json.loads((ds.root / "dataset.json").read_text())
    assert meta["source"] == "locomo" and meta["layout"] == "notes"


def test_session_qrels_cover_the_evidence_sessions(tmp_path):
    from memlab.eval.collection import load_session_qrels

    root = convert_locomo(MINI, tmp_path).datasets[0].root
    sq = load_session_qrels(root)
    spans = sq[sq["qid"] == "q002"][["path", "start_line", "end_line"]].values.tolist()
    # Biscuit: D1:4 (session 1, lines 3-8 of 8 May) and D3:2 (session 3)
    assert spans == [["memory/2023-05-08.md", 3, 8], ["memory/2023-06-21.md", 3, 6]]


def test_one_conversation_per_file(tmp_path):
    report = convert_locomo(DATA / "one_conversation.json", tmp_path)
    assert [d.root.name for d in report.datasets] == ["conv-b"]
    assert report.queries == 4 and report.abstention == 1


def test_dates_evidence_and_errors(tmp_path):
    assert parse_locomo_date("10:02 am on 21 June, 2023").hour == 10
    assert evidence_ids("D8:6; D9:17") == ["D8:6", "D9:17"]
    assert CATEGORY_TAGS[5] == "adversarial"
    with pytest.raises(LocomoError, match="unrecognised LoCoMo date"):
        parse_locomo_date("yesterday")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"sample_id": "x", "conversation": {"speaker_a": "A"},
                                "qa": []}]))
    with pytest.raises(LocomoError, match="x: conversation has no 'speaker_b'"):
        convert_locomo(bad, tmp_path / "out")


def test_unknown_evidence_is_reported(tmp_path):
    sample = json.loads((DATA / "one_conversation.json").read_text())
    sample["qa"][0]["evidence"] = ["D9:99"]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(sample))
    with pytest.warns(UserWarning, match="D9:99"):
        report = convert_locomo(path, tmp_path / "out")
    assert report.missing == ["conv-b/q001: D9:99"]


def test_converted_locomo_evaluates_end_to_end(tmp_path):
    from memlab.eval.collection import evaluate_collection

    convert_locomo(MINI, tmp_path)
    metrics = ["ndcg@10", "recall_any@5", "recall_all@5", "session_recall_any@5"]
    result = evaluate_collection(tmp_path, ["keyword"], metrics)
    macro = result.macro.loc["keyword"]
    assert int(macro["datasets"]) == 2 and int(macro["judged"]) == 8
    assert int(macro["abstention"]) == 2  # the adversarial questions, reported apart
    per = result.per_dataset.set_index("dataset")
    for m in metrics:  # the macro-average is the mean of the two datasets' means
        assert macro[m] == pytest.approx(per[m].mean())
        assert 0 < macro[m] <= 1
    assert (~result.per_query["judged"]).sum() == 2
    view = result.abstention
    assert set(view["group"]) == {"answerable", "unanswerable"}
    assert "Macro-average over 2 dataset(s)" in result.to_markdown()
