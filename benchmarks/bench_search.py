"""Search latency, one query at a time as an agent issues them: memlab's legs vs the raw calls.

    .venv/bin/python benchmarks/bench_search.py [--chunks 50000] [--queries 200] [--tiny]

A seeded synthetic corpus (Zipfian vocabulary) and seeded random unit vectors (query embedding
is excluded: vectors are precomputed and cached). Legs: memlab's FTS5 stage
(:mod:`memlab.index.fts`, OpenClaw's keyword query), memlab's scikit-learn BM25 stage, memlab's
FAISS ``VectorSearch``. Raw baselines in the same run: a plain sqlite FTS5 ``MATCH ... ORDER BY
bm25 LIMIT`` on the same table and ``faiss.IndexFlatIP.search``. Reported: p50/p95 ms per
leg and memlab's overhead ratio (memlab FTS5 + FAISS legs / raw FTS5 + raw faiss, p50).
Target: overhead <= 1.5x.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import markdown, versions, write_json  # noqa: E402

from memlab.corpus import Corpus  # noqa: E402
from memlab.embed.base import EmbeddingProvider  # noqa: E402
from memlab.frames import as_queries  # noqa: E402
from memlab.index.fts import FTS5  # noqa: E402
from memlab.index.store import FTS_TABLE  # noqa: E402
from memlab.stages.lexical import BM25  # noqa: E402
from memlab.stages.vector import VectorSearch  # noqa: E402


def zipf_corpus(n_docs: int, n_queries: int, seed: int = 0, vocab: int = 50_000,
                doc_len: int = 60) -> tuple[list[str], list[str]]:
    """Seeded texts over a Zipfian vocabulary of made-up words."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, int(rng.integers(3, 9)))) for _ in range(vocab)]
    ranks = np.arange(1, vocab + 1)
    p = 1.0 / ranks ** 1.07
    p /= p.sum()
    lens = np.maximum(5, rng.poisson(doc_len, n_docs))
    ids = rng.choice(vocab, int(lens.sum()), p=p)
    bounds = np.cumsum(lens)[:-1]
    docs = [" ".join(words[i] for i in chunk) for chunk in np.split(ids, bounds)]
    q_ids = rng.choice(vocab // 10, (n_queries, 3), p=p[: vocab // 10] / p[: vocab // 10].sum())
    queries = [" ".join(words[i] for i in row) for row in q_ids]
    return docs, queries


class RandomVectors(EmbeddingProvider):
    """Deterministic pseudo-embeddings (a seeded vector per text); free to compute."""

    def __init__(self, dims: int = 384):
        self._dims = dims

    def _vec(self, text: str) -> np.ndarray:
        seed = int.from_bytes(text.encode("utf-8")[:32].ljust(8, b"\0")[-8:], "little")
        return np.random.default_rng(seed ^ len(text)).standard_normal(self._dims)

    def embed_documents(self, texts):
        return np.asarray([self._vec(t) for t in texts], dtype=np.float32)

    def embed_query(self, text):
        return self._vec(text).astype(np.float32)

    def dims(self) -> int:
        return self._dims

    def key_settings(self):
        return {"provider": "random", "dims": self._dims}


def latencies(fn, items) -> np.ndarray:
    out = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        out.append(time.perf_counter() - t0)
    return np.asarray(out) * 1000.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=50_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--depth", type=int, default=24)
    ap.add_argument("--tiny", action="store_true", help="2,000 chunks, 20 queries")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.tiny:
        args.chunks, args.queries = 2_000, 20
    import faiss

    faiss.omp_set_num_threads(1)
    docs, queries = zipf_corpus(args.chunks, args.queries)
    corpus = Corpus.from_texts(docs)
    frames = [as_queries(q) for q in queries]

    fts = FTS5(corpus, depth=args.depth, fallback=True)
    bm25 = BM25(corpus, depth=args.depth)
    provider = RandomVectors()
    vec = VectorSearch(corpus, provider, depth=args.depth)
    for stage in (fts, bm25, vec):  # build indexes and warm caches (query vectors included)
        for f in frames:
            stage.transform(f)

    store, _ = fts._store()
    conn = store.connection
    sql = (f"SELECT id, bm25({FTS_TABLE}) AS r FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? "
           "ORDER BY r LIMIT ?")

    def raw_fts(q: str):
        match = " AND ".join(f'"{t}"' for t in q.split())
        return conn.execute(sql, [match, args.depth]).fetchall()

    index = faiss.IndexFlatIP(vec.doc_vectors_.shape[1])
    index.add(vec.doc_vectors_)
    qvecs = {q: provider.embed_query(q) for q in queries}
    unit = {q: (v / np.linalg.norm(v)).astype(np.float32)[None, :] for q, v in qvecs.items()}

    legs = {
        "memlab FTS5 leg": latencies(fts.transform, frames),
        "memlab BM25 leg (scikit-learn sparse)": latencies(bm25.transform, frames),
        "memlab FAISS leg": latencies(vec.transform, frames),
        "raw sqlite FTS5": latencies(raw_fts, queries),
        "raw faiss search": latencies(lambda q: index.search(unit[q], args.depth), queries),
    }
    rows = [[name, float(np.percentile(v, 50)), float(np.percentile(v, 95))]
            for name, v in legs.items()]
    p50 = {name: float(np.percentile(v, 50)) for name, v in legs.items()}
    overhead = ((p50["memlab FTS5 leg"] + p50["memlab FAISS leg"])
                / (p50["raw sqlite FTS5"] + p50["raw faiss search"]))
    print(f"{args.chunks} chunks, {args.queries} queries one at a time, depth {args.depth}")
    print(markdown(["leg", "p50 ms", "p95 ms"], rows))
    print(f"pipeline overhead (memlab FTS5 + FAISS legs) / (raw FTS5 + raw faiss), p50: "
          f"{overhead:.2f}x (target <= 1.5x: {'met' if overhead <= 1.5 else 'MISSED'})")
    path = write_json("bench_search", {
        "versions": versions("faiss-cpu"), "params": vars(args) | {"out": str(args.out)},
        "p50_ms": p50, "p95_ms": {n: float(np.percentile(v, 95)) for n, v in legs.items()},
        "overhead_ratio": overhead}, args.out)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
