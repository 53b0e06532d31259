"""An in-memory FTS5 table's postings, held as arrays, and FTS5's ranking over them compiled.

For a small table most of a keyword search's time is SQLite's per-statement work: FTS5 reads
each phrase's doclist twice (to count its rows for the idf, then to match) and each matching
row's token count from the ``_docsize`` table. :class:`FTSPostings` reads the table's texts
once, tokenises them as FTS5's ``unicode61`` tokenizer does for ASCII text (lower-cased runs
of ASCII letters and digits; any other character a separator; compiled,
:mod:`memlab.kernels.fts5_postings_numba`), and answers the searches
OpenClaw's keyword leg runs (an ``AND`` of quoted terms, ``ORDER BY bm25() LIMIT n``) with
:func:`memlab.kernels.fts5_bm25_numba.and_top_k`: the same rows, ranks and order as SQLite,
bit for bit (``tests/index/test_fts_postings.py``).

It declines (``None``), and the leg queries SQLite, whenever it could differ:

* building: a text holds a character that ``unicode61`` could fold into a token (a
  non-ASCII letter, digit or private-use character), or FTS5's own vocabulary
  (``fts5vocab``, ``row``: each term's rows and occurrences) disagrees with the postings in
  any term or count;
* searching: a query term that is not plain ASCII letters and digits (FTS5 would fold it or
  split it into a phrase of several tokens).

Only in-memory tables use it (:class:`memlab.index.fts.FTS5` over a
:class:`~memlab.corpus.Corpus`), and only once they have been searched enough for reading them
back to pay off (about half as long as building the FTS5 table: :meth:`FTS5._postings
<memlab.index.fts.FTS5>` decides); a one-shot ``memlab search`` on an index file runs SQLite's
query.

>>> from memlab.index.store import IndexStore
>>> from memlab.corpus import Corpus
>>> store = IndexStore.from_corpus(Corpus.from_texts(["Deploy key in vault", "rotate key"]))
>>> postings = FTSPostings.build(store.connection)
>>> rowids, rank, text_score = postings.search(["KEY"], 5)
>>> len(rowids), bool((rank < 0).all()), bool(((0 < text_score) & (text_score < 1)).all())
(2, True, True)
"""

from __future__ import annotations

import math
import sqlite3
import unicodedata
from collections.abc import Sequence

import numpy as np

from memlab.index.store import FTS_TABLE
from memlab.kernels.backend import compiled

__all__ = ["FTSPostings"]

_VOCAB_TABLE = "memlab_fts_vocab"


def _ascii(text: str) -> str | None:
    """``text`` with each non-ASCII character a ``?`` (a separator, as ``unicode61`` treats
    it), or ``None`` when one of them is a character it could fold into a token (a letter,
    digit or private-use character)."""
    if text.isascii():
        return text
    for ch in text:
        if ord(ch) > 127:
            cat = unicodedata.category(ch)
            if cat[0] in "LN" or cat == "Co":
                return None
    return text.encode("ascii", "replace").decode("ascii")


class FTSPostings:
    """The postings of an FTS5 table's ``text`` column (see the module docstring).

    ``rowids`` (ascending) are the table's rows; ``indptr``/``docs``/``tf`` each term's rows
    (positions in ``rowids``) and occurrences; ``doc_len`` each row's token count; ``idf``
    each term's FTS5 idf. Built by :meth:`build`."""

    def __init__(self, vocab: dict[str, int], rowids: np.ndarray, indptr: np.ndarray,
                 docs: np.ndarray, tf: np.ndarray, doc_len: np.ndarray):
        self.vocab = vocab
        self.rowids = rowids
        self.indptr = indptr
        self.docs = docs
        self.tf = tf
        self.doc_len = doc_len
        n_row = len(rowids)
        # fts5Bm25GetData: avgdl = (double)nToken / (double)nRow; idf = log((nRow - nHit +
        # 0.5) / (nHit + 0.5)), at least 1e-6. math.log is C's log, as SQLite calls it
        # (numpy's log may round differently).
        self.avgdl = float(doc_len.sum()) / float(n_row) if n_row else 0.0
        hits = np.diff(indptr).tolist()
        self.idf = np.array([_floored(math.log((n_row - h + 0.5) / (h + 0.5))) for h in hits],
                            dtype=np.float64)

    @classmethod
    def build(cls, conn: sqlite3.Connection) -> FTSPostings | None:
        """The postings of ``conn``'s FTS table, or ``None`` when they might differ from
        FTS5's (a text it would tokenise with Unicode tables, or a vocabulary mismatch).
        The tokens are found and counted by
        :func:`memlab.kernels.fts5_postings_numba.ascii_postings` over one buffer of all the
        texts."""
        rowids: list[int] = []
        texts: list[str] = []
        for rowid, text in conn.execute(f"SELECT rowid, text FROM {FTS_TABLE} ORDER BY rowid"):
            plain = _ascii(text if isinstance(text, str) else "" if text is None else str(text))
            if plain is None:
                return None
            rowids.append(rowid)
            texts.append(plain)
        sizes = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        starts = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(sizes + 1, out=starts[1:])  # each text and the "\n" after it
        raw = ("\n".join(texts) + "\n").encode("ascii")
        del texts
        first, length, indptr, docs, tf, doc_len = compiled(
            "memlab.kernels.fts5_postings_numba").ascii_postings(
                np.frombuffer(raw, dtype=np.uint8), starts)
        vocab = {raw[a:a + n].decode("ascii").lower(): t
                 for t, (a, n) in enumerate(zip(first.tolist(), length.tolist(), strict=True))}
        postings = cls(vocab, np.array(rowids, dtype=np.int64), indptr, docs, tf, doc_len)
        return postings if postings._agrees(conn) else None

    def _agrees(self, conn: sqlite3.Connection) -> bool:
        """Do FTS5's own row count, terms, and each term's rows and occurrences equal these?"""
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_VOCAB_TABLE} "
                     f"USING fts5vocab(main, {FTS_TABLE}, row)")
        theirs = conn.execute(f"SELECT term, doc, cnt FROM temp.{_VOCAB_TABLE}").fetchall()
        if len(theirs) != len(self.vocab):
            return False
        n_rows = conn.execute(f"SELECT count(*) FROM {FTS_TABLE}").fetchone()[0]
        if n_rows != len(self.rowids):
            return False
        df = np.diff(self.indptr)
        cnt = (np.add.reduceat(self.tf.astype(np.int64), self.indptr[:-1]) if len(self.tf)
               else self.tf)
        for term, n_doc, n_occ in theirs:
            t = self.vocab.get(term)
            if t is None or df[t] != n_doc or cnt[t] != n_occ:
                return False
        return True

    def search(self, terms: Sequence[str], limit: int, keys: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``(rowids, rank, text_score)`` of ``MATCH '"t1" AND "t2" ...' ORDER BY bm25()
        LIMIT limit`` (rank: ``bm25()``; text score: OpenClaw's ``bm25RankToScore`` of it), or
        ``None`` when a term is not plain ASCII letters and digits (then SQLite's answer may
        differ: ask it). ``keys``: what to return for each row instead of its rowid
        (``keys[i]`` for ``rowids[i]``: the caller's own ids)."""
        ids = []
        for term in terms:
            if not (term.isascii() and term.isalnum()):
                return None
            t = self.vocab.get(term.lower())
            if t is None:
                return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
            ids.append(t)
        if not ids:
            return None
        phrases = np.array(ids, dtype=np.int64)
        pos, rank, text_score = compiled("memlab.kernels.fts5_bm25_numba").and_top_k(
            self.indptr, self.docs, self.tf, self.doc_len, self.avgdl, phrases,
            self.idf[phrases], int(limit))
        return (self.rowids if keys is None else keys)[pos], rank, text_score


def _floored(idf: float) -> float:
    """FTS5's floor: an idf at or below 0 becomes 1e-6."""
    return idf if idf > 0.0 else 1e-6
