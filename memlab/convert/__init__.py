"""Converters from agent-memory benchmarks (LoCoMo, LongMemEval) to memlab memory datasets,
in either OpenClaw layout (dated daily notes or session transcripts).

The names below are loaded on first use (the CLI reads ``LAYOUTS`` while it builds its
parser, without loading the converters).

>>> from memlab.convert import LAYOUTS
>>> LAYOUTS
('notes', 'transcripts')
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    **dict.fromkeys(["ConversionReport", "DatasetReport", "Question", "write_dataset"],
                    "memlab.convert.dataset"),
    **dict.fromkeys(["LAYOUTS", "SESSION_OVERRIDES", "Session", "Turn", "write_layout"],
                    "memlab.convert.layout"),
    "convert_locomo": "memlab.convert.locomo",
    "convert_longmemeval": "memlab.convert.longmemeval",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'memlab.convert' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
