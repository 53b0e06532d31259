"""BM25 speed and agreement: memlab's sparse BM25 vs bm25s vs rank_bm25, same tokens, same run.

    .venv/bin/python benchmarks/bench_bm25.py [--corpora cacm,scifact,synthetic] [--tiny]

All libraries get identical token lists (memlab's Tokenizer with Lucene stop words and the
English Snowball stemmer), single thread. Per corpus: index seconds, queries/s of the raw
retrieval (memlab ``_rank``: docnos + scores, as bm25s ``retrieve`` returns) and of the full
stage (hits frame + OpenClaw's boosted score), peak memory (tracemalloc) of indexing, the
largest score difference vs bm25s and top-10 agreement. rank_bm25 is timed on a subset of the
queries (stated). All timings are medians over ``--repeat`` (process CPU time, robust to a
busy machine).
Targets: queries/s >= 1.0x bm25s and >= 50x rank_bm25. CACM/SciFact are read from
``../shared/datasets`` (skipped when absent); the synthetic corpus (100,000 Zipfian documents)
is generated, seeded.
"""

from __future__ import annotations

import argparse
import json
import sys
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATASETS, cpu_timed, markdown, versions, write_json  # noqa: E402
from bench_search import zipf_corpus  # noqa: E402

from memlab.corpus import Corpus  # noqa: E402
from memlab.frames import as_queries  # noqa: E402
from memlab.stages.lexical import BM25  # noqa: E402
from memlab.text import Tokenizer  # noqa: E402


def load_beir(root: Path) -> tuple[list[str], list[str]]:
    with open(root / "corpus.jsonl", encoding="utf-8") as fh:
        docs = [" ".join(filter(None, (d.get("title"), d.get("text"))))
                for d in map(json.loads, fh)]
    with open(root / "queries.jsonl", encoding="utf-8") as fh:
        queries = [q["text"] for q in map(json.loads, fh)]
    return docs, queries


def peak_mb(fn) -> float:
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def bench(name: str, docs: list[str], queries: list[str], args) -> dict:
    import bm25s

    tok = Tokenizer(stopwords="en-lucene", stemmer="english")
    doc_tokens = tok.tokenize_many(docs)
    query_tokens = tok.tokenize_many(queries)
    corpus = Corpus.from_texts([" ".join(t) for t in doc_tokens])
    qtexts = [" ".join(t) for t in query_tokens]
    plain = Tokenizer(lowercase=False, cjk="none", thai="none")
    qframe = as_queries(qtexts)

    def memlab_index():
        stage = BM25(corpus, tokenizer=plain, variant="lucene", depth=args.k)
        stage._fit()
        return stage

    def bm25s_index():
        r = bm25s.BM25(method="lucene", k1=1.5, b=0.75, dtype="float64")
        r.index(doc_tokens, show_progress=False)
        return r

    t_mi, stage = cpu_timed(memlab_index, args.repeat)
    t_bi, retriever = cpu_timed(bm25s_index, args.repeat)
    stage.transform(qframe)  # builds the OpenClaw boost tables once
    t_raw, _ = cpu_timed(lambda: stage._rank(qtexts), args.repeat)
    t_full, hits = cpu_timed(lambda: stage.transform(qframe), args.repeat)
    t_b, (b_docs, b_scores) = cpu_timed(lambda: retriever.retrieve(
        query_tokens, k=min(args.k, len(docs)), show_progress=False, n_threads=1), args.repeat)
    mem_m = peak_mb(memlab_index)
    mem_b = peak_mb(bm25s_index)
    n_q = len(queries)
    row = {"corpus": name, "docs": len(docs), "queries": n_q,
           "memlab_index_s": t_mi, "bm25s_index_s": t_bi,
           "memlab_raw_qps": n_q / t_raw, "memlab_full_qps": n_q / t_full, "bm25s_qps": n_q / t_b,
           "memlab_index_peak_mb": mem_m, "bm25s_index_peak_mb": mem_b}
    row["raw_qps_vs_bm25s"] = row["memlab_raw_qps"] / row["bm25s_qps"]
    row["full_qps_vs_bm25s"] = row["memlab_full_qps"] / row["bm25s_qps"]
    # agreement on a sample of queries (dense score rows)
    sample = list(range(0, n_q, max(1, n_q // 50)))
    mine = stage.score_matrix([qtexts[i] for i in sample])
    theirs = np.vstack([retriever.get_scores(query_tokens[i]) if query_tokens[i]
                        else np.zeros(len(docs)) for i in sample])
    row["max_abs_score_diff"] = float(np.abs(mine - theirs).max())
    agree = []
    by_q = {q: g["docno"].to_numpy()[:10] for q, g in hits.groupby("qid", sort=False)}
    for i in range(n_q):
        top_b = set(b_docs[i][:10][b_scores[i][:10] > 0])
        top_m = set(by_q.get(str(i + 1), []))
        agree.append(len(top_m & top_b) / max(1, len(top_b)) if top_b else float(not top_m))
    row["top10_overlap"] = float(np.mean(agree))
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        row["rank_bm25_qps"] = None
        return row
    n_sub = min(n_q, args.rank_bm25_queries)
    okapi = BM25Okapi([t or [""] for t in doc_tokens])
    t_r, _ = cpu_timed(lambda: [okapi.get_scores(q) for q in query_tokens[:n_sub]],
                       args.repeat)
    row["rank_bm25_queries"] = n_sub
    row["rank_bm25_qps"] = n_sub / t_r
    row["raw_qps_vs_rank_bm25"] = row["memlab_raw_qps"] / row["rank_bm25_qps"]
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpora", default="cacm,scifact,synthetic")
    ap.add_argument("--datasets", type=Path, default=DATASETS)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--synthetic-docs", type=int, default=100_000)
    ap.add_argument("--synthetic-queries", type=int, default=1_000)
    ap.add_argument("--rank-bm25-queries", type=int, default=20)
    ap.add_argument("--tiny", action="store_true", help="synthetic only, 2,000 docs, 1 repeat")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.tiny:
        args.corpora, args.repeat = "synthetic", 1
        args.synthetic_docs, args.synthetic_queries, args.rank_bm25_queries = 2_000, 50, 5
    rows = []
    for name in args.corpora.split(","):
        if name == "synthetic":
            docs, queries = zipf_corpus(args.synthetic_docs, args.synthetic_queries, seed=1)
            name = f"synthetic-{args.synthetic_docs}"
        else:
            root = args.datasets / name
            if not (root / "corpus.jsonl").exists():
                print(f"skipped {name}: no BEIR dataset at {root}")
                continue
            docs, queries = load_beir(root)
        rows.append(bench(name, docs, queries, args))
    if not rows:
        print("nothing to run")
        return 0
    table = [[r["corpus"], r["docs"], r["queries"], r["memlab_index_s"] / r["bm25s_index_s"],
              r["memlab_raw_qps"], r["memlab_full_qps"], r["bm25s_qps"],
              r["raw_qps_vs_bm25s"], r["full_qps_vs_bm25s"],
              f"{r['rank_bm25_qps']:.3g} ({r.get('rank_bm25_queries')} q)"
              if r.get("rank_bm25_qps") else "n/a",
              f"{r['raw_qps_vs_rank_bm25']:.0f}x" if r.get("rank_bm25_qps") else "n/a",
              f"{r['memlab_index_peak_mb']:.0f} / {r['bm25s_index_peak_mb']:.0f}",
              f"{r['max_abs_score_diff']:.1e}", r["top10_overlap"]]
             for r in rows]
    print(f"depth {args.k}, single thread, medians of {args.repeat} (CPU time)")
    print(markdown(["corpus", "docs", "queries", "index time memlab/bm25s", "memlab raw q/s",
                    "memlab full q/s", "bm25s q/s", "raw vs bm25s (target >= 1.0x)",
                    "full vs bm25s", "rank_bm25 q/s", "raw vs rank_bm25 (target >= 50x)",
                    "index peak MB memlab / bm25s", "max |score diff|", "top-10 overlap"],
                   table))
    path = write_json("bench_bm25", {"versions": versions("bm25s", "rank-bm25"),
                                     "params": vars(args) | {"out": str(args.out),
                                                             "datasets": str(args.datasets)},
                                     "rows": rows}, args.out)
    print(f"wrote {path}")
    return 0 if all(r["max_abs_score_diff"] <= 1e-6 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
