"""The package facade: the public verbs resolve and work together."""

from pathlib import Path

import memlab

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "sample-memory"


def test_public_verbs_resolve():
    for name in memlab.__all__:
        assert callable(getattr(memlab, name)), name


def test_keyword_only_round_trip():
    corpus = memlab.load_workspace(SAMPLE / "workspace")
    ds = memlab.load_dataset(SAMPLE)
    pipe = memlab.openclaw_pipeline(corpus, {"provider": "none"}, max_results=10, min_score=0)
    per_query, means = memlab.evaluate(pipe(ds.queries), ds.qrels, queries=ds.queries)
    assert len(per_query) == len(ds.queries)
    assert per_query["judged"].sum() == ds.qrels["qid"].nunique()
    assert 0.0 <= means["ndcg@10"] <= 1.0
