"""The packaged-model registry (memlab.embed.models): languages, dimensions and input windows
agree with the models themselves."""

from __future__ import annotations

import numpy as np
import pytest

from memlab.embed.local import LocalProvider
from memlab.embed.models import PACKAGED_MODELS, model_window, packaged_models_table


def _provider(alias: str) -> LocalProvider:
    spec = PACKAGED_MODELS[alias]
    if not spec.installed():
        pytest.skip(f"{spec.package} is not installed")
    return LocalProvider(alias, show_progress=False)


@pytest.mark.parametrize("alias", sorted(PACKAGED_MODELS))
def test_dims_are_the_vectors_width(alias: str) -> None:
    vectors = _provider(alias).embed_documents(["a short note", "ฝนตกที่กรุงเทพ 部署窗口"])
    assert vectors.shape == (2, PACKAGED_MODELS[alias].dims)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_minilm_window_is_the_models_truncation() -> None:
    model = _provider("minilm").load()
    assert model.max_seq_length == model_window("minilm") == 256
    onnx = _provider("minilm-int8-onnx").load()
    assert onnx.max_seq_length == model_window("minilm-int8-onnx")


def test_minilm_ignores_tokens_past_its_window() -> None:
    provider = _provider("minilm")
    words = [f"w{i}" for i in range(400)]  # "w12" is several word pieces: far past 256
    full, head = provider.embed_documents([" ".join(words), " ".join(words[:300])])
    assert float(full @ head) == pytest.approx(1.0, abs=1e-5)


def test_use_reads_every_token() -> None:
    provider = _provider("use-multilingual")
    assert model_window("use-multilingual") is None
    words = [f"topic{i}" for i in range(1500)]
    full, head = provider.embed_documents([" ".join(words), " ".join(words[:700])])
    assert float(full @ head) < 0.99  # the tail changed the vector: nothing was cut
    assert provider.load().count_tokens(["hello world"]) == 5  # BOS + 3 pieces + EOS


def test_use_is_multilingual_thai() -> None:
    provider = _provider("use-multilingual")
    docs = provider.embed_documents(["ประชุมทีมทุกวันจันทร์ตอนเก้าโมงเช้า",
                                     "The NAS backup runs at midnight."])
    query = provider.embed_query("Team meeting on Monday morning")
    assert float(docs[0] @ query) > float(docs[1] @ query)  # Thai note for an English query


def test_model_window_names_and_errors() -> None:
    assert model_window("E5-Small") == model_window("e5-small-multilingual") == 512
    with pytest.raises(KeyError, match="known aliases: .*use-multilingual"):
        model_window("text-embedding-3-small")


def test_table_rows() -> None:
    rows = {r["alias"]: r for r in packaged_models_table()}
    assert set(rows) == set(PACKAGED_MODELS)
    assert {"th", "zh", "ja", "ko"} <= set(rows["use-multilingual"]["languages"].split(", "))
    assert rows["minilm"]["languages"] == "en" and rows["minilm"]["window"] == 256
    assert all(r["dims"] > 0 for r in rows.values())
