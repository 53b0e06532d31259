import numpy as np
import pandas as pd
import pytest

from memlab.eval.relevance import span_gains as frame_span_gains
from memlab.kernels.gains import document_gains, first_occurrences, span_gains
from memlab.kernels.keyword import boosted_score, merge_keyword_hits
from memlab.text.openclaw_keywords import openclaw_boosted_score


def test_span_gains_consume_each_span_once():
    # hit 0 and hit 1 overlap span 7 (grade 2); hit 1 also span 8 (grade 1)
    assert span_gains(np.array([0, 1, 1]), np.array([7, 7, 8]), np.array([2, 2, 1]),
                      3).tolist() == [2, 1, 0]


def test_frame_span_gains_use_the_kernel():
    hits = pd.DataFrame({"qid": ["q"] * 3, "path": ["a.md"] * 3, "start_line": [1, 1, 5],
                         "end_line": [9, 9, 9], "rank": [1, 2, 3]})
    qrels = pd.DataFrame({"qid": ["q", "q"], "path": ["a.md", "a.md"], "start_line": [2, 6],
                          "end_line": [2, 6], "grade": [1, 2]})
    assert frame_span_gains(hits, qrels)["gain"].tolist() == [2, 1, 0]


def test_document_level():
    assert first_occurrences(np.array([5, 3, 5, 9, 3])).tolist() == [0, 1, 3]
    assert document_gains(np.array([2.0, np.nan, -1.0])).tolist() == [2, 0, 0]


@pytest.mark.parametrize("seed", range(20))
def test_first_occurrences_equal_the_definition(seed):
    # the first position of each distinct key, in list order: as np.unique's first indices
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    keys = rng.integers(-5, int(rng.integers(1, 60)), n) * int(rng.choice([1, 10**12]))
    expected = np.sort(np.unique(keys, return_index=True)[1])
    got = first_occurrences(keys)
    assert got.dtype == np.int64 and got.tolist() == expected.tolist()
    assert first_occurrences(np.zeros(0, dtype=np.int64)).tolist() == []


def test_boost_kernel_equals_the_scalar_rule():
    query, text, path = "deploy vault", "the deploy key is in the vault", "memory/deploy.md"
    want = openclaw_boosted_score(query, text, path, 0.1)
    # 2 of 2 query tokens in the text (6 distinct tokens), 1 in the path, 30 UTF-16 units
    assert float(boosted_score(0.1, 2, 2, 6, 1, len(text))) == want
    assert float(boosted_score(0.4, 0, 0, 6, 0, 30)) == 0.4  # no query tokens: unchanged


def test_merge_keyword_hits():
    keep = merge_keyword_hits(np.array([0, 0, 0]), np.array([5, 7, 5]),
                              np.array([0.2, 0.5, 0.6]), np.array([0.9, 0.9, 0.7]))
    assert keep.tolist() == [1, 2]
