"""bench_scale.py at 20,000 chunks (``--tiny``) and report.py, so the scripts cannot rot."""

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


def test_bench_scale_tiny(tmp_path, capsys):
    pytest.importorskip("faiss")
    out = tmp_path / "bench_scale.json"
    assert _load("bench_scale").main(["--tiny", "--out", str(out)]) == 0
    assert "|---" in capsys.readouterr().out
    row = json.loads(out.read_text())["rows"][0]
    assert row["chunks"] == 20_000 and row["ann_recall_at_10"] >= 0.99
    assert row["flat_ms"]["raw faiss search (k=10)"]["p50"] > 0
    assert row["ann_leg_recall_at_10"] >= 0.99 and row["rss_per_chunk_kb"]["flat_kb"] > 0
    assert set(row["build_s"]) >= {"FTS5 table (file)", "MMR token matrix"}
    # the FTS5 table is in a file, as `memlab index` keeps it; its size is reported
    assert row["fts_store"] == "file" and row["fts_file_mb"] > 0
    assert len(row["loadavg_before"]) == 3


def test_report_renders_tables_into_marked_sections(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    payload = {"benchmark": "bench_x", "machine": {"cpus": 2, "python": "3.11",
                                                    "loadavg": [1.0, 2.0, 3.0]},
               "table": {"headers": ["a", "ratio"], "rows": [["x", 0.5]]}}
    (results / "bench_x.json").write_text(json.dumps(payload))
    (results / "no_table.json").write_text(json.dumps({"benchmark": "old"}))
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- report:bench_x -->\nstale\n<!-- /report:bench_x -->\nend\n")
    report = _load("report")
    assert report.main(["--results", str(results), "--readme", str(readme), "--check"]) == 1
    assert report.main(["--results", str(results), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert "stale" not in text and "| x | 0.5 |" in text and "load average" in text
    assert text.startswith("intro\n") and text.endswith("end\n")
    assert report.main(["--results", str(results), "--readme", str(readme), "--check"]) == 0
