"""Every notebook in notebooks/ runs top to bottom (nbclient), offline, on the bundled data.

Marked ``notebooks``: deselect with ``-m "not notebooks"``. The kernel inherits this process's
environment, so the embedding cache of the test session (``MEMLAB_CACHE_DIR``) is shared.
Committed notebooks carry no outputs (checked here too).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = int(os.environ.get("MEMLAB_NOTEBOOK_CELL_TIMEOUT", "600"))

pytestmark = pytest.mark.notebooks


def test_notebooks_exist():
    names = {p.name for p in NOTEBOOKS}
    assert {"00-quickstart.ipynb", "01-benchmark-providers.ipynb",
            "02-hybrid-weight-ablation.ipynb", "03-export-tuned-config.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_committed_without_outputs(path):
    nbformat = pytest.importorskip("nbformat")
    book = nbformat.read(path, as_version=4)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, (
                f"{path.name}: strip outputs before committing")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    book = nbformat.read(path, as_version=4)
    env_backend = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "Agg"
    try:
        client = nbclient.NotebookClient(book, timeout=CELL_TIMEOUT, kernel_name="python3",
                                         resources={"metadata": {"path": str(path.parent)}})
        start = time.perf_counter()
        client.execute()
    finally:
        if env_backend is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = env_backend
    seconds = time.perf_counter() - start
    print(f"{path.name}: {seconds:.1f} s")
    errors = [o for c in book.cells if c.cell_type == "code" for o in c.outputs
              if o.get("output_type") == "error"]
    assert not errors
    nbformat.write(book, tmp_path / path.name)  # executed copy, for inspection on failure
