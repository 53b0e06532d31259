"""The BM25 / TF-IDF stages' text and boosted scores against a plain-Python reference.

The reference below recomputes OpenClaw's ``bm25RankToScore`` and
``scoreFallbackKeywordResult`` from scratch for every hit (regex tokens, Python sets,
``str.lower`` substring tests, UTF-16 lengths, float arithmetic in OpenClaw's order), so the
stages' vectorised / compiled paths are checked bit for bit on many queries, on both
retrieval backends, one query at a time (``transform_query``) and in batches
(``transform``), with and without the keyword fallback.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from memlab.bm25.score import numba_available
from memlab.corpus import Corpus
from memlab.frames import Query
from memlab.stages.lexical import BM25, TfIdf
from memlab.text import fallback_terms

BACKENDS = ["numpy"] + (["numba"] if numba_available() else [])
WORD = re.compile(r"\w+")


def ref_tokens(text: str) -> list[str]:
    """OpenClaw's boost tokens: ``[\\p{L}\\p{N}_]+`` runs, lower-cased."""
    return [t.lower() for t in WORD.findall(text)]


def ref_text_score(relevance: float) -> float:
    """``bm25RankToScore(-r)`` for a relevance ``r``: ``r / (1 + r)``, 0 unless ``r > 0``."""
    return relevance / (1 + relevance) if relevance > 0 else 0.0


def ref_boost(query: str, text: str, path: str, text_score: float) -> float:
    """``scoreFallbackKeywordResult`` of one hit, written out."""
    q = list(dict.fromkeys(ref_tokens(query)))
    if not q:
        return text_score
    doc = set(ref_tokens(text))
    overlap = sum(t in doc for t in q)
    in_path = sum(t in path.lower() for t in q)
    len16 = len(text.encode("utf-16-le")) // 2
    lexical = (overlap / max(len(q), 1) * 0.45 + overlap / max(len(doc), 1) * 0.2
               + in_path * 0.18 + min(len16 / 160, 0.18))
    return min(1.0, text_score + lexical)


WORDS = ["deploy", "key", "vault", "rotate", "billing", "invoice", "staging", "host", "db",
         "memory", "notes", "Lunch", "API", "retry_limit", "v2", "ECONNRESET", "café", "Ünïcode",
         "接口", "部署", "emoji😀", "a", "md", "x1", "the", "of"]
PATHS = ["memory/deploy-keys.md", "memory/Billing/Invoices.md", "notes/2026-07-01.md",
         "MEMORY.md", "memory/接口.md", "memory/a.md", "sessions/chat-db.jsonl"]


def corpus_and_queries(n_docs: int = 240, n_queries: int = 160, seed: int = 7):
    """Texts of 0-60 words (short ones too, for the length cap), paths with query words,
    duplicate texts; queries with repeated, upper-cased, unknown, path-only and no tokens."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, len(WORDS) + 1)
    p /= p.sum()
    seps = [" ", ", ", "-", "! ", "\n", "/"]
    texts = []
    for _ in range(n_docs):
        words = rng.choice(WORDS, size=int(rng.integers(0, 60)), p=p)
        texts.append("".join(f"{w}{seps[int(rng.integers(len(seps)))]}" for w in words))
    texts[3] = texts[4]  # duplicates: tied scores
    texts[5] = "key"  # one token, a short text
    paths = [PATHS[int(rng.integers(len(PATHS)))] for _ in range(n_docs)]
    queries = []
    for _ in range(n_queries):
        words = list(rng.choice(WORDS + ["zzz", "Memory", "KEY"], size=int(rng.integers(1, 7))))
        queries.append(" ".join(words))
    queries += ["key key KEY", "zzz", "", "?!", "memory md", "deploy-key: vault", "接口 部署",
                "billing zzz invoice", "staging db host x1 v2 api"]
    return Corpus.from_texts(texts, paths), queries


@pytest.fixture(scope="module")
def data():
    return corpus_and_queries()


def check_hit(query: str, corpus: Corpus, docno: int, score: float, text_score: float,
              boosted: float) -> None:
    assert text_score == ref_text_score(score)
    want = ref_boost(query, corpus.texts[docno], corpus.chunks["path"].iloc[docno], text_score)
    assert boosted == want, (query, docno, boosted, want)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("match", ["any", "all"])
def test_bm25_boost_one_query_at_a_time_equals_reference(data, backend, match):
    corpus, queries = data
    stage = BM25(corpus, depth=50, match=match, backend=backend)
    n_hits = 0
    for q in queries:
        hits = stage.transform_query(Query(q))
        assert not hits.fallback.any()
        for d, s, t, b in zip(hits.docno.tolist(), hits.score.tolist(),
                              hits.text_score.tolist(), hits.boosted_score.tolist(), strict=True):
            check_hit(q, corpus, d, s, t, b)
        n_hits += len(hits.docno)
        skipped = stage.transform_query(Query(q, boost=False))
        assert np.array_equal(skipped.docno, hits.docno)
        assert np.isnan(skipped.boosted_score).all()
    assert n_hits > 1000  # the check is not vacuous


@pytest.mark.parametrize("backend", BACKENDS)
def test_bm25_boost_batch_equals_one_at_a_time(data, backend):
    corpus, queries = data
    stage = BM25(corpus, depth=50, backend=backend)
    frame = stage.transform(queries)
    for qi, q in enumerate(queries):
        rows = frame[frame["qid"] == str(qi + 1)] if "qid" in frame else None
        one = stage.transform_query(Query(q))
        assert rows is not None and np.array_equal(rows["docno"].to_numpy(), one.docno)
        assert np.array_equal(rows["boosted_score"].to_numpy(), one.boosted_score)
        assert np.array_equal(rows["text_score"].to_numpy(), one.text_score)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bm25_fallback_boost_equals_reference(data, backend):
    corpus, queries = data
    stage = BM25(corpus, depth=20, match="all", fallback=True, backend=backend)
    n_fallback = 0
    for q in queries:
        hits = stage.transform_query(Query(q))
        if not hits.fallback.any():
            continue
        n_fallback += 1
        terms = fallback_terms(q, "unicode61")
        for d, s, t, b in zip(hits.docno.tolist(), hits.score.tolist(),
                              hits.text_score.tolist(), hits.boosted_score.tolist(), strict=True):
            assert t == ref_text_score(s)
            # the kept hit was boosted against one of the keywords
            path = corpus.chunks["path"].iloc[d]
            assert b in {ref_boost(k, corpus.texts[d], path, t) for k in terms}
    assert n_fallback > 10


def test_tfidf_boost_equals_reference(data):
    corpus, queries = data
    stage = TfIdf(corpus, depth=30, backend=BACKENDS[-1])
    for q in queries[:60]:
        hits = stage.transform_query(Query(q))
        for d, t, b in zip(hits.docno.tolist(), hits.text_score.tolist(),
                           hits.boosted_score.tolist(), strict=True):
            want = ref_boost(q, corpus.texts[d], corpus.chunks["path"].iloc[d], t)
            assert b == want
