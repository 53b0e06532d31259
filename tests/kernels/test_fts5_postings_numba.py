"""The compiled ASCII postings (memlab.kernels.fts5_postings_numba) against a plain Python
reference: regex runs of letters and digits, lower-cased, ids in order of first appearance."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("numba")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from memlab.kernels.fts5_postings_numba import ascii_postings  # noqa: E402


def reference(texts: list[str]):
    vocab: dict[str, int] = {}
    per_term: dict[int, dict[int, int]] = {}
    doc_len = []
    for d, text in enumerate(texts):
        toks = re.findall(r"[a-z0-9]+", text.lower())
        doc_len.append(float(len(toks)))
        for tok in toks:
            t = vocab.setdefault(tok, len(vocab))
            rows = per_term.setdefault(t, {})
            rows[d] = rows.get(d, 0) + 1
    indptr, docs, tf = [0], [], []
    for t in range(len(vocab)):
        for d, c in per_term[t].items():
            docs.append(d)
            tf.append(c)
        indptr.append(len(docs))
    return list(vocab), indptr, docs, tf, doc_len


def compiled(texts: list[str]):
    starts = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum([len(t) + 1 for t in texts], out=starts[1:])
    raw = ("\n".join(texts) + "\n").encode("ascii")
    first, length, indptr, docs, tf, doc_len = ascii_postings(
        np.frombuffer(raw, dtype=np.uint8), starts)
    terms = [raw[a:a + n].decode().lower() for a, n in zip(first, length, strict=True)]
    return terms, indptr.tolist(), docs.tolist(), tf.tolist(), doc_len.tolist()


ascii_text = st.text(alphabet=st.sampled_from(list("aAbBzZ09_ -.,\t\n\x00\x7f!'\"")),
                     max_size=60)


@settings(max_examples=200, deadline=None)
@given(st.lists(ascii_text, max_size=30))
def test_equals_the_python_reference(texts):
    assert compiled(texts) == reference(texts)


def test_many_distinct_terms_grow_the_tables():
    rng = np.random.default_rng(5)
    words = [f"w{i}X{i * 7919 % 1000}" for i in range(6000)]
    texts = [" ".join(rng.choice(words, int(rng.integers(0, 40)))) for _ in range(800)]
    assert compiled(texts) == reference(texts)
