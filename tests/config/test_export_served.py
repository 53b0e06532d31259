"""Self-describing, production-safe exports: the provider and model are always written, a
packaged local model becomes the ``openai-compatible`` block of ``memlab serve-embeddings``
(whose vectors equal memlab's), evaluation-only cut-offs stay out, ``--best-expressible`` and
``--allow-lossy`` with measured effects."""

from __future__ import annotations

from collections.abc import Sequence

import json5
import numpy as np
import pandas as pd
import pytest

from memlab.cli.main import main
from memlab.cli.serve_embeddings import EmbeddingServer
from memlab.config import ExportError, MemlabConfig, export_config, load_config
from memlab.embed.factory import make_embedder
from memlab.embed.hashing import HashingProvider


def search_block(text: str) -> dict:
    doc = json5.loads(text)
    return doc["memory"]["search"] if "memory" in doc else \
        doc["agents"]["defaults"]["memorySearch"]


# --- provider and model always written ------------------------------------------------------


@pytest.mark.parametrize("schema", ["2026.7", "2026.8", "2026.9"])
def test_a_packaged_local_model_exports_as_the_served_openai_compatible_provider(schema):
    text = export_config({"provider": "local", "local.modelPath": "e5-small-multilingual"},
                         schema, serve_host="127.0.0.1", serve_port=8123)
    block = search_block(text)
    assert block["provider"] == "openai-compatible"  # never OpenClaw's GGUF `local`
    assert block["model"] == "e5-small-multilingual"
    assert block["remote"] == {"baseUrl": "http://127.0.0.1:8123/v1"}
    assert (block["queryInputType"], block["documentInputType"]) == ("query", "document")
    assert "local" not in block
    command = "memlab serve-embeddings --model e5-small-multilingual --host 127.0.0.1 --port 8123"
    assert text.serve_command == command
    assert f"//   {command}" in text.splitlines()


def test_unset_provider_is_written_as_the_one_memlab_measured_with_its_model():
    block = search_block(export_config("{memorySearch: {query: {maxResults: 3}}}"))
    assert block["provider"] == "openai" and block["model"] == "text-embedding-3-small"
    block = search_block(export_config('{memorySearch: {provider: "gemini"}}'))
    assert block["provider"] == "gemini" and block["model"]
    assert search_block(export_config({"provider": "none"})) == {"provider": "none"}


def test_a_sweep_row_without_provider_columns_exports_the_sweeps_default_model():
    block = search_block(export_config({"query.hybrid.vectorWeight": 0.6}))
    assert (block["provider"], block["model"]) == ("openai-compatible", "minilm")


class _E5Like(HashingProvider):
    """An asymmetric model: queries and documents are embedded with different prefixes (as
    E5's ``query: ``/``passage: ``), so a server that cannot tell them apart gets it wrong."""

    def embed_query(self, text: str) -> np.ndarray:
        return self.vector(f"query {text}")

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.vector(f"passage {t}") for t in texts]) if texts else \
            np.zeros((0, self.dims), np.float32)


@pytest.fixture
def served() -> EmbeddingServer:
    import threading

    server = EmbeddingServer(_E5Like(), "127.0.0.1", 0, model_name="e5-like")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_the_exported_block_gets_the_served_models_own_vectors(served):
    port = served.server_address[1]
    text = export_config({"provider": "local", "local.modelPath": "e5-like"},
                         serve_port=port)
    cfg = load_config(text).with_overrides({"cache.enabled": False})
    client = make_embedder(cfg)
    model = _E5Like()
    docs = ["deploy window moved to Tuesday", "staging db host is db-2"]
    assert np.array_equal(client.embed_query("when do we deploy"),
                          model.embed_query("when do we deploy"))
    assert np.array_equal(client.embed_documents(docs), model.embed_documents(docs))
    # without the input types (the old export), queries would be embedded as documents
    doc = json5.loads(text)
    for key in ("queryInputType", "documentInputType"):
        del doc["agents"]["defaults"]["memorySearch"][key]
    bare = load_config(doc).with_overrides({"cache.enabled": False})
    assert not np.array_equal(make_embedder(bare).embed_query("when do we deploy"),
                              model.embed_query("when do we deploy"))


# --- evaluation-only cut-offs ----------------------------------------------------------------


def _results(tmp_path, **columns) -> str:
    frame = pd.DataFrame({"dataset": ["sample"] * 3, **columns})
    path = tmp_path / "sweep.csv"
    frame.to_csv(path, index=False)
    return str(path)


def test_constant_cutoff_columns_are_evaluation_settings_and_not_written(tmp_path, capsys):
    path = _results(tmp_path, **{"query.hybrid.vectorWeight": [0.5, 0.6, 0.7],
                                 "query.maxResults": [10, 10, 10],
                                 "query.minScore": [0.0, 0.0, 0.0],
                                 "ndcg@10": [0.5, 0.6, 0.4]})
    out = tmp_path / "openclaw.json5"
    assert main(["export", path, "--out", str(out)]) == 0
    text = out.read_text()
    block = search_block(text)
    assert "maxResults" not in block.get("query", {}) and "minScore" not in block["query"]
    assert block["query"]["hybrid"]["vectorWeight"] == 0.6
    assert "query.maxResults = 10" in text and "query.minScore = 0.0" in text  # said why


def test_tuned_cutoffs_are_written(tmp_path):
    path = _results(tmp_path, **{"query.minScore": [0.1, 0.3, 0.5],
                                 "query.maxResults": [4, 6, 6], "ndcg@10": [0.5, 0.6, 0.4]})
    out = tmp_path / "openclaw.json5"
    assert main(["export", path, "--out", str(out)]) == 0
    assert search_block(out.read_text())["query"] == {"minScore": 0.3, "maxResults": 6}


def test_an_eval_results_row_exports_the_systems_config_without_the_eval_depth(tmp_path):
    mine = tmp_path / "mine.json5"
    mine.write_text('{memorySearch: {provider: "local", query: {hybrid: {vectorWeight: 0.4, '
                    'textWeight: 0.6}}}}')
    path = tmp_path / "eval.csv"
    pd.DataFrame({"system": ["keyword", "mine"], "ndcg@10": [0.3, 0.5],
                  "queries": [111, 111]}).to_csv(path, index=False)
    out = tmp_path / "openclaw.json5"
    assert main(["export", str(path), "--out", str(out)]) == 0
    text = out.read_text()
    block = search_block(text)
    assert block["provider"] == "openai-compatible"
    assert block["query"] == {"hybrid": {"vectorWeight": 0.4, "textWeight": 0.6}}
    assert "system: " in text and "mine.json5" in text


# --- --best-expressible and --allow-lossy ----------------------------------------------------


def _lossy_results(tmp_path) -> str:
    return _results(tmp_path, **{
        "memlab.fusion.method": ["rrf", "openclaw", "openclaw"],
        "query.hybrid.vectorWeight": [0.5, 0.6, 0.7],
        "ndcg@10": [0.62, 0.60, 0.55]})


def test_best_expressible_picks_the_best_row_the_schema_can_express(tmp_path):
    path = _lossy_results(tmp_path)
    out = tmp_path / "openclaw.json5"
    assert main(["export", path, "--out", str(out)]) == 2  # rank 1 is RRF: refused
    assert main(["export", path, "--out", str(out), "--best-expressible"]) == 0
    text = out.read_text()
    assert search_block(text)["query"]["hybrid"]["vectorWeight"] == 0.6
    assert "rank: 2 of 3" in text and "best row overall: rank 1, ndcg@10 0.6200" in text
    assert "cost of expressing: -0.0200 ndcg@10" in text


def test_best_expressible_under_2026_9_needs_the_fixed_weights(tmp_path):
    path = _lossy_results(tmp_path)
    out = tmp_path / "openclaw.json5"
    assert main(["export", path, "--out", str(out), "--schema", "2026.9",
                 "--best-expressible"]) == 0
    text = out.read_text()
    assert "rank: 3 of 3" in text and "query" not in search_block(text)
    all_rrf = _results(tmp_path, **{"memlab.fusion.method": ["rrf"] * 3,
                                    "ndcg@10": [0.6, 0.5, 0.4]})
    assert main(["export", all_rrf, "--out", str(out), "--best-expressible"]) == 2


def test_allow_lossy_lists_each_dropped_knob_with_its_measured_effect(tmp_path, capsys):
    path = _results(tmp_path, **{
        "memlab.fusion.method": ["rrf", "openclaw", "openclaw"],
        "memlab.keyword": ["bm25", "bm25", "bm25"],
        "ndcg@10": [0.62, 0.60, 0.55]})
    out = tmp_path / "openclaw.json5"
    assert main(["export", path, "--out", str(out), "--allow-lossy"]) == 0
    text = out.read_text()
    err = capsys.readouterr().err
    for where in (text, err):
        assert "memlab.fusion.method = 'rrf'" in where and "+0.0200 ndcg@10" in where
        # no row has the FTS5 leg: its effect cannot be measured, and it says so
        assert "memlab.keyword = 'bm25'" in where and "effect not measured" in where


def test_refusals_name_key_value_and_effect_in_both_schemas():
    for schema in ("2026.7", "2026.9"):
        with pytest.raises(ExportError) as err:
            export_config({"memlab.fusion.method": "rrf"}, schema,
                          effects={"memlab.fusion.method": 0.03}, header={"metric": "ndcg@10"})
        issue = next(i for i in err.value.issues if i.path == "memlab.fusion.method")
        assert f"OpenClaw {schema} cannot express the memlab-only choice 'rrf'" in issue.message
        assert "+0.0300 ndcg@10" in issue.message
    assert export_config(MemlabConfig(), "2026.9").dropped == []
