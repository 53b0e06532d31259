"""Start-up cost: light modules the CLI loads while building its parser do not import the heavy
scientific stack (issue 16 item 4). Each check runs in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("sklearn", "scipy.stats", "pandas", "optuna", "matplotlib", "torch", "numba")


def loaded_after(code: str) -> list[str]:
    probe = (f"import sys\n{code}\n"
             f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=300)
    return [m for m in out.stdout.strip().split(",") if m]


@pytest.mark.parametrize("module", ["memlab.text", "memlab.text.js", "memlab.text.keywords",
                                    "memlab.text.stopwords", "memlab.eval",
                                    "memlab.eval.collection_cli", "memlab.convert"])
def test_light_modules_do_not_import_the_scientific_stack(module):
    assert loaded_after(f"import {module}") == []


def test_lazy_names_still_resolve():
    import memlab.convert
    import memlab.eval
    import memlab.text

    assert memlab.text.Tokenizer()("Deploy keys") == ["deploy", "keys"]
    assert "the" in memlab.text.get_stopwords("en")  # scikit-learn's list, loaded on use
    assert sorted(memlab.text.STOPWORD_LISTS) == ["en", "en-lucene"]
    assert callable(memlab.eval.evaluate) and memlab.convert.LAYOUTS
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        memlab.eval.nope  # noqa: B018
