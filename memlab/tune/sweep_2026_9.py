"""Sweeps of what OpenClaw 2026.9 still lets a user change, evaluated on the 2026.9 profile.

The vectorised engine (:class:`memlab.tune.sweep.SweepEngine`) computes 2026.7 rankings from
cached legs; it cannot express 2026.9's ranking yet (path tiers, boosted fusion, always-on
decay and MMR, the selection rule). :func:`sweep_2026_9` therefore evaluates each point by a
full run of :class:`memlab.profiles.openclaw_2026_9.Search2026_9` (correct, slower: each point
re-indexes the workspace; embeddings come from the cache). Axes are key paths of
``memory.search`` (``query.minScore``, ``query.maxResults``, ``store.fts.tokenizer``,
``provider``, ``model``, ``sources``, ``experimental.sessionMemory``, ``outputDimensionality``,
input types) or memlab's (``memlab.whatIf.*``, ``memlab.fusion.method``); every point is
validated as a 2026.9 config. Rankings are production ones (each point's own ``maxResults``
and ``minScore``). The results frame has the axis columns, one column per metric and
``dataset``, so ``memlab export RESULTS --schema 2026.9`` reads it.

>>> from memlab.eval.datasets import load_dataset  # doctest: +SKIP
>>> sweep_2026_9(load_dataset("datasets/sample-memory"),
...              {"query.minScore": [0.2, 0.35], "store.fts.tokenizer": ["unicode61",
...               "trigram"]}, {"memory": {"search": {"provider": "none"}}})  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from memlab.config.schema_2026_9 import read_config

__all__ = ["point_config", "sweep_2026_9"]


def point_config(base: Mapping[str, Any], point: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` (a whole 2026.9 config) with each ``key path -> value`` of ``point`` set under
    ``memory.search`` (or under ``memlab`` for ``memlab.`` keys), validated as 2026.9 does.

    >>> point_config({"memory": {"search": {"provider": "none"}}}, {"query.minScore": 0.2})
    {'memory': {'search': {'provider': 'none', 'query': {'minScore': 0.2}}}}
    """
    out = copy.deepcopy(dict(base))
    for key, value in point.items():
        parts = key.split(".")
        node = out.setdefault("memlab", {}) if parts[0] == "memlab" else \
            out.setdefault("memory", {}).setdefault("search", {})
        parts = parts[1:] if parts[0] == "memlab" else parts
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    read_config(out)  # a ConfigError names the key path of an invalid point
    return out


def sweep_2026_9(dataset: Any, grid: Mapping[str, Sequence[Any]],
                 base: Mapping[str, Any] | None = None, *,
                 metrics: Sequence[str] = ("ndcg@10", "recall@10", "mrr@10")) -> pd.DataFrame:
    """One row per point of ``grid`` (key path -> values): the axes, each metric's mean over
    the judged queries, ``dataset``."""
    from memlab.eval.experiment import evaluate
    from memlab.eval.upgrade import run_profile_2026_9

    base = dict(base or {"memory": {"search": {"provider": "local"}}})
    names = list(grid)
    rows = []
    for combo in itertools.product(*(list(grid[n]) for n in names)):
        point = dict(zip(names, combo, strict=True))
        hits = run_profile_2026_9(dataset, point_config(base, point), production=True)
        ev = evaluate(hits, dataset.qrels, list(metrics), dataset.queries,
                      level=getattr(dataset, "level", "span"))
        rows.append({**point, **{m: float(ev.means[m]) for m in metrics},
                     "dataset": dataset.name})
    return pd.DataFrame(rows)
