"""``memlab.stages`` re-exports every stage class of its modules, loading each on first use."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import memlab.stages
from memlab.pipeline import Stage


def test_every_public_stage_class_is_exported() -> None:
    found = {}
    for info in pkgutil.iter_modules(memlab.stages.__path__):
        module = importlib.import_module(f"memlab.stages.{info.name}")
        for name in module.__all__:
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, Stage):
                found[name] = value
    assert sorted(found) == memlab.stages.__all__
    assert all(getattr(memlab.stages, name) is cls for name, cls in found.items())
    assert set(memlab.stages.__all__) <= set(dir(memlab.stages))
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        memlab.stages.Nope  # noqa: B018


def test_importing_the_package_or_one_stage_loads_no_other_stage() -> None:
    probe = ("import sys\nimport memlab.stages\nbefore = sorted(m for m in sys.modules "
             "if m.startswith('memlab.stages.') or m in ('pandas', 'scipy'))\n"
             "from memlab.stages import Threshold\n"
             "after = sorted(m for m in sys.modules if m.startswith('memlab.stages.'))\n"
             "print(before, after)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=300)
    assert out.stdout.strip() == "[] ['memlab.stages.threshold']"
