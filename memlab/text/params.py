"""scikit-learn's parameter convention without importing scikit-learn.

:class:`Params` gives tokenizers (:class:`memlab.text.Tokenizer`) and stages
(:class:`memlab.pipeline.Stage`) what they used to inherit from
:class:`sklearn.base.BaseEstimator`: ``get_params``/``set_params`` over the constructor's
arguments (stored unchanged as attributes of the same name, nested names joined by ``__``),
a ``repr`` that shows the arguments differing from their defaults, and pickling. Importing
scikit-learn costs ~1 s of CPU (it pulls in ``scipy.stats``), which every CLI verb paid
before doing anything (issue 16 item 4); this module imports only the standard library.

``sklearn.base.clone`` still works on these objects: it needs only ``get_params(deep=False)``
and a constructor taking those parameters back, which is the convention itself.

It lives in :mod:`memlab.text` because that is the lowest layer both users share (see
docs/architecture.md); it knows nothing about text.

>>> class Scale(Params):
...     def __init__(self, factor: float = 1.0, inner: Params | None = None):
...         self.factor = factor
...         self.inner = inner
>>> s = Scale(2.0, inner=Scale())
>>> s
Scale(factor=2.0, inner=Scale())
>>> s.get_params()
{'factor': 2.0, 'inner__factor': 1.0, 'inner__inner': None, 'inner': Scale()}
>>> s.set_params(inner__factor=3.0).inner.factor
3.0
"""

from __future__ import annotations

import inspect
import math
from typing import Any

__all__ = ["Params"]

#: Constructor parameter names per class (computed once per class).
_NAMES: dict[type, tuple[str, ...]] = {}


def _param_names(cls: type) -> tuple[str, ...]:
    """The constructor's named parameters of ``cls``, sorted (scikit-learn's order)."""
    names = _NAMES.get(cls)
    if names is None:
        init = cls.__init__  # type: ignore[misc]
        if init is object.__init__:
            names = ()
        else:
            found = []
            for p in inspect.signature(init).parameters.values():
                if p.name == "self" or p.kind is p.VAR_KEYWORD:
                    continue
                if p.kind is p.VAR_POSITIONAL:
                    raise TypeError(f"{cls.__name__}.__init__ takes *{p.name}: parameters must "
                                    "be named so that get_params/set_params can address them")
                found.append(p.name)
            names = tuple(sorted(found))
        _NAMES[cls] = names
    return names


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


class Params:
    """``get_params``/``set_params``/``repr`` from the constructor's arguments (see the
    module docstring). A subclass stores every ``__init__`` argument unchanged as an attribute
    of the same name."""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's arguments by name; with ``deep``, also those of every argument
        that has ``get_params`` itself, as ``<argument>__<name>``."""
        out: dict[str, Any] = {}
        for key in _param_names(type(self)):
            value = getattr(self, key)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{key}__{k}", v) for k, v in value.get_params().items())
            out[key] = value
        return out

    def set_params(self, **params: Any) -> Any:
        """Set arguments by name (``<argument>__<name>`` reaches a nested one); returns
        ``self``. An unknown name is a ``ValueError`` listing the valid ones."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, sep, sub = key.partition("__")
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator {self}. Valid "
                                 f"parameters are: {sorted(_param_names(type(self)))!r}.")
            if sep:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def _changed_params(self) -> dict[str, Any]:
        """The arguments that differ from the constructor's defaults (by ``repr``, as
        scikit-learn compares them; NaN equals NaN)."""
        init = type(self).__init__  # type: ignore[misc]
        defaults = {} if init is object.__init__ else {
            p.name: p.default for p in inspect.signature(init).parameters.values()}
        changed = {}
        for key, value in self.get_params(deep=False).items():
            default = defaults.get(key, inspect.Parameter.empty)
            if (default is inspect.Parameter.empty
                    or (isinstance(value, Params) and type(value) is not type(default))
                    or (repr(value) != repr(default)
                        and not (_is_nan(value) and _is_nan(default)))):
                changed[key] = value
        return changed

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._changed_params().items())
        return f"{type(self).__name__}({args})"

    def __getstate__(self) -> dict[str, Any]:
        """A copy of the instance dict (subclasses drop derived state from it)."""
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.pop("_sklearn_version", None)  # pickles made while this was a BaseEstimator
        self.__dict__.update(state)
