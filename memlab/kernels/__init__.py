"""The ranking math, written once: one small file per step, plain numpy, no DataFrames.

Every kernel works on one query's candidate arrays and, where the sweep needs it, broadcasts
over a leading axis of configurations (``(configs, items)`` arrays against ``(configs, 1)``
parameters). The stages (:mod:`memlab.stages`), the single-query search path
(:meth:`memlab.pipeline.Sequence.transform_query`) and the sweep engine
(:mod:`memlab.tune.sweep`) call these functions; none of them re-derives a formula.

=================  ==========================================================================
module             step (OpenClaw 2026.7.35 source it mirrors)
=================  ==========================================================================
``cut``            a leg's candidate cut (``searchVector``/``searchKeyword`` ``LIMIT``)
``keyword``        FTS5 rank -> score, the keyword-only boost, the fallback merge
                   (``bm25RankToScore``, ``scoreFallbackKeywordResult``,
                   ``mergeKeywordSearchHits``)
``fusion``         weight resolution, union by chunk, weighted sum / RRF / min-max / z-score
                   (``mergeHybridResults``)
``decay``          temporal decay multipliers (``temporal-decay.ts``)
``mmr``            Jaccard similarity and greedy MMR selection (``mmr.ts``); one query's
                   loop runs as it is or compiled by numba (``mmr_numba``)
``threshold``      ``minScore`` with OpenClaw's relaxations, ``maxResults``
``tail``           one query's merge -> decay -> MMR -> cut in one compiled call
                   (``tail_numba``, over ``fusion``'s, ``mmr``'s and ``threshold``'s
                   bodies): the same hits as the steps one by one
``backend``        which implementation runs: numpy, or numba when installed (``"auto"``);
                   ``jit``: numba compiles a kernel's plain Python body as it is
``blas``           numpy's BLAS held at one thread around one query's small products
``gains``          relevance gains of a ranked list (span and document level)
=================  ==========================================================================

Layering: this package imports nothing from memlab, so every other layer may use it.
"""
