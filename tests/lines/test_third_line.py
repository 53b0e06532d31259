"""A third OpenClaw line in this one file: 2026.9 with RRF fusion and a 60-day half-life.

Nothing outside this file knows it: it is registered here, then ``MemorySearch``, the CLI's
``memlab search --profile`` and the sweep run it from its name. Its rankings must equal the
2026.9 line with the same two changes made by memlab's what-if options, and differ from 2026.9's.
"""

from __future__ import annotations

import json

import pytest

from memlab.embed.hashing import HashingProvider
from memlab.eval.datasets import load_dataset
from memlab.lines import get_line, registered
from memlab.openclaw import MemorySearch
from memlab.tune.sweep_tiered import TieredRanker, sweep_tiered

DATASET = "datasets/sample-memory"
WORKSPACE = f"{DATASET}/workspace"
NOW = "2026-10-01T00:00:00Z"
QUERIES = ["staging db host", "when do we deploy billing?", "ECONNRESET /v2/invoices",
           "who is on call"]

THIRD = get_line("2026.9").derive(
    "2026.9-rrf60", steps={"fusion": {"method": "rrf", "rrf_k": 60},
                           "decay": {"half_life_days": 60.0}})
#: The same two changes as what-ifs of the 2026.9 line.
WHAT_IF = {"fusion": {"method": "rrf", "rrfK": 60}, "whatIf": {"halfLifeDays": 60}}


@pytest.fixture(scope="module")
def third():
    with registered(THIRD) as line:
        yield line


def _config(provider: str, memlab: dict) -> dict:
    return {"memory": {"search": {"provider": provider}}, "memlab": memlab}


@pytest.mark.parametrize("provider", ["none", "local"])
def test_search_runs_the_third_line_by_name(third, provider):
    emb = None if provider == "none" else HashingProvider()
    mine = MemorySearch(WORKSPACE, _config(provider, {"profile": third.name}), emb)
    as_what_if = MemorySearch(WORKSPACE, _config(provider, WHAT_IF), emb)
    plain = MemorySearch(WORKSPACE, _config(provider, {}), emb)
    assert mine.line is third and as_what_if.line.name == plain.line.name == "2026.9"
    differs = False
    for q in QUERIES:
        got = mine.search(q, now=NOW)
        assert got == as_what_if.search(q, now=NOW)
        differs |= got != plain.search(q, now=NOW)
    assert differs  # the line's recipe is what ranks, not 2026.9's fixed values


def test_cli_search_takes_the_third_line(third, tmp_path, capsys):
    from memlab.cli.main import main

    code = main(["search", WORKSPACE, "staging db host", "--profile", third.name, "--json",
                 "--now", NOW, "--index", str(tmp_path / "i.sqlite"), "--config",
                 json.dumps(_config("none", {}))])
    assert code == 0
    got = json.loads(capsys.readouterr().out)
    want = MemorySearch(WORKSPACE, _config("none", {"profile": third.name})).search(
        "staging db host", now=NOW)
    assert got == want and got["results"]


def test_sweep_runs_the_third_line(third):
    dataset = load_dataset(DATASET)
    grid = {"query.maxResults": [3, 6]}
    emb = HashingProvider()
    mine = sweep_tiered(dataset, grid, ranker=TieredRanker(
        dataset, _config("local", {}), embedder=emb, line=third))
    as_what_if = sweep_tiered(dataset, grid, ranker=TieredRanker(
        dataset, _config("local", WHAT_IF), embedder=emb))
    plain = sweep_tiered(dataset, grid, ranker=TieredRanker(
        dataset, _config("local", {}), embedder=emb))
    cols = ["query.maxResults", "ndcg@10", "recall@10", "mrr@10"]
    assert mine[cols].equals(as_what_if[cols])
    assert not mine[cols].equals(plain[cols])


def test_cli_sweep_and_export_take_the_third_line(third, tmp_path, capsys):
    """``memlab sweep --profile NAME`` ranks with the third line; its best row exports to the
    layout it shares with 2026.9 (the schema OpenClaw reads)."""
    import json5

    from memlab.cli.main import main

    base = tmp_path / "base.json5"
    base.write_text(json.dumps(_config("none", {})))
    out = tmp_path / "s.csv"
    assert main(["sweep", DATASET, "--profile", third.name, "--base", str(base), "--grid",
                 "query.maxResults=1,6", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert f"configurations on the {third.name} profile" in printed
    mine = sweep_tiered(load_dataset(DATASET), {"query.maxResults": [1, 6]},
                        ranker=TieredRanker(load_dataset(DATASET), _config("none", {}),
                                            line=third))
    best = mine.sort_values("ndcg@10", ascending=False, kind="stable").iloc[0]
    exported = tmp_path / "e.json5"
    assert main(["export", str(out), "--schema", "2026.9", "--base", str(base), "--out",
                 str(exported)]) == 0
    config = json5.loads(exported.read_text())
    assert config["memory"]["search"]["query"]["maxResults"] == int(best["query.maxResults"])
    assert MemorySearch(WORKSPACE, config, profile=third).line is third
