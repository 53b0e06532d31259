"""Lazy package exports (PEP 562): a package lists what it exports and from which submodule,
and each submodule is imported on first access, so ``import memlab.eval`` stays cheap for the
verbs that do not need pandas or scipy.

Hand-written: the standard library has no helper for module-level ``__getattr__``.

>>> import types, sys
>>> pkg = types.ModuleType("demo_pkg"); sys.modules["demo_pkg"] = pkg
>>> pkg.__getattr__, pkg.__dir__ = lazy_exports("demo_pkg", {"sqrt": "math"})
>>> pkg.sqrt(9.0), "sqrt" in dir(pkg)
(3.0, True)
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, loading ``exports[name]`` (a module
    name) on first access of ``name`` and keeping the value on the package."""

    def __getattr__(name: str) -> Any:
        if name in exports:
            value = getattr(importlib.import_module(exports[name]), name)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
