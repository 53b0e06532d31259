"""MMR's 2026.9 empty-token rule, by hand and against 2026.9.6's ``mmrRerank``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from memlab.kernels.mmr_empty import empty_token_similarity
from memlab.tiered.search import mmr_rerank

GOLDEN = json.loads((Path(__file__).parents[1] / "data" / "openclaw-2026.9" / "golden.json")
                    .read_text(encoding="utf-8"))


def test_empty_pairs_by_hand():
    sim = np.array([[1.0, 0.5, 1.0], [0.5, 1.0, 0.0], [1.0, 0.0, 1.0]])
    out = empty_token_similarity(sim, [0, 3, 0], ["--", "a b c", "=="])
    assert out.tolist() == [[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert sim[0, 2] == 1.0  # the input is not modified


@pytest.mark.parametrize("case", GOLDEN["mmrRerank"], ids=lambda c: "-".join(c["expected"]))
def test_rerank_equals_openclaw_2026_9(case):
    got = [e["id"] for e in mmr_rerank(case["items"], "score", case.get("lambda", 0.7))]
    assert got == case["expected"]
