"""FTS5's ``unicode61`` tokens of ASCII text, counted into postings, compiled (numba;
``memlab[speed]``).

:class:`memlab.index.fts_postings.FTSPostings` reads an FTS5 table's texts back to rank its
queries (:mod:`memlab.kernels.fts5_bm25_numba`). For ASCII text ``unicode61`` keeps runs of
letters and digits, lower-cased, and treats every other byte as a separator;
:func:`ascii_postings` finds those runs in one buffer holding all the texts, gives each
distinct token an id in order of first appearance (an open-addressing table of FNV-1a hashes;
a slot's token is compared byte by byte, so two tokens never share an id), and counts each
token's rows and occurrences into CSR arrays without sorting (rows come in order). In Python
the same work (a regex per text, a dict per token, ``np.unique`` of the pairs) took ~850 ns a
token; the postings are checked against FTS5's own counts afterwards either way.

>>> import numpy as np
>>> buf = np.frombuffer(b"Deploy key\\nkey, KEY vault", dtype=np.uint8)
>>> first, length, indptr, docs, tf, doc_len = ascii_postings(buf, np.array([0, 11, 25]))
>>> [bytes(buf[s:s + n]).lower() for s, n in zip(first, length)]
[b'deploy', b'key', b'vault']
>>> indptr.tolist(), docs.tolist(), tf.tolist(), doc_len.tolist()
([0, 1, 3, 4], [0, 0, 1, 1], [1, 1, 2, 1], [2.0, 3.0])
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ascii_postings"]

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(cache=True, nogil=True, inline="always")
def _lower(byte):
    return byte + 32 if 65 <= byte <= 90 else byte


@njit(cache=True, nogil=True, inline="always")
def _is_token_byte(byte):
    return 48 <= byte <= 57 or 65 <= byte <= 90 or 97 <= byte <= 122


@njit(cache=True, nogil=True)
def _same(buf, a, b, length):
    for i in range(length):
        if _lower(buf[a + i]) != _lower(buf[b + i]):
            return False
    return True


@njit(cache=True, nogil=True)
def _grow(keys, term_hash, n_terms):
    """The id table (slot -> term id) at twice the size, every term re-inserted."""
    cap = len(keys) * 2
    mask = np.uint64(cap - 1)
    grown = np.full(cap, -1, dtype=np.int64)
    for t in range(n_terms):
        h = term_hash[t] & mask
        while grown[h] != -1:
            h = (h + np.uint64(1)) & mask
        grown[h] = t
    return grown


@njit(cache=True, nogil=True)
def ascii_postings(buf, starts):
    """``(first, length, indptr, docs, tf, doc_len)`` of the texts ``buf[starts[d]:starts[d +
    1]]`` (``buf``: uint8; bytes other than ASCII letters and digits separate tokens): each
    term's first occurrence in ``buf`` (offset, length; its token is that run lower-cased),
    then per term its rows (ascending, int32) and occurrences (int32), and each row's token
    count (float64)."""
    n_docs = len(starts) - 1
    token_term = np.empty((len(buf) + 1) // 2 + 1, dtype=np.int64)  # at most one per 2 bytes
    bounds = np.zeros(n_docs + 1, dtype=np.int64)  # row d's tokens: bounds[d]:bounds[d + 1]
    keys = np.full(1 << 12, -1, dtype=np.int64)  # slot -> term id
    first = np.empty(1 << 10, dtype=np.int64)
    length = np.empty(1 << 10, dtype=np.int64)
    term_hash = np.empty(1 << 10, dtype=np.uint64)
    n_terms = 0
    n_tok = 0
    for d in range(n_docs):
        i, stop = starts[d], starts[d + 1]
        while i < stop:
            if not _is_token_byte(buf[i]):
                i += 1
                continue
            j = i
            h = _FNV_OFFSET
            while j < stop and _is_token_byte(buf[j]):
                h = (h ^ np.uint64(_lower(buf[j]))) * _FNV_PRIME
                j += 1
            n = j - i
            if 2 * (n_terms + 1) > len(keys):
                keys = _grow(keys, term_hash, n_terms)
            mask = np.uint64(len(keys) - 1)
            s = h & mask
            term = -1
            while keys[s] != -1:
                t = keys[s]
                if term_hash[t] == h and length[t] == n and _same(buf, first[t], i, n):
                    term = t
                    break
                s = (s + np.uint64(1)) & mask
            if term == -1:
                term = n_terms
                if term == len(first):
                    first = np.concatenate((first, np.empty(len(first), dtype=np.int64)))
                    length = np.concatenate((length, np.empty(len(length), dtype=np.int64)))
                    term_hash = np.concatenate((term_hash,
                                                np.empty(len(term_hash), dtype=np.uint64)))
                first[term] = i
                length[term] = n
                term_hash[term] = h
                keys[s] = term
                n_terms += 1
            token_term[n_tok] = term
            n_tok += 1
            i = j
        bounds[d + 1] = n_tok
    # which tokens open a row of their term (counting each term's rows), then each term's
    # rows and occurrences, in row order
    last = np.full(n_terms, -1, dtype=np.int64)
    opens = np.empty(n_tok, dtype=np.bool_)
    df = np.zeros(n_terms + 1, dtype=np.int64)
    for d in range(n_docs):
        for q in range(bounds[d], bounds[d + 1]):
            t = token_term[q]
            opens[q] = last[t] != d
            if opens[q]:
                last[t] = d
                df[t + 1] += 1
    indptr = np.cumsum(df)
    docs = np.empty(indptr[-1], dtype=np.int32)
    tf = np.zeros(indptr[-1], dtype=np.int32)
    fill = indptr[:-1].copy()  # each term's next free slot
    for d in range(n_docs):
        for q in range(bounds[d], bounds[d + 1]):
            t = token_term[q]
            if opens[q]:
                docs[fill[t]] = d
                fill[t] += 1
            tf[fill[t] - 1] += 1
    doc_len = np.diff(bounds).astype(np.float64)
    return first[:n_terms], length[:n_terms], indptr, docs, tf, doc_len
