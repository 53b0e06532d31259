"""BM25 raw retrieval: memlab (numba and numpy kernels) vs bm25s with backend="numba", same run.

    .venv/bin/python benchmarks/bench_bm25.py [--corpora scifact,npl,synthetic] [--tiny]
                                              [--out PATH]

All systems get identical token lists (memlab's Tokenizer with Lucene stop words and the
English Snowball stemmer), Lucene BM25 (k1 1.5, b 0.75), float64, depth ``--k``, one thread.
bm25s runs its fastest backend (``backend="numba"``), compiled before timing; memlab's numba
kernel likewise. Per corpus, CPU time (``time.process_time``) of raw retrieval (memlab's BM25
stage ``_rank``: query texts -> docnos + scores, as bm25s ``retrieve`` returns) in one batch
and one query at a time, the systems interleaved within each of ``--repeat`` rounds (order
alternating), medians; each ratio is the median over rounds of the ratio within a round
(paired: a change of machine speed between rounds cancels); the BM25 *stage* one query at a
time (``transform_query``: hits, text scores and OpenClaw's boost, on arrays) against
memlab's raw retrieval; machine load
(``os.getloadavg``) before and after each corpus.
Index peak memory: one subprocess per system loads only its own input (memlab: the texts,
bm25s: the token lists; the same tokens), resets the kernel's peak-RSS counter (VmHWM, via
/proc/self/clear_refs) and reports the peak RSS of the build alone above the RSS before it
(with ``--tracemalloc`` also the traced Python peak), and the bytes of the kept index arrays.
Agreement: memlab numba == memlab numpy bit for bit, max |score diff| vs bm25s on the top
``--k``, top-10 overlap.

Targets: time memlab / bm25s-numba <= 1.0 (batch and one query at a time); index build peak
memory memlab / bm25s <= 1.2. SciFact/NPL are read from ``../shared/datasets`` (skipped when
absent); the synthetic corpus (``--synthetic-docs`` Zipfian documents) is generated, seeded.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATASETS, markdown, versions, write_json  # noqa: E402
from bench_search import zipf_corpus  # noqa: E402

from memlab.corpus import Corpus  # noqa: E402
from memlab.frames import Query  # noqa: E402
from memlab.stages.lexical import BM25  # noqa: E402
from memlab.text import Tokenizer  # noqa: E402

PLAIN = dict(lowercase=False, cjk="none", thai="none")


def load_beir(root: Path) -> tuple[list[str], list[str]]:
    with open(root / "corpus.jsonl", encoding="utf-8") as fh:
        docs = [" ".join(filter(None, (d.get("title"), d.get("text"))))
                for d in map(json.loads, fh)]
    with open(root / "queries.jsonl", encoding="utf-8") as fh:
        queries = [q["text"] for q in map(json.loads, fh)]
    return docs, queries


def memlab_stage(doc_tokens: list[list[str]], k: int, backend: str) -> BM25:
    corpus = Corpus.from_texts([" ".join(t) for t in doc_tokens])
    stage = BM25(corpus, tokenizer=Tokenizer(**PLAIN), variant="lucene", depth=k,
                 backend=backend)
    stage._fit()
    return stage


def bm25s_index(doc_tokens: list[list[str]]):
    import bm25s

    r = bm25s.BM25(method="lucene", k1=1.5, b=0.75, dtype="float64", backend="numba")
    r.index(doc_tokens, show_progress=False)
    return r


def rss_kib() -> tuple[int, int]:
    """(current RSS, peak RSS since the last :func:`reset_peak`) in KiB, from
    /proc/self/status (Linux)."""
    fields = dict(line.split(":", 1) for line in
                  Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def reset_peak() -> bool:
    """Reset the kernel's peak-RSS counter (VmHWM) to the current RSS (Linux >= 4.0: writing
    5 to /proc/self/clear_refs); False where that is not possible."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def memory_child(system: str, input_path: str) -> None:
    """Subprocess: build one system's index from its pickled input (memlab: texts; bm25s:
    token lists -- each child loads only its own input), print as JSON the peak RSS of the
    build alone: the peak (VmHWM, reset just before the build) minus the RSS before it."""
    with open(input_path, "rb") as fh:
        data = pickle.load(fh)
    if system == "memlab":
        import memlab.bm25  # noqa: F401  (imports outside the measurement, as for bm25s)
        corpus = Corpus.from_texts(data)
        del data  # the stage's build reads corpus.texts itself (counted: it is its cost)
    else:
        import bm25s  # noqa: F401
    gc.collect()
    exact = reset_peak()
    base_rss, base_peak = rss_kib()
    traced = os.environ.get("BENCH_TRACEMALLOC") == "1"
    if traced:
        tracemalloc.start()
    if system == "memlab":
        stage = BM25(corpus, tokenizer=Tokenizer(**PLAIN), variant="lucene")
        stage._fit()
        kept = stage.counts_.nbytes + stage.term_doc_weights_.data.nbytes
    else:
        r = bm25s_index(data)
        kept = sum(a.nbytes for a in (r.scores["data"], r.scores["indices"],
                                      r.scores["indptr"]))
    peak = tracemalloc.get_traced_memory()[1] if traced else float("nan")
    if traced:
        tracemalloc.stop()
    rss, hwm = rss_kib()
    print(json.dumps({"build_peak_mb": (hwm - base_rss) / 1024,
                      "build_peak_exact": exact and base_peak == base_rss,
                      "rss_after_mb": (rss - base_rss) / 1024,
                      "tracemalloc_peak_mb": peak / 2**20, "index_arrays_mb": kept / 2**20}))


def memory(system: str, input_path: str, traced: bool) -> dict:
    out = subprocess.run([sys.executable, __file__, "--memory-child", system, input_path],
                         capture_output=True, text=True, check=True,
                         env=os.environ | {"DISABLE_TQDM": "1",
                                           "BENCH_TRACEMALLOC": "1" if traced else "0"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def memory_both(doc_tokens: list[list[str]], traced: bool) -> dict[str, dict]:
    """Each system's build peak, each in its own subprocess (memlab indexes the texts, bm25s
    the token lists: the same tokens)."""
    inputs = {"memlab": [" ".join(t) for t in doc_tokens], "bm25s": doc_tokens}
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for system, data in inputs.items():
            path = Path(tmp) / f"{system}.pkl"
            with open(path, "wb") as fh:
                pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
            out[system] = memory(system, str(path), traced)
    return out


def interleaved(fns: dict[str, callable], repeat: int) -> dict[str, list[float]]:
    """CPU seconds of each function per round, run round-robin (order alternating each
    round)."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    for r in range(max(1, repeat)):
        for name in names if r % 2 == 0 else names[::-1]:
            t0 = time.process_time()
            fns[name]()
            times[name].append(time.process_time() - t0)
    return times


def medians(times: dict[str, list[float]]) -> dict[str, float]:
    return {name: statistics.median(t) for name, t in times.items()}


def paired_ratio(times: dict[str, list[float]], ours: str, peer: str) -> float:
    """The median over rounds of ``ours / peer`` within each round: the two ran next to each
    other, so a change of machine speed between rounds (another tenant, the clock) cancels,
    where a ratio of the two medians would keep it."""
    return statistics.median(a / b for a, b in zip(times[ours], times[peer], strict=True))


def bench(name: str, docs: list[str], queries: list[str], args) -> dict:
    load_before = os.getloadavg()
    tok = Tokenizer(stopwords="en-lucene", stemmer="english")
    doc_tokens = tok.tokenize_many(docs)
    query_tokens = tok.tokenize_many(queries)
    qtexts = [" ".join(t) for t in query_tokens]
    single = list(range(min(len(queries), args.single_queries)))
    k = min(args.k, len(docs))
    nb = memlab_stage(doc_tokens, k, "numba")
    npy = memlab_stage(doc_tokens, k, "numpy")
    retriever = bm25s_index(doc_tokens)

    def bm25s_batch():
        return retriever.retrieve(query_tokens, k=k, show_progress=False, n_threads=1)

    # warm-up: JIT compilation of both numba kernels, the boost-free stage path, and the
    # stage's one-query path (its boost kernel, the frequent tokens' bitsets)
    nb._rank(qtexts[:3])
    for text in qtexts[:3]:
        nb.transform_query(Query(text))
    bm25s_batch()
    ours = nb._rank(qtexts)
    same_bits = all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
                    for a, b in zip(ours, npy._rank(qtexts), strict=True))
    batch_t = interleaved({
        "memlab": lambda: nb._rank(qtexts),
        "bm25s": bm25s_batch,
        "memlab_numpy": lambda: npy._rank(qtexts),
    }, args.repeat)
    one_t = interleaved({
        "memlab": lambda: [nb._rank([qtexts[i]]) for i in single],
        "bm25s": lambda: [retriever.retrieve([query_tokens[i]], k=k, show_progress=False,
                                             n_threads=1) for i in single],
        # the BM25 *stage* on arrays: hits + text scores + OpenClaw's boost
        "memlab_stage": lambda: [nb.transform_query(Query(qtexts[i])) for i in single],
    }, args.repeat)
    batch, one = medians(batch_t), medians(one_t)
    b_docs, b_scores = bm25s_batch()
    diffs, overlap = [], []
    for i, (d, s) in enumerate(ours):
        n = len(d)
        keep = b_scores[i] > 0
        top_b = b_docs[i][keep]
        if n:
            diffs.append(float(np.abs(np.sort(s)[::-1] - np.sort(b_scores[i][keep])[::-1][:n])
                               .max()) if keep.sum() >= n else float("inf"))
        tb, tm = set(top_b[:10].tolist()), set(d[:10].tolist())
        overlap.append(len(tb & tm) / max(1, len(tb)) if tb else float(not tm))
    mem = memory_both(doc_tokens, args.tracemalloc)
    n_q = len(queries)
    return {
        "corpus": name, "docs": len(docs), "queries": n_q, "single_queries": len(single),
        "batch_s": batch, "single_s": one,
        "batch_ratio": paired_ratio(batch_t, "memlab", "bm25s"),
        "single_ratio": paired_ratio(one_t, "memlab", "bm25s"),
        "numpy_batch_ratio": paired_ratio(batch_t, "memlab_numpy", "bm25s"),
        "stage_over_raw_single": paired_ratio(one_t, "memlab_stage", "memlab"),
        "memlab_qps_batch": n_q / batch["memlab"], "bm25s_qps_batch": n_q / batch["bm25s"],
        "memory": mem,
        "memory_ratio_tracemalloc": (mem["memlab"]["tracemalloc_peak_mb"]
                                     / mem["bm25s"]["tracemalloc_peak_mb"]
                                     if args.tracemalloc else None),
        "memory_ratio_build_peak": (mem["memlab"]["build_peak_mb"]
                                    / max(mem["bm25s"]["build_peak_mb"], 1e-9)),
        "memory_ratio_index_arrays": (mem["memlab"]["index_arrays_mb"]
                                      / max(mem["bm25s"]["index_arrays_mb"], 1e-9)),
        "numba_equals_numpy": same_bits,
        "max_abs_score_diff_vs_bm25s": max(diffs) if diffs else 0.0,
        "top10_overlap": float(np.mean(overlap)),
        "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
    }


def table(rows: list[dict]) -> tuple[list[str], list[list]]:
    headers = ["corpus", "docs", "queries", "batch memlab/bm25s-numba (target <= 1.0)",
               "one query at a time (target <= 1.0)", "numpy kernel batch / bm25s-numba",
               "stage one at a time / raw (target <= 1.5)",
               "index peak MB memlab / bm25s (tracemalloc)",
               "build peak RSS MB memlab / bm25s", "build peak ratio (target <= 1.2)",
               "index arrays MB memlab / bm25s",
               "numba == numpy", "max \\|Δscore\\| vs bm25s",
               "top-10 overlap", "load avg before → after"]
    out = []
    for r in rows:
        m = r["memory"]
        out.append([r["corpus"], r["docs"], f"{r['queries']} ({r['single_queries']} single)",
                    f"{r['batch_ratio']:.2f}", f"{r['single_ratio']:.2f}",
                    f"{r['numpy_batch_ratio']:.2f}", f"{r['stage_over_raw_single']:.2f}",
                    f"{m['memlab']['tracemalloc_peak_mb']:.0f} / "
                    f"{m['bm25s']['tracemalloc_peak_mb']:.0f}",
                    f"{m['memlab']['build_peak_mb']:.0f} / {m['bm25s']['build_peak_mb']:.0f}",
                    f"{r['memory_ratio_build_peak']:.2f}",
                    f"{m['memlab']['index_arrays_mb']:.0f} / "
                    f"{m['bm25s']['index_arrays_mb']:.0f}",
                    str(r["numba_equals_numpy"]), f"{r['max_abs_score_diff_vs_bm25s']:.1e}",
                    f"{r['top10_overlap']:.4f}",
                    f"{r['loadavg_before'][0]:.1f} → {r['loadavg_after'][0]:.1f}"])
    return headers, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpora", default="scifact,npl,synthetic")
    ap.add_argument("--datasets", type=Path, default=DATASETS)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--synthetic-docs", type=int, default=200_000)
    ap.add_argument("--synthetic-queries", type=int, default=1_000)
    ap.add_argument("--single-queries", type=int, default=1_000,
                    help="queries timed one at a time (the first N)")
    ap.add_argument("--tracemalloc", action="store_true",
                    help="also trace Python allocations while indexing (slow: 2-4x)")
    ap.add_argument("--tiny", action="store_true", help="synthetic only, 2,000 docs, 1 repeat")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--memory-child", nargs=2, metavar=("SYSTEM", "TOKENS"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.memory_child:
        memory_child(*args.memory_child)
        return 0
    if args.tiny:
        args.corpora, args.repeat = "synthetic", 1
        args.synthetic_docs, args.synthetic_queries, args.single_queries = 2_000, 50, 20
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
        print(f"{name} done (load {os.getloadavg()[0]:.1f}): {json.dumps(rows[-1], default=float)}",
              flush=True)
    if not rows:
        print("nothing to run")
        return 0
    headers, body = table(rows)
    print(f"depth {args.k}, one thread, CPU time medians of {args.repeat} interleaved rounds")
    print(markdown(headers, body))
    path = write_json("bench_bm25", {
        "versions": versions("bm25s", "numba"),
        "params": vars(args) | {"out": str(args.out), "datasets": str(args.datasets)},
        "rows": rows, "table": {"headers": headers, "rows": body}}, args.out)
    print(f"wrote {path}")
    return 0 if all(r["numba_equals_numpy"] and r["max_abs_score_diff_vs_bm25s"] <= 1e-6
                    for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
