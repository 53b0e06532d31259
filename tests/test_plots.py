"""memlab.plots: every figure renders to PNG (Agg) with a title, labelled axes and a legend."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from memlab import plots  # noqa: E402
from memlab.corpus import Corpus  # noqa: E402
from memlab.embed.hashing import HashingProvider  # noqa: E402
from memlab.openclaw import openclaw_pipeline  # noqa: E402

VW = "query.hybrid.vectorWeight"




def _render(fig: Figure, path) -> None:
    assert isinstance(fig, Figure)
    fig.savefig(path, dpi=80)
    assert path.stat().st_size > 5_000
    ax = fig.axes[0]
    assert ax.get_title() or fig.get_suptitle()
    assert ax.get_xlabel() and ax.get_ylabel()
    assert any(a.get_legend() is not None for a in fig.axes)


def _per_query(seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for w in np.linspace(0, 1, 6):
        for q in range(40):
            rows.append({VW: round(w, 2), "qid": f"q{q}",
                         "ndcg@10": float(np.clip(0.3 + 0.4 * w - 0.3 * w * w
                                                  + rng.normal(0, 0.2), 0, 1))})
    return pd.DataFrame(rows)


def test_bootstrap_ci_brackets_the_mean():
    mean, low, high = plots.bootstrap_mean_ci(np.r_[np.zeros(50), np.ones(50)])
    assert mean == 0.5 and low < 0.5 < high
    assert plots.bootstrap_mean_ci([0.3]) == (0.3, 0.3, 0.3)
    assert np.isnan(plots.bootstrap_mean_ci([np.nan])[0])


def test_metric_vs_weight_per_query_bands(tmp_path):
    fig = plots.metric_vs_weight(_per_query())
    ax = fig.axes[0]
    assert ax.collections, "a confidence band is drawn"
    assert "vectorWeight" in ax.get_xlabel()
    _render(fig, tmp_path / "metric_vs_weight.png")


def test_metric_vs_weight_hue_and_summary_rows(tmp_path):
    data = pd.concat([_per_query(0).assign(fusion="openclaw"),
                      _per_query(1).assign(fusion="rrf")])
    _render(plots.metric_vs_weight(data, hue="fusion"), tmp_path / "hue.png")
    summary = pd.DataFrame({VW: [0.2, 0.5, 0.8], "ndcg@10": [0.4, 0.5, 0.45],
                            "ndcg@10_low": [0.35, 0.45, 0.4],
                            "ndcg@10_high": [0.45, 0.55, 0.5]})
    _render(plots.metric_vs_weight(summary), tmp_path / "summary.png")
    with pytest.raises(KeyError, match="nope"):
        plots.metric_vs_weight(summary, metric="nope")


def test_sweep_heatmap(tmp_path):
    rows = [{VW: w, "query.hybrid.mmr.lambda": lam, "query.minScore": m,
             "ndcg@10": 0.3 + 0.2 * w - 0.1 * abs(lam - 0.6) + 0.01 * m}
            for w in (0.1, 0.3, 0.5, 0.7, 0.9) for lam in (0.2, 0.5, 0.8, 1.0)
            for m in (0, 0.2)]
    fig = plots.sweep_heatmap(pd.DataFrame(rows), VW, "query.hybrid.mmr.lambda")
    assert "λ" in fig.axes[0].get_ylabel()
    _render(fig, tmp_path / "heatmap.png")


def _by_tag() -> pd.DataFrame:
    rows = []
    for s, base in (("keyword", 0.3), ("vector", 0.4), ("hybrid", 0.5)):
        for i, tag in enumerate(("exact", "paraphrase", "temporal", "cjk", "none")):
            rows.append({"system": s, "tag": tag, "queries": 10,
                         "judged": 0 if tag == "none" else 10,
                         "ndcg@10": np.nan if tag == "none" else base + 0.05 * i})
    return pd.DataFrame(rows)


def test_tag_bars(tmp_path):
    fig = plots.tag_bars(_by_tag())
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert len(labels) == 4 and not any(lab.startswith("none") for lab in labels)
    _render(fig, tmp_path / "tags.png")


def test_win_loss(tmp_path):
    rng = np.random.default_rng(3)
    rows = []
    for q in range(60):
        a = float(rng.uniform())
        rows.append({"system": "keyword", "qid": f"q{q}", "metric": "ndcg@10", "value": a})
        rows.append({"system": "hybrid", "qid": f"q{q}", "metric": "ndcg@10",
                     "value": a if q % 5 == 0 else float(np.clip(a + rng.normal(0.1, 0.2), 0, 1))})
    fig = plots.win_loss(pd.DataFrame(rows), "keyword", "hybrid")
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any("wins" in t for t in texts) and any("ties: 12" in t for t in texts)
    _render(fig, tmp_path / "win_loss.png")
    with pytest.raises(KeyError):
        plots.win_loss(pd.DataFrame(rows), "keyword", "nope")


def test_decay_curve(tmp_path):
    fig = plots.decay_curve([7, 30, 90.7])
    lines = fig.axes[0].get_lines()
    ys = lines[0].get_ydata()
    assert ys[0] == pytest.approx(1.0)
    assert "days" in fig.axes[0].get_xlabel()
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "half-life 90 days" in texts  # OpenClaw floors the half-life
    _render(fig, tmp_path / "decay.png")


def test_provider_tradeoff(tmp_path):
    frame = pd.DataFrame({"provider": ["none", "local/MiniLM", "openai-small"],
                          "ndcg@10": [0.29, 0.52, 0.58], "p50_ms": [1.2, 9.0, 180.0],
                          "cost": [0.0, 0.0, 0.02]})
    fig = plots.provider_tradeoff(frame)
    assert len(fig.axes) == 2 and "ms" in fig.axes[0].get_xlabel()
    assert "USD" in fig.axes[1].get_xlabel()
    _render(fig, tmp_path / "providers.png")
    fig = plots.provider_tradeoff(frame.drop(columns="cost"))
    assert len(fig.axes) == 1
    _render(fig, tmp_path / "providers_latency.png")


def test_mmr_rank_change_from_pipeline(tmp_path):
    texts = ["deploy window moved to tuesday for billing",
             "deploy window moved to tuesday for billing service",
             "billing deploy happens on tuesday window",
             "the staging database host is db-stg-2",
             "deploy window rules: never on friday",
             "lunch was good"]
    corpus = Corpus.from_texts(texts)

    pipe = openclaw_pipeline(corpus, {"provider": "local", "query": {"hybrid": {
        "mmr": {"enabled": True, "lambda": 0.3}}}}, HashingProvider(), max_results=6, min_score=0)
    before, after = plots.mmr_before_after(pipe, "deploy window tuesday")
    assert pipe.named_stages()["mmr"].enabled is True
    assert set(before["chunk_id"]) == set(after["chunk_id"])
    fig = plots.mmr_rank_change(before, after, top=6)
    assert fig.axes[0].get_title().startswith("MMR")
    _render(fig, tmp_path / "mmr.png")


def _tick_boxes_overlap(fig) -> bool:
    """Whether neighbouring tick labels collide: upright labels when their boxes overlap;
    labels slanted by the same angle are parallel lines, which collide when the distance
    between them (tick spacing x sin(angle)) is below the text height."""
    import math

    fig.draw_without_rendering()
    labels = [t for t in fig.axes[0].get_xticklabels() if t.get_text()]
    angle = labels[0].get_rotation() % 180
    if angle == 0:
        boxes = [t.get_window_extent() for t in labels]
        return any(a.overlaps(b) for a, b in zip(boxes, boxes[1:], strict=False))
    xs = [fig.axes[0].transData.transform((x, 0))[0] for x in fig.axes[0].get_xticks()]
    height = max(t.get_fontsize() for t in labels) * fig.dpi / 72
    return min(b - a for a, b in zip(xs, xs[1:], strict=False)) * math.sin(
        math.radians(angle)) < height


def test_tag_bar_labels_never_overlap_and_legend_stays_off_the_bars(tmp_path):
    tags = ["cjk", "duplicate-heavy", "evergreen", "exact", "multi", "paraphrase", "session",
            "temporal", "thai", "a-really-long-tag-name"]
    rows = [{"system": s, "tag": t, "queries": 20, "judged": 12, "ndcg@10": 0.9}
            for s in ("keyword", "hybrid") for t in tags]
    fig = plots.tag_bars(pd.DataFrame(rows))
    fig.savefig(tmp_path / "tags.png", dpi=80)
    assert not _tick_boxes_overlap(fig)
    legend = fig.axes[0].get_legend().get_window_extent()
    assert legend.y0 >= fig.axes[0].get_window_extent().y1 - 1  # above the plotting area


def test_provider_tradeoff_identical_models_and_equal_costs(tmp_path):
    frame = pd.DataFrame({"provider": ["local:minilm", "local:minilm-int8-onnx"],
                          "ndcg@10": [0.4181, 0.4183], "p50_ms": [9.0, 6.0],
                          "cost": [0.0, 0.0]})
    fig = plots.provider_tradeoff(frame)
    assert len(fig.axes) == 1  # all costs equal: no one-line cost panel
    low, high = fig.axes[0].get_ylim()
    assert high - low >= plots.MIN_QUALITY_SPAN - 1e-9  # not a 0.0002-wide axis
    assert "every provider costs 0" in fig.axes[0].get_title()
    texts = [t for t in fig.axes[0].texts]
    ys = [t.xyann[1] for t in texts]
    assert len(set(ys)) == 2  # near-equal points: labels stacked, not printed over each other
    _render(fig, tmp_path / "same.png")


def test_mmr_title_wraps_instead_of_cutting():
    long = "when is the deploy window for the billing service moved to tuesday and who said so"
    assert plots._wrap_query(long) == ("when is the deploy window for the billing service moved\n"
                                       "to tuesday and who said so")
    assert plots._wrap_query(long * 3).endswith("…")
    assert all(len(line) <= 56 for line in plots._wrap_query(long * 3).split("\n"))
