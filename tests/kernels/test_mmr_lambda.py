"""``mmr_order`` owns the lambda clamp and decides when similarities are needed; the MMR
stage passes its ``lambda_`` as given."""

from __future__ import annotations

import numpy as np
import pytest

from memlab.corpus import Corpus
from memlab.kernels.mmr import jaccard_matrix, mmr_order
from memlab.stages.mmr import MMR


def _sim(n: int = 6) -> np.ndarray:
    rng = np.random.default_rng(7)
    import scipy.sparse as sp

    return jaccard_matrix(sp.csr_matrix((rng.random((n, 10)) < 0.4).astype(np.float32)))


def test_lambda_outside_the_unit_interval_is_clamped():
    scores = np.array([0.9, 0.8, 0.8, 0.5, 0.4, 0.1])
    sim = _sim()
    assert mmr_order(scores, sim, -3.0).tolist() == mmr_order(scores, sim, 0.0).tolist()
    assert mmr_order(scores, sim, 7.0).tolist() == np.argsort(-scores, kind="stable").tolist()


def test_similarities_are_built_only_when_needed():
    scores = np.array([0.9, 0.8, 0.8, 0.5, 0.4, 0.1])
    sim = _sim()
    calls = []

    def lazy() -> np.ndarray:
        calls.append(1)
        return sim

    assert mmr_order(scores, lazy, 1.5).tolist() == np.argsort(-scores, kind="stable").tolist()
    assert mmr_order(scores[:1], lazy, 0.3).tolist() == [0]
    assert not calls
    assert mmr_order(scores, lazy, 0.3).tolist() == mmr_order(scores, sim, 0.3).tolist()
    assert calls == [1]


def test_nan_lambda_is_an_error():
    with pytest.raises(ValueError, match="lambda"):
        mmr_order(np.array([0.5, 0.4]), np.eye(2), float("nan"))
    with pytest.raises(ValueError, match="lambda"):
        mmr_order(np.array([[0.5, 0.4]] * 2), np.eye(2), np.array([0.5, np.nan]))


def test_stage_order_equals_the_kernel_with_its_raw_lambda():
    corpus = Corpus.from_texts(["deploy window tuesday", "deploy window moved", "lunch menu",
                                "deploy tuesday lunch"])
    docnos, scores = np.array([0, 1, 2, 3]), np.array([0.9, 0.85, 0.5, 0.45])
    for lam in (-1.0, 0.0, 0.3, 0.7, 1.0, 2.5):
        stage = MMR(corpus, lambda_=lam)
        sim = jaccard_matrix(stage.token_matrix()[docnos])
        assert stage.order(docnos, scores).tolist() == mmr_order(scores, sim, lam).tolist()
