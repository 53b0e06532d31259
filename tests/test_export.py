"""OpenClaw JSON5 export (2026.7 / 2026.8 schemas), import of any OpenClaw config, and
`memlab export`."""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path
from typing import Any

import json5
import pandas as pd
import pytest

from memlab.cli import main
from memlab.config import (
    ConfigError,
    ExportError,
    ExportWarning,
    MemlabConfig,
    canonical_key_path,
    export_config,
    import_config,
    load_config,
    overrides_from_results,
)
from memlab.config.types import model_to_raw
from memlab.corpus import Corpus
from memlab.openclaw import openclaw_pipeline

PARITY = Path(__file__).resolve().parent.parent / "parity"

RICH = """// my config
{
  gateway: {port: 18789},
  memory: {citations: "on"},
  agents: {
    defaults: {
      workspace: "~/ws",
      memorySearch: {
        enabled: true, sources: ["memory", "sessions"], extraPaths: ["notes"],
        experimental: {sessionMemory: true}, provider: "openai-compatible",
        remote: {baseUrl: "http://127.0.0.1:9/v1",
                 apiKey: {source: "env", provider: "default", id: "OPENAI_API_KEY"},
                 headers: {"X-Team": "a"}, nonBatchConcurrency: 2,
                 batch: {enabled: false, concurrency: 3}},
        fallback: "none", model: "hash-64", outputDimensionality: 64,
        local: {contextSize: "auto"},
        store: {fts: {tokenizer: "trigram"}, vector: {enabled: true}},
        chunking: {tokens: 256, overlap: 32},
        sync: {watch: false, intervalMinutes: 5, sessions: {deltaBytes: 5000}},
        query: {maxResults: 8, minScore: 0.2, hybrid: {vectorWeight: 0.55, textWeight: 0.45,
                candidateMultiplier: 6, mmr: {enabled: true, lambda: 0.6},
                temporalDecay: {enabled: true, halfLifeDays: 14}}},
        cache: {enabled: true, maxEntries: 10000},
      },
    },
    list: [{id: "main", default: true}, {id: "work", memorySearch: {query: {maxResults: 3}}}],
  },
}
"""


#: What a config measured with memlab's default local model (a sweep row, the sweeps' default
#: base) exports as: the model served by `memlab serve-embeddings`.
SERVED = {"provider": "openai-compatible", "model": "minilm",
          "remote": {"baseUrl": "http://127.0.0.1:8080/v1"}, "queryInputType": "query",
          "documentInputType": "document"}


def raw(cfg: MemlabConfig) -> dict[str, Any]:
    """Every explicitly set key (what import/export must preserve)."""
    return {"memorySearch": model_to_raw(cfg.memory_search), "memlab": model_to_raw(cfg.memlab)}


def quiet_export(*args: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExportWarning)
        return export_config(*args, **kw)


# --- 2026.7 -------------------------------------------------------------------------------


def test_export_2026_7_parses_validates_and_has_header():
    text = export_config({"query.hybrid.vectorWeight": 0.5, "query.hybrid.mmr.enabled": True},
                         header={"dataset": "sample-memory", "metric": "ndcg@10",
                                 "score": 0.71234, "out_of_sample": 0.65, "date": "2026-10-01"})
    doc = json5.loads(text)
    ms = doc["agents"]["defaults"]["memorySearch"]
    assert ms == {**SERVED, "query": {"hybrid": {"vectorWeight": 0.5, "textWeight": 0.5,
                                                 "mmr": {"enabled": True}}}}
    assert set(doc) == {"agents"}  # no memlab key: OpenClaw rejects unknown top-level keys
    cfg = load_config(text)
    assert cfg.memory_search.normalized_weights() == (0.5, 0.5)
    head = [line for line in text.splitlines() if line.startswith("//")]
    assert any("dataset: sample-memory" in h for h in head)
    assert any("metric: ndcg@10" in h for h in head)
    assert any("score: 0.7123" in h for h in head)
    assert any("out of sample: 0.6500" in h for h in head)
    assert any("date: 2026-10-01" in h for h in head)
    assert "//   memlab serve-embeddings --model minilm --host 127.0.0.1 --port 8080" in head
    assert text.warnings == [] and text.dropped == []


def test_vector_weight_alone_implies_text_weight():
    text = export_config({"query.hybrid.vectorWeight": 0.7})
    hybrid = json5.loads(text)["agents"]["defaults"]["memorySearch"]["query"]["hybrid"]
    assert hybrid == {"vectorWeight": 0.7, "textWeight": 0.3}


def test_full_export_writes_every_key_and_validates():
    text = export_config(MemlabConfig(), full=True)
    ms = json5.loads(text)["agents"]["defaults"]["memorySearch"]
    assert ms["chunking"] == {"tokens": 400, "overlap": 80}
    assert ms["query"]["hybrid"]["mmr"] == {"enabled": False, "lambda": 0.7}
    load_config(text)


def test_secrets_are_never_written():
    cfg = load_config({"provider": "openai", "remote": {
        "apiKey": "sk-live-SECRET123", "headers": {"Authorization": "Bearer TOKEN456",
                                                   "X-Team": "research"}}})
    for schema in ("2026.7", "2026.8"):
        text = quiet_export(cfg, schema)
        assert "SECRET123" not in text and "TOKEN456" not in text
        assert "research" in text
        json5.loads(text)
    ref = load_config({"remote": {"apiKey": {"source": "env", "provider": "default",
                                             "id": "OPENAI_API_KEY"}}})
    assert "OPENAI_API_KEY" in export_config(ref)  # a reference is not a secret


def test_memlab_only_choices_are_refused_unless_lossy():
    for overrides, word in [({"memlab.fusion.method": "rrf"}, "RRF"),
                            ({"memlab.keyword": "bm25"}, "BM25"),
                            ({"memlab.keywordFallback": False}, "fallback"),
                            ({"memlab.vectorIndex": "HNSW32"}, "FAISS"),
                            ({"memlab.decayRule": "2026.8",
                              "query.hybrid.temporalDecay.enabled": True}, "2026.7")]:
        with pytest.raises(ExportError, match="memlab-only") as err:
            export_config(overrides)
        assert word in str(err.value)
        assert "allow_lossy" in str(err.value)
        text = export_config(overrides, allow_lossy=True)
        assert text.dropped
        assert "memlab-only choices dropped" in text
        assert "memlab" not in json5.loads(text)
        load_config(text)
    # fusion is irrelevant without a vector leg: nothing to refuse
    export_config({"provider": "none", "memlab.fusion.method": "rrf"})


# --- 2026.8 -------------------------------------------------------------------------------


def test_export_2026_8_keeps_only_configurable_keys_and_warns():
    overrides = {"provider": "none", "query.maxResults": 8, "query.minScore": 0.25,
                 "query.hybrid.vectorWeight": 0.5, "chunking.tokens": 256, "sync.watch": False,
                 "store.fts.tokenizer": "trigram", "cache.enabled": False}
    with pytest.warns(ExportWarning, match="cannot be expressed in OpenClaw 2026.8"):
        text = export_config(overrides, "2026.8")
    doc = json5.loads(text)
    assert doc == {"memory": {"search": {
        "provider": "none", "store": {"fts": {"tokenizer": "trigram"}},
        "query": {"maxResults": 8, "minScore": 0.25}, "cache": {"enabled": False}}}}
    joined = "\n".join(text.warnings)
    for part in ("0.7 / 0.3", "MMR", "temporal decay", "400/80", "sync.watch"):
        assert part in joined
    assert all(w in text for w in text.warnings)  # also in the header


def test_export_2026_8_of_2026_8_constants_is_silent():
    cfg = import_config('{memory: {search: {provider: "none", query: {maxResults: 4}}}}')
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExportWarning)
        text = export_config(cfg, "2026.8")
    assert text.warnings == []
    assert json5.loads(text) == {"memory": {"search": {"provider": "none",
                                                       "query": {"maxResults": 4}}}}


# --- import ---------------------------------------------------------------------------------


def test_import_default_config_reproduces_default_pipeline():
    corpus = Corpus.from_texts(["the deploy window moved to Tuesday", "lunch was good"])
    for empty in ("{}", "{agents: {defaults: {}}}", "// nothing\n{}"):
        cfg = import_config(empty).with_overrides({"provider": "none"})
        assert raw(cfg) == raw(load_config({"provider": "none"}))
        got = openclaw_pipeline(corpus, cfg).get_params()
        want = openclaw_pipeline(corpus, {"provider": "none"}).get_params()
        scalar = (int, float, str, bool, type(None))
        assert {k: v for k, v in got.items() if isinstance(v, scalar)} == \
            {k: v for k, v in want.items() if isinstance(v, scalar)}
        assert got.keys() == want.keys()


def test_round_trip_2026_7_is_lossless():
    first = import_config(RICH)
    with pytest.warns(ExportWarning, match="per-agent"):
        text = export_config(first, base=RICH)
    assert "maxResults = 3 overrides the exported 8" in text
    second = import_config(text)
    assert raw(second) == raw(first)
    assert quiet_export(second, base=text) == text
    doc = json5.loads(text)
    assert doc["gateway"] == {"port": 18789}  # keys outside memorySearch are kept
    assert doc["memory"] == {"citations": "on"}
    assert doc["agents"]["defaults"]["workspace"] == "~/ws"
    assert doc["agents"]["list"][1] == {"id": "work", "memorySearch": {"query": {"maxResults": 3}}}
    # per-agent import
    work = import_config(text, agent_id="work")
    assert work.memory_search.query.max_results == 3


def test_round_trip_2026_8():
    text8 = """{memory: {citations: "auto", search: {provider: "ollama", model: "nomic-embed-text",
        sources: ["memory", "sessions"], extraPaths: ["notes"],
        remote: {baseUrl: "http://127.0.0.1:11434", batch: {enabled: true}},
        local: {modelPath: "/m.gguf"}, store: {vector: {enabled: false}},
        query: {maxResults: 5, minScore: 0.3}, cache: {enabled: true}}},
      agents: {entries: {work: {memory: {search: {query: {maxResults: 2}}}}}}}"""
    cfg = import_config(text8)
    ms = cfg.memory_search
    hybrid = ms.query.hybrid
    assert (hybrid.vector_weight, hybrid.text_weight, hybrid.candidate_multiplier) == (0.7, 0.3, 4)
    assert hybrid.mmr.enabled and hybrid.mmr.lambda_ == 0.7
    assert hybrid.temporal_decay.enabled and hybrid.temporal_decay.half_life_days == 30
    assert (ms.chunking.tokens, ms.chunking.overlap, ms.cache.max_entries) == (400, 80, 50_000)
    assert ms.experimental.session_memory and ms.effective_sources() == ["memory", "sessions"]
    assert cfg.memlab.decay_rule == "2026.8"
    assert ms.query.max_results == 5
    assert import_config(text8, agent_id="work").memory_search.query.max_results == 2
    with pytest.warns(ExportWarning, match="per-agent settings"):
        out = export_config(cfg, "2026.8", base=text8)
    assert out.warnings == ["agents.entries.work.memory.search.query.maxResults = 2 overrides "
                            "the exported 5"]
    assert raw(import_config(out)) == raw(cfg)
    doc = json5.loads(out)
    assert doc["memory"]["citations"] == "auto"
    assert doc["agents"]["entries"]["work"] == {"memory": {"search": {"query": {"maxResults": 2}}}}
    # the same tuned settings as a 2026.7 file are valid 2026.7 (decay rule is memlab-only there)
    text7 = export_config(cfg, "2026.7", allow_lossy=True)
    assert load_config(text7).memory_search.query.hybrid.mmr.enabled


def test_import_2026_8_reports_unknown_and_2026_8_only_keys():
    with pytest.raises(ConfigError, match="query.hybrid"):
        import_config('{memory: {search: {query: {hybrid: {vectorWeight: 0.5}}}}}')
    with pytest.warns(ExportWarning, match="rememberAcrossConversations"):
        import_config('{memory: {search: {rememberAcrossConversations: true}}}')
    with pytest.raises(ConfigError, match="mixes"):
        import_config('{memory: {search: {}}, agents: {defaults: {memorySearch: {}}}}')


def test_schema_mismatch_with_base():
    with pytest.raises(ExportError, match="2026.8 layout"):
        export_config(MemlabConfig(), "2026.7", base='{memory: {search: {}}}')
    with pytest.raises(ValueError, match="schema"):
        export_config(MemlabConfig(), "2025.1")


# --- results files and the CLI ------------------------------------------------------------


def results_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "dataset": ["sample"] * 3,
        "query.hybrid.vectorWeight": [0.3, 0.6, 0.9],
        "query.hybrid.mmr.enabled": [False, True, True],
        "memlab.fusion.method": ["openclaw", "openclaw", "rrf"],
        "memlab.fusion.rrfK": [float("nan"), float("nan"), 60.0],
        "ndcg@10": [0.5, 0.7, 0.6],
        "recall@10": [0.9, 0.6, 0.8],
        "ndcg@10_oos": [0.45, 0.66, 0.5],
    })


def test_canonical_key_path():
    assert canonical_key_path("query.hybrid.vectorWeight") == "query.hybrid.vectorWeight"
    assert canonical_key_path("memorySearch.query.maxResults") == "query.maxResults"
    assert canonical_key_path("fusion") == "memlab.fusion.method"
    assert canonical_key_path("ndcg@10") is None
    assert canonical_key_path("query.hybrid.vector_weight") is None


def test_overrides_from_results_ranks_rows():
    over, head = overrides_from_results(results_frame())
    assert over == {"query.hybrid.vectorWeight": 0.6, "query.hybrid.mmr.enabled": True,
                    "memlab.fusion.method": "openclaw"}
    assert head["metric"] == "ndcg@10" and head["score"] == 0.7
    assert head["out_of_sample"] == 0.66 and head["dataset"] == "sample"
    over, _ = overrides_from_results(results_frame(), rank=2)
    assert over["memlab.fusion.rrfK"] == 60
    over, _ = overrides_from_results(results_frame(), metric="recall@10")
    assert over["query.hybrid.vectorWeight"] == 0.3
    with pytest.raises(ValueError, match="out of range"):
        overrides_from_results(results_frame(), rank=4)
    with pytest.raises(ValueError, match="not 'other'"):
        overrides_from_results(results_frame(), dataset="other")
    with pytest.raises(ValueError, match="no metric column 'map@10'"):
        overrides_from_results(results_frame(), metric="map@10")
    with pytest.raises(ValueError, match="no axis columns"):
        overrides_from_results(results_frame()[["dataset", "ndcg@10"]])


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_cli_export_results(tmp_path, capsys, suffix):
    path = tmp_path / f"results{suffix}"
    frame = results_frame()
    frame.to_parquet(path) if suffix == ".parquet" else frame.to_csv(path, index=False)
    out = tmp_path / "openclaw.json"
    assert main(["export", str(path), "--schema", "2026.7", "--out", str(out),
                 "--dataset", "sample"]) == 0
    text = out.read_text()
    cfg = load_config(text)
    assert cfg.memory_search.normalized_weights() == pytest.approx((0.6, 0.4))
    assert "// dataset: sample" in text and "// date: " in text
    # rank 2 is RRF: refused, then allowed with --allow-lossy
    assert main(["export", str(path), "--rank", "2", "--schema", "2026.7",
                 "--out", str(out)]) == 2
    assert "memlab-only" in capsys.readouterr().err
    assert main(["export", str(path), "--rank", "2", "--schema", "2026.7", "--out", str(out),
                 "--allow-lossy"]) == 0
    assert main(["export", str(path), "--rank", "9", "--schema", "2026.7",
                 "--out", str(out)]) == 2
    assert "out of range" in capsys.readouterr().err
    assert main(["export", str(path), "--dataset", "beir-scifact", "--schema", "2026.7",
                 "--out", str(out)]) == 2
    assert "dataset" in capsys.readouterr().err


def test_cli_export_config_2026_8_with_base(tmp_path, capsys):
    src = tmp_path / "tuned.json5"
    src.write_text(export_config({"query.maxResults": 9, "query.hybrid.vectorWeight": 0.4}))
    base = tmp_path / "existing.json5"
    base.write_text('{gateway: {port: 1}, memory: {citations: "off", search: {model: "m"}}}')
    out = tmp_path / "out.json5"
    assert main(["export", str(src), "--schema", "2026.8", "--base", str(base),
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "0.7 / 0.3" in err  # the tuned weights cannot be expressed
    doc = json5.loads(out.read_text())
    assert doc["gateway"] == {"port": 1} and doc["memory"]["citations"] == "off"
    assert doc["memory"]["search"] == {**SERVED, "query": {"maxResults": 9}}


# --- the real OpenClaw 2026.7.35 ----------------------------------------------------------


def _check_export_module() -> Any:
    spec = importlib.util.spec_from_file_location("memlab_parity_check_export",
                                                  PARITY / "check_export.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["memlab_parity_check_export"] = module
    spec.loader.exec_module(module)
    return module


def test_real_openclaw_accepts_export():
    check = _check_export_module()
    install = check.find_install()
    if install is None:
        pytest.skip("no OpenClaw 2026.7.35 install in ~/.cache/memlab/parity (make parity)")
    cfg = import_config(RICH)
    text = quiet_export(cfg, header={"dataset": "sample-memory", "metric": "ndcg@10",
                                     "score": 0.7, "date": "2026-10-01"}, base=RICH)
    result = check.check_export(text, install, env={"OPENAI_API_KEY": "sk-dummy"})
    assert result.accepted, result.describe()
