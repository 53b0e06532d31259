"""MMR's 2026.9 empty-token rule, by hand (the whole rerank against 2026.9.6's ``mmrRerank``:
``tests/tiered/test_tiered_search.py``)."""

from __future__ import annotations

import numpy as np

from memlab.kernels.mmr_empty import empty_token_similarity


def test_empty_pairs_by_hand():
    sim = np.array([[1.0, 0.5, 1.0], [0.5, 1.0, 0.0], [1.0, 0.0, 1.0]])
    out = empty_token_similarity(sim, [0, 3, 0], ["--", "a b c", "=="])
    assert out.tolist() == [[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert sim[0, 2] == 1.0  # the input is not modified
