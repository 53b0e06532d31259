"""Sweeps, ablations and tuning over cached legs.

* :mod:`memlab.tune.sweep`: :class:`SweepEngine` / :func:`sweep`, vectorised grids over the
  hybrid, vector-only and keyword-only modes, on memory datasets and BEIR collections;
* :mod:`memlab.tune.ablation`: :func:`ablation`, each stage switched off, paired tests;
* :mod:`memlab.tune.optimize`: :func:`tune`, grid or Optuna TPE inside k-fold CV;
* :mod:`memlab.tune.gate`: :func:`~memlab.tune.gate.quality_gate`, the best exportable
  configuration per fold against OpenClaw's defaults;
* :mod:`memlab.tune.backend`: joblib locally, dask.distributed on ``dask[:ADDRESS]``, for the
  grid and for corpus embedding (:func:`embed_corpus`);
* :mod:`memlab.cli.sweep`: ``memlab sweep``.
"""

from memlab.tune.ablation import ablation, ablation_configs
from memlab.tune.backend import Executor, embed_corpus
from memlab.tune.optimize import TuneResult, tune
from memlab.tune.sweep import (
    ALLOWED_AXES,
    MODES,
    SweepEngine,
    SweepError,
    config_mode,
    expand_grid,
    sweep,
)

__all__ = ["ALLOWED_AXES", "MODES", "Executor", "SweepEngine", "SweepError", "TuneResult",
           "ablation", "ablation_configs", "config_mode", "embed_corpus", "expand_grid",
           "sweep", "tune"]
