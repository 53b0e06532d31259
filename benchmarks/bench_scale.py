"""1,000,000 chunks: memlab's hybrid search with exact FAISS and an ANN index (IVF or HNSW).

    .venv/bin/python benchmarks/bench_scale.py [--chunks 1000000] [--ann IVF1024,Flat]
                                               [--no-cache] [--tiny] [--out PATH]

What is real and what is synthetic:

* **Texts (real work):** seeded texts of ``--words`` words over a Zipfian vocabulary of 50,000
  made-up words, one chunk per document in dated daily files (so temporal decay has work to
  do). memlab builds everything it builds for a real workspace from them: the chunk table,
  the SQLite FTS5 table of the keyword leg (by default in a temporary file, as ``memlab
  index`` keeps it: a search holds only SQLite's page cache of it; ``--fts-store memory`` for
  the in-memory table a corpus-only search builds), MMR's token matrix, the result columns.
* **Vectors (precomputed, not embedded):** embedding 1M texts with a local model is out of
  reach of a 2-core machine, so the vector store is filled with seeded float32 unit vectors of
  ``--dims`` dims drawn around ``--clusters`` random centres (real embeddings are clustered;
  ``--clusters 0`` gives uniform random unit vectors, on which no ANN index reaches high
  recall cheaply). A provider returns them by chunk number. Each query is 3 words of one chunk
  (so the keyword leg finds it) with that chunk's vector perturbed (so the vector leg is near
  it).

Measured (one process; machine load recorded before and after):

* build seconds (wall): chunk table, vector leg (vectors + FAISS index), FTS5 table, MMR
  token matrix; the ANN index build (training included);
* RSS growth per chunk of everything memlab holds for the search (measured from before the
  texts are generated, so the texts' own bytes count; the benchmark's copy of the vectors is
  excluded), for the exact and for the ANN index, against vector bytes + text bytes per chunk
  (target <= 2x); freed heap pages are handed back to the OS (glibc ``malloc_trim``) before
  each reading, so RSS is what is live, not what the allocator kept; the FTS5 file's size on
  disk is reported beside it;
* one query at a time, p50/p95 ms wall (and p50 CPU ms): raw ``index.search`` at depth 10,
  memlab's vector leg (array path) and memlab's full hybrid search (``MemorySearch.search``:
  FTS5 + FAISS + merge + decay + MMR + threshold + result objects), for ``Flat`` (exact) and
  the ANN index;
* recall@10 against exact of the raw ANN index and of memlab's vector leg on it; the ANN
  parameter (``nprobe`` for IVF, ``efSearch`` for HNSW) is the smallest of a doubling ladder
  with recall@10 >= ``--recall``. The ANN choice is what ``memlab.vectorIndex`` /
  ``memlab.vectorIndexParams`` select in a config (the run sets them in its config).

``--no-cache`` bypasses the vector leg's in-memory embedding cache: at 1M chunks that cache
(SQLite ``:memory:`` blobs plus per-text arrays while filling) took a process past 12 GB RSS.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import gc
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import markdown, versions, write_json  # noqa: E402
from bench_search import dated_paths  # noqa: E402

from memlab.corpus import Corpus  # noqa: E402
from memlab.embed.base import EmbeddingProvider  # noqa: E402
from memlab.embed.cache import CachedEmbedder  # noqa: E402
from memlab.frames import Query  # noqa: E402

NOW = "2026-01-01T00:00:00Z"  #: after the last dated file (about 2,000 days from 2020)


def rss_mb() -> float:
    """Resident set size (Linux /proc), MB, of what is live: a full collection first, then
    glibc's ``malloc_trim(0)`` hands freed heap pages back to the OS (without it, memory freed
    by an earlier step, such as the exact index before the ANN one is built, stays resident
    and is counted against the next)."""
    gc.collect()
    libc = ctypes.util.find_library("c")
    if libc is not None:
        trim = getattr(ctypes.CDLL(libc), "malloc_trim", None)
        if trim is not None:
            trim(0)
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def file_mb(path: Path) -> float:
    """Bytes on disk of a SQLite file and its ``-wal``, MB."""
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists()) / 2**20


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


def word_ids(n: int, words: int, seed: int, vocab: int = 50_000) -> np.ndarray:
    """Seeded ``(n, words)`` word numbers, Zipf-distributed (exponent 1.3)."""
    rng = np.random.default_rng(seed)
    return np.minimum(rng.zipf(1.3, (n, words)) - 1, vocab - 1).astype(np.int32)


def texts(ids: np.ndarray, block: int = 50_000) -> list[str]:
    """``c<i> w.. w..``: chunk number first (the provider reads it), then the words (built
    in blocks of rows, so no ``(n, words)`` array of strings is ever held)."""
    vocab = np.array([f"w{i:05d}" for i in range(int(ids.max()) + 1)], dtype=object)
    out: list[str] = []
    for lo in range(0, len(ids), block):
        rows = vocab[ids[lo:lo + block]].tolist()
        out += [f"c{lo + i} " + " ".join(row) for i, row in enumerate(rows)]
    return out


class ArrayVectors(EmbeddingProvider):
    """Precomputed vectors: chunk ``c<i> ...`` gets row ``i`` of ``docs``; a query text gets
    its row of ``queries`` (``query_rows``)."""

    def __init__(self, docs: np.ndarray, queries: np.ndarray, query_rows: dict[str, int]):
        self.docs, self.queries, self.query_rows = docs, queries, query_rows

    def embed_documents(self, texts):
        rows = [int(t.split(" ", 1)[0][1:]) for t in texts]
        return self.docs[rows]

    def embed_query(self, text):
        return self.queries[self.query_rows[text]]

    def dims(self) -> int:
        return self.docs.shape[1]

    def key_settings(self):
        return {"provider": "array", "dims": self.docs.shape[1]}


class Uncached(CachedEmbedder):
    """The embedder without its in-memory document cache (``--no-cache``)."""

    def embed_documents(self, texts):
        return self.provider.embed_documents(texts)


def latencies(fn, items) -> dict[str, float]:
    """p50/p95 wall ms and p50 CPU ms of ``fn`` over ``items``, one at a time."""
    wall, cpu = [], []
    for item in items:
        t0, c0 = time.perf_counter(), time.process_time()
        fn(item)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    ms = np.asarray(wall) * 1000.0
    return {"p50": float(np.percentile(ms, 50)), "p95": float(np.percentile(ms, 95)),
            "cpu_p50": float(np.percentile(np.asarray(cpu) * 1000.0, 50))}


def recall_at(found, truth) -> float:
    """Mean share of each query's true top-k found."""
    return float(np.mean([len(set(np.asarray(f).tolist()) & set(t.tolist())) / len(t)
                          for f, t in zip(found, truth, strict=True)]))


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--dims", type=int, default=384)
    ap.add_argument("--words", type=int, default=60, help="words per chunk text")
    ap.add_argument("--clusters", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--ann", default="IVF1024,Flat",
                    help="FAISS factory string of the ANN index (IVF...,Flat or HNSW...)")
    ap.add_argument("--recall", type=float, default=0.99)
    ap.add_argument("--threads", type=int, default=1, help="FAISS threads for searches")
    ap.add_argument("--build-threads", type=int, default=2,
                    help="FAISS threads for building/training the ANN index")
    ap.add_argument("--no-cache", action="store_true",
                    help="bypass the vector leg's in-memory embedding cache (needed at 1M)")
    ap.add_argument("--fts-store", choices=("file", "memory"), default="file",
                    help="the FTS5 table in a temporary file, as `memlab index` keeps it "
                         "(default), or in memory, as a corpus-only search builds it")
    ap.add_argument("--tiny", action="store_true", help="20,000 chunks, IVF64, 50 queries")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.tiny:
        args.chunks, args.queries, args.clusters = 20_000, 50, 100
        args.ann = "IVF64,Flat" if args.ann.startswith("IVF") else args.ann
    import faiss

    from memlab.index.store import IndexStore
    from memlab.openclaw import MemorySearch

    faiss.omp_set_num_threads(args.threads)
    load_before = os.getloadavg()
    n, n_warm = args.chunks, 5
    t0 = time.perf_counter()
    docs = unit_vectors(n, args.dims, args.clusters, seed=1)
    rng = np.random.default_rng(2)
    picks = rng.integers(0, n, args.queries + n_warm)
    qvecs = docs[picks] + 0.5 * rng.standard_normal((len(picks), args.dims),
                                                     dtype=np.float32) / np.sqrt(args.dims)
    qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
    ids = word_ids(n, args.words, seed=3)
    qwords = [ids[p][rng.choice(args.words, 3, replace=False)] for p in picks]
    del_ids_bytes = ids.nbytes
    gen_vectors_s = time.perf_counter() - t0
    gc.collect()
    rss0 = rss_mb()  # the benchmark's vectors and word numbers are excluded from here on
    t0 = time.perf_counter()
    chunk_texts = texts(ids)
    query_texts = [" ".join(f"w{w:05d}" for w in row) for row in qwords]
    query_texts = [f"{t} q{j}" if t in query_texts[:j] else t  # distinct texts
                   for j, t in enumerate(query_texts)]
    del ids
    text_bytes = sum(len(t.encode()) for t in chunk_texts) / n
    gen_texts_s = time.perf_counter() - t0
    provider = ArrayVectors(docs, qvecs, {t: j for j, t in enumerate(query_texts)})
    embedder = Uncached(provider) if args.no_cache else CachedEmbedder(provider)
    warm, queries = query_texts[:n_warm], query_texts[n_warm:]
    qrow = {t: j for j, t in enumerate(query_texts)}
    build, rss_steps = {}, {"texts": rss_mb() - rss0}
    t0 = time.perf_counter()
    corpus = Corpus.from_texts(chunk_texts, dated_paths(n, per_file=max(25, n // 2000)))
    del chunk_texts
    build["chunk table"] = time.perf_counter() - t0
    gc.collect()
    rss_steps["chunk table"] = rss_mb() - rss0
    config = {"memorySearch": {"provider": "local", "query": {"hybrid": {
        "mmr": {"enabled": True}, "temporalDecay": {"enabled": True}}}},
        "memlab": {"keyword": "fts5", "vectorIndex": "Flat"}}
    store, fts_path, tmp = None, None, None
    if args.fts_store == "file":  # a temporary directory only for the file
        tmp = tempfile.TemporaryDirectory(prefix="memlab-bench-scale-")
        fts_path = Path(tmp.name) / "index.sqlite"
        t0 = time.perf_counter()
        store = IndexStore.from_corpus(corpus, path=fts_path)
        build["FTS5 table (file)"] = time.perf_counter() - t0
        rss_steps["FTS5 table (file)"] = rss_mb() - rss0
    ms = MemorySearch.from_corpus(corpus, config, embedder, store=store)
    pipe = ms.pipeline(now=NOW)
    fusion = pipe.stages[0]
    vec, fts = fusion.vector.stage, fusion.text.stage
    mmr = next(s for s in pipe.stages if type(s).__name__ == "MMR")
    first_keyword = ("first keyword query" if store is not None
                     else "FTS5 table (in memory)")
    steps = {"vector leg (vectors + Flat)": vec.fit,
             first_keyword: lambda: fts.transform_query(Query(warm[0], boost=False)),
             "MMR token matrix": mmr.token_matrix,
             "first search (result columns)": lambda: ms.search(warm[0], now=NOW)}
    for name, step in steps.items():
        build[name] = timed(step)
        rss_steps[name] = rss_mb() - rss0  # cumulative RSS growth (MB) after each step
    for q in warm:
        ms.search(q, now=NOW)
    rss_flat = rss_mb()

    def measure(index) -> dict[str, dict[str, float]]:
        unit = {q: qvecs[qrow[q]][None, :] for q in queries}
        out = {"raw faiss search (k=10)": latencies(lambda q: index.search(unit[q], 10),
                                                    queries),
               "memlab vector leg (arrays)": latencies(
                   lambda q: vec.transform_query(Query(q, limit=int(fusion.candidates))),
                   queries),
               "memlab hybrid search (FTS5 + FAISS + merge + decay + MMR)": latencies(
                   lambda q: ms.search(q, now=NOW), queries)}
        return out

    exact = vec.index_
    qmat = np.ascontiguousarray(qvecs[[qrow[q] for q in queries]])
    _, truth = exact.search(qmat, 10)
    flat = measure(exact)
    del exact
    # the ANN index on the same leg: only the FAISS index is rebuilt (the config's
    # memlab.vectorIndex / memlab.vectorIndexParams, set on the built pipeline)
    is_ivf = args.ann.upper().startswith("IVF")
    knob = "nprobe" if is_ivf else "efSearch"
    vec.index_ = None  # free the exact index before the ANN one is built
    faiss.omp_set_num_threads(args.build_threads)
    vec.set_params(index=args.ann, index_params=None)
    ann_build_s = timed(vec.fit)
    faiss.omp_set_num_threads(args.threads)
    rss_ann = rss_mb()
    ps = faiss.ParameterSpace()
    ladder = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    chosen, recall = None, 0.0
    for value in ladder:
        ps.set_index_parameters(vec.index_, f"{knob}={value}")
        _, found = vec.index_.search(qmat, 10)
        recall = recall_at(found, truth)
        if recall >= args.recall:
            chosen = value
            break
    vec.set_params(index_params=f"{knob}={chosen or ladder[-1]}")
    vec.fit()  # same index: re-applies the parameter (rebuilds the FAISS index)
    leg_recall = recall_at([vec.transform_query(Query(q, limit=10)).docno for q in queries],
                           truth)
    ann = measure(vec.index_)
    load_after = os.getloadavg()
    vec_bytes = args.dims * 4
    target_kb = (vec_bytes + text_bytes) / 1024
    per_chunk = {"flat_kb": (rss_flat - rss0) * 1024 / n, "ann_kb": (rss_ann - rss0) * 1024 / n}
    row = {"chunks": n, "dims": args.dims, "words": args.words, "clusters": args.clusters,
           "queries": len(queries), "ann": args.ann, "ann_param": f"{knob}={chosen}",
           "ann_recall_at_10": recall, "ann_leg_recall_at_10": leg_recall,
           "generate_vectors_s": gen_vectors_s, "generate_texts_s": gen_texts_s,
           "build_s": build, "build_total_s": sum(build.values()), "ann_build_s": ann_build_s,
           "flat_ms": flat, "ann_ms": ann, "rss_per_chunk_kb": per_chunk,
           "vector_bytes": vec_bytes, "text_bytes": text_bytes,
           "vector_plus_text_kb": target_kb,
           "memory_ratio_flat": per_chunk["flat_kb"] / target_kb,
           "memory_ratio_ann": per_chunk["ann_kb"] / target_kb,
           "rss_growth_mb_after_step": rss_steps, "fts_store": args.fts_store,
           "fts_file_mb": file_mb(fts_path) if fts_path is not None else None,
           "fts_file_kb_per_chunk": (file_mb(fts_path) * 1024 / n
                                     if fts_path is not None else None),
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "benchmark_own_arrays_mb": (docs.nbytes + qvecs.nbytes + del_ids_bytes) / 2**20,
           "loadavg_before": load_before, "loadavg_after": load_after,
           "embedding_cache": not args.no_cache, "faiss_threads": args.threads,
           "faiss_build_threads": args.build_threads}
    headers = ["index", "build s", "raw faiss p50 / p95 ms", "vector leg p50 / p95 ms",
               "hybrid search p50 / p95 ms (CPU p50)", "recall@10 vs exact (>= 0.99)",
               "RSS per chunk KB", "vs vector+text bytes (<= 2x)"]
    hyb = "memlab hybrid search (FTS5 + FAISS + merge + decay + MMR)"

    def cells(name, build_s, res, rec, kb):
        r, v, h = res["raw faiss search (k=10)"], res["memlab vector leg (arrays)"], res[hyb]
        return [name, f"{build_s:.1f}", f"{r['p50']:.2f} / {r['p95']:.2f}",
                f"{v['p50']:.2f} / {v['p95']:.2f}",
                f"{h['p50']:.2f} / {h['p95']:.2f} ({h['cpu_p50']:.2f})", rec, f"{kb:.2f}",
                f"{kb / target_kb:.2f}x"]

    body = [cells("Flat (exact)", build["vector leg (vectors + Flat)"], flat, "1 (reference)",
                  per_chunk["flat_kb"]),
            cells(f"{args.ann}, {knob}={chosen}", ann_build_s, ann,
                  f"{recall:.4f} (leg {leg_recall:.4f})", per_chunk["ann_kb"])]
    print(f"{n} chunks ({args.words}-word real texts, FTS5 built; synthetic precomputed "
          f"{args.dims}-dim vectors around {args.clusters} centres), {len(queries)} queries "
          f"one at a time, faiss threads {args.threads}; vector + text bytes per chunk "
          f"{target_kb:.2f} KB; load {load_before[0]:.2f} -> {load_after[0]:.2f}")
    print("build s: " + ", ".join(f"{k} {v:.1f}" for k, v in build.items()))
    print("RSS growth MB after each step: "
          + ", ".join(f"{k} {v:.0f}" for k, v in rss_steps.items()))
    if fts_path is not None:
        print(f"FTS5 table in a file (as `memlab index` keeps it): {row['fts_file_mb']:.0f} MB "
              f"on disk ({row['fts_file_kb_per_chunk']:.2f} KB per chunk), not in the RSS "
              "above beyond SQLite's page cache")
    print(markdown(headers, body))
    path = write_json("bench_scale", {"versions": versions("faiss-cpu"),
                                      "params": vars(args) | {"out": str(args.out)},
                                      "rows": [row], "table": {"headers": headers,
                                                               "rows": body}}, args.out)
    print(f"wrote {path}")
    if store is not None:
        store.close()
    if tmp is not None:
        tmp.cleanup()
    return 0 if chosen is not None else 1


if __name__ == "__main__":
    sys.exit(main())
