"""The per-query ranking of the lexical stages (``_rank``): bit-identical to the sparse
product (``score_matrix``), hits exactly the documents that match, deterministic tie order
(score descending, then docno ascending), on both selection paths (few postings: selection
among the candidates; many postings: partition over every document)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from memlab.corpus import Corpus
from memlab.frames import as_queries
from memlab.stages.lexical import BM25, VARIANTS, TfIdf
from memlab.text import Tokenizer

os.environ.setdefault("DISABLE_TQDM", "1")


def _texts(n_docs: int, n_queries: int, vocab: int, seed: int, doc_len: int = 40):
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocab)])
    p = 1.0 / np.arange(1, vocab + 1)
    p /= p.sum()
    docs = [" ".join(rng.choice(words, size=rng.integers(0, doc_len), p=p))
            for _ in range(n_docs)]
    docs += [docs[3]] * 4  # duplicates: exact ties
    queries = [" ".join(rng.choice(words, size=rng.integers(1, 6), p=p))
               for _ in range(n_queries)]
    queries += ["w0", "w0 w0 w1", "nope w2", "nope", "", "w5 w5", f"w{vocab - 1}"]
    return docs, queries


def reference(stage, queries: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Hits from the dense score matrix (scipy's sparse product) and the presence matrix."""
    scores = stage.score_matrix(queries)
    q_counts, n_distinct = stage._query_counts(queries)
    q_terms = q_counts.copy()
    q_terms.data[:] = 1.0
    present = (q_terms @ stage.term_doc_presence_).toarray()
    if stage.match == "all":
        hit = present >= np.maximum(n_distinct, 1)[:, None]
    else:
        hit = present > 0
    out = []
    for i in range(len(queries)):
        docs = np.flatnonzero(hit[i])
        order = np.lexsort((docs, -scores[i][docs]))[: stage.depth]
        out.append((docs[order], scores[i][docs[order]]))
    return out


def assert_same(got, want):
    assert len(got) == len(want)
    for (d, s), (d0, s0) in zip(got, want, strict=True):
        assert d.dtype == np.int64 and s.dtype == np.float64
        np.testing.assert_array_equal(d, d0)
        np.testing.assert_array_equal(s, s0)  # bit-identical, not approximately


# small vocabulary: queries hit most documents (partition path); large vocabulary: few
# postings per query (candidate path)
CORPORA = {"dense": dict(n_docs=400, n_queries=30, vocab=40, seed=1),
           "sparse": dict(n_docs=400, n_queries=30, vocab=5000, seed=2)}


@pytest.mark.parametrize("corpus_kind", list(CORPORA))
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("depth", [1, 7, 100, None, 10_000])
@pytest.mark.parametrize("match", ["any", "all"])
def test_rank_equals_sparse_product(corpus_kind, variant, depth, match):
    docs, queries = _texts(**CORPORA[corpus_kind])
    stage = BM25(Corpus.from_texts(docs), variant=variant, depth=depth, match=match)
    stage._fit()
    assert_same(stage._rank(queries), reference(stage, queries))


@pytest.mark.parametrize("corpus_kind", list(CORPORA))
@pytest.mark.parametrize("norm", ["l2", None])
def test_tfidf_rank_equals_sparse_product(corpus_kind, norm):
    docs, queries = _texts(**CORPORA[corpus_kind])
    stage = TfIdf(Corpus.from_texts(docs), depth=20, norm=norm, sublinear_tf=True)
    stage._fit()
    assert_same(stage._rank(queries), reference(stage, queries))


def test_zero_weight_terms_still_hit():
    # robertson floors the IDF of a term in most documents at 0: its documents score 0 but
    # are hits, so the "score > 0" shortcut must not be taken
    docs = ["common a", "common b", "common c", "common", "rare common"]
    stage = BM25(Corpus.from_texts(docs), variant="robertson", depth=10)
    stage._fit()
    got = stage._rank(["common", "common rare"])
    assert_same(got, reference(stage, ["common", "common rare"]))
    assert got[0][0].tolist() == [0, 1, 2, 3, 4]  # all tied at 0: docno order
    assert got[1][0][0] == 4


def test_ties_break_by_docno_whatever_the_path():
    # 50 identical documents: every score ties, at every depth and on both paths
    docs = ["alpha beta"] * 50 + ["gamma"] * 10
    stage = BM25(Corpus.from_texts(docs), depth=5)
    for depth in (5, 49, 50, 51, None):
        stage.set_params(depth=depth)
        stage._fit()
        (d, s), = stage._rank(["alpha"])
        assert d.tolist() == list(range(50))[:depth]
        assert len(set(s.tolist())) == 1


def test_hits_frame_unchanged_by_the_query_batch():
    docs, queries = _texts(**CORPORA["dense"])
    stage = BM25(Corpus.from_texts(docs), depth=10)
    together = stage.transform(as_queries(queries))
    for i in (0, 5, len(queries) - 2):
        alone = stage.transform(as_queries([queries[i]]))
        mine = together.loc[together["qid"] == str(i + 1)]
        np.testing.assert_array_equal(alone["docno"], mine["docno"])
        np.testing.assert_array_equal(alone["boosted_score"], mine["boosted_score"])


def test_scores_equal_bm25s_on_both_paths():
    bm25s = pytest.importorskip("bm25s")
    for kind in CORPORA:
        docs, queries = _texts(**CORPORA[kind])
        tok = Tokenizer()
        retriever = bm25s.BM25(method="lucene", dtype="float64")
        retriever.index(tok.tokenize_many(docs), show_progress=False)
        stage = BM25(Corpus.from_texts(docs), tokenizer=tok, depth=None)
        stage._fit()
        for (d, s), q in zip(stage._rank(queries), tok.tokenize_many(queries), strict=True):
            if q:
                np.testing.assert_allclose(s, retriever.get_scores(q)[d], rtol=0, atol=1e-12)
