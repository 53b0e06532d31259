"""Parameter sweeps: memlab's sweep engine vs running the pipeline once per configuration.

    .venv/bin/python benchmarks/bench_sweep.py [--sample 12] [--tiny]

On the bundled memory dataset (``datasets/sample-memory``: 124 queries, span qrels), a grid
of 1,584 hybrid configurations (vector weight x candidate multiplier x MMR on/off and lambda
x temporal decay on/off x minScore x maxResults) is evaluated twice:

* **sweep engine** (:class:`memlab.tune.sweep.SweepEngine`): both legs once, then every
  configuration from the cached candidates with numpy; timed end to end (``run``: legs,
  candidate pools, evaluation, the result table);
* **one pipeline per configuration**: :func:`memlab.openclaw.openclaw_pipeline` built for
  the configuration, run over all queries, scored with :func:`memlab.eval.evaluate`. Timed
  on a seeded random sample of ``--sample`` configurations; the mean per configuration times
  the grid size is the *extrapolated* total (running all 1,584 would take an hour).

Both sides share the same corpus (chunked once) and the same embedder, whose in-memory cache
is filled before any timing: embedding is excluded from both (it is a one-off cost of the
dataset, not of the number of configurations). The sampled configurations' metrics must be
equal on both sides (checked). Embedder: the bundled local model (all-MiniLM-L6-v2, offline);
``--tiny`` uses hashed bag-of-words vectors, 16 queries and a 96-configuration grid.
Target: sweep >= 50x faster than one pipeline per configuration.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import HashedBow, markdown, versions, write_json  # noqa: E402

from memlab.embed.base import EmbeddingProvider  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "sample-memory"
METRICS = ["ndcg@10", "recall@10", "mrr@10"]
GRID: dict[str, list[Any]] = {
    "query.hybrid.vectorWeight": [round(0.1 * i, 1) for i in range(11)],
    "query.hybrid.candidateMultiplier": [1, 2, 4],
    "query.hybrid.mmr.enabled": [False, True],
    "query.hybrid.mmr.lambda": [0.5, 0.7],
    "query.hybrid.temporalDecay.enabled": [False, True],
    "query.minScore": [0.0, 0.2, 0.35],
    "query.maxResults": [6, 10],
}
TINY_GRID: dict[str, list[Any]] = {
    "query.hybrid.vectorWeight": [0.3, 0.5, 0.7],
    "query.hybrid.candidateMultiplier": [1, 4],
    "query.hybrid.mmr.enabled": [False, True],
    "query.hybrid.temporalDecay.enabled": [False, True],
    "query.minScore": [0.0, 0.35],
    "query.maxResults": [6, 10],
}


def main(argv: list[str] | None = None) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sample workspace's deliberately skipped file
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=12,
                    help="configurations run one pipeline each (the extrapolation sample)")
    ap.add_argument("--tiny", action="store_true",
                    help="16 queries, 96 configurations, hashed bag-of-words vectors")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)

    from memlab.config import load_config
    from memlab.embed.cache import CachedEmbedder
    from memlab.eval.datasets import load_dataset
    from memlab.eval.experiment import evaluate
    from memlab.openclaw import openclaw_pipeline
    from memlab.tune.sweep import SweepEngine, expand_grid

    dataset = load_dataset(SAMPLE)
    grid = GRID
    if args.tiny:
        queries = dataset.queries.iloc[:16].reset_index(drop=True)
        qrels = dataset.qrels[dataset.qrels["qid"].isin(queries["qid"])]
        dataset = dataclasses.replace(dataset, queries=queries,
                                      qrels=qrels.reset_index(drop=True))
        grid = TINY_GRID
        args.sample = min(args.sample, 3)
        provider: EmbeddingProvider = HashedBow()
    else:
        from memlab.embed.local import LocalProvider

        provider = LocalProvider(show_progress=False)
    embedder = CachedEmbedder(provider)
    base = load_config({"memorySearch": {"provider": "local"}, "memlab": {"keyword": "fts5"}})

    # Fill the embedding cache (documents and queries): excluded from both timings.
    t0 = time.perf_counter()
    warm = SweepEngine(dataset, base, embedder)
    warm_legs = warm.legs(base)
    corpus = warm_legs.corpus
    queries = warm.queries
    embed_s = time.perf_counter() - t0

    overrides, configs = expand_grid(grid, base)
    n_configs = len(configs)

    # The sweep engine, end to end, from a fresh engine (no cached legs).
    t0 = time.perf_counter()
    engine = SweepEngine(dataset, base, embedder)
    table = engine.run(grid, METRICS)
    sweep_s = time.perf_counter() - t0
    timings = dict(engine.timings)

    # One pipeline per configuration, on a seeded sample of the grid.
    rng = random.Random(0)
    sample = sorted(rng.sample(range(n_configs), min(args.sample, n_configs)))
    per_config: list[float] = []
    max_diff = 0.0
    for i in sample:
        t0 = time.perf_counter()
        pipe = openclaw_pipeline(corpus, configs[i], embedder)
        hits = pipe.transform(queries)
        _, means = evaluate(hits, dataset.qrels, METRICS, queries)
        per_config.append(time.perf_counter() - t0)
        ours = table.loc[i, METRICS].to_numpy(dtype=float)
        max_diff = max(max_diff, float(np.max(np.abs(ours - means[METRICS].to_numpy(float)))))
    mean_cfg = float(np.mean(per_config))
    median_cfg = float(np.median(per_config))
    extrapolated = mean_cfg * n_configs
    speedup = extrapolated / sweep_s
    if max_diff > 1e-12:
        print(f"WARNING: sweep and pipeline metrics differ by {max_diff:.3g}")

    print(f"{len(queries)} queries, {len(corpus)} chunks, {n_configs} configurations; "
          f"embedder {provider.model} (cache filled in {embed_s:.1f}s, excluded)")
    print(markdown(["measure", "value"], [
        ["sweep engine, all configurations (s)", sweep_s],
        ["  of which legs / prepare / evaluate (s)",
         f"{timings.get('legs', 0):.2f} / {timings.get('prepare', 0):.2f} / "
         f"{timings.get('evaluate', 0):.2f}"],
        ["sweep engine per configuration (ms)", sweep_s / n_configs * 1000],
        [f"one pipeline per configuration, mean of {len(sample)} sampled (ms)",
         mean_cfg * 1000],
        ["  median (ms)", median_cfg * 1000],
        [f"one pipeline per configuration, extrapolated to {n_configs} (s)", extrapolated],
        ["max |metric difference| on the sample", max_diff],
    ]))
    print(markdown(["ratio", "value", "target", "status"], [
        ["pipeline per config (extrapolated) / sweep engine", speedup, ">= 50x",
         "met" if speedup >= 50 else "MISSED"]]))
    path = write_json("bench_sweep", {
        "versions": versions("faiss-cpu", "sentence-transformers"),
        "params": vars(args) | {"out": str(args.out), "grid": grid, "metrics": METRICS},
        "queries": len(queries), "chunks": len(corpus), "configs": n_configs,
        "embed_seconds_excluded": embed_s, "sweep_seconds": sweep_s,
        "sweep_timings": timings, "sampled_configs": sample,
        "pipeline_seconds_sampled": per_config, "pipeline_mean_seconds": mean_cfg,
        "pipeline_extrapolated_seconds": extrapolated, "speedup": speedup,
        "max_metric_difference": max_diff}, args.out)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
