"""The lexical stages' single-query array path (``transform_query``) equals their frame path
(``transform``) bit for bit: docnos, scores, text scores, OpenClaw's boosted scores and the
keyword fallback."""

from __future__ import annotations

import numpy as np
import pytest

from memlab.corpus import Corpus
from memlab.frames import Query, QueryHits
from memlab.stages.lexical import BM25, TfIdf

DOCS = ["the deploy key is in vault", "rotate the deploy key monthly", "lunch at noon",
        "vault access for the deploy bot", "key rotation policy", "noon standup notes"] * 3
QUERIES = ["deploy key", "vault", "key key rotation", "nothing matches", "", "deploy lunch",
           "where is the deploy key for the vault?"]


@pytest.mark.parametrize("make", [
    lambda c: BM25(c, depth=4),
    lambda c: BM25(c, variant="bm25+", depth=None),
    lambda c: BM25(c, match="all", fallback=True, depth=3),
    lambda c: BM25(c, match="all", depth=5, backend="numpy"),
    lambda c: TfIdf(c, depth=4),
])
def test_transform_query_equals_transform(make):
    stage = make(Corpus.from_texts(DOCS))
    for text in QUERIES:
        want = QueryHits.from_frame(stage.transform(Query(text).frame()))
        got = stage.transform_query(Query(text))
        for name in ("docno", "score", "text_score", "boosted_score", "fallback"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name),
                                          err_msg=f"{text!r}: {name}")


def test_transform_query_without_boost_skips_it():
    stage = BM25(Corpus.from_texts(DOCS), depth=4)
    got = stage.transform_query(Query("deploy key", boost=False))
    want = stage.transform_query(Query("deploy key"))
    np.testing.assert_array_equal(got.score, want.score)
    assert len(got.docno) and np.isnan(got.boosted_score).all()
