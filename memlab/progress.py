"""Progress bars: one policy for embedding, indexing, sweeps and benchmarks.

A bar is shown when the caller asked for one *and* the output is interactive: a terminal, or
a Jupyter kernel (where ``tqdm.auto`` draws a widget). It is silent in CI logs, pipes and
files, and whenever ``MEMLAB_PROGRESS=0`` is set (``MEMLAB_PROGRESS=1`` forces bars on, e.g.
to watch a long job through ``tee``). Every CLI verb's ``--no-progress`` runs the verb inside
:func:`suppressed`, which sets ``MEMLAB_PROGRESS=0`` for its duration.

tqdm's own ``disable=None`` only checks ``isatty()``, which is ``False`` inside a notebook
kernel, so it would hide every bar in exactly the place memlab is meant to be used; hence
this small policy module.

>>> import os
>>> os.environ["MEMLAB_PROGRESS"] = "0"
>>> show_progress(True)
False
>>> del os.environ["MEMLAB_PROGRESS"]
>>> show_progress(False)
False
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ENV_VAR", "bar", "in_notebook", "show_progress", "suppressed"]

#: The environment variable of the policy (``0``/``false``/``no``/``off`` hides every bar).
ENV_VAR = "MEMLAB_PROGRESS"

_OFF = {"0", "false", "no", "off"}
_ON = {"1", "true", "yes", "on"}


def in_notebook() -> bool:
    """True inside a Jupyter (IPython kernel) session."""
    if "ipykernel" not in sys.modules:
        return False
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipykernel without IPython
        return False
    shell = get_ipython()
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def show_progress(requested: bool | None = True, stream: Any = None) -> bool:
    """Whether to draw a bar: ``requested`` (``None`` counts as yes), ``MEMLAB_PROGRESS``
    allowing it, and an interactive ``stream`` (default ``sys.stderr``) or notebook."""
    if requested is False:
        return False
    env = os.environ.get(ENV_VAR, "").strip().lower()
    if env in _OFF:
        return False
    if env in _ON:
        return True
    if in_notebook():
        return True
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or file-like without isatty
        return False


def bar(iterable: Iterable[Any] | None = None, *, total: int | None = None,
        desc: str | None = None, unit: str = "it", progress: bool | None = True,
        leave: bool = False) -> Any:
    """A ``tqdm.auto`` bar under memlab's policy (a disabled, zero-cost bar when silent).

    >>> with bar(total=3, desc="demo", progress=False) as b:
    ...     b.update(3)
    """
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, leave=leave,
                disable=not show_progress(progress), file=sys.stderr, dynamic_ncols=True)


@contextmanager
def suppressed(active: bool = True) -> Iterator[None]:
    """No progress bar inside the block (when ``active``): ``MEMLAB_PROGRESS=0`` is set and
    the previous value restored afterwards. The environment rather than a flag, so worker
    processes started inside the block (joblib, dask) stay quiet too.

    >>> with suppressed():
    ...     show_progress(True)
    False
    """
    if not active:
        yield
        return
    before = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = "0"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV_VAR, None)
        else:
            os.environ[ENV_VAR] = before
