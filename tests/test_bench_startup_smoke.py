"""benchmarks/bench_startup.py --tiny runs end to end: a keyword-only sample workspace, one
no-op ``memlab index``, one ``memlab status``, one ``memlab search`` and two ``memlab shell``
runs in subprocesses, a table and a JSON file."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_startup.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="no benchmarks folder")
def test_bench_startup_tiny(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_startup", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_startup"] = module
    spec.loader.exec_module(module)
    out = tmp_path / "bench_startup.json"
    assert module.main(["--tiny", "--repeat", "1", "--shell-queries", "2", "--out", str(out)]
                       ) == 0
    assert "| memlab index (nothing to do) |" in capsys.readouterr().out
    payload = json.loads(out.read_text())
    runs = payload["runs"]
    assert set(runs) == {"index", "status", "search", "shell"}
    assert all(runs[v]["cpu_median"] > 0 and runs[v]["wall_median"] > 0
               for v in ("index", "status", "search"))
    assert runs["shell"]["queries_after_first"] == 2
    assert payload["table"]["rows"] and payload["machine"]["cpus"]
