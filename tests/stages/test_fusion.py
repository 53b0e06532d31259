import numpy as np
import pytest

from memlab.frames import as_queries
from memlab.stages.fusion import Fusion, normalize_weights


@pytest.fixture
def legs(static_leg, tiny_corpus):
    vec = static_leg(tiny_corpus, {"q": [(2, 0.9), (0, 0.5), (5, 0.4)]}, "vector_score")
    txt = static_leg(tiny_corpus, {"q": [(5, 0.8), (3, 0.6)]}, "text_score",
                     boosted={d: 0.1 * d for d in range(8)})
    return vec, txt


def test_weighted_merge_hand_computed(legs):
    vec, txt = legs
    hits = Fusion(vec, txt).transform(as_queries(["q"]))
    # 2: .7*.9 = .63; 5: .7*.4 + .3*.8 = .52; 0: .7*.5 = .35; 3: .3*.6 = .18
    assert hits["docno"].tolist() == [2, 5, 0, 3]
    np.testing.assert_allclose(hits["score"], [0.63, 0.52, 0.35, 0.18])
    np.testing.assert_allclose(hits["vector_score"], [0.9, 0.4, 0.5, 0.0])
    np.testing.assert_allclose(hits["text_score"], [0.0, 0.8, 0.0, 0.6])
    assert hits["keyword_hit"].tolist() == [False, True, False, True]
    assert hits["rank"].tolist() == [1, 2, 3, 4]


def test_candidates_cut_each_leg(legs):
    vec, txt = legs
    hits = Fusion(vec, txt, candidates=1).transform(as_queries(["q"]))
    assert hits["docno"].tolist() == [2, 5]
    np.testing.assert_allclose(hits["score"], [0.63, 0.24])


def test_weights_are_normalised_like_openclaw():
    assert normalize_weights(0.7, 0.3) == pytest.approx((0.7, 0.3))
    assert normalize_weights(1.7, 1.0) == (0.5, 0.5)  # 1.7 clamps to 1
    assert normalize_weights(0.0, 0.0) == (0.7, 0.3)
    assert normalize_weights(-1, 0.5) == (0.0, 1.0)


def test_ties_keep_vector_hits_first(static_leg, tiny_corpus):
    vec = static_leg(tiny_corpus, {"q": [(1, 0.4)]}, "vector_score")
    txt = static_leg(tiny_corpus, {"q": [(4, 0.4), (6, 0.4)]}, "text_score")
    hits = Fusion(vec, txt, vector_weight=0.5, text_weight=0.5).transform(as_queries(["q"]))
    assert hits["docno"].tolist() == [1, 4, 6]


def test_rrf_hand_computed(legs):
    vec, txt = legs
    hits = Fusion(vec, txt, method="rrf", vector_weight=0.5, text_weight=0.5,
                  rrf_k=60).transform(as_queries(["q"]))
    expected = {2: 0.5 / 61, 0: 0.5 / 62, 5: 0.5 / 63 + 0.5 / 61, 3: 0.5 / 62}
    assert hits["docno"].tolist() == [5, 2, 0, 3]
    np.testing.assert_allclose(hits["score"], [expected[d] for d in hits["docno"]])


def test_minmax_hand_computed(legs):
    vec, txt = legs
    hits = Fusion(vec, txt, method="minmax", vector_weight=0.5,
                  text_weight=0.5).transform(as_queries(["q"]))
    # vector: 2 → 1, 0 → .2, 5 → 0; text: 5 → 1, 3 → 0
    scores = dict(zip(hits["docno"], hits["score"], strict=True))
    assert scores == pytest.approx({2: 0.5, 0: 0.1, 5: 0.5, 3: 0.0})


def test_single_leg_modes(legs):
    vec, txt = legs
    kw = Fusion(text=txt).transform(as_queries(["q"]))
    # keyword-only ranks by the boosted score (0.1 * docno here)
    assert kw["docno"].tolist() == [5, 3]
    np.testing.assert_allclose(kw["score"], [0.5, 0.3])
    np.testing.assert_allclose(kw["text_score"], [0.8, 0.6])
    vo = Fusion(vector=vec).transform(as_queries(["q"]))
    assert vo["docno"].tolist() == [2, 0, 5]


def test_many_queries_stay_separate(static_leg, tiny_corpus):
    vec = static_leg(tiny_corpus, {"a": [(1, 0.9)], "b": [(2, 0.8)]}, "vector_score")
    txt = static_leg(tiny_corpus, {"b": [(3, 0.7)]}, "text_score")
    hits = Fusion(vec, txt).transform(as_queries(["a", "b", "c"]))
    assert hits.groupby("qid")["docno"].apply(list).to_dict() == {"1": [1], "2": [2, 3]}


def test_bad_parameters_are_explained(legs):
    vec, txt = legs
    with pytest.raises(ValueError, match="method"):
        Fusion(vec, txt, method="borda").transform(as_queries(["q"]))
    with pytest.raises(ValueError, match="at least one leg"):
        Fusion().transform(as_queries(["q"]))


def test_fallback_hits_are_not_cut(static_leg, tiny_corpus):
    txt = static_leg(tiny_corpus, {"q": [(1, 0.5), (2, 0.4), (3, 0.3)]}, "text_score")

    class FallbackLeg(type(txt)):
        def transform(self, queries):
            return super().transform(queries).assign(fallback=True)

    leg = FallbackLeg(tiny_corpus, txt.results, "text_score")
    hits = Fusion(text=leg, candidates=1).transform(as_queries(["q"]))
    assert hits["docno"].tolist() == [1, 2, 3]
