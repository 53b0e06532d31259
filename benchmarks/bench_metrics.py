"""Ranking metrics: memlab's ``evaluate`` vs pytrec_eval (and ranx if installed), same run.

    .venv/bin/python benchmarks/bench_metrics.py [--queries 10000] [--depth 100] [--tiny]

A seeded synthetic run (``--queries`` × ``--depth`` results, distinct scores) and graded qrels.
Checks every per-query value is identical (|diff| <= 1e-12) and reports the time ratio
(medians of process CPU time; pytrec_eval is timed on its nested dicts, built beforehand).
Target: memlab no slower than pytrec_eval (ratio memlab/pytrec_eval <= 1.0).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import cpu_timed, markdown, versions, write_json  # noqa: E402

from memlab.eval.experiment import evaluate  # noqa: E402

# memlab spec -> pytrec_eval measure
MEASURES = {"ndcg@10": "ndcg_cut_10", "ndcg@100": "ndcg_cut_100", "map@100": "map_cut_100",
            "recall@100": "recall_100", "p@10": "P_10", "mrr@100": "recip_rank"}


def synthetic(n_queries: int, depth: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    n_docs = depth * 20
    qids = np.repeat([f"q{i}" for i in range(n_queries)], depth)
    docs = np.concatenate([rng.choice(n_docs, depth, replace=False) for _ in range(n_queries)])
    doc_ids = np.array([f"d{d}" for d in docs], dtype=object)
    ranks = np.tile(np.arange(1, depth + 1), n_queries)
    scores = (depth + 1 - ranks).astype(np.float64) + rng.random(len(ranks)) * 0.5
    hits = pd.DataFrame({"qid": qids, "doc_id": doc_ids, "path": doc_ids + ".md",
                         "score": scores, "rank": ranks})
    rows = []
    for i in range(n_queries):
        rel = rng.choice(n_docs, rng.integers(1, 15), replace=False)
        rows += [(f"q{i}", f"d{d}", int(rng.integers(0, 4))) for d in rel]
    qrels = pd.DataFrame(rows, columns=["qid", "doc_id", "grade"])
    return hits, qrels


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--tiny", action="store_true", help="200 queries, 1 repeat (smoke test)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.tiny:
        args.queries, args.repeat = 200, 1
    import pytrec_eval

    hits, qrels = synthetic(args.queries, args.depth)
    metrics = list(MEASURES)
    run: dict[str, dict[str, float]] = {}
    for q, d, s in zip(hits["qid"], hits["doc_id"], hits["score"], strict=True):
        run.setdefault(q, {})[d] = float(s)
    qrel: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qrels["qid"], qrels["doc_id"], qrels["grade"], strict=True):
        qrel.setdefault(q, {})[d] = int(g)
    measures = set(MEASURES.values())
    # the two are timed alternately, so a change in machine load hits both alike
    times_m, times_t = [], []
    for _ in range(args.repeat):
        t, ev = cpu_timed(lambda: evaluate(hits, qrels, metrics, level="doc"), 1)
        times_m.append(t)
        t, ref = cpu_timed(lambda: pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run),
                           1)
        times_t.append(t)
    t_m, t_t = statistics.median(times_m), statistics.median(times_t)
    per_query = ev[0].set_index("qid")
    max_diff = 0.0
    judged = per_query.index[per_query["judged"]]
    for m, t in MEASURES.items():
        mine = per_query.loc[judged, m].to_numpy(dtype=np.float64)
        theirs = np.array([ref[q][t] for q in judged])
        max_diff = max(max_diff, float(np.abs(mine - theirs).max()))
    rows = [["memlab evaluate", t_m, 1.0], ["pytrec_eval", t_t, t_m / t_t]]
    extra = {}
    try:
        import ranx
        t_r, _ = cpu_timed(lambda: ranx.evaluate(ranx.Qrels(qrel), ranx.Run(run),
                                                ["ndcg@10", "map@100", "recall@100"]),
                          args.repeat)
        rows.append(["ranx", t_r, t_m / t_r])
        extra["ranx_s"] = t_r
    except ImportError:
        pass
    ratio = t_m / t_t
    print(f"{args.queries} queries × {args.depth} results, metrics {', '.join(metrics)}; "
          f"median of {args.repeat}")
    # memlab and pytrec_eval alternate call by call; ranx runs after them
    headers = ["system", f"CPU seconds (median of {args.repeat})",
               "memlab time / this (target vs pytrec_eval <= 1.0)"]
    body = [[name, f"{sec:.4f}", f"{r:.2f}"] for name, sec, r in rows]
    print(markdown(headers, body))
    print(f"max |difference| vs pytrec_eval over judged queries: {max_diff:.1e} "
          f"(target: identical)")
    print(f"time ratio memlab/pytrec_eval {ratio:.2f}x (target <= 1.0x: "
          f"{'met' if ratio <= 1.0 else 'MISSED'})")
    path = write_json("bench_metrics", {
        "versions": versions("pytrec-eval-terrier", "ranx"),
        "params": vars(args) | {"out": str(args.out)}, "memlab_s": t_m, "pytrec_eval_s": t_t,
        "ratio_memlab_over_pytrec_eval": ratio, "max_abs_diff": max_diff, **extra,
        "table": {"headers": headers, "rows": body}}, args.out)
    print(f"wrote {path}")
    return 0 if max_diff <= 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
