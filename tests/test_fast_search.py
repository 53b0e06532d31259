"""The single-query array path (``Sequence.transform_query``, what ``MemorySearch.search``
runs) returns exactly what the frame pipeline (``MemorySearch.run``) returns, for every
pipeline shape and leg."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from memlab.embed.cache import CachedEmbedder
from memlab.embed.hashing import HashingProvider
from memlab.frames import Query
from memlab.openclaw import MemorySearch, hits_to_results

ROOT = Path(__file__).resolve().parents[1]
WORKSPACE = ROOT / "datasets" / "sample-memory" / "workspace"
QUERIES = [json.loads(line)["text"] for line in
           (ROOT / "datasets" / "sample-memory" / "queries.jsonl").read_text().splitlines()
           if line.strip()]
# queries that hit the keyword fallback, punctuation only, CJK, and a miss
QUERIES += ["zzqx unknownword deploy", "?!", "部署 staging", "no such thing anywhere qqq",
            "  billing  "]
NOW = "2026-10-01T09:00:00Z"




CONFIGS = {
    "hybrid": {},
    "hybrid-mmr-decay": {"query": {"hybrid": {"mmr": {"enabled": True, "lambda": 0.5},
                                              "temporalDecay": {"enabled": True,
                                                                "halfLifeDays": 20}}}},
    "hybrid-rrf": {"memlab": {"fusion": {"method": "rrf", "rrfK": 5}}},
    "hybrid-minmax": {"memlab": {"fusion": {"method": "minmax"}}},  # frame path
    "hybrid-bm25": {"memlab": {"keyword": "bm25"},
                    "query": {"hybrid": {"mmr": {"enabled": True}}}},
    "vector": {"query": {"hybrid": {"enabled": False}}},
    "none": {"provider": "none", "query": {"hybrid": {"temporalDecay": {"enabled": True}}}},
    "none-bm25": {"provider": "none", "memlab": {"keyword": "bm25"}},
}


def _config(name: str) -> dict:
    cfg = json.loads(json.dumps(CONFIGS[name]))
    memlab = cfg.pop("memlab", {})
    ms = {"provider": "local", **cfg}
    return {"memorySearch": ms, "memlab": {"keyword": "fts5", **memlab}}


def _frame_results(ms: MemorySearch, query: str, **kw) -> list[dict]:
    hits = ms.run(query, **kw)
    return hits_to_results(hits, ms.corpus, ms.mode) if len(hits) else []


@pytest.fixture(scope="module")
def embedder() -> CachedEmbedder:
    return CachedEmbedder(HashingProvider(bias=0.0))


@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_fast_path_equals_frame_pipeline(name, indexed, embedder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if indexed:
            from memlab.indexed_search import IndexedMemorySearch

            ms = IndexedMemorySearch(WORKSPACE, _config(name), embedder, index_path=":memory:")
        else:
            ms = MemorySearch(WORKSPACE, _config(name), embedder)
    fast_used = 0
    for q in QUERIES:
        for kw in ({"now": NOW}, {"now": NOW, "max_results": 20, "min_score": 0.0}):
            pipe = ms.pipeline(kw.get("max_results"), kw.get("min_score"), kw["now"])
            fast = (pipe.transform_query(Query(q.strip(), chunks=ms.corpus.chunks))
                    if q.strip() else None)
            fast_used += fast is not None
            got = ms.search(q, **kw)["results"]
            want = _frame_results(ms, q, **kw) if q.strip() else []
            assert got == want, (name, q, kw)
            if fast is not None:
                assert ms.result_builder.build(fast, ms.mode) == want, (name, q, kw)
    assert fast_used == 2 * len(QUERIES)


def test_fast_path_keeps_fallback_hits(embedder):
    """A query only the keyword fallback finds keeps every fallback hit in the merge."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ms = MemorySearch(WORKSPACE, _config("hybrid"), embedder)
    from memlab.index.fts import FTS5

    leg = ms.pipeline().stages[0].text.stage
    assert isinstance(leg, FTS5)
    found = leg.transform_query(Query("zzqx unknownword deploy"))
    assert found.fallback.all() and len(found.docno)


def test_fts_rows_without_a_chunk_are_still_filtered():
    """The FTS5 leg leaves OpenClaw's ``EXISTS`` filter out only while every FTS row has its
    chunk; a dangling row (another writer) brings it back, so it never takes a LIMIT slot."""
    from memlab.corpus import Corpus
    from memlab.index.fts import FTS5
    from memlab.index.store import FTS_TABLE

    corpus = Corpus.from_texts(["the deploy key is in vault", "rotate the key", "lunch"])
    leg = FTS5(corpus, depth=1)
    assert leg.transform_query(Query("deploy key")).docno.tolist() == [0]
    store, _ = leg._store()
    with store.write() as conn:
        conn.execute(f"INSERT INTO {FTS_TABLE} (text, id, path, source, model, start_line, "
                     "end_line) VALUES ('deploy key deploy key', 'gone', 'x.md', 'memory', "
                     "'fts-only', 1, 1)")
    assert leg.transform_query(Query("deploy key")).docno.tolist() == [0]
    assert leg("deploy key")["docno"].tolist() == [0]


@pytest.mark.parametrize("name", ["hybrid", "hybrid-mmr-decay", "hybrid-bm25"])
def test_compiled_tail_runs_and_equals_the_stages_one_by_one(name, embedder, monkeypatch):
    """With numba installed, OpenClaw's merge absorbs decay, MMR and the cut into one
    compiled call (memlab.kernels.tail); the hits equal each stage on its own (the numpy
    kernels, MEMLAB_KERNEL_BACKEND=numpy), every field, on every query."""
    pytest.importorskip("numba")
    from memlab.stages.fusion import Fusion

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ms = MemorySearch(WORKSPACE, _config(name), embedder)
    absorbed = []
    original = Fusion.absorb_query

    def spy(self, *args):
        done = original(self, *args)
        absorbed.append(None if done is None else done[1])
        return done

    monkeypatch.setattr(Fusion, "absorb_query", spy)
    for q in QUERIES:
        if not q.strip():
            continue
        for kw in ({"now": NOW}, {"now": NOW, "max_results": 20, "min_score": 0.0}):
            pipe = ms.pipeline(kw.get("max_results"), kw.get("min_score"), kw["now"])
            monkeypatch.delenv("MEMLAB_KERNEL_BACKEND", raising=False)
            fast = pipe.transform_query(Query(q.strip(), chunks=ms.corpus.chunks))
            monkeypatch.setenv("MEMLAB_KERNEL_BACKEND", "numpy")
            slow = pipe.transform_query(Query(q.strip(), chunks=ms.corpus.chunks))
            for field, a, b in zip(fast._fields, fast, slow, strict=True):
                assert (a is None) == (b is None), (field, q)
                if a is not None:
                    assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), (
                        field, q, kw)
    assert set(absorbed) == {3, None}  # decay, MMR (on or off) and the cut; None: numpy
