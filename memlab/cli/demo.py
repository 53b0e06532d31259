"""memlab's main job on a labeled memory dataset (the README's first command).

1. discover and chunk the workspace as OpenClaw does;
2. embed it with the local model (cached: a second run embeds nothing) and search it;
3. compare keyword-only, vector-only and hybrid search on the labeled queries.

All three systems are OpenClaw's own pipelines (provider ``none``; ``hybrid.enabled: false``;
defaults) evaluated at depth 10 with ``minScore`` 0, so the table measures ranking quality
rather than the production score cut.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memlab.eval.experiment import Comparison

SYSTEMS = {
    "keyword (provider none)": {"provider": "none"},
    "vector (hybrid off)": {"provider": "local", "query": {"hybrid": {"enabled": False}}},
    "hybrid (OpenClaw defaults)": {"provider": "local"},
    "hybrid + decay + MMR": {"provider": "local", "query": {"hybrid": {
        "temporalDecay": {"enabled": True}, "mmr": {"enabled": True}}}},
}
METRICS = ["ndcg@10", "recall@10", "mrr@10"]


def bundled_dataset() -> Path:
    """The sample dataset shipped in the repository's ``datasets/`` folder."""
    for base in (Path(__file__).resolve().parents[1], Path.cwd()):
        path = base / "datasets" / "sample-memory"
        if path.is_dir():
            return path
    raise FileNotFoundError("datasets/sample-memory not found: run from a memlab checkout "
                            "or pass a dataset folder")


def run_demo(dataset: str | Path | None = None, query: str | None = None) -> Comparison:
    """Run the main job and print what it finds; returns the comparison."""
    # imported here: building the CLI parser must not pay for pandas/scipy/sklearn
    from memlab.cli.output import format_results
    from memlab.config import load_config
    from memlab.eval.datasets import load_memory_dataset
    from memlab.eval.experiment import compare
    from memlab.openclaw import DEFAULT_CONFIG, MemorySearch, openclaw_pipeline

    ds = load_memory_dataset(dataset or bundled_dataset())
    print(f"== memlab demo on {ds.root}")
    t0 = time.perf_counter()
    base = MemorySearch(ds.workspace, DEFAULT_CONFIG)
    corpus = base.corpus
    print(f"indexed {len(corpus.files)} files into {len(corpus)} chunks "
          f"({len(corpus.skipped)} skipped) with {base.embedder.id}/{base.embedder.model}")
    exact = ds.queries[ds.queries["tags"].apply(lambda tags: "exact" in tags)]
    query = query or (exact if len(exact) else ds.queries)["query"].iloc[0]
    # Queries without their own `now` use the dataset's latest one, so runs are reproducible.
    now = ds.queries["now"].dropna().max() if "now" in ds.queries else None
    queries = ds.queries.assign(now=ds.queries["now"].fillna(now)) if now is not None \
        else ds.queries
    payload = base.search(query, now=now)
    print(f"\n== memlab search {query!r}  ({time.perf_counter() - t0:.1f}s incl. embedding)\n")
    print(format_results(payload["results"]))

    runs = {}
    for name, ms_config in SYSTEMS.items():
        cfg = load_config({"memorySearch": ms_config})
        pipe = openclaw_pipeline(corpus, cfg, base.embedder, max_results=10, min_score=0.0)
        runs[name] = pipe.transform(queries)
    result = compare(runs, ds.qrels, METRICS, queries=queries)
    print(f"\n== {len(ds.queries)} labeled queries ({result.n_unjudged} without an answer in "
          "memory, reported apart); depth 10, minScore 0; baseline = keyword\n")
    print(result.to_markdown())
    return result


def _demo(args: argparse.Namespace) -> int:
    run_demo(args.dataset, query=args.query)
    return 0


def add_demo_parser(sub: Any) -> None:
    """Add ``memlab demo`` to the CLI's subparsers."""
    d = sub.add_parser("demo", help="index the bundled sample workspace, search it and compare "
                       "keyword / vector / hybrid on its labeled queries")
    d.add_argument("dataset", nargs="?", help="a memory dataset folder "
                   "(default: the bundled datasets/sample-memory)")
    d.add_argument("--query", help="the example query to show")
    d.set_defaults(func=_demo)
