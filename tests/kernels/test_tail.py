"""memlab.kernels.tail: the compiled merge -> decay -> MMR -> cut equals the numpy kernels run
one by one (as the stages run them), bit for bit, on random legs with ties, overlaps,
duplicate keyword listings, fallback-sized keyword legs and every subset of the steps."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from memlab.kernels.fusion import fuse_scores, union
from memlab.kernels.mmr import jaccard_rows, mmr_order
from memlab.kernels.tail import Cut, Decay, MMRStep, ranked_tail
from memlab.kernels.threshold import eligible, keep_first

pytest.importorskip("numba")


def reference(vdoc, vscore, tdoc, tscore, weights, mult, matrix, lam, cut):
    """The stages' order of the numpy kernels (Fusion._hybrid, TemporalDecay, MMR with the
    cut's early stop, Threshold)."""
    docno, vpos, tpos = union(vdoc, tdoc)
    in_t = tpos >= 0
    vs = np.zeros(len(docno))
    vs[:len(vdoc)] = vscore
    ts = np.where(in_t, tscore[tpos], 0.0) if len(tdoc) else np.zeros(len(docno))
    score = fuse_scores("openclaw", weights[0], weights[1], vector_score=vs, text_score=ts)
    rows = np.argsort(-score, kind="stable")
    score = score[rows]
    if mult is not None:
        score = score * mult[docno[rows]]
        again = np.argsort(-score, kind="stable")
        rows, score = rows[again], score[again]
    keep = limit = None
    if cut is not None:
        keep = eligible(score, in_t[rows], cut.min_score, cut.relaxed)
        limit = cut.max_results
    if lam is not None and len(rows) > 1:
        order = mmr_order(score, jaccard_rows(matrix, docno[rows], "numpy"), lam, keep, limit,
                          backend="numpy")
        rows, score = rows[order], score[order]
    if cut is not None:
        kept = np.flatnonzero(keep_first(eligible(score, in_t[rows], cut.min_score,
                                                  cut.relaxed), cut.max_results))
        rows, score = rows[kept], score[kept]
    return docno[rows], score, vs[rows], ts[rows], in_t[rows], tpos[rows]


def random_case(rng):
    n_docs = int(rng.integers(2, 80))
    pool = np.round(rng.random(4), 2)  # few distinct values: ties on purpose
    nv = int(rng.integers(0, min(n_docs, 30) + 1))
    vdoc = rng.permutation(n_docs)[:nv]
    vscore = np.sort(rng.choice(pool, nv) if rng.random() < 0.5 else rng.random(nv))[::-1]
    nt = int(rng.integers(0, min(n_docs, 40) + 1))
    tdoc = rng.integers(0, n_docs, nt) if rng.random() < 0.2 else rng.permutation(n_docs)[:nt]
    tscore = rng.choice(pool, nt) if rng.random() < 0.5 else rng.random(nt)
    w = float(rng.choice([0.0, 0.3, 0.7, 1.0, rng.random()]))
    mult = rng.choice([1.0, 0.5, 0.25, rng.random()], n_docs)
    dense = rng.random((n_docs, 25)) < rng.random() * 0.4
    dense[rng.random(n_docs) < 0.1] = False  # empty token sets
    matrix = sp.csr_matrix(dense.astype(np.float32))
    lam = float(rng.choice([0.0, 0.3, 0.7, 0.99, rng.random()]))
    cut = Cut(float(rng.choice([0.0, 0.2, 0.35, 0.6, 2.0])),
              [None, "zero", "keyword"][int(rng.integers(3))], int(rng.integers(1, 8)))
    return (vdoc.astype(np.int64), vscore.astype(np.float64), tdoc.astype(np.int64),
            tscore.astype(np.float64), (w, 1.0 - w), mult, matrix, lam, cut)


@pytest.mark.parametrize("which", list(itertools.product([False, True], repeat=3)))
def test_tail_equals_the_kernels_one_by_one(which):
    use_decay, use_mmr, use_cut = which
    rng = np.random.default_rng(sum(b << i for i, b in enumerate(which)))
    for _ in range(400):
        vdoc, vscore, tdoc, tscore, weights, mult, matrix, lam, cut = random_case(rng)
        steps = []
        if use_decay:
            steps.append(Decay(lambda d, m=mult: m[d]))
        if use_mmr:
            steps.append(MMRStep(lam, matrix.indptr, matrix.indices))
        if use_cut:
            steps.append(cut)
        got = ranked_tail(vdoc, vscore, tdoc, tscore, weights, steps)
        want = reference(vdoc, vscore, tdoc, tscore, weights, mult if use_decay else None,
                         matrix, lam if use_mmr else None, cut if use_cut else None)
        assert got is not None
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b), (which, a, b)


def test_no_op_steps_and_nan_scores():
    vdoc, vscore = np.array([2, 0]), np.array([0.9, 0.1])
    tdoc, tscore = np.array([1]), np.array([0.5])
    plain = ranked_tail(vdoc, vscore, tdoc, tscore, (0.7, 0.3), [Cut(0.0, None, 5)])
    off = ranked_tail(vdoc, vscore, tdoc, tscore, (0.7, 0.3),
                      [Decay(None), MMRStep(1.0, np.zeros(0, np.int32), np.zeros(0, np.int32)),
                       Cut(0.0, None, 5)])
    for a, b in zip(plain, off, strict=True):
        assert np.array_equal(a, b)
    assert plain.docno.tolist() == [2, 1, 0]
    # a NaN score is left to the stages (numpy sorts NaN last, a merge sort does not)
    assert ranked_tail(vdoc, np.array([np.nan, 0.1]), tdoc, tscore, (0.7, 0.3), []) is None
    nan_mult = Decay(lambda d: np.where(d == 1, np.nan, 1.0))
    assert ranked_tail(vdoc, vscore, tdoc, tscore, (0.7, 0.3), [nan_mult]) is None


def test_steps_out_of_order_are_refused():
    none = np.zeros(0, dtype=np.int64)
    with pytest.raises(ValueError, match="subsequence"):
        ranked_tail(none, np.zeros(0), none, np.zeros(0), (0.7, 0.3),
                    [Cut(0.0, None, 1), Decay(None)])


def test_a_newer_callee_empties_the_cache_of_its_caller(tmp_path):
    """numba's disk cache of a function keeps the compiled code of the functions it calls
    but checks only its own file: after an edit of the callee's file it runs the old callee.
    The guard (backend.drop_stale_cache, run at the import of the compiled modules) empties
    the caller's cache when a callee's file is newer than it. The callee is a plain body
    compiled by backend.jit, as the kernels' are."""
    import os
    import subprocess
    import sys
    import textwrap

    (tmp_path / "callee_mod.py").write_text(textwrap.dedent("""
        def value():
            return 1
    """))
    (tmp_path / "caller_mod.py").write_text(textwrap.dedent("""
        from numba import njit
        import callee_mod
        from memlab.kernels.backend import jit

        value = jit(callee_mod.value)

        @njit(cache=True)
        def twice():
            return 2 * value()
    """))
    run = textwrap.dedent("""
        import sys
        import callee_mod, caller_mod
        if sys.argv[1] == "guard":
            from memlab.kernels.backend import drop_stale_cache
            drop_stale_cache(caller_mod.twice, (callee_mod,))
        print(caller_mod.twice())
    """)

    def call(mode: str) -> str:
        env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}"
               f"{os.environ.get('PYTHONPATH', '')}"}
        return subprocess.run([sys.executable, "-c", run, mode], cwd=tmp_path, env=env,
                              capture_output=True, text=True, check=True).stdout.strip()

    assert call("plain") == "2"  # compiled and cached
    callee = tmp_path / "callee_mod.py"
    callee.write_text(callee.read_text().replace("return 1", "return 5"))
    later = max(p.stat().st_mtime for p in (tmp_path / "__pycache__").iterdir()) + 10
    os.utime(callee, (later, later))
    assert call("plain") == "2"  # numba's own check: the stale caller
    assert call("guard") == "10"
