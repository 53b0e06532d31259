"""Converters from agent-memory benchmarks (LoCoMo, LongMemEval) to memlab memory datasets,
in either OpenClaw layout (dated daily notes or session transcripts)."""

from memlab.convert.dataset import ConversionReport, DatasetReport, Question, write_dataset
from memlab.convert.layout import LAYOUTS, SESSION_OVERRIDES, Session, Turn, write_layout
from memlab.convert.locomo import convert_locomo
from memlab.convert.longmemeval import convert_longmemeval

__all__ = ["LAYOUTS", "SESSION_OVERRIDES", "ConversionReport", "DatasetReport", "Question",
           "Session", "Turn", "convert_locomo", "convert_longmemeval", "write_dataset",
           "write_layout"]
