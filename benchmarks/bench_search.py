"""Search latency, one query at a time as an agent issues them: memlab vs the raw calls.

    .venv/bin/python benchmarks/bench_search.py [--chunks 5000,50000,200000] [--queries 100]
                                                [--clock cpu|wall] [--seed 0] [--tiny]
                                                [--out PATH]

A seeded synthetic corpus (Zipfian vocabulary; chunks in dated daily files, so temporal decay
has work to do) and seeded random unit vectors (query embedding is excluded: query vectors
are embedded once before timing and served from the embedder's query cache). Measured per
query (``--repeat`` rounds, the variants interleaved call by call but each on a different
query at each step, in a random order drawn for each step, see :func:`per_query_ms`; the
median per query, then p50/p95 over queries), in process CPU time by default (``--clock
cpu``: a busy shared machine moves it far less than wall time; ``--clock wall`` for wall
time). Each size in ``--chunks``
is a separate corpus; the machine's load average before and after each size, the BLAS
thread pools (threadpoolctl) and FAISS's thread count are recorded with the results:

* memlab's full hybrid search (``MemorySearch.search``: FTS5 keyword leg, FAISS ``Flat``
  vector leg, weighted merge, temporal decay, MMR, threshold, result objects) -- the fast
  single-query path -- and the same search through the composable DataFrame pipeline
  (``MemorySearch.run``, leg caches cleared);
* the legs alone: memlab's FTS5 stage and FAISS stage (DataFrame API and array API), the
  scikit-learn BM25 stage; the FTS5 leg's compiled ranking (``FTS5.build_postings``, with
  numba) is built during setup, as a long-lived search would;
* raw baselines in the same run: a plain sqlite FTS5 ``MATCH ... ORDER BY bm25 LIMIT`` on the
  same table plus ``faiss.IndexFlatIP.search`` on the same index; and "raw, same work": the
  raw FTS5 query followed, when it finds nothing, by one raw query per keyword of OpenClaw's
  fallback (what the production leg does for such queries).

Overhead = memlab hybrid p50 / raw (FTS5 + faiss) p50, per size. Target: <= 1.5x.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import markdown, versions, write_json  # noqa: E402

from memlab.corpus import Corpus  # noqa: E402
from memlab.embed.base import EmbeddingProvider  # noqa: E402
from memlab.frames import Query, as_queries  # noqa: E402
from memlab.index.store import FTS_TABLE  # noqa: E402
from memlab.stages.lexical import BM25  # noqa: E402


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
    """Deterministic pseudo-embeddings (a vector seeded by the text's sha256): distinct texts
    get distinct vectors, so exact score ties (which memlab breaks by docno, widening its
    FAISS search) are as rare as with a real model."""

    def __init__(self, dims: int = 384):
        self._dims = dims

    def _vec(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self._dims)

    def embed_documents(self, texts):
        return np.asarray([self._vec(t) for t in texts], dtype=np.float32)

    def embed_query(self, text):
        return self._vec(text).astype(np.float32)

    def dims(self) -> int:
        return self._dims

    def key_settings(self):
        return {"provider": "random", "dims": self._dims}


def per_query_ms(variants: dict[str, object], items: list, repeat: int,
                 clock=time.process_time, seed: int = 0) -> dict[str, np.ndarray]:
    """Median ms per item of each variant over ``repeat`` rounds; ``clock`` is process CPU
    time by default.

    The variants are interleaved call by call (so machine load drifts hit all of them
    alike, and each call runs after other work, with caches as cold as between an agent's
    searches), but at each step variant ``v`` runs item ``(i + v) mod n``: no call follows
    another variant's call on the same item. (Plain round-robin per item would let a
    variant run right after one that has just read the same SQLite pages for the same
    query, such as the raw FTS5 query before the raw "same work" one, and time it warm.)
    When the last variant of a step would run the item the next step starts with
    (``(variants - 1) mod n == 1``: 2 variants, say), the offsets step by 2: item
    ``(i + 2 v) mod n`` (more than 2 items).

    Within a step the variants run in a seeded random order, a new one each step, so each
    variant follows every other about equally often. (In a fixed order a variant always
    runs right after the same one: the raw FTS5 + FAISS baseline ran right after the raw
    FAISS search of the same index, its scan of the vectors warm in the cache, while
    memlab's search always followed the raw "same work" variant.) An order whose first call
    would be on the item of the call before it is drawn again (after 100 draws, the fixed
    order). Each round still runs every variant once on every item."""
    names = list(variants)
    n = len(items)
    stride = 2 if n > 2 and (len(names) - 1) % n == 1 else 1
    rng = np.random.default_rng(seed)
    out = {name: np.zeros((repeat, n)) for name in names}
    last = None  # the item of the call before

    def valid(order: list[int], i: int) -> bool:
        seq = [(i + v * stride) % n for v in order]
        return (last is None or seq[0] != last) and all(
            a != b for a, b in zip(seq, seq[1:], strict=False))

    for r in range(repeat):
        for i in range(n):
            order = list(range(len(names)))
            for _ in range(100):
                drawn = rng.permutation(len(names)).tolist()
                if valid(drawn, i):
                    order = drawn
                    break
            for v in order:
                name = names[v]
                j = (i + v * stride) % n
                t0 = clock()
                variants[name](items[j])
                out[name][r, j] = clock() - t0
                last = j
    return {name: np.median(v, axis=0) * 1000.0 for name, v in out.items()}


def thread_pools() -> list[dict[str, object]]:
    """The native thread pools loaded (BLAS, OpenMP) and their thread counts."""
    from threadpoolctl import threadpool_info

    return [{k: info.get(k) for k in ("user_api", "internal_api", "num_threads", "version")}
            for info in threadpool_info()]


def dated_paths(n: int, per_file: int = 25) -> list[str]:
    """``memory/YYYY-MM-DD.md`` paths, ``per_file`` chunks each, one day apart."""
    import datetime as dt

    start = dt.date(2020, 1, 1)
    return [f"memory/{start + dt.timedelta(days=i // per_file)}.md" for i in range(n)]


HYBRID = "memlab hybrid search (fast path: FTS5 + FAISS + merge + decay + MMR)"
RAW = "raw FTS5 + raw faiss"
RAW_SAME = "raw FTS5 same work + raw faiss"
FRAMES = "memlab hybrid, DataFrame pipeline (MemorySearch.run)"


def run_size(n_chunks: int, n_queries: int, repeat: int, clock, seed: int = 0
             ) -> dict[str, object]:
    """Every variant on one seeded corpus of ``n_chunks`` chunks; p50/p95 ms and the ratios."""
    import faiss

    from memlab.embed.cache import CachedEmbedder
    from memlab.openclaw import MemorySearch
    from memlab.text.keywords import fallback_terms

    n_warm = 10
    docs, queries = zipf_corpus(n_chunks, n_queries + n_warm)
    warm, queries = queries[:n_warm], queries[n_warm:]
    corpus = Corpus.from_texts(docs, dated_paths(len(docs)))
    config = {"memorySearch": {"provider": "local", "query": {"hybrid": {
        "mmr": {"enabled": True}, "temporalDecay": {"enabled": True}}}},
        "memlab": {"keyword": "fts5"}}
    embedder = CachedEmbedder(RandomVectors())
    embedder.embed_queries(warm + queries)  # query embedding is excluded from every timing
    ms = MemorySearch.from_corpus(corpus, config, embedder)
    now = "2026-01-01T00:00:00Z"
    t0 = time.perf_counter()
    for q in warm:  # build the FTS5 table, embed the corpus, the FAISS index, MMR tokens
        ms.search(q, now=now)
        ms.run(q, now=now)
    build_s = time.perf_counter() - t0
    pipe = ms.pipeline(now=now)
    fusion = pipe.stages[0]
    depth = int(fusion.candidates)
    fts, vec = fusion.text.stage, fusion.vector.stage
    # a long-lived search: the keyword leg's compiled ranking is built now, not once its
    # SQLite queries have cost as much (FTS5.build_postings); its build is setup time
    t0 = time.perf_counter()
    compiled_fts = fts.build_postings()
    build_s += time.perf_counter() - t0
    bm25 = BM25(corpus, depth=depth)
    frames = {q: as_queries(q) for q in warm + queries}
    for q in warm:
        bm25.transform(frames[q])

    def frame_pipeline(q: str):
        fusion.text.clear()  # the Cached legs would answer a repeated query from memory
        fusion.vector.clear()
        return ms.run(q, now=now)

    store, _ = fts._store()
    conn = store.connection
    sql = (f"SELECT id, bm25({FTS_TABLE}) AS r FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? "
           "ORDER BY r LIMIT ?")

    def raw_fts(q: str):
        match = " AND ".join(f'"{t}"' for t in q.split())
        return conn.execute(sql, [match, depth]).fetchall()

    terms = {q: fallback_terms(q) for q in queries}
    fell_back = {q: not raw_fts(q) for q in queries}

    def raw_fts_same_work(q: str):
        rows = raw_fts(q)
        if not rows:
            rows = [r for t in terms[q] for r in conn.execute(sql, [f'"{t}"', depth]).fetchall()]
        return rows

    # the raw search runs on the very FAISS index memlab's leg searches (an IndexFlatIP of
    # the same vectors): a second copy would make the two compete for the cache unevenly
    index = vec.index_
    assert isinstance(index, faiss.IndexFlatIP), type(index)
    unit = {q: (v / np.linalg.norm(v)).astype(np.float32)[None, :]
            for q, v in zip(queries, embedder.embed_queries(queries), strict=True)}

    def raw_faiss(q: str):
        return index.search(unit[q], depth)

    variants = {
        HYBRID: lambda q: ms.search(q, now=now),
        FRAMES: frame_pipeline,
        "memlab FTS5 leg (stage, DataFrame)": lambda q: fts.transform(frames[q]),
        "memlab FTS5 leg (arrays)": lambda q: fts.transform_query(Query(q, boost=False)),
        "memlab FAISS leg (stage, DataFrame)": lambda q: vec.transform(frames[q]),
        "memlab FAISS leg (arrays)": lambda q: vec.transform_query(Query(q, limit=depth)),
        "memlab BM25 leg (scikit-learn sparse, DataFrame)": lambda q: bm25.transform(frames[q]),
        "raw sqlite FTS5": raw_fts,
        "raw sqlite FTS5, same work (+ fallback queries)": raw_fts_same_work,
        "raw faiss search": raw_faiss,
        RAW: lambda q: (raw_fts(q), raw_faiss(q)),
        RAW_SAME: lambda q: (raw_fts_same_work(q), raw_faiss(q)),
    }
    # The corpus, FTS table, vectors and token matrix are long-lived: move them out of the
    # cyclic GC's view (gc.freeze) so a collection triggered by one variant's garbage does
    # not scan them inside another variant's timing.
    gc.collect()
    gc.freeze()
    load_before = os.getloadavg()
    legs = per_query_ms(variants, queries, repeat, clock, seed)
    load_after = os.getloadavg()
    gc.unfreeze()
    p50 = {name: float(np.percentile(v, 50)) for name, v in legs.items()}
    p95 = {name: float(np.percentile(v, 95)) for name, v in legs.items()}
    return {"chunks": n_chunks, "queries": len(queries), "candidates": depth,
            "setup_s": build_s, "compiled_fts5_ranking": compiled_fts,
            "fallback_queries": sum(fell_back.values()),
            "loadavg_before": load_before, "loadavg_after": load_after,
            "p50_ms": p50, "p95_ms": p95,
            "overhead_ratio": p50[HYBRID] / p50[RAW],
            "overhead_ratio_same_work": p50[HYBRID] / p50[RAW_SAME],
            "dataframe_pipeline_ratio": p50[FRAMES] / p50[RAW]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", default="5000,50000,200000",
                    help="comma-separated corpus sizes, one run each")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3, help="rounds over the queries")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the variants' order at each step (the corpus is fixed)")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="process CPU time (default) or wall time")
    ap.add_argument("--tiny", action="store_true", help="2,000 chunks, 20 queries")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    sizes = [int(c) for c in str(args.chunks).split(",") if c.strip()]
    if args.tiny:
        sizes, args.queries, args.repeat = [2_000], 20, 1
    import faiss

    faiss.omp_set_num_threads(1)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    runs = [run_size(n, args.queries, args.repeat, clock, args.seed) for n in sizes]
    for run in runs:
        print(f"{run['chunks']} chunks, {run['queries']} queries one at a time (median of "
              f"{args.repeat} rounds per query, {args.clock} time), candidates "
              f"{run['candidates']}; setup {run['setup_s']:.1f}s; compiled FTS5 ranking "
              f"{'on' if run['compiled_fts5_ranking'] else 'off'}; {run['fallback_queries']}/"
              f"{run['queries']} queries find nothing with the full AND query and run "
              f"OpenClaw's keyword fallback; load {run['loadavg_before'][0]:.2f} -> "
              f"{run['loadavg_after'][0]:.2f}")
        print(markdown(["variant", "p50 ms", "p95 ms"],
                       [[name, run["p50_ms"][name], run["p95_ms"][name]]
                        for name in run["p50_ms"]]))
    headers = ["chunks", "hybrid / (raw FTS5 + raw faiss)",
               "hybrid / (raw FTS5 same work + raw faiss)", "target", "status",
               "DataFrame pipeline / raw (research API)", "load (1 min) before -> after"]
    rows = [[run["chunks"], run["overhead_ratio"], run["overhead_ratio_same_work"], "<= 1.5x",
             "met" if run["overhead_ratio"] <= 1.5 else "MISSED",
             run["dataframe_pipeline_ratio"],
             f"{run['loadavg_before'][0]:.2f} -> {run['loadavg_after'][0]:.2f}"]
            for run in runs]
    print(f"ratios of p50 {args.clock} time, FAISS threads {faiss.omp_get_max_threads()}, "
          f"native thread pools {thread_pools()} (the single-query path holds "
          "BLAS at 1 thread while it runs)")
    print(markdown(headers, rows))
    path = write_json("bench_search", {
        "versions": versions("faiss-cpu"), "params": vars(args) | {"out": str(args.out)},
        "clock": args.clock, "faiss_threads": faiss.omp_get_max_threads(),
        "thread_pools": thread_pools(), "runs": runs,
        "table": {"headers": headers, "rows": rows}}, args.out)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
