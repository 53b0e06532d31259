"""``memlab export --schema 2026.9``: only keys 2026.9.6 accepts; inexpressible tuned values
refused with their measured effect; ``--allow-lossy`` drops and lists them. The last test runs
the real OpenClaw 2026.9.6 (``openclaw config validate`` and ``doctor --fix``) when installed."""

from __future__ import annotations

import importlib.util
import json
import sys
import warnings
from pathlib import Path

import json5
import pandas as pd
import pytest

from memlab.config import ConfigError, MemlabConfig, export_config, import_config
from memlab.config.errors import ExportError
from memlab.config.memory_export import check_memory_block, measured_effects, memory_block
from memlab.config.memory_layout import doctor_fix, read_config

ROOT = Path(__file__).resolve().parents[2]
PARITY = ROOT / "parity"

TUNED = {"provider": "openai", "model": "text-embedding-3-small", "outputDimensionality": 256,
         "queryInputType": "q", "documentInputType": "d", "store.fts.tokenizer": "trigram",
         "query.minScore": 0.2, "query.maxResults": 9, "sources": ["memory", "sessions"],
         "experimental.sessionMemory": True}


#: A sweep row (the sweeps' default base: memlab's local MiniLM) exports the served model.
SERVED = {"provider": "openai-compatible", "model": "minilm",
          "remote": {"baseUrl": "http://127.0.0.1:8080/v1"}, "queryInputType": "query",
          "documentInputType": "document"}


def search_block(text: str) -> dict:
    return json5.loads(text)["memory"]["search"]


def test_every_tunable_key_is_written_and_2026_9_accepts_it_unchanged():
    doc = json5.loads(export_config(TUNED, "2026.9"))
    assert doc["memory"]["search"] == {
        "provider": "openai", "model": "text-embedding-3-small", "outputDimensionality": 256,
        "queryInputType": "q", "documentInputType": "d", "store": {"fts": {"tokenizer":
                                                                            "trigram"}},
        "query": {"minScore": 0.2, "maxResults": 9}, "sources": ["memory", "sessions"],
        "experimental": {"sessionMemory": True}}
    resolved = read_config(doc).resolve()
    assert (resolved.min_score, resolved.max_results, resolved.fts_tokenizer) == (
        0.2, 9, "trigram")
    assert resolved.search_sources == ("memory", "sessions")
    assert doctor_fix(doc) == (doc, [])


def test_retired_and_memlab_only_values_are_refused_with_value_and_effect():
    row = {"query.hybrid.vectorWeight": 0.5, "chunking.tokens": 256,
           "query.hybrid.temporalDecay.halfLifeDays": 90, "memlab.fusion.method": "rrf",
           "memlab.whatIf.candidateUniverse": 50, "query.minScore": 0.1}
    with pytest.raises(ExportError) as err:
        export_config(row, "2026.9", effects={"query.hybrid.vectorWeight": 0.0125},
                      header={"metric": "ndcg@10"})
    issues = {i.path: i.message for i in err.value.issues}
    assert "0.5" in issues["query.hybrid.vectorWeight"]
    assert "fixed 0.7" in issues["query.hybrid.vectorWeight"]
    assert "+0.0125 ndcg@10" in issues["query.hybrid.vectorWeight"]
    assert "0.5" in issues["query.hybrid.textWeight"]  # the sweep's 1 - vectorWeight
    assert "256" in issues["chunking.tokens"] and "fixed 400" in issues["chunking.tokens"]
    assert "90" in issues["query.hybrid.temporalDecay.halfLifeDays"]
    assert "'rrf'" in issues["memlab.fusion.method"]
    assert "50" in issues["memlab.whatIf.candidateUniverse"]
    assert "query.minScore" not in issues


def test_allow_lossy_drops_them_and_lists_them_in_the_header():
    text = export_config({"query.hybrid.mmr.lambda": 0.3, "query.maxResults": 4}, "2026.9",
                         allow_lossy=True, effects={"query.hybrid.mmr.lambda": -0.002})
    assert search_block(text) == {**SERVED, "query": {"maxResults": 4}}
    header = [line for line in text.splitlines() if line.startswith("//")]
    assert any("query.hybrid.mmr.lambda = 0.3" in h and "-0.0020" in h for h in header)
    assert text.dropped and "mmr.lambda" in text.dropped[0]


def test_values_equal_to_the_2026_9_constants_are_not_a_loss():
    cfg = MemlabConfig().with_overrides({
        "query.hybrid.vectorWeight": 0.7, "query.hybrid.textWeight": 0.3,
        "query.hybrid.mmr.enabled": True, "query.hybrid.temporalDecay.enabled": True,
        "chunking.tokens": 400, "query.minScore": 0.3})
    block, lost = memory_block(cfg)
    assert lost == [] and block == {"query": {"minScore": 0.3}}


def test_a_2026_9_config_imports_and_exports_back_the_same():
    original = {"memory": {"search": {"provider": "none", "store": {"fts": {"tokenizer":
                                                                             "trigram"}},
                                      "query": {"maxResults": 3, "minScore": 0.5}}}}
    cfg = import_config(json.dumps(original))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert search_block(export_config(cfg, "2026.9")) == original["memory"]["search"]


def test_full_export_validates_and_merges_into_a_base_keeping_agents(tmp_path):
    full = json5.loads(export_config({"query.minScore": 0.3}, "2026.9", full=True))
    check_memory_block(full)
    assert full["memory"]["search"]["query"] == {"maxResults": 6, "minScore": 0.3}
    base = tmp_path / "openclaw.json"
    base.write_text(json.dumps({"gateway": {"port": 1}, "agents": {"entries": {"main": {
        "workspace": "/w"}}}}))
    doc = json5.loads(export_config({"provider": "none"}, "2026.9", base=base))
    assert doc["gateway"] == {"port": 1} and doc["agents"]["entries"]["main"]["workspace"] == "/w"
    legacy = tmp_path / "legacy.json"
    legacy.write_text(json.dumps({"agents": {"defaults": {"memorySearch": {}}}}))
    with pytest.raises(ConfigError, match="doctor --fix"):
        export_config({"provider": "none"}, "2026.9", base=legacy)


def test_measured_effect_is_the_chosen_row_minus_the_best_row_at_the_fixed_value():
    rows = pd.DataFrame({"query.hybrid.vectorWeight": [0.5, 0.7, 0.7, 0.9],
                         "memlab.fusion.method": ["rrf", "openclaw", "rrf", "openclaw"],
                         "query.minScore": [0.1, 0.2, 0.3, 0.4],
                         "ndcg@10": [0.61, 0.58, 0.60, 0.40]})
    assert measured_effects(rows, "ndcg@10", 0.61) == pytest.approx(
        {"query.hybrid.vectorWeight": 0.01, "memlab.fusion.method": 0.03})


def test_cli_refuses_a_sweep_row_with_its_measured_effect(tmp_path, capsys):
    from memlab.cli.main import main

    rows = pd.DataFrame({"query.hybrid.vectorWeight": [0.5, 0.7], "query.minScore": [0.2, 0.2],
                         "ndcg@10": [0.62, 0.57]})
    path = tmp_path / "sweep.csv"
    rows.to_csv(path, index=False)
    out = tmp_path / "openclaw.json5"
    assert main(["export", str(path), "--schema", "2026.9", "--out", str(out)]) != 0
    err = capsys.readouterr().err
    assert "query.hybrid.vectorWeight" in err and "+0.0500 ndcg@10" in err and not out.exists()
    assert main(["export", str(path), "--schema", "2026.9", "--out", str(out),
                 "--allow-lossy"]) == 0
    text = out.read_text()
    assert search_block(text) == {**SERVED} and "+0.0500 ndcg@10" in text
    # query.minScore holds one value over the whole results: an evaluation setting, not written
    assert "evaluation-only cut-offs" in text and "query.minScore = 0.2" in text


def _install() -> Path | None:
    cache = Path("~/.cache/memlab/parity").expanduser()
    entry = cache / "openclaw-2026.9.6" / "node_modules" / "openclaw" / "openclaw.mjs"
    return cache if entry.is_file() else None


@pytest.mark.skipif(_install() is None, reason="OpenClaw 2026.9.6 not installed (make parity)")
def test_real_openclaw_2026_9_6_accepts_the_export_and_doctor_changes_nothing():
    sys.path.insert(0, str(PARITY))
    spec = importlib.util.spec_from_file_location("check_export_memory_search",
                                                  PARITY / "check_export_memory_search.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--cache", str(_install()), "--only", "tuned"]) == 0  # ~1-2 min
