"""memlab: a research toolkit for agent memory search.

The public verbs, importable from the package (loaded on first use, so ``import memlab`` is
cheap)::

    import memlab

    corpus = memlab.load_workspace("datasets/sample-memory/workspace")
    pipe = memlab.openclaw_pipeline(corpus, {"provider": "none"})  # OpenClaw's pipeline
    hits = pipe("deploy window")
    ds = memlab.load_dataset("datasets/sample-memory")
    per_query, means = memlab.evaluate(pipe(ds.queries), ds.qrels)
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "load_workspace": ("memlab.corpus", "load_workspace"),
    "Corpus": ("memlab.corpus", "Corpus"),
    "load_config": ("memlab.config", "load_config"),
    "openclaw_pipeline": ("memlab.openclaw", "openclaw_pipeline"),
    "MemorySearch": ("memlab.openclaw", "MemorySearch"),
    "load_dataset": ("memlab.eval.datasets", "load_dataset"),
    "evaluate": ("memlab.eval.experiment", "evaluate"),
    "compare": ("memlab.eval.experiment", "compare"),
    "get_provider": ("memlab.embed", "get_provider"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module, attr = _EXPORTS[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'memlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
