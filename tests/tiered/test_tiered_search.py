"""The 2026.9 profile: profile resolution, ``mergeHybridResults`` against 2026.9.6's own
answers, and an end-to-end search on a small workspace with hand-computed expectations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlab.lines import detect_line, line_names
from memlab.tiered.search import TieredSearch, mmr_rerank

GOLDEN = json.loads((Path(__file__).parents[1] / "data" / "openclaw-2026.9" / "golden.json")
                    .read_text(encoding="utf-8"))
KEYWORD_ONLY = {"memory": {"search": {"provider": "none"}}}


def test_detect_line():
    assert line_names()[:2] == ("2026.7", "2026.9")
    assert detect_line({"memory": {"search": {}}}).name == "2026.9"
    assert detect_line({"agents": {"defaults": {"memorySearch": {}}}}).name == "2026.7"
    assert detect_line({"memory": {"search": {}}, "memlab": {"profile": "2026.7"}}).name == "2026.7"
    with pytest.raises(ValueError, match=r"memlab.profile: unknown OpenClaw line '2026.8'; "
                       r"allowed: '2026.7', '2026.9'"):
        detect_line({"memlab": {"profile": "2026.8"}})


@pytest.mark.parametrize("case", GOLDEN["mergeHybridResults"], ids=lambda c: c["name"])
def test_merge_equals_openclaw_2026_9(case, tmp_path):
    s = TieredSearch(tmp_path, KEYWORD_ONLY)
    mtimes = case.get("sessionSourceMtimes") or {}
    vector = [{**v, "score": v["vectorScore"], "sourceMtime": mtimes.get(v["path"])}
              for v in case["vector"]]
    keyword = [{**k, "score": k["rankingScore"], "sourceMtime": mtimes.get(k["path"])}
               for k in case["keyword"]]
    active = set(case.get("activeProjectKeys") or ()) or None
    got = s._merge_hybrid(vector, keyword, case["nowMs"], active)
    want = case["expected"]
    assert [(g["path"], g["startLine"]) for g in got] == [(w["path"], w["startLine"])
                                                          for w in want]
    for g, w in zip(got, want, strict=True):
        assert g["score"] == pytest.approx(w["score"], abs=1e-12)
        assert g["vectorScore"] == w["vectorScore"] and g["textScore"] == w["textScore"]


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    (ws / "memory" / "team").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Memory\n\n- Deploy window is Tuesday <!-- importance: 9 -->\n"
                                  "- Bad entry <!-- project: a<b -->\n", encoding="utf-8")
    (ws / "USER.md").write_text("- Name: Dana\n", encoding="utf-8")
    (ws / "memory" / "team" / "billing.md").write_text("Invoices go out monthly.\n",
                                                       encoding="utf-8")
    return ws


def test_user_md_is_indexed_and_exact_path_ranks_first(workspace):
    s = TieredSearch(workspace, KEYWORD_ONLY)
    paths = {p for (p,) in s.con.execute("SELECT path FROM memory_index_sources")}
    assert paths == {"MEMORY.md", "USER.md", "memory/team/billing.md"}
    results = s.search("billing", now="2026-10-01T00:00:00Z")["results"]
    # tier 1 (the stem): reported score is the project multiplier, 1 without active projects
    assert results[0]["path"] == "memory/team/billing.md" and results[0]["score"] == 1.0


def test_invalid_project_entries_are_dropped_and_importance_applies(workspace):
    s = TieredSearch(workspace, KEYWORD_ONLY)
    got = s.search("entry", now="2026-10-01T00:00:00Z", min_score=-1)["results"]
    assert all("Bad entry" not in r["snippet"] for r in got)
    deploy = s.search("deploy window", now="2026-10-01T00:00:00Z")["results"][0]
    assert deploy["importance"] == 9
    # keyword-only score = boosted score x (0.75 + 0.05 x 9), MEMORY.md evergreen (no decay);
    # the boosted score is capped at 1: t + 0.45 (both tokens) + 0.2 x 2/4 + 26/160 > 1
    assert deploy["textScore"] + 0.45 + 0.2 * 2 / 4 + 26 / 160 > 1
    assert deploy["score"] == pytest.approx(1.2, abs=1e-12)


def test_identity_includes_chunking_version(workspace, tmp_path):
    index = tmp_path / "i.sqlite"
    s = TieredSearch(workspace, KEYWORD_ONLY, index_path=index)
    assert s.rebuilt and s.meta["chunkingVersion"] == 5
    s.close()
    again = TieredSearch(workspace, KEYWORD_ONLY, index_path=index)
    assert not again.rebuilt  # same files and settings: reused
    again.close()
    (workspace / "USER.md").write_text("- Name: Dana Whitfield\n", encoding="utf-8")
    edited = TieredSearch(workspace, KEYWORD_ONLY, index_path=index)
    assert not edited.rebuilt and edited.sync_report.indexed == 1  # only USER.md rewritten
    edited.close()
    config = {"memory": {"search": {"provider": "none", "store": {"fts": {
        "tokenizer": "trigram"}}}}}
    assert TieredSearch(workspace, config, index_path=index).rebuilt  # other settings


@pytest.mark.parametrize("case", GOLDEN["mmrRerank"], ids=lambda c: "-".join(c["expected"]))
def test_rerank_equals_openclaw_2026_9(case):
    got = [e["id"] for e in mmr_rerank(case["items"], "score", case.get("lambda", 0.7))]
    assert got == case["expected"]
