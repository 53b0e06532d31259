"""Start-up cost: light modules the CLI loads while building its parser do not import the heavy
scientific stack (issue 16 item 4). Each check runs in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("sklearn", "scipy.stats", "pandas", "optuna", "matplotlib", "torch", "numba")


def loaded_after(code: str) -> list[str]:
    probe = (f"import sys\n{code}\n"
             f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=300)
    return [m for m in out.stdout.strip().split(",") if m]


@pytest.mark.parametrize("module", ["memlab.text", "memlab.text.js", "memlab.text.keywords",
                                    "memlab.text.tokenize", "memlab.text.params",
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


#: What no verb needs before it runs: building the parser must not load any of it.
PARSER_FREE = ("sklearn", "scipy.stats", "scipy.sparse", "pandas", "optuna", "matplotlib",
               "torch", "numba")
SAMPLE_WORKSPACE = (Path(__file__).resolve().parents[1] / "datasets" / "sample-memory"
                    / "workspace")


def heavy_after(code: str, names: tuple[str, ...], argv: list[str] | None = None) -> list[str]:
    """The modules of ``names`` loaded once ``code`` has run in a fresh interpreter."""
    probe = (f"import sys\nsys.argv = {['memlab', *(argv or [])]!r}\n{code}\n"
             f"print('LOADED=' + ','.join(m for m in {names!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=600, env=os.environ | {"MEMLAB_PROGRESS": "0"})
    assert out.returncode == 0, out.stderr[-2000:]
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("LOADED=")][-1]
    return [m for m in line[len("LOADED="):].split(",") if m]


def test_building_the_cli_parser_imports_nothing_heavy():
    # every verb's parser is built on every call, so this is every verb's start-up
    assert heavy_after("from memlab.cli.main import build_parser\nbuild_parser()",
                       PARSER_FREE) == []


@pytest.mark.skipif(not SAMPLE_WORKSPACE.exists(), reason="no sample workspace")
def test_status_imports_no_scientific_stack_it_does_not_use(tmp_path):
    # memlab status reads the index: no tuning, plotting, model, BM25 kernel, scikit-learn
    # (Stage and Tokenizer take their parameters from memlab.text.params, not BaseEstimator),
    # scipy or pandas (the index store loads it with the chunks, which status never reads)
    code = ("from memlab.cli.main import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass")
    unused = ("optuna", "matplotlib", "torch", "numba", "sentence_transformers", "sklearn",
              "scipy", "pandas")
    argv = ["status", str(SAMPLE_WORKSPACE), "--index", str(tmp_path / "index.sqlite")]
    assert heavy_after(code, unused, argv) == []


#: The local provider with its identity intact but vectors from the texts' lengths and no
#: model (the probe's stand-in for "everything is embedded and the query vector is at hand").
FAKE_LOCAL = '''
import numpy as np
from memlab.embed.local import LocalProvider

def _vectors(self, texts):
    out = np.full((len(texts), 8), 1e-3, dtype=np.float32)
    for row, text in enumerate(texts):
        out[row, len(text) % 8] = 1.0
    return out / np.linalg.norm(out, axis=1, keepdims=True)

def _no_model(self):
    raise AssertionError("the model was loaded")

LocalProvider.dims = property(lambda self: 8)
LocalProvider.embed_documents = LocalProvider.embed_queries = _vectors
LocalProvider.load = _no_model
'''
#: What a search of an index that has everything embedded has no use for (pandas and
#: scipy.sparse are still loaded: the frames, FTS and keyword modules import them at the top).
SEARCH_UNUSED = ("sklearn", "scipy.stats", "optuna", "matplotlib", "torch", "transformers",
                 "sentence_transformers", "numba")


@pytest.mark.skipif(not SAMPLE_WORKSPACE.exists(), reason="no sample workspace")
@pytest.mark.parametrize("verb", ["search", "shell"])
def test_search_imports_no_scientific_stack_it_does_not_use(tmp_path, monkeypatch, verb):
    import shutil

    monkeypatch.setenv("MEMLAB_CACHE_DIR", str(tmp_path / "cache"))  # fake vectors stay here
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE_WORKSPACE, ws)
    index = str(tmp_path / "index.sqlite")
    run = FAKE_LOCAL + "from memlab.cli.main import main\nassert main() == 0\n"
    heavy_after(run, (), ["index", str(ws), "--index", index])  # the first index
    query = "staging database host"
    if verb == "search":
        argv = ["search", str(ws), query, "--index", index, "--json"]
    else:  # the warm mode: two queries in one process
        argv = ["shell", str(ws), "--index", index, "--json"]
        run = f"import io\nsys.stdin = io.StringIO({query + chr(10) * 2 + 'billing'!r})\n" + run
    loaded = heavy_after(run, SEARCH_UNUSED, argv)
    # a one-shot search stays on the numpy kernels; the warm shell may use the compiled MMR
    # backend (memlab.kernels.backend: numba repays its import over many queries)
    assert loaded == [] if verb == "search" else set(loaded) <= {"numba"}
