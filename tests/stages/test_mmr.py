import numpy as np
import pytest
import scipy.sparse as sp

from memlab.corpus import Corpus
from memlab.frames import as_queries
from memlab.stages.fusion import Fusion
from memlab.stages.mmr import MMR, jaccard_matrix, mmr_order
from memlab.text import openclaw_mmr_tokens as mmr_tokens


def test_tokens_follow_openclaw():
    assert mmr_tokens("Hello WORLD_1, привет") == {"hello", "world_1"}
    # bigrams only between adjacent CJK characters
    assert mmr_tokens("我喜欢hello你好") == {"我", "喜", "欢", "你", "好", "我喜", "喜欢", "你好",
                                          "hello"}
    assert mmr_tokens("") == set()


def test_jaccard_empty_sets():
    rows = sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 1], [0, 0, 0], [0, 0, 0]], dtype=float))
    sim = jaccard_matrix(rows)
    assert sim[0, 1] == pytest.approx(1 / 3)
    assert sim[2, 3] == 1.0  # two empty sets
    assert sim[0, 2] == 0.0


@pytest.fixture
def fruit():
    texts = ["apple banana cherry", "apple banana cherry date", "zebra yak"]
    return Corpus.from_texts(texts)


def test_hand_computed_order(static_leg, fruit):
    leg = static_leg(fruit, {"q": [(0, 0.9), (1, 0.89), (2, 0.8)]}, "vector_score")
    hits = Fusion(vector=leg).transform(as_queries(["q"]))
    # rel = 1, .9, 0; J(A,B) = 3/4. lambda .7: B = .63 - .225 > C = 0  → A, B, C
    assert MMR(fruit, lambda_=0.7).transform(hits)["docno"].tolist() == [0, 1, 2]
    # lambda .3: B = .27 - .525 < C = 0 → A, C, B
    out = MMR(fruit, lambda_=0.3).transform(hits)
    assert out["docno"].tolist() == [0, 2, 1]
    assert out["rank"].tolist() == [1, 2, 3]
    np.testing.assert_allclose(out["score"], [0.9, 0.8, 0.89])  # scores unchanged


def test_tie_goes_to_higher_score():
    scores = np.array([1.0, 0.5, 0.5, 0.0])
    sim = np.eye(4)
    # lambda 0: every value is -max_sim; after the first pick all others tie at 0 → by score
    order = mmr_order(scores, sim, 0.0)
    assert order.tolist() == [0, 1, 2, 3]
    assert mmr_order(np.array([0.2, 0.9]), np.eye(2), 1.0).tolist() == [1, 0]


def test_disabled_and_single(static_leg, fruit):
    leg = static_leg(fruit, {"q": [(2, 0.5)]}, "vector_score")
    hits = Fusion(vector=leg).transform(as_queries(["q"]))
    assert MMR(fruit, enabled=False).transform(hits) is hits
    assert MMR(fruit).transform(hits)["docno"].tolist() == [2]
