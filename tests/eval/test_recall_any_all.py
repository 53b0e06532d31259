"""recall_any@k / recall_all@k: the same kernel as the other metrics, equal to a hand
computation, parsed wherever --metrics names are."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from memlab.eval.experiment import evaluate
from memlab.eval.metrics import metric_arrays, metric_value, parse_metric

# query 0: gains by rank [0, 2, 0, 1], three judged units (2, 1, 1)
# query 1: gains by rank [1, 1, 2], three judged units (2, 1, 1)
# query 2: no relevant judgment (NaN)
QROW = np.array([0, 0, 0, 0, 1, 1, 1])
GAINS = np.array([0, 2, 0, 1, 1, 1, 2])
IDEAL_QROW = np.array([0, 0, 0, 1, 1, 1])
IDEAL = np.array([2, 1, 1, 2, 1, 1])
HAND = {  # by hand: any = a relevant unit in the top k; all = every judged unit in the top k
    "recall_any@1": [0, 1], "recall_any@2": [1, 1], "recall_all@2": [0, 0],
    "recall_all@3": [0, 1], "recall_all@10": [0, 1], "recall_any@10": [1, 1],
}


def test_parse():
    assert parse_metric("recall_any@5") == ("recall_any", 5)
    assert parse_metric("RECALL_ALL@10") == ("recall_all", 10)
    assert parse_metric("recall@5") == ("recall", 5)
    with pytest.raises(ValueError, match="recall_any"):
        parse_metric("recall_some@5")


def test_vectorised_kernel_equals_hand_computation():
    values = metric_arrays(list(HAND), 3, QROW, GAINS, IDEAL_QROW, IDEAL)
    for spec, expected in HAND.items():
        assert values[spec][:2].tolist() == expected, spec
        assert np.isnan(values[spec][2])


def test_single_query_function_agrees():
    for spec, expected in HAND.items():
        got = [metric_value(spec, GAINS[QROW == q], IDEAL[IDEAL_QROW == q]) for q in (0, 1)]
        assert got == expected, spec


def test_relations_to_success_and_recall():
    specs = ["recall_any@3", "success@3", "recall_all@4", "recall@4"]
    v = metric_arrays(specs, 3, QROW, GAINS, IDEAL_QROW, IDEAL)
    assert np.array_equal(v["recall_any@3"][:2], v["success@3"][:2])
    assert np.array_equal(v["recall_all@4"][:2], (v["recall@4"][:2] == 1).astype(float))


def test_evaluate_on_spans():
    hits = pd.DataFrame({"qid": ["q"] * 3, "path": ["a.md"] * 3, "start_line": [1, 10, 20],
                         "end_line": [1, 10, 20], "score": [3.0, 2.0, 1.0], "rank": [1, 2, 3]})
    qrels = pd.DataFrame({"qid": ["q", "q"], "path": ["a.md", "a.md"], "start_line": [10, 20],
                          "end_line": [10, 20], "grade": [2, 1]})
    _, means = evaluate(hits, qrels, ["recall_any@1", "recall_any@2", "recall_all@2",
                                      "recall_all@3"])
    assert means.tolist() == [0.0, 1.0, 0.0, 1.0]
