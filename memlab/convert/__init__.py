"""Converters from agent-memory benchmarks (LoCoMo, LongMemEval) to memlab memory datasets,
in either OpenClaw layout (dated daily notes or session transcripts).

The names below are loaded on first use (the CLI reads ``LAYOUTS`` while it builds its
parser, without loading the converters).

>>> from memlab.convert import LAYOUTS
>>> LAYOUTS
('notes', 'transcripts')
"""

from __future__ import annotations

from memlab.lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(["ConversionReport", "DatasetReport", "Question", "write_dataset"],
                    "memlab.convert.dataset"),
    **dict.fromkeys(["LAYOUTS", "SESSION_OVERRIDES", "Session", "Turn", "write_layout"],
                    "memlab.convert.layout"),
    "convert_locomo": "memlab.convert.locomo",
    "convert_longmemeval": "memlab.convert.longmemeval",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
