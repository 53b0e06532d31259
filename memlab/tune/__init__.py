"""Sweeps, ablations and tuning over cached legs.

* :mod:`memlab.tune.sweep`: :class:`SweepEngine` / :func:`sweep`, vectorised grids;
* :mod:`memlab.tune.ablation`: :func:`ablation`, each stage switched off, paired tests;
* :mod:`memlab.tune.optimize`: :func:`tune`, grid or Optuna TPE inside k-fold CV;
* :mod:`memlab.tune.backend`: joblib locally, dask.distributed on ``dask[:ADDRESS]``;
* :mod:`memlab.tune.cli`: ``memlab sweep``.
"""

from memlab.tune.ablation import ablation, ablation_configs
from memlab.tune.optimize import TuneResult, tune
from memlab.tune.sweep import (
    ALLOWED_AXES,
    SweepEngine,
    SweepError,
    expand_grid,
    sweep,
)

__all__ = ["ALLOWED_AXES", "SweepEngine", "SweepError", "TuneResult", "ablation",
           "ablation_configs", "expand_grid", "sweep", "tune"]
