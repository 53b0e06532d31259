"""Evaluation: labeled datasets, span-level relevance, metrics, comparisons."""

from memlab.eval.datasets import DatasetError, MemoryDataset, load_memory_dataset
from memlab.eval.experiment import compare, evaluate
from memlab.eval.metrics import metric_value, parse_metric
from memlab.eval.relevance import span_gains

__all__ = ["DatasetError", "MemoryDataset", "compare", "evaluate", "load_memory_dataset",
           "metric_value", "parse_metric", "span_gains"]
