"""Custom provider ids: ``memorySearch.provider`` naming a ``models.providers.<id>`` entry,
resolved as OpenClaw does, against a loopback fake server."""

from __future__ import annotations

from typing import Any

import pytest

from memlab.config import ConfigError, dump_config, load_config
from memlab.embed import ProviderUnavailable
from memlab.embed.factory import make_embedder
from memlab.embed.ollama import OllamaProvider
from memlab.embed.openai_compatible import OpenAICompatibleProvider
from tests.embed.conftest import FakeServer, vector_for

QWEN = "Instruct: Given a user query, retrieve relevant memory notes and documents\nQuery:"


def _config(entry: dict[str, Any], **ms: Any) -> Any:
    return load_config({"models": {"providers": {"ollama-5080": entry}},
                        "agents": {"defaults": {"memorySearch": {
                            "provider": "ollama-5080", "cache": {"enabled": False}, **ms}}}})


def _ollama_route(req: dict[str, Any], n: int) -> tuple[int, dict[str, Any]]:
    texts = req["body"]["input"]
    texts = texts if isinstance(texts, list) else [texts]
    return 200, {"embeddings": [vector_for(t, 4) for t in texts]}


def test_ollama_entry_endpoint_model_and_no_key(fake: FakeServer) -> None:
    fake.route = _ollama_route
    cfg = _config({"api": "ollama", "baseUrl": fake.url, "apiKey": "ollama-local",
                   "models": [{"id": "qwen3-embedding:0.6b"}]},
                  model="ollama-5080/qwen3-embedding:0.6b")
    provider = make_embedder(cfg)
    assert isinstance(provider, OllamaProvider)
    provider.embed_query("deploy window")
    provider.embed_documents(["a note"])
    query, docs = fake.requests
    assert query["path"] == "/api/embed"
    assert query["body"] == {"model": "qwen3-embedding:0.6b", "input": QWEN + "deploy window"}
    assert docs["body"] == {"model": "qwen3-embedding:0.6b", "input": ["a note"]}
    assert "authorization" not in query["headers"]  # "ollama-local" is a non-secret marker
    assert cfg.memory_search.provider == "ollama-5080"  # the config keeps the custom id


def test_entry_key_headers_and_remote_overrides(fake: FakeServer, monkeypatch) -> None:
    fake.route = _ollama_route
    other = FakeServer()
    other.thread.start()
    try:
        cfg = _config({"api": "Ollama", "baseUrl": other.url, "apiKey": "sk-entry-123",
                       "headers": {"X-Team": "memory"}},
                      model="nomic-embed-text", remote={"baseUrl": fake.url})
        make_embedder(cfg).embed_query("q")
        assert len(other.requests) == 0  # remote.baseUrl wins over the entry's
        (req,) = fake.requests
        assert req["headers"]["authorization"] == "Bearer sk-entry-123"
        assert req["headers"]["x-team"] == "memory"
        assert req["body"]["input"] == "search_query: q"
    finally:
        other.httpd.shutdown()
        other.httpd.server_close()
    monkeypatch.setenv("GPU_BOX_KEY", "sk-from-env")
    fake.requests.clear()
    make_embedder(_config({"api": "ollama", "baseUrl": fake.url, "apiKey": "GPU_BOX_KEY"},
                          model="nomic-embed-text")).embed_query("q")
    assert fake.requests[0]["headers"]["authorization"] == "Bearer sk-from-env"


@pytest.mark.parametrize("entry", [{"api": "openai-responses"}, {}])
def test_openai_compatible_entries(fake: FakeServer, entry: dict[str, Any]) -> None:
    fake.route = lambda req, n: (200, {"data": [
        {"index": i, "embedding": vector_for(t, 4)} for i, t in enumerate(req["body"]["input"])]})
    cfg = load_config({"models": {"providers": {"GPU-Box": {**entry, "baseUrl": fake.url + "/v1",
                                                          "apiKey": "sk-box"}}},
                       "agents": {"defaults": {"memorySearch": {
                           "provider": "gpu-box", "model": "minilm",
                           "cache": {"enabled": False}}}}})
    provider = make_embedder(cfg)
    assert isinstance(provider, OpenAICompatibleProvider)
    provider.embed_documents(["x"])
    (req,) = fake.requests
    assert req["path"] == "/v1/embeddings" and req["body"]["model"] == "minilm"
    assert req["headers"]["authorization"] == "Bearer sk-box"


def test_validation_names_the_key_and_the_known_ids() -> None:
    with pytest.raises(ConfigError) as err:
        load_config({"models": {"providers": {"ollama-5080": {"api": "ollama"}}},
                     "agents": {"defaults": {"memorySearch": {"provider": "ollama-508"}}}})
    text = str(err.value)
    assert "agents.defaults.memorySearch.provider" in text
    assert "'ollama-508'" in text and "configured: ollama-5080" in text and "voyage" in text
    with pytest.raises(ConfigError, match=r"models\.providers\.claude\.api: 'anthropic' has no "
                                          "memory embedding adapter"):
        load_config({"models": {"providers": {"claude": {"api": "anthropic"}}},
                     "agents": {"defaults": {"memorySearch": {"provider": "claude"}}}})
    with pytest.raises(ConfigError, match="models.providers: expected an object"):
        load_config({"models": {"providers": ["x"]}, "agents": {}})


def test_without_models_providers_unknown_ids_fail_when_created() -> None:
    cfg = load_config({"memorySearch": {"provider": "ollama-5080", "cache": {"enabled": False}}})
    with pytest.raises(ProviderUnavailable, match="unknown embedding provider 'ollama-5080'"):
        make_embedder(cfg)


def test_entry_secrets_stay_out_of_dumps_and_survive_overrides(fake: FakeServer) -> None:
    cfg = _config({"api": "ollama", "baseUrl": fake.url, "apiKey": "sk-secret-777"},
                  model="nomic-embed-text")
    assert "sk-secret-777" not in dump_config(cfg) and "sk-secret-777" not in repr(cfg)
    tuned = cfg.with_overrides({"query.hybrid.vectorWeight": 0.5})
    assert tuned.model_providers == cfg.model_providers
    fake.route = _ollama_route
    make_embedder(tuned).embed_query("q")
    assert fake.requests[0]["headers"]["authorization"] == "Bearer sk-secret-777"
