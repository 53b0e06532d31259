"""Each benchmark script runs on tiny inputs (``--tiny``), so the scripts cannot rot."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str):
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name,needs", [("bench_bm25", "bm25s"),
                                        ("bench_metrics", "pytrec_eval"),
                                        ("bench_search", "faiss"),
                                        ("bench_sweep", "faiss"),
                                        ("bench_index", "sqlite3")])
def test_benchmark_runs_tiny(name, needs, tmp_path, capsys):
    pytest.importorskip(needs)
    out = tmp_path / f"{name}.json"
    assert _load(name).main(["--tiny", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "|---" in text
    payload = json.loads(out.read_text())
    assert payload["machine"]["cpus"] and payload["versions"]["numpy"]
