import pandas as pd
import pytest

from memlab.frames import HIT_COLUMNS, Query, as_queries
from memlab.pipeline import Cached, Sequence
from memlab.stages.decay import TemporalDecay
from memlab.stages.fusion import Fusion
from memlab.stages.mmr import MMR
from memlab.stages.threshold import Threshold


def test_as_queries_shapes():
    assert as_queries("x")["qid"].tolist() == ["1"]
    assert as_queries(["a", "b"])["query"].tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="duplicate qid"):
        as_queries(pd.DataFrame({"qid": ["1", "1"], "query": ["a", "b"]}))
    with pytest.raises(ValueError, match="'qid' and 'query'"):
        as_queries(pd.DataFrame({"text": ["a"]}))


def test_rshift_builds_a_flat_sequence(static_leg, tiny_corpus):
    leg = static_leg(tiny_corpus, {"q": [(0, 0.9), (1, 0.2)]}, "vector_score")
    pipe = Fusion(vector=leg) >> TemporalDecay(tiny_corpus, enabled=False) >> Threshold(0.5, 3)
    assert isinstance(pipe, Sequence) and len(pipe.stages) == 3
    hits = pipe("q")
    assert hits["docno"].tolist() == [0]
    assert set(HIT_COLUMNS) <= set(hits.columns)
    assert "Threshold(max_results=3, min_score=0.5)" in repr(pipe)


def test_nested_params(static_leg, tiny_corpus):
    leg = static_leg(tiny_corpus, {}, "vector_score")
    pipe = Fusion(vector=leg) >> MMR(tiny_corpus) >> Threshold()
    params = pipe.get_params()
    assert params["mmr__lambda_"] == 0.7
    assert params["fusion__vector__score_column"] == "vector_score"
    pipe.set_params(mmr__lambda_=0.2, threshold__max_results=3)
    assert pipe.stages[1].lambda_ == 0.2 and pipe.stages[2].max_results == 3
    with pytest.raises(ValueError, match="stage names are"):
        pipe.set_params(nope__x=1)


def test_cached_leg_runs_once_per_query_text(static_leg, tiny_corpus):
    leg = static_leg(tiny_corpus, {"a": [(0, 0.9)], "b": [(1, 0.5)]}, "vector_score")
    cached = Cached(leg)
    pipe = Fusion(vector=cached) >> Threshold(0.0, 5)
    first = pipe(["a", "b"])
    pipe.set_params(threshold__min_score=0.6)
    second = pipe(["a", "b"])
    assert leg.calls == 1
    assert len(first) == 2 and second["docno"].tolist() == [0]
    # new qids for the same text reuse the candidates; a new text is computed
    third = cached.transform(pd.DataFrame({"qid": ["x", "y"], "query": ["b", "c"]}))
    assert leg.calls == 2
    assert third[["qid", "docno", "score"]].values.tolist() == [["x", 1, 0.5]]
    # changing the leg's parameters invalidates the cache
    leg.set_params(score_column="vector_score", results={"a": [(3, 0.99)]})
    assert pipe("a")["docno"].tolist() == [3]


def test_query_replace_copies_the_fields_like_dataclasses_replace() -> None:
    import dataclasses

    query = Query("deploy key", now=5, columns={"qid": "7"}, limit=3)
    changed = query.replace(limit=24, boost=False)
    assert changed == dataclasses.replace(query, limit=24, boost=False)
    assert (query.limit, query.boost) == (3, True)  # the original is untouched
    assert changed.columns is query.columns
    with pytest.raises(TypeError, match="no field.*'limt'.*its fields are"):
        query.replace(limt=1)
