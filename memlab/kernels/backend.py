"""Which implementation of a kernel runs: plain numpy, or its compiled numba backend.

A kernel with a compiled backend (:mod:`memlab.kernels.mmr_numba`) takes ``backend=``:
``"numpy"`` (always available), ``"numba"`` (needs ``pip install 'memlab[speed]'``; the same
results, bit for bit) or ``"auto"``, resolved by :func:`resolve_backend`:

1. the ``MEMLAB_KERNEL_BACKEND`` environment variable, when set;
2. else the process default (:func:`set_default_backend`): memlab's one-shot commands
   (``memlab search``) set ``"numpy"``, because importing numba (~0.4 s CPU) costs more than
   it saves on one query, while the Python API, notebooks and ``memlab shell`` keep ``"auto"``;
3. else numba when it is importable, else numpy.

>>> resolve_backend("numpy")
'numpy'
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

__all__ = ["BACKENDS", "ENV_BACKEND", "compiled", "default_backend", "drop_stale_cache", "jit",
           "numba_available", "resolve_backend", "set_default_backend"]

BACKENDS = ("auto", "numpy", "numba")
ENV_BACKEND = "MEMLAB_KERNEL_BACKEND"

_default = {"backend": "auto"}
_available: dict[str, bool] = {}


def _check(name: str, value: str) -> str:
    if value not in BACKENDS:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, BACKENDS))} "
                         f"(got {value!r})")
    return value


def numba_available() -> bool:
    """Is numba importable (checked once per process)?"""
    if "numba" not in _available:
        try:
            import numba  # noqa: F401
        except ImportError:
            _available["numba"] = False
        else:
            _available["numba"] = True
    return _available["numba"]


@functools.cache
def compiled(module: str) -> ModuleType:
    """The compiled backend module ``module`` (e.g. ``"memlab.kernels.mmr_numba"``), imported
    on first use and then returned from a cache: an ``import`` statement inside a kernel
    costs ~1 µs per call even when the module is loaded, a noticeable share of one query's
    path, while importing numba at the top would cost every command that never runs it.

    >>> compiled("memlab.kernels.backend").BACKENDS
    ('auto', 'numpy', 'numba')
    """
    return importlib.import_module(module)


@functools.cache
def jit(fn: Any) -> Any:
    """``fn``, a plain Python kernel body, compiled by numba (``njit``, cached on disk, no
    GIL): the compiled backend is the same function, not a second body. ``fn`` is also
    registered with numba, so a compiled body that calls it by its plain name compiles it in.
    Without numba, ``fn`` itself. Called once per body (cached), from the ``*_numba`` modules
    only, which are imported on first use (:func:`compiled`): importing numba costs ~0.4 s.

    A caller compiled with a body from another file keeps that body in its disk cache:
    :func:`drop_stale_cache` with the body's module among its callees.
    """
    if not numba_available():
        return fn
    from numba import njit
    from numba.extending import register_jitable

    register_jitable(fn)
    return njit(cache=True, nogil=True)(fn)


def set_default_backend(backend: str) -> None:
    """What ``"auto"`` means in this process when ``MEMLAB_KERNEL_BACKEND`` is unset."""
    _default["backend"] = _check("backend", backend)


@contextmanager
def default_backend(backend: str) -> Iterator[None]:
    """:func:`set_default_backend` for the block, then the previous default again.

    >>> with default_backend("numpy"):
    ...     resolve_backend()
    'numpy'
    """
    previous = _default["backend"]
    set_default_backend(backend)
    try:
        yield
    finally:
        _default["backend"] = previous


def resolve_backend(backend: str = "auto") -> str:
    """``"numpy"`` or ``"numba"``: what ``backend`` runs on (module docstring); asking for
    ``"numba"`` without numba installed is an error."""
    _check("backend", backend)
    if backend == "auto":
        env = os.environ.get(ENV_BACKEND, "").strip()
        backend = _check(ENV_BACKEND, env) if env else _default["backend"]
    if backend == "auto":
        return "numba" if numba_available() else "numpy"
    if backend == "numba" and not numba_available():
        raise ImportError("backend='numba' needs numba: pip install 'memlab[speed]' (or use "
                          "backend='auto' or 'numpy')")
    return backend


def drop_stale_cache(dispatcher: Any, callees: tuple[ModuleType, ...]) -> bool:
    """Empty the disk cache of the numba function ``dispatcher`` when the file of one of the
    ``callees`` (modules whose compiled functions it calls) is newer than that cache's index;
    whether it did. numba's disk cache checks only the source file of the function it caches
    while the code it keeps holds its callees compiled in: a newer callee file (an edit, a
    ``git pull`` into an editable install) would leave it running the old callee. The next
    call compiles again (seconds) and caches that. numba has no public call for this: its
    cache object is read with ``getattr`` and left alone if numba lays it out otherwise."""
    cache = getattr(dispatcher, "_cache", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    try:
        stamp = os.stat(index).st_mtime if index else None
        newest = max(os.stat(module.__file__).st_mtime for module in callees)
    except (OSError, TypeError):
        return False
    if stamp is None or newest <= stamp or not hasattr(cache, "flush"):
        return False
    cache.flush()
    return True
