"""The quality gate on the bundled dataset (issue 19 item 7): memlab's best exportable 2026.7
configuration, chosen out of fold (5-fold CV over the judged queries), beats OpenClaw's default
knobs on nDCG@10 with paired randomization p < 0.05, and no tag loses more than 0.02.

The gate runs once per session (module fixture) with :data:`memlab.tune.gate.GATE_GRID`
and :data:`~memlab.tune.gate.GATE_MODELS`, as the README's table does.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from memlab.tune.gate import GATED, SAME_MODEL, exportable, quality_gate

SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "sample-memory"


@pytest.fixture(scope="module")
def gate():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return quality_gate(SAMPLE)


def test_the_best_exportable_config_beats_openclaw_defaults_out_of_fold(gate):
    print(gate.to_markdown())
    assert gate.passed, gate.failures
    row = gate.overall.set_index("variant").loc[GATED]
    assert row["delta"] > 0 and row["p_rand"] < 0.05
    assert (gate.tags[f"delta {GATED}"] >= -0.02).all()


def test_every_judged_query_is_held_out_exactly_once_per_variant(gate):
    n = len(gate.per_query)
    for variant in (SAME_MODEL, GATED):
        folds = gate.folds[gate.folds["variant"] == variant]
        assert len(folds) == 5
        assert folds["queries"].sum() == n
    # the pooled per-query values are the ones the fold table averages
    tuned = gate.per_query[GATED].to_numpy()
    assert np.isclose(tuned.mean(), gate.overall.set_index("variant").loc[GATED, "tuned"])
    assert np.isclose(gate.per_query["baseline"].mean(), gate.overall["baseline"].iloc[0])


def test_each_fold_choice_is_exportable_and_the_baseline_is_openclaws_defaults(gate):
    from memlab.config import load_config
    from memlab.tune.models import expand_overrides

    base = load_config({"memorySearch": {"provider": "local"}})
    for overrides in gate.chosen.values():
        assert exportable(base.with_overrides(expand_overrides(overrides)))
    assert gate.baseline_label == "minilm"
    # the baseline is memlab's hybrid on the sample at depth 10 (README's sample-eval block)
    assert 0.5 < gate.overall["baseline"].iloc[0] < 0.55


def test_a_memlab_only_choice_is_not_exportable():
    from memlab.config import load_config

    cfg = load_config({"memorySearch": {"provider": "local"},
                       "memlab": {"keyword": "bm25", "fusion": {"method": "rrf"}}})
    assert not exportable(cfg)
