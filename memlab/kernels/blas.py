"""numpy's BLAS held at one thread around the small products of one query.

One query's arrays are a few dozen candidates (MMR's Jaccard block, the persistent index's
exact scan of one query vector): a multi-threaded BLAS spends more on waking its threads than
on a product that small (MMR's Jaccard block cost 5-10x its one-thread CPU time with
OpenBLAS's two threads). Products of 0/1 blocks and per-element loops give the same bits on
any thread count. Setting and restoring the count costs tens of microseconds when caches are
cold, so only the code that reaches BLAS enters the block.

>>> import numpy as np
>>> with single_thread_blas():
...     int((np.ones((3, 4), dtype=np.float32) @ np.ones((4, 3), dtype=np.float32))[0, 0])
4
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["single_thread_blas"]


class _BlasLimit:
    """numpy's BLAS thread pool held at one thread while any block inside
    :func:`single_thread_blas` runs (a depth count under a lock, so overlapping blocks in
    threads restore the original count once, last).

    Each BLAS library's count is read and set directly through its threadpoolctl controller
    (two ctypes calls, a few microseconds) rather than through ``ThreadpoolController.limit``,
    which re-reads every library's full info on each call (~100 us per query); a library
    already at one thread is left alone."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.libs: list[Any] | None = None  # threadpoolctl's controllers of the BLAS (lazy)
        self.saved: list[tuple[Any, int]] = []  # (controller, count to restore)

    def enter(self) -> None:
        with self.lock:
            if self.depth == 0:
                if self.libs is None:
                    # threadpoolctl (a scikit-learn dependency) finds the loaded BLAS
                    # (OpenBLAS, MKL, BLIS) and sets its thread count
                    from threadpoolctl import ThreadpoolController

                    self.libs = list(ThreadpoolController().select(
                        user_api="blas").lib_controllers)
                saved = []
                for lib in self.libs:
                    n = lib.num_threads
                    if n != 1:
                        lib.set_num_threads(1)
                        saved.append((lib, n))
                self.saved = saved
            self.depth += 1

    def exit(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                for lib, n in self.saved:
                    lib.set_num_threads(n)
                self.saved = []


_BLAS = _BlasLimit()


@contextmanager
def single_thread_blas() -> Iterator[None]:
    """Run the block with numpy's BLAS on one thread, then restore its thread count (see
    the module docstring)."""
    _BLAS.enter()
    try:
        yield
    finally:
        _BLAS.exit()


