"""memlab.stages.lexical: BM25 (bm25s parity), TF-IDF (scikit-learn parity), OpenClaw scores."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from memlab.corpus import Corpus
from memlab.frames import as_queries, check_hits
from memlab.pipeline import Cached
from memlab.stages.lexical import (
    BM25,
    VARIANTS,
    TfIdf,
    bm25_rank_to_score,
    merge_keyword_hits,
    openclaw_boosted_score,
)
from memlab.text import Tokenizer, fallback_terms

os.environ.setdefault("DISABLE_TQDM", "1")
bm25s = pytest.importorskip("bm25s")

DATASETS = Path("/work/shared/datasets")
SETTINGS = [  # (k1, b, delta)
    (1.5, 0.75, 0.5),
    (1.2, 0.3, 1.0),
    (0.9, 1.0, 0.0),
    (2.0, 0.0, 0.25),
]


# -- helpers -------------------------------------------------------------------------------


def synthetic_texts(n_docs=300, n_queries=40, seed=0):
    """Zipf-ish vocabulary, repeated terms, an empty doc, queries with repeats and OOV terms."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"t{i}" for i in range(400)])
    p = 1.0 / np.arange(1, len(vocab) + 1)
    p /= p.sum()
    docs = [" ".join(rng.choice(vocab, size=rng.integers(1, 120), p=p)) for _ in range(n_docs)]
    docs[7] = ""  # a document without tokens
    docs[8] = docs[9]  # exact duplicates: tied scores
    queries = [" ".join(rng.choice(vocab[:300], size=rng.integers(1, 6))) for _ in range(n_queries)]
    queries += ["t1 t1 t5", "zzz t3", "zzz", "", "?!"]  # repeats, OOV, empty, punctuation
    return docs, queries


def bm25s_scores(doc_tokens, query_tokens, variant, k1, b, delta):
    retriever = bm25s.BM25(method=variant, k1=k1, b=b, delta=delta, dtype="float64")
    retriever.index(doc_tokens, show_progress=False)
    n_docs = len(doc_tokens)
    rows = [retriever.get_scores(q) if q else np.zeros(n_docs) for q in query_tokens]
    return retriever, np.vstack(rows)


def expected_order(scores, contains, depth):
    """Docs containing a query term, by score desc then docno asc, cut at depth."""
    docs = np.flatnonzero(contains)
    order = np.lexsort((docs, -scores[docs]))
    return docs[order][:depth]


def load_beir(name, n_queries=None):
    root = DATASETS / name
    if not (root / "corpus.jsonl").exists():
        pytest.skip(f"dataset {root} not available")
    docs, queries = [], []
    with open(root / "corpus.jsonl", encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            docs.append(f"{d.get('title', '')} {d.get('text', '')}")
    with open(root / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            queries.append(json.loads(line)["text"])
    return docs, queries[:n_queries]


# -- bm25s parity --------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("k1,b,delta", SETTINGS)
def test_bm25_scores_equal_bm25s_synthetic(variant, k1, b, delta):
    docs, queries = synthetic_texts()
    tok = Tokenizer()
    doc_tokens, query_tokens = tok.tokenize_many(docs), tok.tokenize_many(queries)
    _, ref = bm25s_scores(doc_tokens, query_tokens, variant, k1, b, delta)

    stage = BM25(Corpus.from_texts(docs), tokenizer=tok, variant=variant, k1=k1, b=b,
                 delta=delta, depth=25)
    got = stage.score_matrix(queries)
    assert got.shape == (len(queries), len(docs))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6)
    if variant in ("bm25l", "bm25+") and delta > 0:  # non-occurrence: every doc scores > 0
        assert (got[0] > 0).all()

    # top-k: memlab's hits are the full-score ranking of docs containing a query term
    hits = stage.transform(as_queries(queries))
    for i, q in enumerate(query_tokens):
        contains = np.array([bool(set(q) & set(d)) for d in doc_tokens])
        want = expected_order(ref[i], contains, 25)
        mine = hits.loc[hits["qid"] == str(i + 1)]
        assert mine["docno"].tolist() == want.tolist(), queries[i]
        np.testing.assert_allclose(mine["score"], ref[i][want], rtol=0, atol=1e-6)


@pytest.mark.parametrize("variant", VARIANTS)
def test_bm25_topk_matches_bm25s_retrieve(variant):
    docs, queries = synthetic_texts(seed=1)
    tok = Tokenizer()
    doc_tokens = tok.tokenize_many(docs)
    query_tokens = [q for q in tok.tokenize_many(queries) if q]
    retriever, ref = bm25s_scores(doc_tokens, query_tokens, variant, 1.5, 0.75, 0.5)
    res_docs, res_scores = retriever.retrieve(query_tokens, k=10, show_progress=False)
    stage = BM25(Corpus.from_texts(docs), tokenizer=tok, variant=variant, depth=10)
    hits = stage([" ".join(q) for q in query_tokens])
    for i in range(len(query_tokens)):
        mine = hits.loc[hits["qid"] == str(i + 1)]
        n = len(mine)
        np.testing.assert_allclose(mine["score"], res_scores[i][:n], rtol=0, atol=1e-6)
        # identical orders wherever bm25s's order is not decided by a tie
        for r in range(n):
            tied = np.sum(np.abs(ref[i] - res_scores[i][r]) <= 1e-9)
            if tied == 1:
                assert mine["docno"].iloc[r] == res_docs[i][r]
            else:
                assert ref[i][mine["docno"].iloc[r]] == pytest.approx(res_scores[i][r])


@pytest.fixture(scope="module", params=["scifact", "cacm"])
def real_dataset(request):
    """A real collection (first 60 queries), tokenised once, with one memlab stage whose
    tokenised corpus is reused across variants (set_params only rebuilds the weights)."""
    docs, queries = load_beir(request.param, n_queries=60)
    tok = Tokenizer(stopwords="en-lucene", stemmer="english")
    doc_tokens, query_tokens = tok.tokenize_many(docs), tok.tokenize_many(queries)
    stage = BM25(Corpus.from_texts(docs), tokenizer=tok, depth=100)
    doc_sets = [set(d) for d in doc_tokens]
    contains = np.array([[bool(ds.intersection(q)) for ds in doc_sets] for q in query_tokens])
    return stage, queries, doc_tokens, query_tokens, contains


@pytest.mark.parametrize("variant", VARIANTS)
def test_bm25_scores_equal_bm25s_real(real_dataset, variant):
    stage, queries, doc_tokens, query_tokens, contains = real_dataset
    k1, b, delta = (1.2, 0.75, 0.5) if variant != "bm25l" else (1.5, 0.6, 1.0)
    _, ref = bm25s_scores(doc_tokens, query_tokens, variant, k1, b, delta)
    stage.set_params(variant=variant, k1=k1, b=b, delta=delta)
    np.testing.assert_allclose(stage.score_matrix(queries), ref, rtol=0, atol=1e-6)
    hits = stage(queries)
    for i in range(len(queries)):
        mine = hits.loc[hits["qid"] == str(i + 1), "docno"].tolist()
        assert mine == expected_order(ref[i], contains[i], 100).tolist()


def test_bm25_float32_bm25s_agrees_loosely():
    """bm25s's default float32 index agrees to float32 precision."""
    docs, queries = synthetic_texts(seed=3)
    tok = Tokenizer()
    doc_tokens = tok.tokenize_many(docs)
    retriever = bm25s.BM25()
    retriever.index(doc_tokens, show_progress=False)
    q = tok("t1 t2 t7")
    np.testing.assert_allclose(BM25(Corpus.from_texts(docs), tokenizer=tok).score_matrix(
        "t1 t2 t7")[0], retriever.get_scores(q), rtol=1e-5, atol=1e-5)


def test_query_term_multiplicity_counts_like_bm25s():
    corpus = Corpus.from_texts(["alpha beta", "beta gamma", "gamma delta"])
    stage = BM25(corpus)
    once, twice = stage.score_matrix(["beta", "beta beta"])
    np.testing.assert_allclose(twice, 2 * once)


# -- hits, OpenClaw scores -----------------------------------------------------------------


NOTES = [
    "Deploy key for the staging cluster is in the vault under ops/deploy.",  # 0
    "Lunch with Sam on Tuesday; talked about the deploy window.",  # 1
    "部署密钥存放在保险库中，路径是 ops/deploy。",  # 2 Chinese
    "本番環境のデプロイキーはボールトにあります。",  # 3 Japanese
    "กุญแจสำหรับการติดตั้งอยู่ในตู้เซฟ ข้าวผัดอร่อยมาก",  # 4 Thai
    "Random note about gardening and tomatoes.",  # 5
]
PATHS = ["memory/deploy.md", "memory/2026-05-14.md", "memory/部署.md", "memory/jp.md",
         "memory/thai.md", "memory/garden.md"]


@pytest.fixture
def notes():
    return Corpus.from_texts(NOTES, paths=PATHS)


def test_hits_contract_and_columns(notes):
    hits = BM25(notes)(["deploy key", "tomatoes"])
    check_hits(hits)
    assert {"text_score", "boosted_score", "query"} <= set(hits.columns)
    assert hits.loc[hits["qid"] == "1", "docno"].tolist()[:2] == [0, 1]
    assert hits.loc[hits["qid"] == "2", "docno"].tolist() == [5]
    for _, part in hits.groupby("qid"):
        assert part["rank"].tolist() == list(range(1, len(part) + 1))
        assert (np.diff(part["score"].to_numpy()) <= 0).all()
    assert hits["path"].iloc[0] == "memory/deploy.md"


def test_text_score_is_r_over_1_plus_r(notes):
    hits = BM25(notes)("deploy key")
    r = hits["score"].to_numpy()
    np.testing.assert_allclose(hits["text_score"], r / (1 + r))
    assert bm25_rank_to_score(3.0) == 0.75 and bm25_rank_to_score(0.0) == 0.0


def test_boosted_score_hand_computed():
    # query tokens {deploy, key}; text tokens {deploy, key, in, vault} (4 distinct);
    # path "memory/Deploy-Keys.md" lower-cased contains "deploy" and "key" (substring).
    # 0.2 + 0.45*(2/2) + 0.2*(2/4) + 0.18 + 0.18 + min(21/160, 0.18) = 1.3 → capped at 1
    assert openclaw_boosted_score("Deploy KEY", "deploy key in vault !", "memory/Deploy-Keys.md",
                                  0.2) == 1.0
    # query {vault, zebra}: 1 of 2 matched; text "the deploy key is in the vault" has 6
    # distinct tokens and 30 UTF-16 units; path "a.md" contains neither token:
    # 0.05 + 0.45*0.5 + 0.2*(1/6) + 0 + min(30/160, 0.18)=0.18 → 0.488333…
    got = openclaw_boosted_score("vault zebra", "the deploy key is in the vault", "a.md", 0.05)
    assert got == pytest.approx(0.05 + 0.225 + 0.2 / 6 + 0.18, abs=1e-15)
    # short text: length boost 8/160 = 0.05; an astral character counts 2 UTF-16 units
    assert openclaw_boosted_score("ab", "ab cd", "x", 0.0) == pytest.approx(
        0.45 + 0.2 * 0.5 + 5 / 160)
    assert openclaw_boosted_score("ab", "ab 😀", "x", 0.0) == pytest.approx(
        0.45 + 0.2 * 1.0 + 5 / 160)
    # three query tokens found only in the path: 3 * 0.18, no overlap; 27 UTF-16 units:
    # 0.1 + 0.54 + 27/160
    assert openclaw_boosted_score("memory md deploy", "nothing else to see here ok",
                                  "memory/deploy.md", 0.1) == pytest.approx(0.80875)
    # a query without tokens gets no boost at all
    assert openclaw_boosted_score("?!", "anything here", "memory/x.md", 0.3) == 0.3


def test_boosted_column_equals_the_public_function(notes):
    queries = as_queries(["deploy key", "Deploy ops", "部署", "memory 2026", "the",
                          "memory md deploy", "?!"])
    for stage in (BM25(notes, match="any"), TfIdf(notes)):
        hits = stage.transform(queries)
        assert len(hits) > 5
        for row in hits.itertuples():
            want = openclaw_boosted_score(row.query, NOTES[row.docno], row.path, row.text_score)
            assert row.boosted_score == want  # bit-identical


def test_cjk_and_thai_notes_are_found_by_cjk_and_thai_queries(notes):
    stage = BM25(notes)  # default tokenizer: CJK bigrams, Thai segmentation
    hits = stage(["密钥", "保险库", "デプロイキー", "ข้าวผัด", "ตู้เซฟ"])
    top = hits.loc[hits["rank"] == 1].set_index("qid")["docno"].to_dict()
    assert top == {"1": 2, "2": 2, "3": 3, "4": 4, "5": 4}
    # with unicode61-like whole runs (OpenClaw issue #20730) the substrings are not found
    plain = BM25(notes, tokenizer=Tokenizer(cjk="none", thai="none"))(["密钥", "ข้าวผัด"])
    assert plain.empty
    # jieba also finds the Chinese note
    jieba_hits = BM25(notes, tokenizer=Tokenizer(cjk="jieba"))("密钥")
    assert jieba_hits["docno"].tolist()[:1] == [2]


def test_match_all_needs_every_distinct_query_token(notes):
    any_hits = BM25(notes)("deploy vault")
    all_hits = BM25(notes, match="all")("deploy vault")
    assert set(any_hits["docno"]) == {0, 1, 2}  # note 2 mentions ops/deploy
    assert all_hits["docno"].tolist() == [0]
    assert all_hits["score"].iloc[0] == any_hits["score"].iloc[0]
    # repeated tokens count once; an unknown token matches nothing (like FTS5's AND)
    assert BM25(notes, match="all")("deploy deploy vault")["docno"].tolist() == [0]
    assert BM25(notes, match="all")("deploy zebra").empty
    assert set(BM25(notes, match="any")("deploy zebra")["docno"]) == {0, 1, 2}


def test_match_all_vectorised_over_many_queries():
    docs, queries = synthetic_texts(seed=5)
    tok = Tokenizer()
    doc_sets = [set(d) for d in tok.tokenize_many(docs)]
    hits = BM25(Corpus.from_texts(docs), match="all", depth=None)(queries)
    for i, q in enumerate(tok.tokenize_many(queries)):
        want = {j for j, ds in enumerate(doc_sets) if q and set(q) <= ds}
        assert set(hits.loc[hits["qid"] == str(i + 1), "docno"]) == want


@pytest.mark.parametrize("variant", ["bm25l", "bm25+"])
def test_nonoccurrence_variants_return_only_docs_with_a_query_term(notes, variant):
    stage = BM25(notes, variant=variant, depth=None)
    scores = stage.score_matrix("tomatoes")[0]
    assert (scores > 0).all()  # every doc gets the constant...
    assert stage("tomatoes")["docno"].tolist() == [5]  # ...but only doc 5 is a hit


def test_empty_and_punctuation_queries_give_no_hits(notes):
    stage = BM25(notes)
    for q in ["", "   ", "?!... —", "zebra"]:
        hits = stage(q)
        assert hits.empty
        check_hits(hits)
    hits = stage(["", "deploy", "?!"])
    assert set(hits["qid"]) == {"2"}
    assert TfIdf(notes)(["", "?!"]).empty
    np.testing.assert_array_equal(stage.score_matrix(["", "?!"]), 0.0)


def test_depth_and_ties_broken_by_lower_docno():
    corpus = Corpus.from_texts(["same text"] * 5 + ["other same text", "nothing"])
    hits = BM25(corpus, depth=3)("same")
    assert hits["docno"].tolist() == [0, 1, 2]
    assert hits["score"].nunique() == 1
    assert BM25(corpus, depth=None)("same")["docno"].tolist() == [0, 1, 2, 3, 4, 5]


def test_depth_cut_with_many_candidates_keeps_the_best():
    docs, queries = synthetic_texts(seed=7)
    full = BM25(Corpus.from_texts(docs), depth=None)(queries)
    cut = BM25(Corpus.from_texts(docs), depth=5)(queries)
    want = full.loc[full["rank"] <= 5, ["qid", "docno"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(cut[["qid", "docno"]], want)


def test_robertson_zero_idf_docs_are_still_hits():
    corpus = Corpus.from_texts(["common a", "common b", "common c", "rare common"])
    hits = BM25(corpus, variant="robertson")("common")
    assert hits["docno"].tolist() == [0, 1, 2, 3]
    assert (hits["score"] == 0).all() and (hits["text_score"] == 0).all()


def test_empty_corpus_and_empty_vocabulary():
    for corpus in (Corpus.from_texts([]), Corpus.from_texts(["", "!!"])):
        for stage in (BM25(corpus), BM25(corpus, variant="bm25l"), TfIdf(corpus)):
            assert stage("anything").empty
            assert stage.score_matrix(["a", "b"]).shape == (2, len(corpus))


# -- parameters ----------------------------------------------------------------------------


def test_get_params_set_params_round_trip_and_refit(notes):
    stage = BM25(notes, tokenizer=Tokenizer(stemmer="english"), variant="atire", k1=1.2,
                 depth=50, match="all")
    params = stage.get_params(deep=False)
    clone_ = BM25(**params)
    assert clone_.get_params(deep=False) == params
    deep = stage.get_params()
    assert deep["tokenizer__stemmer"] == "english" and deep["variant"] == "atire"

    before = stage.score_matrix("deploy")
    stage.set_params(variant="lucene", k1=1.5)
    after = stage.score_matrix("deploy")
    ref = BM25(notes, tokenizer=Tokenizer(stemmer="english")).score_matrix("deploy")
    np.testing.assert_allclose(after, ref)
    assert not np.allclose(before, after)

    # a nested tokenizer parameter rebuilds the vocabulary
    assert BM25(notes).score_matrix("deployed")[0].max() == 0
    stage = BM25(notes, tokenizer=Tokenizer())
    stage.set_params(tokenizer__stemmer="english")
    assert stage.score_matrix("deployed")[0].max() > 0


def test_one_query_path_sees_every_change_after_its_fit(notes):
    """transform_query's quick fit check: an assignment to the stage, a tokenizer attribute
    set directly, a replaced chunk table and rows added in place all refit."""
    from memlab.frames import Query

    def scores(stage):  # raw scores, then OpenClaw's boosted scores (the doc table's)
        hits = stage.transform_query(Query("deploy talked keys"))
        return hits.score.tolist() + hits.boosted_score.tolist()

    def fresh(stage):
        return scores(BM25(**stage.get_params(deep=False)))

    corpus = Corpus.from_texts(NOTES, paths=PATHS)
    stage = BM25(corpus, tokenizer=Tokenizer())
    first = scores(stage)
    assert scores(stage) == first  # nothing changed: the same fit
    stage.k1 = 0.5  # a plain assignment, not set_params
    second = scores(stage)
    assert second == fresh(stage) != first
    stage.tokenizer.stemmer = "english"  # the tokenizer's own attribute: "keys" -> "key"
    assert scores(stage) == fresh(stage) != second
    corpus.chunks = corpus.chunks.iloc[:1].reset_index(drop=True)
    assert len(scores(stage)) == 2  # one hit
    corpus.chunks.loc[1] = corpus.chunks.loc[0]  # a row added in place
    assert scores(stage) == fresh(stage)
    assert len(scores(stage)) == 4


def test_repr_is_readable(notes):
    assert repr(BM25(notes)) == "BM25(corpus=Corpus(in memory: 6 files, 6 chunks))"
    text = repr(BM25(notes, tokenizer=Tokenizer(stemmer="english"), variant="bm25+"))
    assert "variant='bm25+'" in text and "Tokenizer(stemmer='english')" in text
    assert "norm='l1'" in repr(TfIdf(notes, norm="l1"))


@pytest.mark.parametrize("params,error,message", [
    ({"variant": "foo"}, ValueError, "variant must be one of 'robertson', 'lucene'"),
    ({"k1": -1}, ValueError, r"k1 must be >= 0"),
    ({"k1": "1.2"}, TypeError, "k1 must be a finite real number"),
    ({"b": 1.5}, ValueError, r"b must be in \[0.0, 1.0\]"),
    ({"delta": -0.1}, ValueError, "delta must be >= 0"),
    ({"depth": 0}, ValueError, "depth must be a positive integer or None"),
    ({"match": "some"}, ValueError, "match must be one of 'any', 'all'"),
    ({"tokenizer": 5}, TypeError, "tokenizer must be None"),
    ({"variant": "bm25+", "k1": 0}, ValueError, "bm25\\+' needs k1 > 0"),
    ({"variant": "bm25l", "k1": 0, "delta": 0}, ValueError, "needs k1 > 0 or delta > 0"),
])
def test_invalid_params_are_explained(notes, params, error, message):
    stage = BM25(notes, **params)  # sklearn style: __init__ only stores
    with pytest.raises(error, match=message):
        stage("deploy")


def test_invalid_corpus_and_tfidf_params(notes):
    with pytest.raises(TypeError, match="corpus must be a memlab.corpus.Corpus"):
        BM25(["a", "b"])("a")
    with pytest.raises(ValueError, match="norm must be one of 'l2', 'l1', None"):
        TfIdf(notes, norm="max")("deploy")
    with pytest.raises(TypeError, match="sublinear_tf must be True or False"):
        TfIdf(notes, sublinear_tf="yes")("deploy")


def test_valid_zero_k1_and_edge_b(notes):
    for variant in ("robertson", "lucene", "atire", "bm25l"):
        assert not BM25(notes, variant=variant, k1=0, b=0)("deploy").empty


def test_pickle_and_cached_wrapper(notes):
    stage = BM25(notes, variant="bm25l")
    hits = stage("deploy key")
    again = pickle.loads(pickle.dumps(stage))
    pd.testing.assert_frame_equal(again("deploy key"), hits)
    cached = Cached(BM25(notes))
    pd.testing.assert_frame_equal(cached("deploy key"), BM25(notes)("deploy key"),
                                  check_like=True)


# -- TF-IDF --------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [
    {},
    {"sublinear_tf": True},
    {"smooth_idf": False},
    {"use_idf": False, "norm": "l1"},
])
def test_tfidf_equals_sklearn_tfidfvectorizer_cosine(kwargs):
    docs, queries = synthetic_texts(seed=2)
    tok = Tokenizer()
    vec = TfidfVectorizer(analyzer=tok, **kwargs)
    doc_matrix = vec.fit_transform(docs)
    ref = (vec.transform(queries) @ doc_matrix.T).toarray()
    stage = TfIdf(Corpus.from_texts(docs), tokenizer=tok, depth=20, **kwargs)
    got = stage.score_matrix(queries)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    hits = stage(queries)
    doc_sets = [set(d) for d in tok.tokenize_many(docs)]
    for i, q in enumerate(tok.tokenize_many(queries)):
        contains = np.array([bool(ds.intersection(q)) for ds in doc_sets])
        mine = hits.loc[hits["qid"] == str(i + 1)]
        assert mine["docno"].tolist() == expected_order(ref[i], contains, 20).tolist()
        np.testing.assert_allclose(mine["text_score"], mine["score"])


def test_tfidf_cjk_and_match_all(notes):
    hits = TfIdf(notes)("密钥")
    assert hits["docno"].tolist() == [2]
    assert 0 < hits["score"].iloc[0] <= 1
    assert TfIdf(notes, match="all")("deploy vault")["docno"].tolist() == [0]


# -- keyword fallback (OpenClaw 2026.7 searchKeywordWithFallback) ---------------------------


FALLBACK_NOTES = [
    "The deploy window is Tuesday 10:00-12:00 UTC; never deploy on Friday.",  # 0
    "Lunch with Sam on Friday.",  # 1
    "Clean the kitchen window.",  # 2
    "Window",  # 3
]
FALLBACK_PATHS = ["memory/ops.md", "memory/2026-05-14.md", "memory/home.md", "memory/w.md"]


@pytest.fixture
def fallback_notes():
    return Corpus.from_texts(FALLBACK_NOTES, paths=FALLBACK_PATHS)


def reference_fallback(stage_cls, corpus, query, **params):
    """A literal port of searchKeywordWithFallback + mergeKeywordSearchHits, one keyword search
    at a time through the public API: [(docno, score, text_score, boosted_score)]."""
    plain = stage_cls(corpus, match="all", **params)
    full = plain(query)
    if len(full):
        return None
    merged = {}  # dict keeps first-insertion order when a value is replaced, like a JS Map
    for term in fallback_terms(query):
        for row in plain(term).itertuples():
            boosted = openclaw_boosted_score(term, corpus.texts[row.docno], row.path,
                                             row.text_score)
            entry = (row.docno, row.score, row.text_score, boosted)
            old = merged.get(row.docno)
            if old is None or entry[2] > old[2] or (entry[2] == old[2] and entry[3] > old[3]):
                merged[row.docno] = entry
    return sorted(merged.values(), key=lambda e: -e[3])  # stable, like toSorted


def test_fallback_finds_a_question_through_its_keywords(fallback_notes):
    question = "what did we decide about the deploy window?"
    assert BM25(fallback_notes, match="all")(question).empty  # no note has every word
    hits = BM25(fallback_notes, match="all", fallback=True)(question)
    check_hits(hits)
    # keywords: decide (no hit), deploy (note 0), window (notes 0, 2, 3)
    assert fallback_terms(question) == ["decide", "deploy", "window"]
    assert sorted(hits["docno"]) == [0, 2, 3] and hits["fallback"].all()
    assert hits["rank"].tolist() == [1, 2, 3]
    assert (np.diff(hits["boosted_score"].to_numpy()) <= 0).all()
    # note 0: "deploy" occurs twice, "window" once → the "deploy" search's entry is kept,
    # with its raw score, and its boost is computed against the keyword "deploy"
    deploy = BM25(fallback_notes, match="all")("deploy")
    row = hits.set_index("docno").loc[0]
    assert row["score"] == deploy["score"].iloc[0]
    assert row["text_score"] == bm25_rank_to_score(row["score"])
    assert row["boosted_score"] == openclaw_boosted_score(
        "deploy", FALLBACK_NOTES[0], "memory/ops.md", row["text_score"])
    assert row["boosted_score"] != openclaw_boosted_score(
        question, FALLBACK_NOTES[0], "memory/ops.md", row["text_score"])
    want = reference_fallback(BM25, fallback_notes, question)
    assert list(zip(hits["docno"], hits["score"], hits["text_score"],
                    hits["boosted_score"], strict=True)) == want


def test_fallback_does_not_touch_queries_with_hits_or_match_any(fallback_notes):
    queries = ["deploy window", "friday", "what did we decide about the deploy window?",
               "kitchen zebra"]
    for cls in (BM25, TfIdf):
        plain = cls(fallback_notes, match="all")(queries)
        both = cls(fallback_notes, match="all", fallback=True)(queries)
        assert not plain["fallback"].any()
        direct = both[~both["fallback"]].reset_index(drop=True)
        pd.testing.assert_frame_equal(direct, plain)
        assert set(both.loc[both["fallback"], "qid"]) == {"3", "4"}
        # qids stay in query order, ranks restart per query
        assert both["qid"].tolist() == sorted(both["qid"].tolist(), key=int)
        any_plain = cls(fallback_notes, match="any")(queries)
        any_fb = cls(fallback_notes, match="any", fallback=True)(queries)
        pd.testing.assert_frame_equal(any_fb, any_plain)
        assert not any_fb["fallback"].any()


def test_fallback_without_usable_keywords(fallback_notes):
    stage = BM25(fallback_notes, match="all", fallback=True)
    # stop words only, punctuation, empty; "Zebra" is searched again as "zebra" (≠ the query)
    # and still finds nothing; "window" alone has hits, so no fallback
    hits = stage(["the what", "?!", "", "Zebra", "zebra", "ab cd"])
    assert hits.empty and "fallback" in hits.columns and hits["fallback"].dtype == bool
    assert stage("window")["fallback"].tolist() == [False] * 3


def test_fallback_merged_list_is_not_cut_to_depth(fallback_notes):
    hits = BM25(fallback_notes, match="all", depth=1, fallback=True)("lunch kitchen zebra")
    # "lunch" → note 1, "kitchen" → note 2, each search cut to depth 1; merged: both
    assert sorted(hits["docno"]) == [1, 2] and hits["fallback"].all()


def test_fallback_keeps_the_highest_text_score_not_the_highest_boost():
    # note 0 matches "alpha" strongly (repeated) and "beta" weakly; its boost against "beta" is
    # higher (the path contains "beta"), but the merge keeps the higher text score
    texts = ["alpha alpha alpha alpha beta", "beta gamma", "alpha"]
    corpus = Corpus.from_texts(texts, paths=["memory/beta.md", "memory/b.md", "memory/c.md"])
    stage = BM25(corpus, match="all", fallback=True)
    a = BM25(corpus, match="all")("alpha").set_index("docno")
    b = BM25(corpus, match="all")("beta").set_index("docno")
    assert a.loc[0, "text_score"] > b.loc[0, "text_score"]
    boost_a = openclaw_boosted_score("alpha", texts[0], "memory/beta.md", a.loc[0, "text_score"])
    boost_b = openclaw_boosted_score("beta", texts[0], "memory/beta.md", b.loc[0, "text_score"])
    assert boost_b > boost_a
    hits = stage("alpha beta delta").set_index("docno")
    assert hits.loc[0, "score"] == a.loc[0, "score"]
    assert hits.loc[0, "boosted_score"] == boost_a
    assert hits.loc[0, "text_score"] == a.loc[0, "text_score"]


def test_merge_keyword_hits_ties():
    # [docno, text_score, boosted] in search order (keyword by keyword, best first)
    def merge(entries, group=None):
        d, t, b = (np.array(col) for col in zip(*entries, strict=True))
        g = np.zeros(len(d), dtype=int) if group is None else np.array(group)
        return merge_keyword_hits(g, d, t, b).tolist()

    # same text score: the higher boosted score replaces
    assert merge([(5, 0.5, 0.7), (5, 0.5, 0.8)]) == [1]
    # exact tie: the first seen stays (JavaScript replaces only when strictly better)
    assert merge([(5, 0.5, 0.8), (5, 0.5, 0.8)]) == [0]
    # a higher text score wins even with a lower boosted score
    assert merge([(5, 0.4, 0.9), (5, 0.5, 0.6)]) == [1]
    # ordered by boosted score; a tie keeps the order in which the *docno* was first seen
    # (7 first seen at 0, though its kept entry is the later one at 2)
    assert merge([(7, 0.2, 0.9), (3, 0.5, 0.9), (7, 0.6, 0.9)]) == [2, 1]
    assert merge([(7, 0.2, 0.9), (3, 0.5, 0.95), (7, 0.6, 0.9)]) == [1, 2]
    # groups (queries) are merged independently and returned in group order
    assert merge([(1, 0.5, 0.5), (2, 0.5, 0.6), (1, 0.5, 0.9), (1, 0.1, 0.1)],
                 group=[1, 1, 0, 0]) == [2, 1, 0]
    assert merge_keyword_hits(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0)).size == 0


@pytest.mark.parametrize("cls", [BM25, TfIdf])
def test_fallback_equals_the_reference_loop(cls):
    rng = np.random.default_rng(3)
    vocab = ["deploy", "window", "billing", "vault", "rotate", "key", "lunch", "postgres",
             "migration", "tuesday", "incident", "cache"]
    texts = [" ".join(rng.choice(vocab, size=rng.integers(1, 9))) for _ in range(60)]
    texts += texts[:5]  # duplicates: tied scores
    paths = [f"memory/{rng.choice(vocab)}-{i}.md" for i in range(len(texts))]
    corpus = Corpus.from_texts(texts, paths=paths)
    queries = [" ".join(rng.choice(vocab + ["what", "the", "zebra", "quux"],
                                   size=rng.integers(2, 9))) + "?" for _ in range(40)]
    hits = cls(corpus, match="all", depth=7, fallback=True)(queries)
    n_fallback = 0
    for i, query in enumerate(queries):
        part = hits[hits["qid"] == str(i + 1)]
        want = reference_fallback(cls, corpus, query, depth=7)
        if want is None:
            assert not part["fallback"].any()
            continue
        n_fallback += 1
        assert part["fallback"].all() and part["rank"].tolist() == list(range(1, len(want) + 1))
        assert list(zip(part["docno"], part["score"], part["text_score"],
                        part["boosted_score"], strict=True)) == want
    assert n_fallback > 10


def test_fallback_fts_tokenizer_changes_han_keywords(notes):
    query = "部署方案"  # no note has the bigram 方案, so the AND query finds nothing
    uni = BM25(notes, match="all", fallback=True)(query)
    assert set(uni["docno"]) == {2} and uni["fallback"].all()  # 部, 署, 部署 find note 2
    # trigram: the one keyword is the Han block itself, which equals the query: no fallback
    assert fallback_terms(query, "trigram") == []
    assert BM25(notes, match="all", fallback=True, fts_tokenizer="trigram")(query).empty


def test_fallback_params_validated_and_in_get_params(notes):
    with pytest.raises(TypeError, match="fallback must be True or False"):
        BM25(notes, fallback="yes")("deploy")
    with pytest.raises(ValueError, match="fts_tokenizer must be one of 'unicode61', 'trigram'"):
        TfIdf(notes, fts_tokenizer="porter")("deploy")
    params = BM25(notes, fallback=True).get_params(deep=False)
    assert params["fallback"] is True and params["fts_tokenizer"] == "unicode61"
    assert TfIdf(notes).get_params(deep=False)["fallback"] is False


def test_openclaw_keyword_leg_uses_the_fallback_by_default(notes):
    from memlab.config import load_config
    from memlab.openclaw import keyword_leg

    for keyword in ("bm25", "tfidf"):
        leg = keyword_leg(notes, load_config({"memlab": {"keyword": keyword}}))
        assert leg.fallback is True and leg.fts_tokenizer == "unicode61"
    cfg = load_config({"store": {"fts": {"tokenizer": "trigram"}},
                       "memlab": {"keyword": "bm25", "keywordFallback": False}})
    leg = keyword_leg(notes, cfg)
    assert leg.fallback is False and leg.fts_tokenizer == "trigram"
