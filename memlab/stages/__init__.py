"""The stages of a search pipeline, each a :class:`memlab.pipeline.Stage`:

* :class:`VectorSearch` -- the vector leg: the query embedding's cosine similarity, on FAISS;
* :class:`BM25` -- a keyword leg: BM25 with the scoring variants of bm25s;
* :class:`TfIdf` -- a keyword leg: TF-IDF cosine, scikit-learn's weighting;
* :class:`Fusion` -- merges a vector leg and a keyword leg into one ranking;
* :class:`TemporalDecay` -- scales hit scores by their age (OpenClaw's temporal decay);
* :class:`MMR` -- re-ranks each query's hits with OpenClaw's MMR (relevance vs. diversity);
* :class:`Threshold` -- keeps hits scoring at least ``min_score``, at most ``max_results``.

Each is loaded from its module (``memlab.stages.vector``, ``lexical``, ``fusion``, ``decay``,
``mmr``, ``threshold``) on first use, so importing this package, or one stage module, does not
import the others (the keyword legs and MMR bring scipy).

>>> from memlab.stages import BM25, Fusion, Threshold
>>> from memlab.pipeline import Stage
>>> all(issubclass(s, Stage) for s in (BM25, Fusion, Threshold)), Fusion.__module__
(True, 'memlab.stages.fusion')
"""

from __future__ import annotations

from memlab.lazy import lazy_exports

_EXPORTS = {
    "BM25": "memlab.stages.lexical",
    "Fusion": "memlab.stages.fusion",
    "MMR": "memlab.stages.mmr",
    "TemporalDecay": "memlab.stages.decay",
    "TfIdf": "memlab.stages.lexical",
    "Threshold": "memlab.stages.threshold",
    "VectorSearch": "memlab.stages.vector",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
