"""1,000,000 chunks: memlab's vector leg with exact FAISS and an ANN index (IVF or HNSW).

    .venv/bin/python benchmarks/bench_scale.py [--chunks 1000000] [--ann IVF1024,Flat]
                                               [--tiny] [--out PATH]

Synthetic chunks (short texts over made-up words, one chunk per document) with seeded
384-dim unit vectors drawn around ``--clusters`` random centres (real embeddings are
clustered; ``--clusters 0`` gives uniformly random unit vectors, on which no ANN index
reaches high recall cheaply). The vectors reach memlab through a provider that returns
them by chunk number, so nothing is embedded.

Measured: corpus build and index build seconds (wall) and the RSS growth per chunk of the
:class:`memlab.stages.vector.VectorSearch` stage (its document vectors, FAISS index and
in-memory embedding cache; the benchmark's own copy of the vectors is excluded), compared
with vector bytes + text bytes per chunk (target <= 2x); search p50/p95 ms for one query at a
time (raw ``index.search`` at depth 10, and the stage's ``transform``) for ``Flat`` (exact)
and the ANN index, whose parameter (``nprobe`` for IVF, ``efSearch`` for HNSW) is the
smallest of a doubling ladder with recall@10 >= ``--recall`` against exact on the queries.
The ANN choice is what ``memlab.vectorIndex`` / ``memlab.vectorIndexParams`` select in a
config. Machine load is recorded before and after.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import markdown, versions, write_json  # noqa: E402

from memlab.corpus import Corpus  # noqa: E402
from memlab.embed.base import EmbeddingProvider  # noqa: E402
from memlab.embed.cache import CachedEmbedder  # noqa: E402
from memlab.frames import as_queries  # noqa: E402
from memlab.stages.vector import VectorSearch  # noqa: E402


def rss_mb() -> float:
    """Current resident set size (Linux /proc), MB."""
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def unit_vectors(n: int, dims: int, clusters: int, seed: int) -> np.ndarray:
    """Seeded float32 unit vectors, around ``clusters`` random centres (0: uniform)."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, dims), dtype=np.float32)
    centres = rng.standard_normal((max(clusters, 1), dims)).astype(np.float32)
    for lo in range(0, n, 65_536):
        hi = min(n, lo + 65_536)
        block = rng.standard_normal((hi - lo, dims), dtype=np.float32)
        if clusters:
            block = block * 1.5 + centres[rng.integers(0, clusters, hi - lo)]
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[lo:hi] = block
    return out


def texts(n: int, seed: int, words: int = 12) -> list[str]:
    """Seeded short texts ``c<i> w w w ...`` (the chunk number first, for the provider)."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i:05d}" for i in range(50_000)])
    ids = np.minimum(rng.zipf(1.3, (n, words)) - 1, len(vocab) - 1)
    return [f"c{i} " + " ".join(row) for i, row in enumerate(vocab[ids])]


class ArrayVectors(EmbeddingProvider):
    """Returns precomputed vectors: chunk ``c<i> ...`` gets row ``i`` of ``docs``; a query
    ``q<j>`` gets row ``j`` of ``queries``."""

    def __init__(self, docs: np.ndarray, queries: np.ndarray):
        self.docs, self.queries = docs, queries

    def embed_documents(self, texts):
        rows = [int(t.split(" ", 1)[0][1:]) for t in texts]
        return self.docs[rows]

    def embed_query(self, text):
        return self.queries[int(text[1:])]

    def dims(self) -> int:
        return self.docs.shape[1]

    def key_settings(self):
        return {"provider": "array", "dims": self.docs.shape[1]}


class Uncached(CachedEmbedder):
    """The stage's embedder without its in-memory embedding cache (``--no-cache``): at 1M
    chunks that cache (SQLite ``:memory:`` blobs plus per-text arrays while filling) took the
    process past 12 GB RSS, so the scale run measures the index without it."""

    def embed_documents(self, texts):
        return self.provider.embed_documents(texts)


def latencies_ms(fn, items) -> tuple[float, float]:
    times = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - t0)
    ms = np.asarray(times) * 1000.0
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def recall_at(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(f) & set(t)) / len(t) for f, t in zip(found, truth,
                                                                          strict=True)]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--dims", type=int, default=384)
    ap.add_argument("--clusters", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--ann", default="IVF1024,Flat",
                    help="FAISS factory string of the ANN index (IVF...,Flat or HNSW...)")
    ap.add_argument("--recall", type=float, default=0.99)
    ap.add_argument("--threads", type=int, default=1, help="FAISS threads for searches")
    ap.add_argument("--build-threads", type=int, default=2,
                    help="FAISS threads for building/training the ANN index")
    ap.add_argument("--no-cache", action="store_true",
                    help="bypass the stage's in-memory embedding cache (needed at 1M chunks)")
    ap.add_argument("--tiny", action="store_true", help="20,000 chunks, IVF64, 50 queries")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.tiny:
        args.chunks, args.queries, args.clusters = 20_000, 50, 100
        args.ann = "IVF64,Flat" if args.ann.startswith("IVF") else args.ann
    import faiss

    faiss.omp_set_num_threads(args.threads)
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    docs = unit_vectors(args.chunks, args.dims, args.clusters, seed=1)
    # queries: perturbed corpus vectors (a query near what it should find)
    rng = np.random.default_rng(2)
    picks = rng.integers(0, args.chunks, args.queries)
    queries = docs[picks] + 0.5 * rng.standard_normal((args.queries, args.dims),
                                                       dtype=np.float32) / np.sqrt(args.dims)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    chunk_texts = texts(args.chunks, seed=3)
    text_bytes = sum(len(t.encode()) for t in chunk_texts) / args.chunks
    gen_s = time.perf_counter() - t0
    gc.collect()
    rss0 = rss_mb()
    t0 = time.perf_counter()
    corpus = Corpus.from_texts(chunk_texts)
    del chunk_texts
    corpus_s = time.perf_counter() - t0
    gc.collect()
    rss_corpus = rss_mb()
    provider = ArrayVectors(docs, queries)
    stage = VectorSearch(corpus, Uncached(provider) if args.no_cache else provider,
                         index="Flat", depth=10)
    t0 = time.perf_counter()
    stage.fit()
    flat_build_s = time.perf_counter() - t0
    gc.collect()
    rss_flat = rss_mb()
    qframes = [as_queries(f"q{j}") for j in range(args.queries)]
    exact = stage.index_
    _, truth = exact.search(queries, 10)
    flat_raw = latencies_ms(lambda j, ix=exact: ix.search(queries[j:j + 1], 10),
                            range(args.queries))
    flat_stage = latencies_ms(stage.transform, qframes)
    # the ANN index on the same stage: only the FAISS index is rebuilt
    is_ivf = args.ann.upper().startswith("IVF")
    knob = "nprobe" if is_ivf else "efSearch"
    t0 = time.perf_counter()
    del exact
    stage.index_ = None  # free the exact index before the ANN one is built
    faiss.omp_set_num_threads(args.build_threads)
    stage.set_params(index=args.ann, index_params=None)
    stage.fit()
    faiss.omp_set_num_threads(args.threads)
    ann_build_s = time.perf_counter() - t0
    gc.collect()
    rss_ann = rss_mb()
    ann = stage.index_
    ps = faiss.ParameterSpace()
    ladder = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    chosen, recall = None, 0.0
    for value in ladder:
        ps.set_index_parameters(ann, f"{knob}={value}")
        _, found = ann.search(queries, 10)
        recall = recall_at(found, truth)
        if recall >= args.recall:
            chosen = value
            break
    stage.set_params(index_params=f"{knob}={chosen or ladder[-1]}")
    stage.fit()  # same index string: re-applies the parameter
    ann = stage.index_
    ann_raw = latencies_ms(lambda j: ann.search(queries[j:j + 1], 10), range(args.queries))
    ann_stage = latencies_ms(stage.transform, qframes)
    vec_bytes = args.dims * 4
    per_chunk = {"corpus_kb": (rss_corpus - rss0) * 1024 / args.chunks,
                 "flat_stage_kb": (rss_flat - rss0) * 1024 / args.chunks,
                 "ann_stage_kb": (rss_ann - rss0) * 1024 / args.chunks}
    target_kb = (vec_bytes + text_bytes) / 1024
    row = {"chunks": args.chunks, "dims": args.dims, "clusters": args.clusters,
           "queries": args.queries, "ann": args.ann, "ann_param": f"{knob}={chosen}",
           "ann_recall_at_10": recall, "generate_s": gen_s, "corpus_s": corpus_s,
           "flat_build_s": flat_build_s, "ann_build_s": ann_build_s,
           "flat_raw_ms": flat_raw, "flat_stage_ms": flat_stage,
           "ann_raw_ms": ann_raw, "ann_stage_ms": ann_stage,
           "rss_per_chunk_kb": per_chunk, "vector_plus_text_kb": target_kb,
           "memory_ratio_flat": per_chunk["flat_stage_kb"] / target_kb,
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
           "embedding_cache": not args.no_cache, "faiss_threads": args.threads,
           "faiss_build_threads": args.build_threads}
    headers = ["chunks", "index", "build s", "search p50 / p95 ms (raw faiss)",
               "stage p50 / p95 ms", "recall@10 vs exact (target >= 0.99)",
               "RSS per chunk KB (stage incl. corpus)", "vs vector+text bytes (target <= 2x)"]
    body = [[args.chunks, "Flat (exact)", f"{flat_build_s:.1f}",
             f"{flat_raw[0]:.2f} / {flat_raw[1]:.2f}", f"{flat_stage[0]:.2f} / {flat_stage[1]:.2f}",
             "1 (reference)", f"{per_chunk['flat_stage_kb']:.2f}",
             f"{row['memory_ratio_flat']:.2f}x"],
            [args.chunks, f"{args.ann}, {knob}={chosen}", f"{ann_build_s:.1f}",
             f"{ann_raw[0]:.2f} / {ann_raw[1]:.2f}", f"{ann_stage[0]:.2f} / {ann_stage[1]:.2f}",
             f"{recall:.4f}", f"{per_chunk['ann_stage_kb']:.2f}",
             f"{per_chunk['ann_stage_kb'] / target_kb:.2f}x"]]
    print(f"{args.chunks} chunks, {args.dims} dims, {args.clusters} clusters, "
          f"{args.queries} queries, faiss threads {args.threads}; vector + text bytes per "
          f"chunk {target_kb:.2f} KB; load {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f}")
    print(markdown(headers, body))
    path = write_json("bench_scale", {"versions": versions("faiss-cpu"),
                                      "params": vars(args) | {"out": str(args.out)},
                                      "rows": [row], "table": {"headers": headers,
                                                               "rows": body}}, args.out)
    print(f"wrote {path}")
    return 0 if chosen is not None else 1


if __name__ == "__main__":
    sys.exit(main())
