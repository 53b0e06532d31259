"""Temporal decay (reference, section 5; OpenClaw's ``temporal-decay.ts``): older notes count
less.

    multiplier = exp(-(ln 2 / half_life_days) * age_days),  age_days = max(0, now - ts) / 1 day

A candidate without a timestamp (NaN: evergreen memory files, session transcripts, an
unreadable mtime) keeps multiplier 1, and a non-positive half-life disables decay. Which
timestamp a chunk has is decided by :class:`memlab.stages.decay.TemporalDecay` (dated paths,
file mtimes); this module is only the arithmetic. ``half_life_days`` may be a ``(configs, 1)``
array to decay many configurations at once.

>>> import numpy as np
>>> float(decay_multiplier(age_days=30, half_life_days=30))
0.5
>>> decay_multipliers(np.array([0.0, np.nan]), now_ms=30 * DAY_MS, half_life_days=30).tolist()
[0.5, 1.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

DAY_MS = 86_400_000


def decay_multiplier(age_days: float | np.ndarray, half_life_days: float) -> float | np.ndarray:
    """``exp(-ln2/half_life * max(0, age))``; a non-positive half-life disables decay."""
    if not half_life_days or half_life_days <= 0:
        return np.ones_like(np.asarray(age_days, dtype=float))
    lam = math.log(2) / half_life_days
    return np.exp(-lam * np.maximum(0.0, age_days))


def decay_multipliers(timestamps_ms: np.ndarray, now_ms: Any, half_life_days: float
                      ) -> np.ndarray:
    """The multiplier of each candidate with timestamp ``timestamps_ms`` (epoch ms; NaN: no
    decay) at ``now_ms`` (a scalar, or one value per candidate)."""
    ts = np.asarray(timestamps_ms, dtype=np.float64)
    age_days = np.maximum(0.0, now_ms - ts) / DAY_MS
    out = decay_multiplier(age_days, half_life_days)
    if np.isnan(out).any():
        # a chunk without a timestamp, or an age that is not a number (a NaN or infinite
        # ``now``, an infinite half-life): the rule in full. Otherwise this is its value:
        # a finite age is its own nan_to_num, and an infinite one decays to 0 either way
        out = np.where(np.isnan(ts), 1.0, decay_multiplier(np.nan_to_num(age_days),
                                                           half_life_days))
    return out
