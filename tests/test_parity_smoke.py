"""The parity harness (parity/run.py) without Node: comparison logic on canned JSON, configs,
the deterministic embedding server. The real run is `make parity`."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

PARITY = Path(__file__).resolve().parent.parent / "parity"


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


run = _load("memlab_parity_run", PARITY / "run.py")
embed_server = _load("memlab_parity_embed_server", PARITY / "embed_server.py")


def hit(path: str, start: int, end: int, score: float, **extra: Any) -> dict[str, Any]:
    return {"path": path, "startLine": start, "endLine": end, "score": score,
            "snippet": f"{path}:{start}", "source": "memory", **extra}


OPENCLAW = [hit("MEMORY.md", 1, 9, 0.9, vectorScore=0.8, textScore=0.5),
            hit("memory/a.md", 1, 4, 0.5), hit("memory/b.md", 3, 7, 0.5),
            hit("memory/c.md", 1, 2, 0.1)]


def test_identical_results_agree() -> None:
    cmp = run.compare_results(OPENCLAW, [dict(r, citation="x") for r in OPENCLAW])
    assert cmp.status == "agree" and cmp.max_score_diff == 0 and cmp.first_divergence is None


def test_ties_compare_as_sets() -> None:
    swapped = [OPENCLAW[0], OPENCLAW[2], OPENCLAW[1], OPENCLAW[3]]
    assert run.compare_results(OPENCLAW, swapped).status == "agree"
    # a score within tol still counts as a tie
    near = [dict(r) for r in OPENCLAW]
    near[2]["score"] = 0.5 - 5e-7
    assert run.compare_results(near, swapped).status == "agree"


def test_order_difference_outside_ties() -> None:
    moved = [OPENCLAW[1], OPENCLAW[0], OPENCLAW[2], OPENCLAW[3]]
    cmp = run.compare_results(OPENCLAW, moved)
    assert cmp.status == "order" and cmp.first_divergence == 0


def test_different_hits() -> None:
    other = OPENCLAW[:3] + [hit("memory/d.md", 1, 2, 0.1)]
    cmp = run.compare_results(OPENCLAW, other)
    assert cmp.status == "hits"
    assert cmp.only_openclaw == ["memory/c.md:1-2"] and cmp.only_memlab == ["memory/d.md:1-2"]
    assert cmp.first_divergence == 3
    shorter = run.compare_results(OPENCLAW, OPENCLAW[:2])
    assert shorter.status == "hits" and shorter.n_memlab == 2
    # same path, other line range: a chunking difference shows as different hits
    lines = [OPENCLAW[0], hit("memory/a.md", 1, 5, 0.5)] + OPENCLAW[2:]
    assert run.compare_results(OPENCLAW, lines).only_memlab == ["memory/a.md:1-5"]


def test_scores_beyond_tolerance() -> None:
    off = [dict(r) for r in OPENCLAW]
    off[3]["score"] = 0.1 + 2e-6
    cmp = run.compare_results(OPENCLAW, off)
    assert cmp.status == "scores" and cmp.max_score_diff == pytest.approx(2e-6)
    assert run.compare_results(OPENCLAW, off, tol=1e-5).status == "agree"
    comp = [dict(r) for r in OPENCLAW]
    comp[0]["textScore"] = 0.4  # same final score, other component
    cmp = run.compare_results(OPENCLAW, comp)
    assert cmp.status == "scores" and cmp.max_component_diff == pytest.approx(0.1)
    snip = [dict(r) for r in OPENCLAW]
    snip[1]["snippet"] = "other"
    assert run.compare_results(OPENCLAW, snip).status == "scores"


def test_repeated_line_ranges_and_empty() -> None:
    twice = [hit("m.md", 1, 3, 0.4), hit("m.md", 1, 3, 0.2)]
    assert run.result_keys(twice) == [("m.md", 1, 3, 0), ("m.md", 1, 3, 1)]
    assert run.compare_results(twice, twice).status == "agree"
    assert run.compare_results(twice, twice[:1]).status == "hits"
    assert run.compare_results([], []).status == "agree"


def test_tie_groups() -> None:
    assert run.tie_groups([], 1e-6) == []
    assert run.tie_groups([1.0, 1.0, 0.5], 1e-6) == [(0, 2), (2, 3)]


def test_compare_index() -> None:
    oc = [("MEMORY.md", 1, 9, "h1"), ("memory/a.md", 1, 40, "h2"), ("memory/a.md", 35, 60, "h3")]
    assert run.compare_index("ws", oc, list(reversed(oc))).agree
    ml = [("MEMORY.md", 1, 9, "h1"), ("memory/a.md", 1, 41, "h2"), ("memory/a.md", 35, 60, "x"),
          ("memory.md", 1, 2, "h4")]
    cmp = run.compare_index("ws", oc, ml)
    assert not cmp.agree
    assert cmp.files_only_memlab == ["memory.md"]
    assert cmp.chunks_only_openclaw == ["memory/a.md:1-40"]
    assert cmp.chunks_only_memlab == ["memory/a.md:1-41"]
    assert cmp.hash_mismatches == ["memory/a.md:35-60"]
    assert "files only in memlab: memory.md" in cmp.describe()


def test_summary_table_and_pass() -> None:
    good = run.SuiteResult("hybrid", "d", "hybrid", "fts5",
                           queries=[run.compare_results(OPENCLAW, OPENCLAW)],
                           indexes=[run.compare_index("ws", [], [])])
    bad = run.SuiteResult("none", "d", "fts-only", "bm25",
                          queries=[run.compare_results(OPENCLAW, OPENCLAW[:1])])
    assert good.passed and not bad.passed
    table = run.summary_table([good, bad])
    assert "PASS" in table and "FAIL" in table and table.splitlines()[0].startswith("suite")
    report = run.report_json([good, bad], {"now": "x"})
    assert json.loads(json.dumps(report))["suites"][1]["counts"]["hits"] == 1


def test_configs(tmp_path: Path) -> None:
    from memlab.config import load_config

    ms = run.suite_memory_search("mmr+decay", "http://127.0.0.1:1/v1", "m")
    assert ms["provider"] == "openai-compatible" and ms["remote"]["baseUrl"].endswith("/v1")
    assert ms["query"]["hybrid"]["mmr"]["enabled"] and \
        ms["query"]["hybrid"]["temporalDecay"]["enabled"]
    none = run.suite_memory_search("none", "http://x/v1", "m")
    assert none["provider"] == "none" and "remote" not in none
    oc = run.openclaw_config(ms, {"notes": tmp_path / "notes", "cjk": tmp_path / "cjk"})
    assert oc["agents"]["list"][0] == {"id": "notes", "workspace": str(tmp_path / "notes"),
                                       "default": True}
    ml = run.memlab_config(oc, "fts5", tmp_path / "cache.sqlite")
    assert "memlab" not in oc and ml["memlab"]["keyword"] == "fts5"
    for suite in run.SUITES:
        cfg = run.memlab_config(run.openclaw_config(
            run.suite_memory_search(suite, "http://127.0.0.1:1/v1", "m"),
            {"notes": tmp_path}), "bm25", tmp_path / "c.sqlite")
        loaded = load_config(cfg)  # memlab accepts every suite's config
        assert loaded.memory_search.resolved_provider() in ("none", "openai-compatible")


def test_workspaces_and_queries_exist() -> None:
    names = sorted(p.name for p in (PARITY / "workspaces").iterdir() if p.is_dir())
    assert {"notes", "cjk"} <= set(names)
    for name in names:
        assert run.read_queries(PARITY / "queries" / f"{name}.txt")
    assert (PARITY / "workspaces" / "notes" / "memory.md").is_file()  # the decoy


def test_embed_server_vectors_reach_memlab_exactly() -> None:
    from memlab.embed import get_provider

    v = embed_server.embed_text("Deploy billing 部署账单")
    assert v.dtype == np.float32 and v.shape == (embed_server.DIMS,)
    assert abs(float(np.linalg.norm(v.astype(np.float64))) - 1) < 1e-6
    assert np.array_equal(v, embed_server.embed_text("Deploy billing 部署账单"))
    assert not np.array_equal(v, embed_server.embed_text("deploy window"))
    assert np.any(embed_server.embed_text(""))  # the bias feature: never the zero vector
    with embed_server.EmbedServer() as srv:
        p = get_provider("openai-compatible", base_url=srv.base_url, model=embed_server.MODEL)
        texts = ["Deploy billing", "数据库服务器", "x" * 5000, "y" * 5000]
        docs = p.embed_documents(texts)
        assert np.array_equal(docs, np.stack([embed_server.embed_text(t) for t in texts]))
        assert np.array_equal(p.embed_query("staging"), embed_server.embed_text("staging"))
        assert srv.requests == 3 and srv.texts == 5


@pytest.mark.skipif(shutil.which("node") is None, reason="no node on PATH")
def test_freeze_clock_preload() -> None:
    script = ("const d = new Date(); console.log(JSON.stringify([Date.now(), d.toISOString(), "
              "new Date(0).getTime(), d instanceof Date, typeof Date()]))")
    out = subprocess.run(
        ["node", "--import", (PARITY / "freeze_clock.mjs").as_uri(), "-e", script],
        capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "MEMLAB_PARITY_NOW": "2026-10-01T09:00:00Z"})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [1790845200000, "2026-10-01T09:00:00.000Z", 0, True,
                                      "string"]


def test_keyword_leg_probe_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def fake_cli(argv: list[str], use_subprocess: bool = False) -> tuple[int, str, str]:
        calls.append(list(argv))
        return 2, "", "memlab: error: memlab.keyword='fts5': not available yet\n"

    monkeypatch.setattr(run, "memlab_cli", fake_cli)
    leg, why = run.probe_keyword_leg(tmp_path, tmp_path, run.DEFAULT_NOW,
                                     {"index": False, "search_index": False})
    assert leg == "bm25" and "fts5" in why
    assert calls[0][0] == "search" and "--index" not in calls[0]
    monkeypatch.setattr(run, "memlab_cli", lambda argv, use_subprocess=False: (0, "{}", ""))
    assert run.probe_keyword_leg(tmp_path, tmp_path, run.DEFAULT_NOW,
                                 {"index": True, "search_index": True}) == ("fts5", None)


def test_memlab_features(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    import memlab.cli

    assert set(run.memlab_features()) == {"index", "search_index", "profile"}

    def old_parser() -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        sub.add_parser("search").add_argument("--json")
        return parser

    monkeypatch.setattr(memlab.cli, "build_parser", old_parser)
    assert run.memlab_features() == {"index": False, "search_index": False, "profile": False}


def test_tie_cut_by_max_results() -> None:
    # both lists were cut at 4 inside a run of equal scores: either member is right
    other = OPENCLAW[:3] + [hit("memory/d.md", 1, 2, 0.1)]
    cmp = run.compare_results(OPENCLAW, other, limit=4)
    assert cmp.status == "agree" and "tie at the cut" in cmp.notes[0]
    # a different score at the cut is still a difference
    worse = OPENCLAW[:3] + [hit("memory/d.md", 1, 2, 0.05)]
    assert run.compare_results(OPENCLAW, worse, limit=4).status == "hits"
    # not cut (fewer hits than the limit): a different member is a real difference
    assert run.compare_results(OPENCLAW, other, limit=5).status == "hits"


def test_staging_moves_transcripts_out_of_openclaws_workspace(tmp_path: Path) -> None:
    """memlab reads transcripts from workspace/sessions/<agent>/; OpenClaw from its state dir,
    with a workspace copy that has no sessions/ folder (as in production)."""
    staged = run.stage_workspaces(["chat"], tmp_path / "ws", run.iso_to_ms(run.DEFAULT_NOW))
    oc = run.stage_openclaw_workspaces(staged, tmp_path / "oc")
    assert (staged["chat"] / "sessions" / "chat").is_dir()
    assert not (oc["chat"] / "sessions").exists()
    assert (oc["chat"] / "MEMORY.md").stat().st_mtime == (staged["chat"] / "MEMORY.md"
                                                           ).stat().st_mtime
    home = tmp_path / "home"
    n = run.install_transcripts(staged, home)
    copied = sorted(p.name for p in (home / ".openclaw" / "agents" / "chat" / "sessions"
                                     ).iterdir())
    assert n == 3 and any(".jsonl.reset." in name for name in copied)
    ms = run.suite_memory_search("sessions+decay", "http://127.0.0.1:1/v1", "m")
    assert ms["sources"] == ["memory", "sessions"] and ms["experimental"]["sessionMemory"]
