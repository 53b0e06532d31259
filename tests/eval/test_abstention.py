"""minScore calibration (memlab.eval.abstention) against hand-computed values and against the
production pipeline's own threshold."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from memlab.embed.hashing import HashingProvider
from memlab.eval.abstention import (
    abstention_curve,
    calibrate,
    calibrate_min_score,
    threshold_mode,
)

SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "sample-memory"


@pytest.fixture
def toy() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Five queries: a, c, e answerable; b, d unanswerable; d returned nothing.

    top scores: a 0.9, b 0.5, c 0.4, e 0.2 (a keyword hit at 0.1 under it); c's best hit is
    not relevant (success@1 = 0)."""
    hits = pd.DataFrame({
        "qid": ["a", "a", "b", "c", "e", "e"],
        "score": [0.9, 0.3, 0.5, 0.4, 0.2, 0.1],
        "keyword_hit": [False, False, False, False, False, True],
    })
    per_query = pd.DataFrame({
        "qid": ["a", "b", "c", "d", "e"],
        "judged": [True, False, True, False, True],
        "top_score": [0.9, 0.5, 0.4, np.nan, 0.2],
        "success@1": [1.0, np.nan, 0.0, np.nan, 1.0],
    })
    return hits, per_query


def test_curve_vector_mode_by_hand(toy) -> None:
    hits, per_query = toy
    curve = abstention_curve(hits, per_query, relaxed=None)
    assert curve["threshold"].tolist() == [0.0, 0.2, 0.4, 0.5, 0.9]
    # answered: t<=0.2: a b c e; 0.4: a b c; 0.5: a b; 0.9: a
    assert curve["answered"].tolist() == [4, 4, 3, 2, 1]
    assert curve["correct"].tolist() == [3, 3, 2, 1, 1]
    np.testing.assert_allclose(curve["precision"], [3 / 4, 3 / 4, 2 / 3, 1 / 2, 1.0])
    np.testing.assert_allclose(curve["coverage"], [4 / 5, 4 / 5, 3 / 5, 2 / 5, 1 / 5])
    np.testing.assert_allclose(curve["answerable_answered"], [1, 1, 2 / 3, 1 / 3, 1 / 3])
    # d never answers; b abstains once t > 0.5
    np.testing.assert_allclose(curve["unanswerable_abstained"], [0.5, 0.5, 0.5, 0.5, 1.0])


def test_hybrid_fallback_keeps_keyword_hits(toy) -> None:
    hits, per_query = toy
    curve = abstention_curve(hits, per_query, relaxed="keyword")
    # e has a keyword hit (score 0.1 >= 0): it answers at every threshold
    assert curve["answered"].tolist() == [4, 4, 4, 3, 2]
    keyword_only = abstention_curve(hits, per_query, relaxed="zero")
    assert keyword_only["answered"].tolist() == [4] * 5  # never abstains


def test_success_at_1_as_correct(toy) -> None:
    hits, per_query = toy
    curve = abstention_curve(hits, per_query, relaxed=None, correct="success@1")
    assert curve["correct"].tolist() == [2, 2, 1, 1, 1]  # c's top hit is wrong
    with pytest.raises(ValueError, match="no such metric column"):
        abstention_curve(hits, per_query, relaxed=None, correct="mrr@10")


def test_calibrate_for_precision(toy) -> None:
    hits, per_query = toy
    curve = abstention_curve(hits, per_query, relaxed=None)
    cal = calibrate_min_score(curve, target_precision=0.6, per_query=per_query, relaxed=None)
    assert cal.min_score == 0.0 and cal.coverage == pytest.approx(0.8)  # ties: lowest t
    cal = calibrate_min_score(curve, target_precision=0.7, per_query=per_query, relaxed=None)
    assert (cal.min_score, cal.precision) == (0.0, 0.75)
    cal = calibrate_min_score(curve, target_precision=0.8, per_query=per_query, relaxed=None)
    assert (cal.min_score, cal.precision, cal.coverage) == (0.9, 1.0, 0.2)
    assert cal.config_fragment() == {"memorySearch": {"query": {"minScore": 0.9}}}
    # AUC by hand: answerable {0.9, 0.4, 0.2} vs unanswerable {0.5, none (lowest)}:
    # pairs won 0.9>0.5, 0.9>none, 0.4>none, 0.2>none; lost 0.4<0.5, 0.2<0.5 -> 4/6
    assert cal.auc == pytest.approx(4 / 6)
    assert (cal.n_answerable, cal.n_unanswerable) == (3, 2)


def test_calibrate_for_abstention(toy) -> None:
    hits, per_query = toy
    curve = abstention_curve(hits, per_query, relaxed=None)
    cal = calibrate_min_score(curve, abstain_unanswerable=0.5, relaxed=None)
    assert cal.min_score == 0.0  # d has no hits: half the unanswerable already abstain
    cal = calibrate_min_score(curve, abstain_unanswerable=0.75, relaxed=None)
    assert (cal.min_score, cal.unanswerable_abstained, cal.coverage) == (0.9, 1.0, 0.2)
    assert math.isnan(cal.auc)  # no per_query given


def test_unreachable_and_bad_targets(toy) -> None:
    hits, per_query = toy
    curve = abstention_curve(hits, per_query, relaxed="zero")
    with pytest.raises(ValueError, match=r"precision >= 0.9: the best is 0.750.*relaxed='zero'"):
        calibrate_min_score(curve, target_precision=0.9, relaxed="zero")
    with pytest.raises(ValueError, match="exactly one"):
        calibrate_min_score(curve)
    with pytest.raises(ValueError, match="exactly one"):
        calibrate_min_score(curve, target_precision=0.5, abstain_unanswerable=0.5)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        calibrate_min_score(curve, target_precision=80)


def test_threshold_mode_is_the_pipelines() -> None:
    assert threshold_mode({"memorySearch": {"provider": "none"}}) == "zero"
    assert threshold_mode({"memorySearch": {"provider": "local"}}) == "keyword"
    assert threshold_mode({"memorySearch": {"provider": "local",
                                            "query": {"hybrid": {"enabled": False}}}}) is None


class _OneEmbedder(dict):
    """run_system's embedder store answering every key with one model-free provider."""

    def __init__(self, provider):
        super().__init__()
        self.provider = provider

    def __contains__(self, key) -> bool:
        return True

    def __getitem__(self, key):
        return self.provider


@pytest.mark.parametrize("system", ["vector", "hybrid"])
def test_calibrated_coverage_is_what_production_returns(system) -> None:
    """At the calibrated minScore, the production pipeline (its own maxResults/minScore cut)
    returns results for exactly the queries the curve counts as answered."""
    from memlab.eval.datasets import load_dataset
    from memlab.eval.systems import resolve_system, run_system

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(SAMPLE)
    store = _OneEmbedder(HashingProvider(dims=256))
    try:
        cal = calibrate(ds, system, abstain_unanswerable=0.2, embedders=store)
    except ValueError as exc:  # hybrid: the keyword fallback may make 20% unreachable
        assert system == "hybrid" and "relaxed='keyword'" in str(exc)
        cal = calibrate(ds, system, target_precision=0.0, embedders=store)
    _, cfg = resolve_system(system)
    cfg = cfg.with_overrides({"query.minScore": cal.min_score, "query.maxResults": 10})
    hits = run_system(ds, cfg, production=True, embedders=store)
    answered = hits["qid"].astype(str).nunique()
    assert answered == round(cal.coverage * len(ds.queries))
    row = cal.curve.loc[cal.curve["threshold"] == cal.min_score].iloc[0]
    assert row["answered"] == answered
    judged = set(ds.qrels.loc[ds.qrels["grade"] > 0, "qid"].astype(str))
    got = set(hits["qid"].astype(str))
    assert len(got & judged) == row["correct"]


def test_plot(toy) -> None:
    from memlab.plots import abstention_tradeoff

    hits, per_query = toy
    curve = abstention_curve(hits, per_query, relaxed=None)
    cal = calibrate_min_score(curve, target_precision=0.8, relaxed=None)
    ax = abstention_tradeoff(cal).axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[-1] == "calibrated minScore 0.900" and len(labels) == 4
    assert ax.get_xlabel().startswith("minScore")


def test_cli_calibrate(capsys, tmp_path) -> None:
    """Keyword-only never abstains: a precision above the base rate is refused (exit 2), one
    below it is met at minScore 0."""
    import json

    from memlab.cli.main import main

    assert main(["calibrate", str(SAMPLE), "--config", "keyword",
                 "--target-precision", "0.99"]) == 2
    assert "relaxed='zero'" in capsys.readouterr().err
    curve = tmp_path / "curve.csv"
    assert main(["calibrate", str(SAMPLE), "--config", "keyword", "--target-precision", "0.5",
                 "--json", "--curve", str(curve)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"] == {"memorySearch": {"query": {"minScore": 0.0}}}
    assert out["answerable"] == 111 and out["unanswerable"] == 13
    # precision = answerable answered / answered
    assert out["precision"] == pytest.approx(out["answerable_answered"] * 111
                                             / (out["coverage"] * 124))
    assert pd.read_csv(curve)["threshold"].iloc[0] == 0.0
