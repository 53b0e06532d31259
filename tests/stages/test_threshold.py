import pandas as pd
import pytest

from memlab.stages.threshold import Threshold


def _hits(scores, keyword):
    n = len(scores)
    return pd.DataFrame({"qid": ["1"] * n, "docno": range(n), "chunk_id": list("abcdefgh")[:n],
                         "path": [f"p{i}.md" for i in range(n)], "start_line": 1,
                         "end_line": 1, "source": "memory", "score": scores,
                         "rank": range(1, n + 1), "keyword_hit": keyword})


def test_strict_cut_and_max_results():
    out = Threshold(0.35, 2).transform(_hits([0.9, 0.5, 0.4, 0.1], [False] * 4))
    assert out["score"].tolist() == [0.9, 0.5]


def test_keyword_backed_fallback():
    hits = _hits([0.3, 0.2, 0.1], [False, True, True])
    assert Threshold(0.35, 6).transform(hits)["score"].tolist() == [0.2, 0.1]
    assert Threshold(0.35, 1).transform(hits)["score"].tolist() == [0.2]
    # no keyword hits at all: the strict (empty) result stands
    assert Threshold(0.35, 6).transform(_hits([0.3], [False])).empty


def test_negative_scores_never_pass_the_relaxed_floor():
    hits = _hits([0.3, -0.2], [True, True])
    assert Threshold(0.35, 6).transform(hits)["score"].tolist() == [0.3]
    assert Threshold(0.35, 6, relaxed="zero").transform(hits)["score"].tolist() == [0.3]
    assert Threshold(0.35, 6, relaxed=None).transform(hits).empty


def test_bad_parameters():
    with pytest.raises(ValueError, match="relaxed"):
        Threshold(relaxed="maybe").transform(_hits([0.5], [True]))
    with pytest.raises(ValueError, match="max_results"):
        Threshold(max_results=0).transform(_hits([0.5], [True]))
