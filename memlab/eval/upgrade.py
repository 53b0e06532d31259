"""The upgrade report: what moving from OpenClaw 2026.7 to 2026.9 does on a user's own labels.

:func:`upgrade_report` runs a memory dataset through

* the user's 2026.7 configuration (memlab's 2026.7 pipeline, :func:`memlab.eval.systems
  .run_system`),
* the same configuration after the upgrade on the 2026.9 profile
  (:class:`memlab.tiered.search.TieredSearch` with the ``memory.search`` block
  2026.9 keeps of it, :func:`memlab.config.memory_export.memory_block`; the retired knobs
  fall back to 2026.9's fixed behaviour),
* optionally the best 2026.7 configuration over the retired knobs (a sweep over
  :data:`RETIRED_GRID` passed in as ``tune``, e.g. :func:`memlab.tune.sweep.sweep` as
  ``memlab eval`` passes it; in-sample, so optimistic),

and reports (:class:`UpgradeReport`): the comparison 2026.7 vs 2026.9 with paired tests
(:func:`memlab.eval.judged.compare_runs`), per-tag deltas with randomization p-values
Holm-corrected over the tags (:func:`memlab.eval.stats.paired_tests`), the queries whose top-1
changes, and what the retired knobs cost (tuned 2026.7 vs fixed 2026.9).

Every run is at ``depth`` hits with ``minScore`` 0, as ``memlab eval`` compares systems
(``production``: each config's own ``maxResults``/``minScore``).

``--set KEY=VALUE`` overrides (:mod:`memlab.config.overrides`) reach each profile whose layout
accepts them (:func:`split_overrides`): ``memory.search.*`` the 2026.9 run only,
``agents.defaults.memorySearch.*``/``memorySearch.*`` the 2026.7 run only (and the tuning base),
the short form (``query.minScore``), ``memlab.*`` and other OpenClaw keys every profile whose
schema accepts them; a key no profile it names accepts is refused with a
:class:`~memlab.config.errors.ConfigError` naming the key, the profile and the reason. The 2026.9
config is the upgrade of the 2026.7 one without its 2026.7-only overrides, with the 2026.9 ones
applied on top.

>>> from memlab.eval.datasets import load_dataset  # doctest: +SKIP
>>> report = upgrade_report(load_dataset("datasets/sample-memory"))  # doctest: +SKIP
>>> print(report.to_markdown())  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from memlab.config import MemlabConfig
from memlab.config.errors import ConfigError, ConfigIssue
from memlab.config.memory_export import memory_block
from memlab.config.overrides import (
    Override,
    active_overrides,
    apply_overrides,
    block_key,
    current_overrides,
    override_profiles,
)
from memlab.eval.report import markdown_table
from memlab.eval.stats import paired_tests
from memlab.lines import upgrade_lines

__all__ = ["RETIRED_GRID", "ProfileOverrides", "UpgradeReport", "upgraded_config",
           "config_after_upgrade", "evaluate_tiered", "run_tiered", "split_overrides",
           "upgrade_report"]

#: The profiles compared: the line of ``agents.defaults.memorySearch`` and the one upgraded to.
_OLD, _NEW = (line.name for line in upgrade_lines())

#: The retired 2026.7 knobs a tuned configuration is searched over (2026.9 fixes them).
RETIRED_GRID: dict[str, list[Any]] = {
    "query.hybrid.vectorWeight": [0.3, 0.5, 0.7, 0.9],
    "query.hybrid.candidateMultiplier": [4, 8],
    "query.hybrid.mmr.enabled": [False, True],
    "query.hybrid.temporalDecay.enabled": [False, True],
    "query.hybrid.temporalDecay.halfLifeDays": [30, 90, 365],
}


def config_after_upgrade(config: MemlabConfig) -> dict[str, Any]:
    """The whole 2026.9 config a 2026.7 ``config`` becomes: the ``memory.search`` keys 2026.9
    keeps (provider and model written out, since 2026.9's default provider is ``openai``),
    memlab's cache options kept.

    >>> from memlab.config import load_config
    >>> cfg = load_config({"memorySearch": {"provider": "none", "query": {"minScore": 0.2,
    ...                    "hybrid": {"vectorWeight": 0.5}}}})
    >>> config_after_upgrade(cfg)["memory"]
    {'search': {'provider': 'none', 'query': {'minScore': 0.2}}}
    """
    block, _lost = memory_block(config)
    ms = config.memory_search
    block = {**block, "provider": ms.resolved_provider()}
    if ms.resolved_provider() != "none" and ms.model:
        block["model"] = ms.model
    memlab = {k: v for k, v in {"embeddingCache": config.memlab.embedding_cache,
                                "batchSize": config.memlab.batch_size}.items() if v is not None}
    order = ["provider", *[k for k in block if k != "provider"]]
    return {"memory": {"search": {k: block[k] for k in order}}, "memlab": memlab}


def run_tiered(dataset: Any, config: Mapping[str, Any], *, depth: int = 10,
               embedder: Any = None, production: bool = False, min_score: float = 0.0,
               agent_id: str | None = None,
               active_projects: Sequence[str] | None = None) -> pd.DataFrame:
    """Hits (``qid, path, start_line, end_line, source, score, rank``) of the 2026.9 profile
    for every query of a memory dataset, ``depth`` per query with ``min_score`` (0, as
    ``memlab eval`` compares systems; with ``production``: the config's own
    ``maxResults``/``minScore``); each query at its own ``now`` (the dataset's latest when it
    has none), as :func:`run_system`. ``agent_id``: the agent whose transcripts
    (``sessions/<id>/``) are searched (default ``main``); ``active_projects``: the session's
    project keys (the ``memory_search`` tool's input), the same for every query.

    ``parity/run.py`` (suite ``9.6/sample``) checks this function against the real
    ``openclaw@2026.9.6`` on the bundled sample: same hits, order and scores."""
    from memlab.tiered.search import TieredSearch

    queries = dataset.queries
    nows = (queries["now"].fillna(queries["now"].max()) if "now" in queries.columns
            else pd.Series([None] * len(queries), index=queries.index))
    search = TieredSearch(dataset.workspace, config, agent_id=agent_id, index_path=":memory:",
                          embedder=embedder)
    rows = []
    try:
        for qid, text, now in zip(queries["qid"], queries["query"], nows, strict=True):
            hits = search.search(str(text), max_results=None if production else depth,
                                 min_score=None if production else min_score,
                                 now=None if pd.isna(now) else now,
                                 active_projects=active_projects)["results"]
            rows += [(qid, h["path"], h["startLine"], h["endLine"], h["source"],
                      float(h["score"]), rank) for rank, h in enumerate(hits, 1)]
    finally:
        search.close()
    return pd.DataFrame(rows, columns=["qid", "path", "start_line", "end_line", "source",
                                       "score", "rank"])


def _check_memory_search(tree: Mapping[str, Any], source: str) -> None:
    """Validate a whole 2026.9 config as the 2026.9 profile reads it (``memory.search`` and
    the ``memlab`` options)."""
    from memlab.config.errors import validate_block
    from memlab.config.memory_layout import read_config
    from memlab.config.options import MemlabOptions

    issues: list[ConfigIssue] = []
    try:
        read_config(tree, source)
    except ConfigError as exc:
        issues += exc.issues
    validate_block(MemlabOptions, dict(tree.get("memlab") or {}), "memlab", issues)
    if issues:
        raise ConfigError(issues, source=source)


def _with_memory_search_overrides(name: str, tree: Mapping[str, Any],
                                  overrides: Sequence[Override]) -> dict[str, Any]:
    """``tree`` (a whole 2026.9 config) with ``overrides`` set and validated."""
    out = apply_overrides(tree, overrides)
    if overrides:
        _check_memory_search(out, f"{name} with --set {', '.join(o.key for o in overrides)}")
    return out


def upgraded_config(spec: Any, overrides: Iterable[Override] | None = None
                    ) -> tuple[str, dict[str, Any]]:
    """``(name, whole 2026.9 config)`` of a system spec: a config file or mapping in the
    2026.9 layout (``memory.search``, or ``memlab.profile: "2026.9"``) as it is, anything else
    (a built-in name such as ``hybrid``, a 2026.7 config) as it becomes on upgrade
    (:func:`config_after_upgrade`); then ``overrides`` (default: the active ``--set`` ones)
    set in its 2026.9 layout and validated (a 2026.7-only or retired key is a
    :class:`ConfigError` naming it).

    >>> upgraded_config({"memory": {"search": {"provider": "none"}}})[1]
    {'memory': {'search': {'provider': 'none'}}}
    >>> upgraded_config("keyword")
    ('keyword', {'memory': {'search': {'provider': 'none'}}, 'memlab': {'batchSize': 32}})
    >>> from memlab.config.overrides import parse_override
    >>> upgraded_config("keyword", [parse_override("query.minScore=0.2")])[1]["memory"]
    {'search': {'provider': 'none', 'query': {'minScore': 0.2}}}
    """
    from pathlib import Path

    from memlab.config.json5io import read_source
    from memlab.eval.systems import resolve_system
    from memlab.lines import detect_line

    overrides = list(current_overrides() if overrides is None else overrides)
    raw: Any = None
    name = "config"
    if isinstance(spec, Mapping):
        raw = dict(spec)
    elif isinstance(spec, str | Path) and Path(spec).is_file():
        raw, name = read_source(Path(spec))[0], Path(spec).stem
    if isinstance(raw, Mapping) and detect_line(raw).layout == "memory.search":
        return name, _with_memory_search_overrides(name, raw, overrides)
    with active_overrides(()):  # the overrides go on the 2026.9 form, not the 2026.7 one
        name, cfg = resolve_system(spec)
    return name, _with_memory_search_overrides(name, config_after_upgrade(cfg), overrides)


@dataclass(frozen=True)
class ProfileOverrides:
    """``--set`` overrides split over the upgrade report's two runs (:func:`split_overrides`).

    ``by_profile``: the overrides of each profile, in the order given; ``notes``: one line per
    override that reaches only part of what it names, or does not change the ranking."""

    by_profile: dict[str, tuple[Override, ...]]
    notes: tuple[str, ...] = ()


def _refusal(error: ConfigError) -> str:
    return "; ".join(f"{i.path}: {i.message}" if i.path else i.message for i in error.issues)


def _why_not_old(spec: Any, override: Override) -> str | None:
    from memlab.eval.systems import resolve_system

    if isinstance(spec, MemlabConfig):
        return "the 2026.7 configuration is a MemlabConfig object (--set needs a file or name)"
    try:
        with active_overrides([override]):
            resolve_system(spec)
    except ConfigError as exc:
        return _refusal(exc)
    return None


def _why_not_new(upgraded: Mapping[str, Any], override: Override) -> str | None:
    try:
        _check_memory_search(apply_overrides(upgraded, [override]), "--set")
    except ConfigError as exc:
        return _refusal(exc)
    return None


#: The query keys ``--depth`` replaces unless ``production``.
_CUT_OFFS = ("query.maxResults", "query.minScore")


def split_overrides(spec: Any, overrides: Iterable[Override], *, production: bool = False
                    ) -> ProfileOverrides:
    """Which of ``overrides`` reach the 2026.7 and the 2026.9 run of the upgrade report of
    ``spec`` (module docstring): each goes to the profiles it names
    (:func:`memlab.config.overrides.override_profiles`) whose schema accepts it, probed one
    override at a time (2026.7: ``spec`` loaded with it; 2026.9: the upgrade of ``spec`` with
    it, :func:`upgraded_config`'s checks).

    Raises :class:`ConfigError` naming the key and each profile it names that does not accept
    it, with the reason, when none does.

    >>> from memlab.config.overrides import parse_override
    >>> split = split_overrides("keyword", [parse_override("rememberAcrossConversations=false"),
    ...                                     parse_override("query.minScore=0.3")],
    ...                         production=True)
    >>> {p: [o.key for o in os] for p, os in split.by_profile.items()}
    {'2026.7': ['query.minScore'], '2026.9': ['rememberAcrossConversations', 'query.minScore']}
    >>> print(split.notes[0][:78])
    --set rememberAcrossConversations: 2026.9 only (2026.7 does not accept it: mem
    """
    from memlab.eval.systems import resolve_system

    overrides = list(overrides)
    by_profile: dict[str, list[Override]] = {_OLD: [], _NEW: []}
    notes: list[str] = []
    if not overrides:
        return ProfileOverrides({k: () for k in by_profile})
    with active_overrides(()):
        upgraded = None if isinstance(spec, MemlabConfig) else config_after_upgrade(
            resolve_system(spec)[1])
        if upgraded is None:
            upgraded = config_after_upgrade(spec)
        for override in overrides:
            named = override_profiles(override)
            why = {p: (_why_not_old(spec, override) if p == _OLD
                       else _why_not_new(upgraded, override)) for p in named}
            accepted = [p for p in named if why[p] is None]
            if not accepted:
                raise ConfigError([ConfigIssue(override.key, " and ".join(
                    f"the {p} profile does not accept it ({why[p]})" for p in named)
                    + ("" if len(named) > 1 or block_key(override) == override.key else
                       f"; the short form {block_key(override)} reaches every profile that "
                       "accepts it"))], source="--set (upgrade report)")
            for p in accepted:
                by_profile[p].append(override)
            if len(accepted) < len(named):
                other = next(p for p in named if p not in accepted)
                notes.append(f"--set {override.key}: {accepted[0]} only ({other} does not "
                             f"accept it: {why[other]})")
            if not production and block_key(override) in _CUT_OFFS:
                notes.append(f"--set {override.key}: every run ranks --depth hits with "
                             "minScore 0, so it changes nothing; pass --production to rank "
                             "with the configs' own maxResults/minScore")
    return ProfileOverrides({p: tuple(v) for p, v in by_profile.items()}, tuple(notes))


def evaluate_tiered(dataset: Any, systems: Sequence[Any],
                    metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10"), *,
                    depth: int = 10, production: bool = False, by_tag: bool = False,
                    n_resamples: int = 10_000,
                    active_projects: Sequence[str] | None = None) -> Any:
    """``memlab eval DATASET --profile 2026.9``: each system (:func:`upgraded_config`) on the
    2026.9 profile (:func:`run_tiered`), compared with paired tests as ``memlab eval``
    does (:func:`memlab.eval.judged.compare_runs`; the first system is the baseline).

    >>> from memlab.eval.datasets import load_dataset
    >>> cmp = evaluate_tiered(load_dataset("datasets/sample-memory"), ["keyword"],
    ...                       ["ndcg@10"], n_resamples=100)  # doctest: +SKIP
    >>> print(cmp.to_markdown())  # doctest: +SKIP
    """
    from memlab.eval.judged import compare_runs

    if getattr(dataset, "workspace", None) is None:
        raise ValueError("the 2026.9 profile ranks a memory dataset (a workspace), not a BEIR "
                         "collection: drop --profile 2026.9 for BEIR folders")
    overrides = current_overrides()
    runs: dict[str, pd.DataFrame] = {}
    with active_overrides(()):  # applied once, in the 2026.9 layout (upgraded_config)
        for spec in systems:
            name, config = upgraded_config(spec, overrides)
            label, n = name, 2
            while label in runs:
                label, n = f"{name}#{n}", n + 1
            runs[label] = run_tiered(dataset, config, depth=depth,
                                     production=production,
                                     active_projects=active_projects)
        return compare_runs(runs, dataset, list(metrics), by_tag=by_tag,
                            n_resamples=n_resamples)


@dataclass
class UpgradeReport:
    """What :func:`upgrade_report` returns.

    ``comparison``: :class:`memlab.eval.experiment.Comparison` of ``2026.7`` (baseline) and
    ``2026.9``; ``tags``: per tag and metric, judged queries, both means, the delta, its
    bootstrap CI and randomization p-value (raw and Holm-corrected over the tags); ``top1``:
    the queries whose first hit changes (``path:start-end`` each side, the first metric of
    each); ``retired``: the tuned 2026.7 configuration's retired knobs and the cost of losing
    them (tuned 2026.7 minus fixed 2026.9, with tests), or ``None``; ``upgraded``: the 2026.9
    config used.
    """

    comparison: Any
    tags: pd.DataFrame
    top1: pd.DataFrame
    retired: pd.DataFrame | None
    upgraded: dict[str, Any]
    tuned: dict[str, Any] | None = None
    #: the ``--set`` keys each run got, and notes on them (:func:`split_overrides`)
    overrides: dict[str, tuple[str, ...]] = field(default_factory=dict)
    override_notes: tuple[str, ...] = ()

    def to_markdown(self, digits: int = 3) -> str:
        """The report as Markdown: the comparison, per-tag deltas, top-1 changes, the cost of
        the retired knobs."""
        f = f"{{:.{digits}f}}"
        parts = ["## 2026.7 vs 2026.9", self.comparison.to_markdown()]
        if any(self.overrides.values()) or self.override_notes:
            lines = [f"- {p}: {', '.join(keys) if keys else 'none'}"
                     for p, keys in self.overrides.items()]
            parts += ["--set overrides per run:\n" + "\n".join(
                lines + [f"- {n}" for n in self.override_notes])]
        metric = self.comparison.metrics[0]
        tags = self.tags[self.tags["metric"] == metric]
        if len(tags):
            rows = [[t.tag, str(t.queries), f.format(t.mean_2026_7), f.format(t.mean_2026_9),
                     f"{t.delta:+.{digits}f}{'†' if t.p_rand < 0.05 else ''}",
                     f"[{t.ci_low:+.{digits}f}, {t.ci_high:+.{digits}f}]",
                     f"{t.p_rand:.3g}"] for t in tags.itertuples()]
            parts += [f"## {metric} by tag", markdown_table(
                ["tag", "judged", _OLD, _NEW, "Δ", "95% CI", "p (Holm)"], rows,
                "lrrrrrr"), "† p < 0.05, paired randomization test, Holm-corrected over the "
                "tags."]
        parts.append(f"## Queries whose top-1 changes ({len(self.top1)})")
        if len(self.top1):
            rows = [[str(r.qid), str(r.query)[:60], r.top1_2026_7, r.top1_2026_9,
                     f"{r.delta:+.{digits}f}"] for r in self.top1.itertuples()]
            parts.append(markdown_table(["qid", "query", "2026.7 top-1", "2026.9 top-1",
                                         f"Δ {metric}"], rows, "lllll"))
        if self.retired is not None:
            knobs = ", ".join(f"{k} = {v}" for k, v in (self.tuned or {}).items())
            rows = [[r.metric, f.format(r.tuned_2026_7), f.format(r.fixed_2026_9),
                     f"{r.cost:+.{digits}f}", f"[{r.ci_low:+.{digits}f}, {r.ci_high:+.{digits}f}]",
                     f"{r.p_rand:.3g}"] for r in self.retired.itertuples()]
            parts += ["## What the retired knobs cost",
                      f"Best 2026.7 configuration over the retired knobs (in-sample): {knobs}.",
                      markdown_table(["metric", "tuned 2026.7", "fixed 2026.9",
                                      "cost", "95% CI", "p (Holm)"], rows, "lrrrrr")]
        return "\n\n".join(parts)


def _per_query(comparison: Any, system: str) -> pd.DataFrame:
    frame = comparison.per_query
    return (frame[frame["system"] == system].pivot(index="qid", columns="metric",
                                                   values="value"))


def _top1(hits: pd.DataFrame) -> pd.Series:
    first = hits.sort_values(["qid", "rank"]).groupby("qid").head(1)
    return pd.Series([f"{p}:{s}-{e}" for p, s, e in zip(first["path"], first["start_line"],
                                                         first["end_line"], strict=True)],
                     index=first["qid"].to_numpy())


def _tag_deltas(comparison: Any, queries: pd.DataFrame, n_resamples: int) -> pd.DataFrame:
    old, new = _per_query(comparison, _OLD), _per_query(comparison, _NEW)
    tags = queries.set_index("qid")["tags"] if "tags" in queries.columns else None
    out = []
    if tags is None:
        return pd.DataFrame(out)
    names = sorted({str(t) for ts in tags.dropna() for t in ([ts] if isinstance(ts, str)
                                                                else ts)})
    for metric in comparison.metrics:
        labels, a_cols, b_cols, counts = [], [], [], []
        for tag in names:
            qids = [q for q in old.index if tag in (lambda ts: [ts] if isinstance(ts, str)
                                                    else list(ts))(tags.get(q, []))]
            if len(qids) < 2:
                continue
            labels.append(tag)
            a_cols.append(new.loc[qids, metric].to_numpy(float))
            b_cols.append(old.loc[qids, metric].to_numpy(float))
            counts.append(len(qids))
        for j, tag in enumerate(labels):  # tags have different sizes: one test each
            t = paired_tests(a_cols[j], b_cols[j], n_resamples=n_resamples).iloc[0]
            out.append({"tag": tag, "metric": metric, "queries": counts[j],
                        "mean_2026_7": b_cols[j].mean(), "mean_2026_9": a_cols[j].mean(),
                        "delta": t["delta"], "ci_low": t["ci_low"], "ci_high": t["ci_high"],
                        "p_rand_raw": t["p_rand_raw"]})
    frame = pd.DataFrame(out)
    if len(frame):
        from memlab.eval.stats import correct

        frame["p_rand"] = frame.groupby("metric")["p_rand_raw"].transform(
            lambda p: pd.Series(correct(p.to_numpy(), "holm"), index=p.index))
    return frame


def upgrade_report(dataset: Any, config: Any = "hybrid", *,
                   metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10"),
                   depth: int = 10, tune: Callable[..., pd.DataFrame] | None = None,
                   grid: Mapping[str, Any] | None = None, n_resamples: int = 10_000,
                   production: bool = False,
                   overrides: Iterable[Override] | None = None) -> UpgradeReport:
    """The upgrade report of ``config`` (a built-in system name, a config file, a mapping or a
    :class:`MemlabConfig`; its 2026.7 form) on a memory ``dataset`` (module docstring).
    ``tune``: a sweep (``tune(dataset, grid, base_config, metrics=[metric])`` -> a results
    frame, as :func:`memlab.tune.sweep.sweep`) to also tune the retired knobs with (``grid``,
    default :data:`RETIRED_GRID`) and cost them; ``None`` (or ``False``): no tuning.
    ``production``: rank with each config's own ``maxResults``/``minScore`` instead of
    ``depth`` and 0. ``overrides``: ``--set`` overrides (default: the active ones), split over
    the two runs by :func:`split_overrides`."""
    if tune is True:
        raise TypeError("tune= takes the sweep to tune the retired knobs with (e.g. "
                        "memlab.tune.sweep.sweep), not True")
    overrides = list(current_overrides() if overrides is None else overrides)
    split = split_overrides(config, overrides, production=production)
    with active_overrides(()):  # each run gets its own share, applied once, below
        report = _upgrade_report(dataset, config, split, metrics=metrics, depth=depth,
                                 tune=tune, grid=grid, n_resamples=n_resamples,
                                 production=production)
    report.overrides = {p: tuple(o.key for o in os) for p, os in split.by_profile.items()}
    report.override_notes = split.notes
    return report


def _upgrade_report(dataset: Any, config: Any, split: ProfileOverrides, *,
                    metrics: Sequence[str], depth: int,
                    tune: Callable[..., pd.DataFrame] | None,
                    grid: Mapping[str, Any] | None, n_resamples: int,
                    production: bool) -> UpgradeReport:
    from memlab.eval.judged import compare_runs
    from memlab.eval.systems import resolve_system, run_system

    if getattr(dataset, "workspace", None) is None:
        raise ValueError("the upgrade report needs a memory dataset (a workspace with "
                         "queries and line-span judgments), not a BEIR collection")
    o7, o9 = split.by_profile[_OLD], split.by_profile[_NEW]
    with active_overrides(o7):
        _, cfg = resolve_system(config)
    # the 2026.9 side: the upgrade without the 2026.7-only keys, then the 2026.9 ones
    shared = [o for o in o7 if override_profiles(o) != (_OLD,)]
    if len(shared) == len(o7):
        base = cfg
    else:
        with active_overrides(shared):
            _, base = resolve_system(config)
    upgraded = _with_memory_search_overrides("the upgraded config", config_after_upgrade(base), o9)
    embedders: dict[str, Any] = {}
    runs = {_OLD: run_system(dataset, cfg, depth=depth, production=production,
                                 embedders=embedders),
            _NEW: run_tiered(dataset, upgraded, depth=depth,
                                         production=production)}
    comparison = compare_runs(runs, dataset, metrics, by_tag=True, n_resamples=n_resamples)
    first = comparison.metrics[0]
    old, new = _per_query(comparison, _OLD), _per_query(comparison, _NEW)
    t7, t9 = _top1(runs[_OLD]), _top1(runs[_NEW])
    text = dataset.queries.set_index("qid")["query"]
    rows = []
    for qid in dataset.queries["qid"]:
        a, b = t7.get(qid, "—"), t9.get(qid, "—")
        if a != b:
            delta = (new[first].get(qid, np.nan) - old[first].get(qid, np.nan))
            rows.append({"qid": qid, "query": text[qid], "top1_2026_7": a, "top1_2026_9": b,
                         "delta": delta})
    top1 = pd.DataFrame(rows, columns=["qid", "query", "top1_2026_7", "top1_2026_9", "delta"])
    retired, tuned = None, None
    if tune:
        from memlab.config.results import overrides_from_results

        sweep_base = (cfg if production else
                      cfg.with_overrides({"query.maxResults": depth, "query.minScore": 0.0}))
        results = tune(dataset, dict(grid or RETIRED_GRID), sweep_base, metrics=[first])
        tuned, _ = overrides_from_results(results, metric=first)
        tuned_hits = run_system(dataset, cfg.with_overrides(tuned), depth=depth,
                                production=production, embedders=embedders)
        both = compare_runs({_NEW: runs[_NEW], "tuned": tuned_hits}, dataset, metrics,
                            n_resamples=n_resamples)
        tuned_q, fixed_q = _per_query(both, "tuned"), _per_query(both, _NEW)
        tests = paired_tests(tuned_q[list(metrics)].to_numpy(float),
                             fixed_q.loc[tuned_q.index, list(metrics)].to_numpy(float),
                             n_resamples=n_resamples, labels=list(metrics))
        retired = pd.DataFrame({"metric": list(metrics),
                                "tuned_2026_7": tuned_q[list(metrics)].mean().to_numpy(),
                                "fixed_2026_9": fixed_q[list(metrics)].mean().to_numpy(),
                                "cost": tests["delta"].to_numpy(),
                                "ci_low": tests["ci_low"].to_numpy(),
                                "ci_high": tests["ci_high"].to_numpy(),
                                "p_rand": tests["p_rand"].to_numpy()})
    return UpgradeReport(comparison=comparison, tags=_tag_deltas(
        comparison, dataset.queries, n_resamples), top1=top1, retired=retired,
        upgraded=upgraded, tuned=tuned)
