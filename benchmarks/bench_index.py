"""Indexing: cold ``memlab index``, warm re-index from the embedding cache, one changed file,
and the local provider's embedding throughput vs sentence-transformers itself.

    .venv/bin/python benchmarks/bench_index.py [--notes 10000] [--tiny]

A seeded synthetic workspace (``MEMORY.md`` plus ``--notes`` short daily notes under
``memory/``, one or two lines of ~10-25 words each, so one chunk per note) is indexed through
the Python API ``memlab index`` uses (:func:`memlab.openclaw.make_embedder`,
:class:`memlab.index.IndexStore`, :func:`memlab.index.sync_index`), with the bundled local
model (all-MiniLM-L6-v2) and an embedding cache in a scratch folder:

1. **cold**: an empty index and an empty embedding cache (every chunk embedded);
2. **warm** ``--force``: a full rebuild with the cache full. Target: 0 provider calls and
   >= 20x faster than cold;
3. **one changed file**: one note edited, then an incremental sync. Target: only that file's
   chunks embedded (provider calls and texts counted);
4. **throughput**: ``LocalProvider.embed_documents`` vs ``SentenceTransformer.encode`` (same
   model object, batch size and normalisation) on the same ``--throughput-texts`` chunk texts,
   alternated ``--repeat`` times (medians). Target: >= 90%.

``--tiny`` (smoke test): 300 notes and hashed bag-of-words vectors instead of the model (the
throughput step is skipped).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import HashedBow, markdown, versions, write_json  # noqa: E402

WORDS = ("deploy billing ledger invoice staging database retry window release migration "
         "schema alert pager oncall incident rollback cache queue worker cron backup vault "
         "token secret rotate review sprint roadmap customer churn pricing contract renewal "
         "meeting decision owner deadline budget latency timeout error webhook endpoint "
         "client server cluster node region replica shard index search memory agent note "
         "tuesday friday morning evening maya jonas priya lee kim ops infra team").split()


def synthetic_workspace(root: Path, notes: int, seed: int = 0) -> list[Path]:
    """Write ``MEMORY.md`` and ``notes`` short notes (seeded); returns the note paths."""
    import datetime as dt

    rng = np.random.default_rng(seed)
    mem = root / "memory"
    mem.mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_text("# Memory\n\nLong-lived facts about the team.\n",
                                    encoding="utf-8")
    start = dt.date(2020, 1, 1)
    paths = []
    vocab = np.array(WORDS)
    for i in range(notes):
        day = start + dt.timedelta(days=i // 4)
        path = mem / f"{day.isoformat()}-note-{i % 4}.md"
        lines = []
        for _ in range(int(rng.integers(1, 3))):
            words = rng.choice(vocab, int(rng.integers(10, 26)))
            lines.append(" ".join(words).capitalize() + f" (#{i}).")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def _sync(workspace: Path, config_path: Path, index_path: Path, force: bool,
          provider: object | None):
    """What ``memlab index`` does (cli._index): returns (report, provider calls, texts)."""
    from memlab.config import load_config
    from memlab.embed.cache import CachedEmbedder
    from memlab.index.store import IndexStore
    from memlab.index.sync import sync_index
    from memlab.openclaw import make_embedder

    cfg = load_config(config_path)
    embedder = make_embedder(cfg)
    if provider is not None:  # --tiny: same cache wiring, a model-free provider
        assert isinstance(embedder, CachedEmbedder)
        embedder = CachedEmbedder(provider, embedder.cache)
    store = IndexStore(index_path, fts_tokenizer=cfg.memory_search.store.fts.tokenizer)
    try:
        report = sync_index(store, workspace, cfg, embedder, force=force,
                            on_mismatch="rebuild")
    finally:
        store.close()
    stats = embedder.stats() if isinstance(embedder, CachedEmbedder) else {}
    return report, stats.get("calls", 0), stats.get("texts_embedded", 0)


def throughput(texts: list[str], repeat: int, batch_size: int) -> dict[str, float]:
    """Texts/s of LocalProvider.embed_documents and of SentenceTransformer.encode."""
    from memlab.embed.local import LocalProvider

    provider = LocalProvider(batch_size=batch_size, show_progress=False)
    model = provider.load()
    provider.embed_documents(texts[:64])  # warm up
    model.encode(texts[:64], batch_size=batch_size, normalize_embeddings=True)
    ours, theirs = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        a = provider.embed_documents(texts)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        b = model.encode(texts, batch_size=batch_size, show_progress_bar=False,
                         convert_to_numpy=True, normalize_embeddings=True)
        theirs.append(time.perf_counter() - t0)
    same = bool(np.allclose(a, b, atol=1e-6))
    return {"memlab_texts_per_s": len(texts) / statistics.median(ours),
            "st_texts_per_s": len(texts) / statistics.median(theirs),
            "memlab_seconds": ours, "st_seconds": theirs, "same_vectors": same}


def main(argv: list[str] | None = None) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--throughput-texts", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tiny", action="store_true",
                    help="300 notes, hashed bag-of-words vectors, no throughput step")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.tiny:
        args.notes = 300
    provider = HashedBow() if args.tiny else None
    scratch = Path(tempfile.mkdtemp(prefix="memlab-bench-index-"))
    try:
        ws = scratch / "workspace"
        notes = synthetic_workspace(ws, args.notes)
        config_path = scratch / "memlab.json"
        config_path.write_text(json.dumps({
            "memorySearch": {"provider": "local"},
            "memlab": {"embeddingCache": str(scratch / "embeddings.sqlite")}}),
            encoding="utf-8")
        index = scratch / "index.sqlite"

        t0 = time.perf_counter()
        cold, cold_calls, cold_texts = _sync(ws, config_path, index, False, provider)
        cold_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        warm, warm_calls, warm_texts = _sync(ws, config_path, index, True, provider)
        warm_s = time.perf_counter() - t0
        changed = notes[len(notes) // 2]
        changed.write_text(changed.read_text(encoding="utf-8") + "Edited: moved to friday.\n",
                           encoding="utf-8")
        t0 = time.perf_counter()
        inc, inc_calls, inc_texts = _sync(ws, config_path, index, False, provider)
        inc_s = time.perf_counter() - t0

        from memlab.index.store import IndexStore

        store = IndexStore(index)
        try:
            rel = changed.relative_to(ws).as_posix()
            changed_chunks = int(store.execute(
                "SELECT COUNT(*) FROM memory_index_chunks WHERE path = ?", (rel,))[0][0])
            texts = store.corpus().texts[: args.throughput_texts]
        finally:
            store.close()
        tp = None
        if not args.tiny:
            tp = throughput(list(texts), args.repeat, 32)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    speedup = cold_s / warm_s
    rows = [
        ["cold index", cold_s, cold.chunks, cold_calls, cold_texts, "-"],
        ["warm --force (cache full)", warm_s, warm.chunks, warm_calls, warm_texts,
         f"0 calls: {'met' if warm_calls == 0 else 'MISSED'}; {speedup:.1f}x faster "
         f"(>= 20x: {'met' if speedup >= 20 else 'MISSED'})"],
        ["one changed file", inc_s, inc.chunks_written, inc_calls, inc_texts,
         f"{changed_chunks} chunk(s) in the file: "
         f"{'met' if inc_texts == changed_chunks and inc_calls <= 1 else 'MISSED'}"],
    ]
    model = "bow-v1 (hashed, --tiny)" if args.tiny else "all-MiniLM-L6-v2 (local)"
    print(f"{args.notes} notes (+ MEMORY.md), {cold.chunks} chunks, model {model}")
    print(markdown(["step", "seconds", "chunks", "provider calls", "texts embedded", "target"],
                   rows))
    if tp is not None:
        ratio = tp["memlab_texts_per_s"] / tp["st_texts_per_s"]
        print(markdown(["embedding throughput", "texts/s"], [
            ["memlab LocalProvider.embed_documents", tp["memlab_texts_per_s"]],
            ["sentence-transformers encode", tp["st_texts_per_s"]],
            ["ratio (target >= 90%)",
             f"{ratio:.1%} ({'met' if ratio >= 0.9 else 'MISSED'})"]]))
    else:
        ratio = None
    path = write_json("bench_index", {
        "versions": versions("sentence-transformers", "torch"),
        "params": vars(args) | {"out": str(args.out)},
        "chunks": cold.chunks, "cold_seconds": cold_s, "cold_calls": cold_calls,
        "cold_texts": cold_texts, "warm_seconds": warm_s, "warm_calls": warm_calls,
        "warm_texts": warm_texts, "warm_speedup": speedup, "changed_seconds": inc_s,
        "changed_calls": inc_calls, "changed_texts": inc_texts,
        "changed_file_chunks": changed_chunks, "throughput": tp, "throughput_ratio": ratio},
        args.out)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
