"""Fixtures for the reliability suite: CLI runners, bad workspaces, the loopback fake server.

The loopback HTTP server is the one of ``tests/embed/conftest.py`` and the counting fake
provider the one of ``tests/index/conftest.py``; both are loaded from there, not copied.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def _load(name: str, path: Path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


embed_fakes = _load("memlab_test_embed_fakes", TESTS / "embed" / "conftest.py")
# tests/index/conftest.py registers its module as ``memlab_test_fakes`` when it is loaded
index_fakes = sys.modules.get("memlab_test_fakes") or _load("memlab_test_index_fakes",
                                                            TESTS / "index" / "conftest.py")
FakeServer = embed_fakes.FakeServer
vector_for = embed_fakes.vector_for
FakeProvider = index_fakes.FakeProvider
FAKE_PROVIDER_SOURCE = index_fakes.FAKE_PROVIDER_SOURCE

NOTES = {
    "MEMORY.md": "# Facts\nThe staging database host is pg-stage-02.\nDeploy key lives in vault.\n",
    "memory/2026-05-01.md": "Deploy window moved to Tuesday 10:00.\nBilling cutover next week.\n",
    "memory/projects/billing.md": "# Billing\nThe billing service retries ECONNRESET errors.\n",
    "memory/2026-05-03.md": "部署流程在周二。环境变量放在 vault 里。\n",
}


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.reliability)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Indexes and embedding caches go to a fresh scratch folder per test."""
    monkeypatch.setenv("MEMLAB_CACHE_DIR", str(tmp_path_factory.mktemp("memlab-cache")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def write_workspace(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write_workspace(tmp_path / "ws", NOTES)


def write_config(tmp_path: Path, cfg: dict | str, name: str = "openclaw.json5") -> str:
    path = tmp_path / name
    path.write_text(cfg if isinstance(cfg, str) else json.dumps(cfg), encoding="utf-8")
    return str(path)


@pytest.fixture
def none_config(tmp_path: Path) -> str:
    return write_config(tmp_path, {"memorySearch": {"provider": "none"},
                                   "memlab": {"keyword": "fts5"}}, "none.json5")


class CliResult:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    @property
    def text(self) -> str:
        return self.out + self.err

    def __repr__(self) -> str:
        return f"CliResult(code={self.code}, out={self.out[-2000:]!r}, err={self.err[-2000:]!r})"


@pytest.fixture
def cli(capsys):
    """Run ``memlab.cli.main`` in-process; an escaping exception fails the test (it would be a
    traceback for the user)."""
    from memlab.cli import main

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
        captured = capsys.readouterr()
        result = CliResult(code, captured.out, captured.err)
        assert "Traceback" not in result.text, result
        return result

    return run


def subprocess_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    env.update(extra)
    return env


def run_memlab(*args: str, env: dict | None = None, timeout: float = 120,
               cwd: str | None = None) -> subprocess.CompletedProcess:
    """``python -m memlab.cli ARGS`` as a user would run it."""
    return subprocess.run([sys.executable, "-m", "memlab.cli", *map(str, args)],
                          capture_output=True, text=True, env=env or subprocess_env(),
                          timeout=timeout, cwd=cwd)


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    srv = FakeServer()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def embeddings_route(dims: int = 4):
    """An OpenAI ``/v1/embeddings`` answer with deterministic vectors."""

    def route(req, n):
        body = req["body"] or {}
        inputs = body.get("input", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        return 200, {"object": "list", "model": body.get("model", "m"),
                     "data": [{"object": "embedding", "index": i,
                               "embedding": vector_for(t, dims)}
                              for i, t in enumerate(inputs)]}

    return route


def received_inputs(srv: FakeServer) -> list[str]:
    out: list[str] = []
    for req in srv.requests:
        inputs = (req["body"] or {}).get("input", [])
        out.extend([inputs] if isinstance(inputs, str) else inputs)
    return out


# The test modules import helpers from here by a unique name: with several conftest.py files
# in the suite, ``import conftest`` could find another one.
sys.modules.setdefault("memlab_reliability", sys.modules[__name__])
