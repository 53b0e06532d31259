"""Evaluation: labeled datasets, span- and document-level relevance, metrics, comparisons,
TREC run and qrels files.

The names below are loaded on first use, so importing a light submodule (the CLI's
``memlab.eval.collection_cli`` while it builds its parser) does not import pandas and
scipy.stats.

>>> from memlab.eval import parse_metric
>>> parse_metric("ndcg@10")[0]
'ndcg'
"""

from __future__ import annotations

from memlab.lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(["BeirDataset", "DatasetError", "MemoryDataset", "document_corpus",
                     "load_beir_dataset", "load_dataset", "load_memory_dataset"],
                    "memlab.eval.datasets"),
    **dict.fromkeys(["compare", "evaluate"], "memlab.eval.experiment"),
    **dict.fromkeys(["metric_value", "parse_metric"], "memlab.eval.metrics"),
    **dict.fromkeys(["doc_gains", "doc_hits", "doc_ideal", "ideal_gains", "path_to_doc_id",
                     "span_gains"], "memlab.eval.relevance"),
    **dict.fromkeys(["read_trec_qrels", "read_trec_run", "write_trec_qrels", "write_trec_run"],
                    "memlab.eval.trec"),
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
