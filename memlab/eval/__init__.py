"""Evaluation: labeled datasets, span- and document-level relevance, metrics, comparisons,
TREC run and qrels files."""

from memlab.eval.datasets import (
    BeirDataset,
    DatasetError,
    MemoryDataset,
    document_corpus,
    load_beir_dataset,
    load_dataset,
    load_memory_dataset,
)
from memlab.eval.experiment import compare, evaluate
from memlab.eval.metrics import metric_value, parse_metric
from memlab.eval.relevance import (
    doc_gains,
    doc_hits,
    doc_ideal,
    ideal_gains,
    path_to_doc_id,
    span_gains,
)
from memlab.eval.trec import read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run

__all__ = ["BeirDataset", "DatasetError", "MemoryDataset", "compare", "doc_gains", "doc_hits",
           "doc_ideal", "document_corpus", "evaluate", "ideal_gains", "load_beir_dataset",
           "load_dataset", "load_memory_dataset", "metric_value", "parse_metric",
           "path_to_doc_id", "read_trec_qrels", "read_trec_run", "span_gains",
           "write_trec_qrels", "write_trec_run"]
