"""Figures for the research workflows: every function returns a :class:`matplotlib.figure.Figure`.

Each figure has a title, axis labels with units and a legend, and is sized to read at notebook
width (about 7 inches). Nothing is shown or saved: call ``fig.savefig(path)`` or let Jupyter
display the figure. The functions use matplotlib's object API (no global ``pyplot`` state
beyond creating the figure), so they work under any backend, including ``Agg`` on a server.

=============================  ===========================================================
:func:`metric_vs_weight`       a metric against ``vectorWeight`` (any axis), bootstrap bands
:func:`sweep_heatmap`          a metric over two sweep axes
:func:`tag_bars`               per-tag means for several systems
:func:`win_loss`               per-query scatter of two systems, wins / losses / ties
:func:`decay_curve`            the temporal-decay multiplier against age for half-lives
:func:`abstention_tradeoff`    precision and coverage of answered queries against minScore
:func:`provider_tradeoff`      provider quality against latency and against cost
:func:`mmr_rank_change`        ranks before and after MMR for one query
=============================  ===========================================================

Helpers that prepare their inputs: :func:`bootstrap_mean_ci`, :func:`sweep_per_query` (per-query
metric values of a sweep, for the bands) and :func:`mmr_before_after` (one query's hits with
MMR off and on, from a pipeline's cached legs).

>>> fig = decay_curve(30)
>>> fig.axes[0].get_xlabel()
'age of the note (days)'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["abstention_tradeoff", "bootstrap_mean_ci", "decay_curve", "metric_vs_weight",
           "mmr_before_after",
           "mmr_rank_change", "provider_tradeoff", "sweep_heatmap", "sweep_per_query",
           "tag_bars", "win_loss"]

#: Default figure width (inches): fits a Jupyter cell at its default width.
WIDTH = 7.0
VECTOR_WEIGHT = "query.hybrid.vectorWeight"

#: Readable names (with units) for the sweep axes.
AXIS_LABELS: dict[str, str] = {
    "query.hybrid.vectorWeight": "vectorWeight (weight of the vector leg, 0-1)",
    "query.hybrid.textWeight": "textWeight (weight of the keyword leg, 0-1)",
    "query.hybrid.candidateMultiplier": "candidateMultiplier (× maxResults)",
    "query.hybrid.mmr.lambda": "MMR λ (1 = relevance only)",
    "query.hybrid.mmr.enabled": "MMR enabled",
    "query.hybrid.temporalDecay.halfLifeDays": "decay half-life (days)",
    "query.hybrid.temporalDecay.enabled": "temporal decay enabled",
    "query.minScore": "minScore (score cut, 0-1)",
    "query.maxResults": "maxResults (hits)",
    "memlab.fusion.method": "fusion method",
    "memlab.fusion.rrfK": "RRF k",
    "chunking.tokens": "chunk size (tokens)",
    "chunking.overlap": "chunk overlap (tokens)",
}


def _label(name: str) -> str:
    return AXIS_LABELS.get(name, name)


def _metric_label(metric: str) -> str:
    return f"{metric} (mean over judged queries, 0-1)"


def _register_notebook_display() -> None:
    """Make a bare :class:`~matplotlib.figure.Figure` render as PNG in IPython/Jupyter.

    The figures here are not managed by ``pyplot`` (no global state, no double display), and
    IPython only registers its Figure formatter when pyplot loads the inline backend; so
    register one ourselves (once, harmless when IPython is absent)."""
    global _DISPLAY_REGISTERED
    if _DISPLAY_REGISTERED:
        return
    _DISPLAY_REGISTERED = True
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    from matplotlib.figure import Figure

    def png(fig: Any) -> bytes:
        import io

        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)
        return buf.getvalue()

    formatter = shell.display_formatter.formatters["image/png"]
    formatter.for_type(Figure, png)


_DISPLAY_REGISTERED = False


def _figure(width: float = WIDTH, height: float = 4.2, ncols: int = 1):
    from matplotlib.figure import Figure

    _register_notebook_display()
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, (axes[0] if ncols == 1 else axes)


def bootstrap_mean_ci(values: Sequence[float] | np.ndarray, *, confidence: float = 0.95,
                      n_resamples: int = 2000, seed: int | None = 0) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of ``values`` (NaNs dropped) and its percentile
    bootstrap confidence interval (queries resampled with replacement).

    >>> mean, low, high = bootstrap_mean_ci([0, 1, 1, 0, 1], n_resamples=500)
    >>> round(mean, 2), low <= mean <= high
    (0.6, True)
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if len(v) == 0:
        return float("nan"), float("nan"), float("nan")
    if len(v) == 1:
        return float(v[0]), float(v[0]), float(v[0])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(v), size=(int(n_resamples), len(v)))
    means = v[idx].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(v.mean()), float(low), float(high)


def sweep_per_query(engine: Any, grid: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                    metrics: Sequence[str] = ("ndcg@10",)) -> pd.DataFrame:
    """Per-query metric values of a sweep: one row per (configuration, judged query).

    ``engine`` is a :class:`memlab.tune.SweepEngine`; ``grid`` a grid (key path -> values) or
    a list of override dicts. Columns: the axis columns, ``config`` (the configuration's
    position), ``qid`` and one column per metric. Feed it to :func:`metric_vs_weight` for
    bootstrap confidence bands.
    """
    from memlab.tune.sweep import expand_grid

    if isinstance(grid, Mapping):
        overrides, configs = expand_grid(grid, engine.base)
    else:
        overrides = [dict(o) for o in grid]
        configs = [engine.base.with_overrides(o) for o in overrides]
    metrics = [m.strip().lower() for m in metrics]
    values, qids, _ = engine.evaluate_configs(configs, metrics)
    judged = engine.judged_mask()
    qids = np.asarray(qids, dtype=object)[judged]
    values = values[judged]
    parts = []
    for ci, ov in enumerate(overrides):
        part = pd.DataFrame({"config": ci, "qid": qids})
        for key, value in ov.items():
            part[key] = [value] * len(part)
        for mi, m in enumerate(metrics):
            part[m] = values[:, ci, mi]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def metric_vs_weight(data: pd.DataFrame, metric: str = "ndcg@10", x: str = VECTOR_WEIGHT, *,
                     hue: str | None = None, confidence: float = 0.95, n_resamples: int = 2000,
                     seed: int | None = 0, title: str | None = None):
    """``metric`` against a sweep axis (default ``vectorWeight``) with confidence bands.

    ``data`` is either per-query (several rows per ``x`` value, e.g. :func:`sweep_per_query`):
    the line is the mean and the band its percentile bootstrap CI over queries; or one row per
    configuration (a sweep results table): the line alone, with a band from ``<metric>_low`` /
    ``<metric>_high`` columns when present. ``hue`` draws one line per value of another
    column (e.g. ``memlab.fusion.method``).
    """
    for col in (x, metric, *([hue] if hue else [])):
        if col not in data.columns:
            raise KeyError(f"no column {col!r}; columns: {', '.join(map(str, data.columns))}")
    fig, ax = _figure()
    groups = [(None, data)] if hue is None else list(data.groupby(hue, sort=True))
    best_note = None
    for name, group in groups:
        rows = []
        for xv, g in group.groupby(x, sort=True):
            if len(g) > 1:
                mean, low, high = bootstrap_mean_ci(g[metric], confidence=confidence,
                                                    n_resamples=n_resamples, seed=seed)
            else:
                mean = float(g[metric].iloc[0])
                low = float(g[f"{metric}_low"].iloc[0]) if f"{metric}_low" in g else np.nan
                high = float(g[f"{metric}_high"].iloc[0]) if f"{metric}_high" in g else np.nan
            rows.append((float(xv), mean, low, high))
        arr = np.array(rows, dtype=np.float64)
        label = metric if name is None else f"{hue.split('.')[-1]} = {name}"
        line, = ax.plot(arr[:, 0], arr[:, 1], marker="o", label=label)
        if not np.isnan(arr[:, 2]).all():
            ax.fill_between(arr[:, 0], arr[:, 2], arr[:, 3], color=line.get_color(), alpha=0.2,
                            label=f"{confidence:.0%} bootstrap CI" if name is None else None)
        i = int(np.nanargmax(arr[:, 1]))
        if best_note is None or arr[i, 1] > best_note[1]:
            best_note = (arr[i, 0], arr[i, 1])
    if best_note is not None:
        ax.axvline(best_note[0], color="grey", linestyle=":", linewidth=1,
                   label=f"best: {best_note[1]:.3f} at {best_note[0]:g}")
    ax.set_xlabel(_label(x))
    ax.set_ylabel(_metric_label(metric))
    ax.set_title(title or f"{metric} vs {x.split('.')[-1]}")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return fig


def sweep_heatmap(results: pd.DataFrame, x: str, y: str, metric: str = "ndcg@10", *,
                  agg: str = "max", annotate: bool = True, title: str | None = None):
    """``metric`` over two sweep axes as a heatmap (cells annotated with the value).

    Rows of ``results`` sharing an (x, y) cell (other axes varied) are combined with ``agg``
    (``"max"``: the best over the other axes; ``"mean"``...). The best cell is outlined.
    """
    for col in (x, y, metric):
        if col not in results.columns:
            raise KeyError(f"no column {col!r}; columns: {', '.join(map(str, results.columns))}")
    table = results.pivot_table(index=y, columns=x, values=metric, aggfunc=agg)
    table = table.sort_index(ascending=False)
    fig, ax = _figure(height=4.8)
    values = table.to_numpy(dtype=np.float64)
    image = ax.imshow(values, aspect="auto", cmap="viridis")
    ax.set_xticks(range(table.shape[1]), [f"{v:g}" if isinstance(v, float) else str(v)
                                          for v in table.columns])
    ax.set_yticks(range(table.shape[0]), [f"{v:g}" if isinstance(v, float) else str(v)
                                          for v in table.index])
    ax.set_xlabel(_label(x))
    ax.set_ylabel(_label(y))
    if annotate and values.size <= 400:
        finite = values[np.isfinite(values)]
        mid = (finite.min() + finite.max()) / 2 if len(finite) else 0.0
        for (r, c), v in np.ndenumerate(values):
            if np.isfinite(v):
                ax.text(c, r, f"{v:.3f}", ha="center", va="center", fontsize=7,
                        color="black" if v > mid else "white")
    if np.isfinite(values).any():
        from matplotlib.patches import Rectangle

        r, c = np.unravel_index(np.nanargmax(values), values.shape)
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="red",
                               linewidth=2, label=f"best {values[r, c]:.3f}"))
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), fontsize="small",
                  frameon=False)
    bar = fig.colorbar(image, ax=ax)
    bar.set_label(f"{metric} ({agg} over other axes)")
    ax.set_title(title or f"{metric}: {y.split('.')[-1]} × {x.split('.')[-1]}")
    return fig


def _tag_frame(by_tag: Any) -> pd.DataFrame:
    frame = getattr(by_tag, "by_tag", by_tag)  # a Comparison or its by_tag frame
    if frame is None:
        raise ValueError("no per-tag table: run compare(..., by_tag=True)")
    return frame


def tag_bars(by_tag: Any, metric: str = "ndcg@10", *, systems: Sequence[str] | None = None,
             tags: Sequence[str] | None = None, title: str | None = None):
    """Per-tag means of ``metric`` for several systems, as grouped bars.

    ``by_tag`` is a :class:`memlab.eval.experiment.Comparison` made with ``by_tag=True`` or its
    ``by_tag`` frame (``system, tag, queries, judged, <metrics>``). Tags without judged queries
    (e.g. ``none``) are left out; tick labels give each tag's number of judged queries.
    """
    frame = _tag_frame(by_tag)
    if metric not in frame.columns:
        raise KeyError(f"no metric {metric!r} in the per-tag table")
    systems = list(systems) if systems is not None else list(dict.fromkeys(frame["system"]))
    frame = frame[frame["system"].isin(systems) & (frame["judged"] > 0)]
    tag_list = list(tags) if tags is not None else sorted(frame["tag"].unique())
    pivot = frame.pivot_table(index="tag", columns="system", values=metric, aggfunc="first")
    pivot = pivot.reindex(index=tag_list, columns=systems)
    judged = frame.groupby("tag")["judged"].max().reindex(tag_list)
    fig, ax = _figure(width=max(WIDTH, 0.55 * len(tag_list) * max(1, len(systems)) / 2),
                      height=4.8)
    n = max(1, len(systems))
    width = 0.8 / n
    xs = np.arange(len(tag_list))
    for i, name in enumerate(systems):
        ax.bar(xs - 0.4 + width * (i + 0.5), pivot[name].to_numpy(dtype=np.float64), width,
               label=name)
    # slanted labels anchored at their end never run into a neighbour, however long the tag
    ax.set_xticks(xs, [f"{t} (n={int(j)})" if pd.notna(j) else t
                       for t, j in zip(tag_list, judged, strict=True)], fontsize=8,
                  rotation=30, ha="right", rotation_mode="anchor")
    ax.set_xlabel("query tag (n = judged queries)")
    ax.set_ylabel(_metric_label(metric))
    ax.set_ylim(0, max(1.0, float(np.nanmax(pivot.to_numpy(dtype=np.float64), initial=0))))
    rows = -(-n // 4)
    ax.set_title(title or f"{metric} per query tag", pad=6 + 14 * rows)
    ax.grid(axis="y", alpha=0.3)
    # between the title and the axes, so it never hides a bar
    ax.legend(fontsize="small", ncols=min(4, n), loc="lower center",
              bbox_to_anchor=(0.5, 1.0), frameon=False, borderaxespad=0.2)
    return fig


def _per_query(data: Any, metric: str) -> pd.DataFrame:
    """Long ``system, qid, value`` rows for ``metric``."""
    frame = getattr(data, "per_query", data)
    if "metric" in frame.columns:
        frame = frame[frame["metric"] == metric]
        return frame[["system", "qid", "value"]]
    if {"system", "qid", metric} <= set(frame.columns):
        return frame[["system", "qid", metric]].rename(columns={metric: "value"})
    raise ValueError("per-query data needs columns system, qid and metric/value (a "
                     "Comparison's per_query) or system, qid and the metric")


def win_loss(data: Any, a: str, b: str, metric: str = "ndcg@10", *, tol: float = 1e-9,
             title: str | None = None):
    """Per-query ``metric`` of system ``b`` against system ``a`` (one point per judged query).

    Points above the diagonal are queries where ``b`` wins. ``data``: a
    :class:`~memlab.eval.experiment.Comparison` or its long ``per_query`` frame. Overlapping
    points are jittered slightly so ties at 0 and 1 stay visible.
    """
    frame = _per_query(data, metric)
    wide = frame.pivot_table(index="qid", columns="system", values="value", aggfunc="first")
    for name in (a, b):
        if name not in wide.columns:
            raise KeyError(f"no system {name!r}; systems: {', '.join(map(str, wide.columns))}")
    wide = wide[[a, b]].dropna()
    va, vb = wide[a].to_numpy(dtype=np.float64), wide[b].to_numpy(dtype=np.float64)
    diff = vb - va
    rng = np.random.default_rng(0)
    jitter = rng.uniform(-0.012, 0.012, size=(2, len(va)))
    fig, ax = _figure(width=5.6, height=5.2)
    kinds = [("wins", diff > tol, "tab:green", "^"), ("losses", diff < -tol, "tab:red", "v"),
             ("ties", np.abs(diff) <= tol, "tab:grey", "o")]
    for name, mask, color, marker in kinds:
        ax.scatter(va[mask] + jitter[0, mask], vb[mask] + jitter[1, mask], s=22, c=color,
                   marker=marker, alpha=0.75, label=f"{b} {name}: {int(mask.sum())}")
    ax.plot([0, 1], [0, 1], color="black", linewidth=1, linestyle="--", label="equal")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_aspect("equal")
    ax.set_xlabel(f"{a}: {metric} per query (0-1)")
    ax.set_ylabel(f"{b}: {metric} per query (0-1)")
    mean = float(diff.mean()) if len(diff) else float("nan")
    ax.set_title(title or f"{b} vs {a} on {len(diff)} judged queries (mean Δ {mean:+.3f})")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    return fig


def decay_curve(half_life_days: float | Sequence[float] = 30, *, max_days: float | None = None,
                title: str | None = None):
    """OpenClaw's temporal-decay multiplier ``exp(-ln2/halfLife · age)`` against age.

    One curve per half-life; dotted lines mark where each reaches 0.5. Evergreen notes
    (``MEMORY.md``, undated files) never decay: the flat line at 1.
    """
    from memlab.stages.decay import decay_multiplier

    lives = [half_life_days] if np.isscalar(half_life_days) else list(half_life_days)
    lives = [max(1, int(np.floor(h))) for h in lives]  # OpenClaw's resolution
    max_days = float(max_days if max_days is not None else max(lives) * 5)
    ages = np.linspace(0, max_days, 400)
    fig, ax = _figure(height=3.8)
    for h in lives:
        line, = ax.plot(ages, decay_multiplier(ages, h), label=f"half-life {h} days")
        if h <= max_days:
            ax.plot([h, h], [0, 0.5], color=line.get_color(), linestyle=":", linewidth=1)
    ax.axhline(1.0, color="grey", linewidth=1, linestyle="--", label="evergreen (no decay)")
    ax.axhline(0.5, color="grey", linewidth=0.6, linestyle=":")
    ax.set_xlim(0, max_days)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("age of the note (days)")
    ax.set_ylabel("score multiplier (×)")
    ax.set_title(title or "Temporal decay: score multiplier by age")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="center right")
    return fig


def abstention_tradeoff(curve: pd.DataFrame, *, min_score: float | None = None,
                        title: str | None = None):
    """Precision of answered queries, coverage and the share of unanswerable queries that
    abstain, against ``minScore``: ``curve`` is :func:`memlab.eval.abstention.abstention_curve`
    (or a :class:`~memlab.eval.abstention.Calibration`, whose ``min_score`` is then marked).
    """
    if hasattr(curve, "curve") and hasattr(curve, "min_score"):
        min_score = curve.min_score if min_score is None else min_score
        curve = curve.curve
    fig, ax = _figure(height=3.8)
    x = curve["threshold"].to_numpy(dtype=float)
    for column, label in (("precision", "precision of answered queries"),
                          ("coverage", "coverage (answered / all queries)"),
                          ("unanswerable_abstained", "unanswerable queries abstained")):
        ax.step(x, curve[column].to_numpy(dtype=float), where="post", label=label)
    if min_score is not None:
        ax.axvline(float(min_score), color="grey", linestyle="--", linewidth=1,
                   label=f"calibrated minScore {float(min_score):.3f}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(_label("query.minScore"))
    ax.set_ylabel("share of queries (0-1)")
    ax.set_title(title or "Abstention: answering only above minScore")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="lower left")
    return fig


#: Smallest quality range a provider plot's y-axis spans (metric units, 0-1): differences
#: below it are noise on a labelled query set, and a tighter axis makes identical models look
#: different.
MIN_QUALITY_SPAN = 0.05


def _quality_limits(values: np.ndarray, span: float = MIN_QUALITY_SPAN) -> tuple[float, float]:
    """y-limits around ``values`` spanning at least ``span`` (plus a margin), kept in 0-1 when
    the values are.

    >>> _quality_limits(np.array([0.4181, 0.4183]))
    (0.3932, 0.4432)
    """
    lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
    pad = max((hi - lo) * 0.15, 0.0)
    lo, hi = lo - pad, hi + pad
    if hi - lo < span:
        mid = (hi + lo) / 2
        lo, hi = mid - span / 2, mid + span / 2
    if lo < 0 <= np.nanmin(values):
        lo, hi = 0.0, hi - lo
    if hi > 1 >= np.nanmax(values):
        lo, hi = lo - (hi - 1), 1.0
    return round(lo, 4), round(hi, 4)


def _label_points(ax: Any, xs: Sequence[float], ys: Sequence[float], names: Sequence[str]
                  ) -> None:
    """Provider names beside their points. A label whose point sits at about the height of
    an earlier one (within 4% of the y-axis) goes below its point instead of above, then
    further down, so labels of near-equal providers do not print over each other."""
    low, high = ax.get_ylim()
    tol = 0.04 * (high - low)
    placed: list[float] = []
    for x, y, name in sorted(zip(xs, ys, names, strict=True)):
        level = sum(1 for py in placed if abs(py - y) < tol)
        placed.append(y)
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(6, 5 - 13 * level),
                    fontsize=8, va="bottom" if level == 0 else "top")


def provider_tradeoff(frame: pd.DataFrame, quality: str = "ndcg@10", *,
                      latency: str | None = None, cost: str | None = None,
                      name: str = "provider", latency_label: str = "query latency, p50 (ms)",
                      cost_label: str = "cost (USD per 1M tokens)", log_latency: bool = True,
                      min_span: float = MIN_QUALITY_SPAN, title: str | None = None):
    """Provider quality against latency and (when costs differ) against cost.

    ``frame``: one row per provider with columns ``provider`` (``name``), the quality metric,
    a latency column (``latency``; default the first of ``p50_ms``, ``query_p50_ms``) and a
    cost column (``cost``; default the first of ``cost``, ``usd_per_1m``: the columns of
    :func:`memlab.cli.bench.bench_providers`; NaN cells are left out, 0 for local models).
    Each point is labelled with its provider. The quality axis spans at least ``min_span``
    (:data:`MIN_QUALITY_SPAN`), so models within noise of each other look alike; when every
    provider costs the same (e.g. all local, 0) the cost panel would be one vertical line, so
    it is left out and the latency panel's title says what they all cost.
    """
    if latency is None:
        latency = next((c for c in ("p50_ms", "query_p50_ms") if c in frame.columns), "p50_ms")
    if cost is None:
        cost = next((c for c in ("cost", "usd_per_1m") if c in frame.columns), None)
    for col in (name, quality, latency):
        if col not in frame.columns:
            raise KeyError(f"no column {col!r}; columns: {', '.join(map(str, frame.columns))}")
    costs = (frame.loc[frame[quality].notna(), cost].dropna()
             if cost is not None and cost in frame.columns else pd.Series(dtype=float))
    same_cost = len(costs) > 0 and costs.nunique() == 1
    with_cost = len(costs) > 0 and not same_cost
    fig, axes = _figure(width=WIDTH + (3.5 if with_cost else 0), height=4.2,
                        ncols=2 if with_cost else 1)
    axes = list(axes) if with_cost else [axes]
    colors = {p: f"C{i % 10}" for i, p in enumerate(dict.fromkeys(frame[name]))}
    panels = [(axes[0], latency, latency_label, log_latency)]
    if with_cost:
        panels.append((axes[1], cost, cost_label, False))
    for ax, col, label, log in panels:
        sub = frame[frame[col].notna() & frame[quality].notna()]
        for _, row in sub.iterrows():
            ax.scatter(row[col], row[quality], s=60, color=colors[row[name]],
                       label=str(row[name]), zorder=3)
        if log and len(sub) and (sub[col] > 0).all():
            ax.set_xscale("log")
        else:
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.margins(x=0.25)
        if len(sub):
            ax.set_ylim(*_quality_limits(sub[quality].to_numpy(dtype=np.float64), min_span))
        _label_points(ax, sub[col].tolist(), sub[quality].tolist(),
                      sub[name].astype(str).tolist())
        ax.set_xlabel(label + (", log scale" if ax.get_xscale() == "log" else ""))
        ax.set_ylabel(_metric_label(quality))
        ax.grid(alpha=0.3)
    head = f"{quality} vs latency"
    if same_cost:
        unit = cost_label.split("(")[-1].rstrip(")")
        head += f"\n(every provider costs {float(costs.iloc[0]):g} {unit}: no cost panel)"
    axes[0].set_title(head)
    if with_cost:
        axes[1].set_title(f"{quality} vs cost")
    handles, labels = axes[0].get_legend_handles_labels()
    uniq = dict(zip(labels, handles, strict=True))
    axes[-1].legend(uniq.values(), uniq.keys(), title=name, fontsize="small", loc="best")
    if title:
        fig.suptitle(title)
    return fig


def mmr_before_after(pipeline: Any, query: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One query's hits with MMR off and on, from a pipeline of
    :func:`memlab.openclaw.openclaw_pipeline` (legs cached: the second run is arithmetic).

    ``query``: a query text or a one-row queries frame (with ``now`` for decay). The MMR
    stage's ``enabled`` is restored afterwards."""
    mmr = pipeline.named_stages().get("mmr")
    if mmr is None:
        raise ValueError("the pipeline has no MMR stage (keyword-only and vector-only "
                         "pipelines do not re-rank with MMR)")
    was = mmr.enabled
    try:
        mmr.set_params(enabled=False)
        before = pipeline(query)
        mmr.set_params(enabled=True)
        after = pipeline(query)
    finally:
        mmr.set_params(enabled=was)
    return before, after


def _hit_label(row: Any) -> str:
    path = str(row.path)
    if len(path) > 28:
        path = "…" + path[-27:]
    return f"{path}:{int(row.start_line)}-{int(row.end_line)}"


def mmr_rank_change(before: pd.DataFrame, after: pd.DataFrame, *, top: int = 10,
                    query: str | None = None, title: str | None = None):
    """A slope chart of each hit's rank before (left) and after (right) MMR.

    ``before`` / ``after``: one query's hits (e.g. :func:`mmr_before_after`). Lines going up
    are hits MMR promoted (green), down demoted (red); hits that leave or enter the top
    ``top`` end at the bottom edge ("out").
    """
    b = before.sort_values("rank").head(top)
    a = after.sort_values("rank").head(top)
    rank_b = dict(zip(b["chunk_id"], b["rank"], strict=True))
    rank_a = dict(zip(a["chunk_id"], a["rank"], strict=True))
    out = top + 1
    fig, ax = _figure(width=WIDTH, height=0.42 * top + 1.6)
    rows = {cid: row for cid, row in zip(b["chunk_id"], b.itertuples(index=False),
                                         strict=True)}
    rows.update({cid: row for cid, row in zip(a["chunk_id"], a.itertuples(index=False),
                                              strict=True) if cid not in rows})
    moved = {"promoted": 0, "demoted": 0, "unchanged": 0}
    for cid, row in rows.items():
        rb, ra = rank_b.get(cid, out), rank_a.get(cid, out)
        kind = "promoted" if ra < rb else "demoted" if ra > rb else "unchanged"
        moved[kind] += 1
        color = {"promoted": "tab:green", "demoted": "tab:red", "unchanged": "tab:grey"}[kind]
        ax.plot([0, 1], [rb, ra], color=color, marker="o", linewidth=1.5, alpha=0.85)
        if cid in rank_b:
            ax.text(-0.03, rb, _hit_label(row), ha="right", va="center", fontsize=7)
        if cid in rank_a:
            ax.text(1.03, ra, _hit_label(row), ha="left", va="center", fontsize=7)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=c, marker="o", label=f"{k} ({moved[k]})")
               for k, c in (("promoted", "tab:green"), ("demoted", "tab:red"),
                            ("unchanged", "tab:grey"))]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.06), ncols=3,
              fontsize="small", frameon=False)
    ax.set_xlim(-1.2, 2.2)
    ax.set_ylim(out + 0.5, 0.5)
    ax.set_xticks([0, 1], ["before MMR", "after MMR"])
    ax.set_yticks(range(1, out + 1), [*map(str, range(1, out)), "out"])
    ax.set_ylabel("rank (1 = top hit)")
    ax.set_xlabel("ranking before → after MMR (λ = relevance/diversity trade-off)")
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    for side in ("right", "bottom"):
        ax.spines[side].set_visible(False)
    q = query if query is not None else (str(before["query"].iloc[0])
                                         if "query" in before and len(before) else "")
    ax.set_title(title or (f"MMR re-ranking: “{_wrap_query(q)}”" if q else "MMR re-ranking"),
                 fontsize=10)
    return fig


def _wrap_query(query: str, width: int = 56, lines: int = 2) -> str:
    """The query on at most ``lines`` lines of ``width`` characters, broken between words and
    ended with "…" when longer (a title that fits the figure instead of being cut).

    >>> _wrap_query("a b c d e f g", width=5, lines=2).splitlines()
    ['a b c', 'd e…']
    """
    import textwrap

    return "\n".join(textwrap.wrap(" ".join(query.split()), width, max_lines=lines,
                                    placeholder="…"))
