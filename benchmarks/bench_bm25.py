"""BM25 speed and agreement: memlab's sparse BM25 stage against bm25s, same tokens, same run.

    .venv/bin/python benchmarks/bench_bm25.py [--dataset ../shared/datasets/scifact] [--k 100]

Both libraries get identical token lists (memlab's Tokenizer with Lucene stop words and the
English Snowball stemmer), so the comparison isolates indexing and scoring. Printed: index
and retrieval seconds (best of ``--repeat``), the memlab/bm25s time ratio, the largest score
difference over every query/document pair, and top-k agreement. Exits 1 if the scores
disagree beyond 1e-6.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from memlab.corpus import Corpus
from memlab.frames import as_queries
from memlab.stages.lexical import BM25
from memlab.text import Tokenizer

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "scifact"


def load_beir(root: Path) -> tuple[list[str], list[str]]:
    with open(root / "corpus.jsonl", encoding="utf-8") as fh:
        docs = [" ".join(filter(None, (d.get("title"), d.get("text"))))
                for d in map(json.loads, fh)]
    with open(root / "queries.jsonl", encoding="utf-8") as fh:
        queries = [q["text"] for q in map(json.loads, fh)]
    return docs, queries


def best_of(repeat: int, fn):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, default=DEFAULT)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--variant", default="lucene")
    args = ap.parse_args()
    if not (args.dataset / "corpus.jsonl").exists():
        print(f"skipped: no BEIR dataset at {args.dataset}")
        return 0
    import bm25s

    docs, queries = load_beir(args.dataset)
    tok = Tokenizer(stopwords="en-lucene", stemmer="english")
    t_tok, doc_tokens = best_of(1, lambda: tok.tokenize_many(docs))
    query_tokens = tok.tokenize_many(queries)
    print(f"{args.dataset.name}: {len(docs)} docs, {len(queries)} queries; "
          f"tokenised in {t_tok:.2f}s")

    # memlab: the stage indexes lazily; feed it pre-tokenised text so both see the same tokens.
    corpus = Corpus.from_texts([" ".join(t) for t in doc_tokens])
    qtexts = [" ".join(t) for t in query_tokens]
    plain = Tokenizer(lowercase=False, cjk="none", thai="none")

    def memlab_index():
        stage = BM25(corpus, tokenizer=plain, variant=args.variant, depth=args.k)
        stage.score_matrix(["warm"])  # builds the index
        return stage

    def bm25s_index():
        r = bm25s.BM25(method=args.variant, k1=1.5, b=0.75, dtype="float64")
        r.index(doc_tokens, show_progress=False)
        return r

    t_mi, stage = best_of(args.repeat, memlab_index)
    t_bi, retriever = best_of(args.repeat, bm25s_index)
    t_mq, hits = best_of(args.repeat, lambda: stage.transform(as_queries(qtexts)))
    t_bq, (b_docs, b_scores) = best_of(args.repeat, lambda: retriever.retrieve(
        query_tokens, k=args.k, show_progress=False, n_threads=1))

    mine = stage.score_matrix(qtexts)
    theirs = np.vstack([retriever.get_scores(q) if q else np.zeros(len(docs))
                        for q in query_tokens])
    max_diff = float(np.abs(mine - theirs).max())
    agree = []
    for i, group in hits.groupby("qid", sort=False):
        row = int(i) - 1
        top_m = set(group["docno"].to_numpy()[:10])
        top_b = set(b_docs[row][:10][b_scores[row][:10] > 0])
        agree.append(len(top_m & top_b) / max(1, len(top_b)))

    print(f"{'':10}{'index s':>10}{'retrieve s':>12}")
    print(f"{'memlab':10}{t_mi:10.3f}{t_mq:12.3f}")
    print(f"{'bm25s':10}{t_bi:10.3f}{t_bq:12.3f}")
    print(f"ratio memlab/bm25s: index {t_mi / t_bi:.2f}x, retrieve {t_mq / t_bq:.2f}x "
          f"(memlab's retrieve also builds the hits frame and OpenClaw's boosted score)")
    print(f"max |score difference| = {max_diff:.2e}; top-10 overlap {np.mean(agree):.4f}")
    return 0 if max_diff <= 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
