"""The sweep's error type, in its own module so that the sweep engine
(:mod:`memlab.tune.sweep`) and the chunkings it resolves (:mod:`memlab.tune.chunkings`) can
both raise it without importing each other; ``memlab.tune.sweep.SweepError`` stays the name
users import."""

from __future__ import annotations

__all__ = ["SweepError"]


class SweepError(ValueError):
    """A bad grid or sweep request (unknown axis, empty grid, unsupported mode...).

    >>> isinstance(SweepError("unknown axis 'provder'"), ValueError)
    True
    """
