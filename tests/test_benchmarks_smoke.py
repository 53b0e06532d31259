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


@pytest.mark.parametrize("names", ["ab", "abc", "abcde"])
@pytest.mark.parametrize("n_items", [3, 4, 5])
def test_search_timing_never_follows_another_variant_on_the_same_query(names, n_items):
    # interleaved call by call in an order drawn per step, but no call follows another
    # variant's call on the same query (whose warm SQLite pages would flatter it); every
    # variant runs every query
    calls = []
    variants = {name: (lambda q, name=name: calls.append((name, q))) for name in names}
    items = list(range(n_items))
    times = _load("bench_search").per_query_ms(variants, items, repeat=2)
    assert len(calls) == 2 * n_items * len(names)
    assert all(calls[k][1] != calls[k + 1][1] for k in range(len(calls) - 1))
    steps = [[c[0] for c in calls[k:k + len(names)]] for k in range(0, len(calls), len(names))]
    assert all(sorted(step) == list(names) for step in steps)  # each variant once a step
    if len(names) > 2:  # in an order drawn per step: not always the same predecessor
        assert len({tuple(step) for step in steps}) > 1
    for name in names:
        assert sorted(q for v, q in calls if v == name) == sorted(items * 2)
    assert set(times) == set(names) and all(len(v) == n_items for v in times.values())
