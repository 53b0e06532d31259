"""``memlab sweep`` prints CIs and paired tests of the rows it shows, against the best row
and against the grid's first configuration."""

import numpy as np

from memlab.cli.sweep import _significance


def test_significance_tables_against_best_and_baseline():
    rng = np.random.default_rng(0)
    base = rng.random(60)
    per_query = np.column_stack([base, np.clip(base + 0.2, 0, 1), base + rng.normal(0, .01, 60),
                                 np.clip(base - 0.3, 0, 1)])
    text = _significance(per_query, [1, 2, 0], "ndcg@10")
    assert "against the best row" in text and "against the baseline" in text
    best = text.split("against the best row:")[1].split("against the baseline")[0]
    assert "| ndcg@10 | #2     | #1 " in best and "| ndcg@10 | #0     | #1 " in best
    assert best.count("†") == 3  # both clearly below the best, plus the legend
    assert "holm-corrected over 2 comparisons" in best
    # the baseline (#0) is added even when it is not among the rows shown
    assert "#0" in _significance(per_query, [1, 3], "ndcg@10").split("baseline:")[1]
