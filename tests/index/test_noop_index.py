"""``memlab index`` with nothing to do neither loads the local embedding model nor imports the
scientific stack (issue 16 item 4), and :func:`memlab.index.sync.needs_embedding` tells that
case apart from the ones that must embed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memlab.config import DEFAULT_CONFIG, load_config
from memlab.embed.factory import make_embedder
from memlab.embed.local import LocalProvider
from memlab.index.store import IndexStore
from memlab.index.sync import needs_embedding, sync_index

#: Modules a no-op ``memlab index`` has no use for.
UNUSED = ("sklearn", "scipy", "pandas", "torch", "transformers", "sentence_transformers",
          "numba", "optuna", "matplotlib")


def _fake_vectors(texts) -> np.ndarray:
    """Unit vectors from the texts' lengths: deterministic, no model."""
    rng = np.random.default_rng(7)
    out = rng.standard_normal((len(texts), 8)).astype(np.float32) + \
        np.asarray([len(t) for t in texts], dtype=np.float32)[:, None]
    return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture
def local_without_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default (local) provider with its identity intact but fake vectors and no model:
    the index it builds is the one a real ``memlab index`` would find current."""
    monkeypatch.setattr(LocalProvider, "dims", property(lambda self: 8))
    monkeypatch.setattr(LocalProvider, "embed_documents",
                        lambda self, texts: _fake_vectors(list(texts)))
    monkeypatch.setattr(LocalProvider, "load", lambda self: pytest.fail("model loaded"))


def _cli(*argv: str) -> subprocess.CompletedProcess:
    """``memlab ARGV`` in a fresh interpreter, printing which of :data:`UNUSED` it loaded and
    whether a local model was loaded."""
    probe = (
        "import sys\n"
        "from memlab.cli.main import main\n"
        f"code = main({list(argv)!r})\n"
        "from memlab.embed import local\n"
        f"print('LOADED=' + ','.join(m for m in {UNUSED!r} if m in sys.modules))\n"
        "print('MODELS=%d' % len(local._MODELS))\n"
        "sys.exit(code)\n")
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=600, env=os.environ | {"MEMLAB_PROGRESS": "0",
                                                         "HF_HUB_OFFLINE": "1"})


def _line(out: str, key: str) -> str:
    return [ln for ln in out.splitlines() if ln.startswith(key)][-1][len(key):]


def test_noop_index_loads_no_model_and_no_scientific_stack(workspace: Path, tmp_path: Path,
                                                           local_without_model: None) -> None:
    from memlab.cli.main import main

    index = tmp_path / "index.sqlite"
    assert main(["index", str(workspace), "--index", str(index)]) == 0  # the first index
    done = _cli("index", str(workspace), "--index", str(index))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "incremental: 0 files written" in done.stdout
    assert "0 texts embedded" in done.stdout
    assert _line(done.stdout, "LOADED=") == ""
    assert _line(done.stdout, "MODELS=") == "0"
    # status of the same index: the same modules stay unloaded
    status = _cli("status", str(workspace), "--index", str(index))
    assert status.returncode == 0, status.stderr[-2000:]
    assert _line(status.stdout, "LOADED=") == ""


def test_needs_embedding(workspace: Path, tmp_path: Path, local_without_model: None) -> None:
    cfg = load_config(DEFAULT_CONFIG)
    embedder = make_embedder(cfg)
    store = IndexStore(tmp_path / "index.sqlite")
    try:
        assert needs_embedding(store, workspace, cfg, embedder)  # nothing indexed yet
        sync_index(store, workspace, cfg, embedder)
        assert not needs_embedding(store, workspace, cfg, embedder)
        (workspace / "memory" / "2026-05-02.md").unlink()  # a deletion embeds nothing
        assert not needs_embedding(store, workspace, cfg, embedder)
        (workspace / "memory" / "new.md").write_text("A new note.\n", encoding="utf-8")
        assert needs_embedding(store, workspace, cfg, embedder)
        sync_index(store, workspace, cfg, embedder)
        assert not needs_embedding(store, workspace, cfg, embedder)
        rechunked = load_config({"memorySearch": {**DEFAULT_CONFIG["memorySearch"],
                                                  "chunking": {"tokens": 256, "overlap": 32}}})
        assert needs_embedding(store, workspace, rechunked, make_embedder(rechunked))
        assert not needs_embedding(store, workspace, cfg, None)  # nothing to embed with
    finally:
        store.close()
