"""memlab.bm25: the lean index equals the pre-change weights, the numba kernel equals the numpy
kernel bit for bit (and both the sparse product), identical top-k, backend selection, and the
numpy path when numba is absent."""

from __future__ import annotations

import builtins
import json
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from memlab.bm25 import (
    Postings,
    QueryTerms,
    bm25_weights,
    count_terms,
    idf,
    query_terms,
    rank,
    rank_numpy,
    resolve_backend,
    tfc,
)
from memlab.bm25 import score as score_module
from memlab.corpus import Corpus, load_workspace
from memlab.kernels import backend as kernel_backend
from memlab.stages.lexical import BM25, VARIANTS, TfIdf
from memlab.text import Tokenizer

os.environ.setdefault("DISABLE_TQDM", "1")
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "datasets" / "sample-memory"
SHARED = ROOT.parent / "shared" / "datasets"


def has_numba() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


needs_numba = pytest.mark.skipif(not has_numba(), reason="numba not installed (speed extra)")


def zipf_texts(n_docs: int, n_queries: int, vocab: int, seed: int, doc_len: int = 40):
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocab)])
    p = 1.0 / np.arange(1, vocab + 1)
    p /= p.sum()
    docs = [" ".join(rng.choice(words, size=rng.integers(0, doc_len), p=p))
            for _ in range(n_docs)]
    docs += [docs[3]] * 4  # exact ties
    queries = [" ".join(rng.choice(words, size=rng.integers(1, 6), p=p))
               for _ in range(n_queries)]
    queries += ["w0", "w0 w0 w1", "nope w2", "nope", "", "w5 w5", f"w{vocab - 1}"]
    return docs, queries


def pre_change_weights(token_lists, variant, k1, b, delta):
    """The term × doc weights as memlab built them before memlab.bm25 (a doc-major float64
    count matrix, weights on its data, transposed), with the same formulas."""
    vocabulary: dict[str, int] = {}
    rows, cols = [], []
    for r, tokens in enumerate(token_lists):
        for t in tokens:
            cols.append(vocabulary.setdefault(t, len(vocabulary)))
            rows.append(r)
    counts = sp.csr_matrix((np.ones(len(cols)), (rows, cols)),
                           shape=(len(token_lists), len(vocabulary)))
    counts.sum_duplicates()
    doc_len = np.asarray(counts.sum(axis=1)).ravel()
    df = np.bincount(counts.indices, minlength=len(vocabulary))
    avgdl = float(doc_len.mean())
    idf_ = idf(variant, df, len(token_lists))
    w = counts.copy()
    w.data = idf_[w.indices] * tfc(variant, w.data, np.repeat(doc_len, np.diff(w.indptr)),
                                   avgdl, k1, b, delta)
    if variant in ("bm25l", "bm25+"):
        w.data -= (idf_ * tfc(variant, 0.0, avgdl, avgdl, k1, b, delta))[w.indices]
    return vocabulary, w.T.tocsr()


def assert_same_hits(got, want):
    assert len(got) == len(want)
    for (d, s), (d0, s0) in zip(got, want, strict=True):
        assert d.dtype == np.int64 and s.dtype == np.float64
        np.testing.assert_array_equal(d, d0)
        np.testing.assert_array_equal(s, s0)  # bit-identical


def dense_reference(stage, queries, depth):
    """Hits from scipy's sparse product (``score_matrix``) and the presence matrix."""
    scores = stage.score_matrix(queries)
    q_counts, n_distinct = stage._query_counts(queries)
    q_terms = q_counts.copy()
    q_terms.data[:] = 1.0
    present = (q_terms @ stage.term_doc_presence_).toarray()
    hit = (present >= np.maximum(n_distinct, 1)[:, None] if stage.match == "all"
           else present > 0)
    out = []
    for i in range(len(queries)):
        docs = np.flatnonzero(hit[i])
        order = np.lexsort((docs, -scores[i][docs]))[:depth]
        out.append((docs[order].astype(np.int64), scores[i][docs[order]]))
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_lean_index_weights_equal_the_pre_change_build(variant):
    docs, _ = zipf_texts(300, 0, 400, seed=1)
    tokens = [d.split() for d in docs]
    vocab, want = pre_change_weights(tokens, variant, 1.2, 0.7, 0.5)
    counts = count_terms(tokens, batch=37)  # many batches: vocabulary order must not change
    got = bm25_weights(counts, variant, 1.2, 0.7, 0.5).matrix
    assert counts.vocabulary == vocab
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.data, want.data)


def test_index_is_lean():
    docs, _ = zipf_texts(500, 0, 300, seed=2)
    counts = count_terms([d.split() for d in docs])
    assert counts.tf.dtype == np.uint8 and counts.docs.dtype == np.int32
    w = bm25_weights(counts, "lucene", 1.5, 0.75, 0.5).matrix
    # the weights share the postings' documents and pointers instead of copying them
    assert np.shares_memory(w.indices, counts.docs) and np.shares_memory(w.indptr, counts.indptr)
    stage = BM25(Corpus.from_texts(docs))
    stage._fit()
    assert "doc_term_counts_" not in stage.__dict__ and "term_doc_presence_" not in stage.__dict__


def test_count_terms_wide_counts_and_empty_docs():
    counts = count_terms([["a"] * 300, [], ["b", "a"]])
    assert counts.tf.dtype == np.uint16
    assert counts.tf.tolist() == [300, 1, 1] and counts.doc_len.tolist() == [300.0, 0.0, 2.0]
    assert count_terms([]).nnz == 0


CONFIGS = [(v, m, d) for v in VARIANTS for m in ("any", "all") for d in (1, 7, None)]


@needs_numba
@pytest.mark.parametrize("variant,match,depth", CONFIGS)
def test_numba_equals_numpy_equals_sparse_product_random(variant, match, depth):
    docs, queries = zipf_texts(400, 80, 300, seed=3)
    corpus = Corpus.from_texts(docs)
    out = {}
    for backend in ("numpy", "numba"):
        stage = BM25(corpus, variant=variant, match=match, depth=depth, backend=backend)
        stage._fit()
        out[backend] = stage._rank(queries)
    assert_same_hits(out["numba"], out["numpy"])
    assert_same_hits(out["numpy"], dense_reference(stage, queries, depth))


@needs_numba
@pytest.mark.parametrize("match", ["any", "all"])
def test_numba_equals_numpy_tfidf(match):
    docs, queries = zipf_texts(300, 60, 200, seed=4)
    corpus = Corpus.from_texts(docs)
    out = {}
    for backend in ("numpy", "numba"):
        stage = TfIdf(corpus, match=match, depth=10, backend=backend)
        stage._fit()
        out[backend] = stage._rank(queries)
    assert_same_hits(out["numba"], out["numpy"])


@needs_numba
@pytest.mark.parametrize("n_docs", [40, 4000])  # dense (one pass over all docs) and sparse
def test_numba_paths_dense_and_sparse_equal_numpy(n_docs):
    docs, queries = zipf_texts(n_docs, 60, 3000, seed=5)
    corpus = Corpus.from_texts(docs)
    for depth in (3, 50):
        s_np = BM25(corpus, depth=depth, backend="numpy")
        s_nb = BM25(corpus, depth=depth, backend="numba")
        s_np._fit()
        s_nb._fit()
        assert_same_hits(s_nb._rank(queries), s_np._rank(queries))



@needs_numba
def test_numba_scratch_reuse_one_query_at_a_time_and_threads():
    """The kernel keeps per-document scratch between calls: queries of every path (dense,
    sparse, match="all", bm25+'s constant, TF-IDF's presence) one at a time, interleaved on
    the same postings and from several threads, equal numpy's batch."""
    from concurrent.futures import ThreadPoolExecutor

    docs, queries = zipf_texts(3000, 80, 2000, seed=9)
    corpus = Corpus.from_texts(docs)
    stages = [cls(corpus, depth=depth, match=match, backend=backend, **kw)
              for cls, kw in ((BM25, {}), (BM25, {"variant": "bm25+"}), (TfIdf, {}))
              for depth in (5, None) for match in ("any", "all")
              for backend in ("numpy", "numba")]
    for s in stages:
        s._fit()
    pairs = list(zip(stages[::2], stages[1::2], strict=True))
    want = [s_np._rank(queries) for s_np, _ in pairs]
    one_by_one = [[] for _ in pairs]
    for q in queries:  # alternate stages between queries: scratch must be left clean
        for i, (_, s_nb) in enumerate(pairs):
            one_by_one[i] += s_nb._rank([q])
    for got, ref in zip(one_by_one, want, strict=True):
        assert_same_hits(got, ref)
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda i: [pairs[i % len(pairs)][1]._rank([q])[0]
                                            for q in queries], range(4 * len(pairs))))
    for i, got in enumerate(threaded):
        assert_same_hits(got, want[i % len(pairs)])

def sample_corpus() -> Corpus:
    return load_workspace(SAMPLE / "workspace")


@needs_numba
@pytest.mark.skipif(not (SAMPLE / "workspace").exists(), reason="no sample workspace")
@pytest.mark.parametrize("variant", VARIANTS)
def test_numba_equals_numpy_on_the_sample_workspace(variant):
    corpus = sample_corpus()
    with open(SAMPLE / "queries.jsonl", encoding="utf-8") as fh:
        queries = [json.loads(line)["text"] for line in fh if line.strip()]
    for match in ("any", "all"):
        res = {}
        for backend in ("numpy", "numba"):
            stage = BM25(corpus, variant=variant, match=match, depth=10, backend=backend,
                         tokenizer=Tokenizer(stemmer="english"))
            stage._fit()
            res[backend] = stage._rank(queries)
        assert_same_hits(res["numba"], res["numpy"])
        assert_same_hits(res["numpy"], dense_reference(stage, queries, 10))


@needs_numba
@pytest.mark.skipif(not (SHARED / "scifact" / "corpus.jsonl").exists(), reason="no SciFact")
def test_numba_equals_numpy_on_scifact():
    root = SHARED / "scifact"
    with open(root / "corpus.jsonl", encoding="utf-8") as fh:
        docs = [" ".join(filter(None, (d.get("title"), d.get("text"))))
                for d in map(json.loads, fh)]
    with open(root / "queries.jsonl", encoding="utf-8") as fh:
        queries = [q["text"] for q in map(json.loads, fh)]
    corpus = Corpus.from_texts(docs)
    tok = Tokenizer(stopwords="en-lucene", stemmer="english")
    for variant in ("lucene", "bm25+"):
        res = {}
        for backend in ("numpy", "numba"):
            stage = BM25(corpus, tokenizer=tok, variant=variant, depth=100, backend=backend)
            stage._fit()
            res[backend] = stage._rank(queries)
        assert_same_hits(res["numba"], res["numpy"])


def test_query_terms_equal_the_count_matrix_rows():
    docs, queries = zipf_texts(100, 50, 80, seed=6)
    stage = BM25(Corpus.from_texts(docs), variant="bm25l")
    stage._fit()
    fast = stage._query_terms(queries)
    q_counts, n_distinct = stage._query_counts(queries)
    q_weights, const = stage._query_weights(q_counts)
    slow = QueryTerms.from_matrix(q_weights, q_counts, const, n_distinct)
    for name in ("ptr", "terms", "weights", "hit_ptr", "hit_terms", "const", "need"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=name)
    assert query_terms([[]], {}).need.tolist() == [0]


def test_backend_selection(monkeypatch):
    monkeypatch.delenv("MEMLAB_KERNEL_BACKEND", raising=False)
    assert resolve_backend("numpy") == "numpy"
    assert resolve_backend("auto") == ("numba" if has_numba() else "numpy")
    monkeypatch.setenv("MEMLAB_KERNEL_BACKEND", "numpy")
    assert resolve_backend("auto") == "numpy"
    monkeypatch.setenv("MEMLAB_KERNEL_BACKEND", "fortran")
    with pytest.raises(ValueError, match="MEMLAB_KERNEL_BACKEND"):
        resolve_backend("auto")
    with pytest.raises(ValueError, match="backend must be one of"):
        resolve_backend("cuda")
    with pytest.raises(ValueError, match="backend must be one of"):
        BM25(Corpus.from_texts(["a"]), backend="cuda")("a")


def test_numba_absent_falls_back_to_numpy(monkeypatch):
    monkeypatch.delenv("MEMLAB_KERNEL_BACKEND", raising=False)
    real_import = builtins.__import__

    def no_numba(name, *args, **kwargs):
        if name == "numba" or name.startswith("numba."):
            raise ImportError("No module named 'numba' (simulated)")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_numba)
    monkeypatch.setattr(kernel_backend, "_available", {})  # forget the cached import check
    assert resolve_backend("auto") == "numpy"
    with pytest.raises(ImportError, match="memlab\\[speed\\]"):
        resolve_backend("numba")
    calls = []
    monkeypatch.setattr(score_module, "rank_numpy",
                        lambda *a, **k: calls.append(1) or rank_numpy(*a, **k))
    docs, queries = zipf_texts(50, 5, 30, seed=7)
    stage = BM25(Corpus.from_texts(docs), depth=5)
    stage._fit()
    hits = stage._rank(queries)
    assert calls and len(hits) == len(queries)


def test_rank_direct_api():
    counts = count_terms([["deploy", "key"], ["rotate", "key"], ["lunch"]])
    post = Postings(bm25_weights(counts, "lucene", 1.5, 0.75, 0.5).matrix)
    q = query_terms([["key"], ["lunch", "nope"], []], counts.vocabulary)
    for backend in ("numpy", "numba") if has_numba() else ("numpy",):
        (d0, s0), (d1, _), (d2, _) = rank(post, q, depth=10, backend=backend)
        assert d0.tolist() == [0, 1] and s0[0] == s0[1]  # tie: lower docno first
        assert d1.tolist() == [2] and d2.tolist() == []
        (d1_all, _), = rank(post, query_terms([["lunch", "nope"]], counts.vocabulary),
                            depth=10, match_all=True, backend=backend)
        assert d1_all.tolist() == []


@needs_numba
@pytest.mark.parametrize("depth", [1, 5, 50, 300, None])
def test_numba_dense_path_guessed_floor_and_ties_equal_numpy(depth):
    """The dense path guesses its first block's floor from every 16th document: here those
    score highest, so the guess lets fewer than ``depth`` hits through and the block is
    scanned again; the rest come in long runs of equal scores, cut at the top-k boundary by
    docno."""
    docs = [("a a a a b " if i % 16 == 0 else "a b ") + "c " * (i % 3) for i in range(4000)]
    corpus = Corpus.from_texts(docs)
    queries = ["a", "b", "a b", "a c", "c"]
    out = {}
    for backend in ("numpy", "numba"):
        stage = BM25(corpus, depth=depth, backend=backend)
        stage._fit()
        out[backend] = stage._rank(queries)
    assert_same_hits(out["numba"], out["numpy"])
    assert_same_hits(out["numpy"], dense_reference(stage, queries, depth))
    assert len(out["numba"][0][0]) == min(depth or 4000, 4000)


@needs_numba
@pytest.mark.parametrize("block", [1, 7, 64, 1000])
@pytest.mark.parametrize("depth", [1, 5, 50, None])
def test_numba_dense_path_blocks_equal_numpy(monkeypatch, block, depth):
    """The dense path adds postings block by block (``BLOCK_DOCS`` documents): any block
    size, one that does not divide the documents, blocks without postings of a term, the
    first block's guessed floor redone, the floor carried across blocks -- the same hits as
    numpy."""
    from memlab.bm25 import numba_backend

    docs, queries = zipf_texts(3000, 60, 400, seed=11)
    docs += [("a a a a b " if i % 16 == 0 else "a b ") + "c " * (i % 3) for i in range(500)]
    queries += ["a", "b", "a b", "a c", "c"]
    corpus = Corpus.from_texts(docs)
    out = {}
    for backend in ("numpy", "numba"):
        monkeypatch.setattr(numba_backend, "BLOCK_DOCS", block)
        stage = BM25(corpus, depth=depth, backend=backend)
        stage._fit()
        out[backend] = stage._rank(queries)
    assert_same_hits(out["numba"], out["numpy"])
    q = stage._query_terms(queries)
    df = np.diff(stage._postings().weights.indptr)
    n_post = np.add.reduceat(np.append(df[q.terms], 0), q.ptr[:-1])[np.diff(q.ptr) > 0]
    assert (4 * n_post >= len(docs)).sum() >= 10  # many queries take the dense path
