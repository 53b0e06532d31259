"""Every remote provider against a real HTTP server on 127.0.0.1 speaking its wire format."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import numpy as np
import pytest

from memlab.config import load_config
from memlab.embed import ProviderUnavailable, get_provider
from memlab.embed.bedrock import BedrockProvider
from memlab.embed.deepinfra import DeepInfraProvider
from memlab.embed.gemini import GeminiProvider
from memlab.embed.github_copilot import GitHubCopilotProvider
from memlab.embed.http import RequestFailed
from memlab.embed.lmstudio import LMStudioProvider
from memlab.embed.mistral import MistralProvider
from memlab.embed.ollama import OllamaProvider
from memlab.embed.openai import OpenAIProvider
from memlab.embed.voyage import VoyageProvider
from memlab.openclaw import make_embedder
from tests.embed.conftest import RESET, FakeServer, vector_for

SECRET = "sk-DISTINCTIVE-never-leak-7f3a9c"


def openai_answer(req: dict[str, Any], n: int) -> tuple[int, Any]:
    inputs = req["body"]["input"]
    inputs = inputs if isinstance(inputs, list) else [inputs]
    data = [{"object": "embedding", "index": i, "embedding": vector_for(t)}
            for i, t in enumerate(inputs)]
    return 200, {"object": "list", "data": data[::-1]}  # out of order on purpose


def unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float64)
    return (a / np.linalg.norm(a)).astype(np.float32)


# -- OpenAI-shaped providers ----------------------------------------------------------------

def test_openai_request_shape_auth_and_key(fake: FakeServer) -> None:
    fake.route = openai_answer
    p = OpenAIProvider(api_key=SECRET, base_url=fake.url + "/v1/", model="openai/te-3",
                       headers={"X-Team": "memlab"}, query_input_type="query",
                       document_input_type="passage", output_dimensionality=4)
    docs = p.embed_documents(["alpha", "beta"])
    q = p.embed_query("gamma")
    np.testing.assert_array_equal(docs[1], np.asarray(vector_for("beta"), dtype=np.float32))
    np.testing.assert_array_equal(q, np.asarray(vector_for("gamma"), dtype=np.float32))
    first, second = fake.requests
    assert first["path"] == "/v1/embeddings"
    assert first["body"] == {"model": "openai/te-3", "input": ["alpha", "beta"],
                             "dimensions": 4, "input_type": "passage"}
    assert second["body"]["input_type"] == "query"
    assert first["headers"]["authorization"] == f"Bearer {SECRET}"
    assert first["headers"]["x-team"] == "memlab"
    assert "originator" not in first["headers"]  # only on api.openai.com
    other = OpenAIProvider(api_key="different", base_url=fake.url + "/v1",
                           model="openai/te-3", headers={"X-Team": "memlab"},
                           document_input_type="passage", output_dimensionality=4)
    assert p.settings_key == other.settings_key  # query type and key are not in the key
    assert OpenAIProvider(api_key="k").model == "text-embedding-3-small"
    assert OpenAIProvider(api_key="k", model="openai/text-embedding-3-large").model == \
        "text-embedding-3-large"


def test_the_public_side_batch_jobs_use(fake: FakeServer, no_sleep: list[float]) -> None:
    """What :mod:`memlab.embed.batch` asks of a provider: one bounded exchange, its headers,
    its scrubber, its sleep (not a retry wait) and its checks of returned vectors."""
    fake.route = lambda req, n: (200, {"ok": True})
    p = OpenAIProvider(api_key=SECRET, base_url=fake.url + "/v1", sleep=no_sleep.append)
    headers = p.request_headers()
    assert headers["authorization"] == f"Bearer {SECRET}"
    assert json.loads(p.send("GET", fake.url + "/v1/files", headers=headers, timeout=5).body) \
        == {"ok": True}
    assert p.requests == 1
    assert SECRET not in p.scrub(f"rejected key {SECRET}")
    p.sleep(0.25)
    assert no_sleep == [0.25] and p.waits == []
    assert p.checked_vectors([[1.0, 2.0], [3.0, 4.0]], 2).dtype == np.float32
    assert p.dims == 2
    with pytest.raises(RequestFailed, match="expected 2 embedding"):
        p.checked_vectors([[1.0, 2.0]], 2)
    with pytest.raises(ProviderUnavailable, match="expected 2"):
        p.checked_vectors([[1.0, 2.0, 3.0]], 1)


@pytest.mark.parametrize("cls,path,default_model", [
    (MistralProvider, "/v1/embeddings", "mistral-embed"),
    (DeepInfraProvider, "/v1/openai/embeddings", "BAAI/bge-m3"),
])
def test_bearer_providers(fake: FakeServer, cls: Any, path: str, default_model: str) -> None:
    fake.route = openai_answer
    base = fake.url + path.rsplit("/embeddings", 1)[0]
    p = cls(api_key=SECRET, base_url=base)
    assert p.embed_query("x").shape == (4,)
    req = fake.requests[0]
    assert req["path"] == path and req["body"] == {"model": default_model, "input": ["x"]}
    assert req["headers"]["authorization"] == f"Bearer {SECRET}"
    assert cls(api_key="k", model=f"{cls.id}/m2").model == "m2"


def test_mistral_and_deepinfra_cache_keys() -> None:
    assert MistralProvider(api_key="a", base_url="http://x").settings_key == \
        MistralProvider(api_key="b").settings_key  # model only
    assert DeepInfraProvider(api_key="a").settings_key != DeepInfraProvider(
        api_key="a", base_url="http://other/v1").settings_key


def test_voyage_input_types(fake: FakeServer) -> None:
    fake.route = openai_answer
    p = VoyageProvider(api_key=SECRET, base_url=fake.url + "/v1")
    p.embed_documents(["d1", "d2"])
    p.embed_query("q")
    assert [r["body"]["input_type"] for r in fake.requests] == ["document", "query"]
    assert fake.requests[0]["body"]["model"] == "voyage-4-large"


def test_lmstudio_preloads_and_embeds(fake: FakeServer) -> None:
    def route(req: dict[str, Any], n: int) -> Any:
        if req["path"] == "/api/v1/models":
            return 200, {"models": [{"key": "text-embedding-nomic-embed-text-v1.5",
                                     "max_context_length": 2048, "loaded_instances": []}]}
        if req["path"] == "/api/v1/models/load":
            return 200, {"status": "loaded"}
        return openai_answer(req, n)

    fake.route = route
    p = LMStudioProvider(base_url=fake.url + "/api/v1", api_key="lmstudio-local")
    assert p.embed_documents(["a", "b"]).shape == (2, 4)
    paths = [r["path"] for r in fake.requests]
    assert paths == ["/api/v1/models", "/api/v1/models/load", "/v1/embeddings"]
    assert fake.requests[1]["body"] == {"model": "text-embedding-nomic-embed-text-v1.5",
                                        "context_length": 2048}
    assert "authorization" not in fake.requests[2]["headers"]  # placeholder key
    assert p.batch_timeout == 600.0


def test_lmstudio_preload_failure_only_warns(fake: FakeServer, caplog: Any) -> None:
    fake.route = lambda req, n: (500, {"error": "x"}) if "/api/" in req["path"] else \
        openai_answer(req, n)
    p = LMStudioProvider(base_url=fake.url, api_key=SECRET, sleep=lambda s: None)
    with caplog.at_level(logging.WARNING):
        assert p.embed_query("q").shape == (4,)
    assert "warmup failed" in caplog.text and SECRET not in caplog.text
    assert fake.requests[-1]["headers"]["authorization"] == f"Bearer {SECRET}"


# -- Gemini -----------------------------------------------------------------------------------

def gemini_route(req: dict[str, Any], n: int) -> Any:
    body = req["body"]
    if req["path"].endswith(":embedContent"):
        dims = body.get("outputDimensionality", 4)
        return 200, {"embedding": {"values": vector_for(body["content"]["parts"][0]["text"],
                                                        dims)}}
    return 200, {"embeddings": [{"values": vector_for(r["content"]["parts"][0]["text"],
                                                      r.get("outputDimensionality", 4))}
                                for r in body["requests"]]}


def test_gemini_task_types_auth_and_normalisation(fake: FakeServer) -> None:
    fake.route = gemini_route
    p = GeminiProvider(api_key=SECRET, base_url=fake.url + "/v1beta/openai/",
                       model="gemini/gemini-embedding-2-preview", output_dimensionality=768)
    docs = p.embed_documents(["one", "two"])
    q = p.embed_query("three")
    np.testing.assert_allclose(docs[0], unit(vector_for("one", 768)), rtol=1e-5)
    np.testing.assert_allclose(q, unit(vector_for("three", 768)), rtol=1e-5)
    batch, single = fake.requests
    assert batch["path"] == "/v1beta/models/gemini-embedding-2-preview:batchEmbedContents"
    assert batch["body"]["requests"][0] == {
        "content": {"parts": [{"text": "one"}]}, "taskType": "RETRIEVAL_DOCUMENT",
        "model": "models/gemini-embedding-2-preview", "outputDimensionality": 768}
    assert single["path"] == "/v1beta/models/gemini-embedding-2-preview:embedContent"
    assert single["body"] == {"content": {"parts": [{"text": "three"}]},
                              "taskType": "RETRIEVAL_QUERY", "outputDimensionality": 768}
    assert single["headers"]["x-goog-api-key"] == SECRET
    assert "authorization" not in single["headers"]
    assert GeminiProvider(api_key="k").output_dimensionality is None  # 001 ignores it
    with pytest.raises(ProviderUnavailable, match="Valid values"):
        GeminiProvider(api_key="k", model="gemini-embedding-2-preview",
                       output_dimensionality=100)


# -- Ollama -----------------------------------------------------------------------------------

@pytest.mark.parametrize("model,prefix", [
    ("nomic-embed-text", "search_query: "),
    ("qwen3-embedding:0.6b", "Instruct: Given a user query, retrieve relevant memory notes "
                             "and documents\nQuery:"),
    ("mxbai-embed-large", "Represent this sentence for searching relevant passages: "),
    ("all-minilm", ""),
])
def test_ollama_query_prefixes(fake: FakeServer, model: str, prefix: str) -> None:
    fake.route = lambda req, n: (200, {"embeddings": [
        vector_for(t, 6) for t in (req["body"]["input"] if isinstance(
            req["body"]["input"], list) else [req["body"]["input"]])]})
    p = OllamaProvider(model=model, base_url=fake.url + "/v1", output_dimensionality=4)
    q = p.embed_query("deploy key")
    p.embed_documents(["doc text"])
    query_req, doc_req = fake.requests
    assert query_req["path"] == "/api/embed"
    assert query_req["body"] == {"model": model, "input": prefix + "deploy key"}
    assert doc_req["body"] == {"model": model, "input": ["doc text"]}  # no prefix
    np.testing.assert_allclose(q, unit(vector_for(prefix + "deploy key", 6)[:4]), rtol=1e-6)
    assert "authorization" not in query_req["headers"]
    assert p.batch_timeout == 600.0 and p.query_timeout == 60.0


# -- Bedrock ----------------------------------------------------------------------------------

CREDS = {"access_key": "AKIDEXAMPLE", "secret_key": SECRET}


def test_bedrock_titan_sigv4_and_normalisation(fake: FakeServer) -> None:
    fake.route = lambda req, n: (200, {"embedding": vector_for(
        req["body"]["inputText"], req["body"]["dimensions"]), "inputTextTokenCount": 1})
    p = BedrockProvider(base_url=fake.url, region="eu-west-1", credentials=CREDS,
                        output_dimensionality=256)
    out = p.embed_documents(["a", "", "b"])
    np.testing.assert_allclose(out[2], unit(vector_for("b", 256)), rtol=1e-5)
    assert not out[1].any()  # blank text: zero vector, no request
    assert len(fake.requests) == 2
    req = fake.requests[0]
    assert req["path"] == "/model/amazon.titan-embed-text-v2%3A0/invoke"
    assert req["body"] == {"inputText": "a", "dimensions": 256, "normalize": True}
    auth = req["headers"]["authorization"]
    assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert "/eu-west-1/bedrock/aws4_request" in auth and "x-amz-date" in req["headers"]
    assert SECRET not in json.dumps(req["headers"])
    assert p.key_settings() == {"region": "eu-west-1", "dimensions": 256}
    with pytest.raises(ProviderUnavailable, match="Valid values"):
        BedrockProvider(region="us-east-1", credentials=CREDS, output_dimensionality=300)


def test_bedrock_cohere_input_types_and_region(fake: FakeServer, monkeypatch: Any) -> None:
    fake.route = lambda req, n: (200, {"embeddings": {"float": [
        vector_for(t, req["body"]["output_dimension"]) for t in req["body"]["texts"]]}})
    p = BedrockProvider(model="us.cohere.embed-v4:0", base_url=fake.url, region="us-west-2",
                        credentials=CREDS, output_dimensionality=256)
    p.embed_documents(["x", "y"])
    p.embed_query("z")
    assert fake.requests[0]["body"] == {"texts": ["x", "y"], "input_type": "search_document",
                                        "truncate": "END", "embedding_types": ["float"],
                                        "output_dimension": 256}
    assert fake.requests[1]["body"]["input_type"] == "search_query"
    monkeypatch.setenv("AWS_REGION", "ap-south-1")
    url = "https://bedrock-runtime.eu-central-1.amazonaws.com"
    assert BedrockProvider(base_url=url, credentials=CREDS).region == "eu-central-1"
    assert BedrockProvider(credentials=CREDS).region == "ap-south-1"


def test_bedrock_without_credentials_fails_closed(monkeypatch: Any, tmp_path: Any) -> None:
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                "AWS_BEARER_TOKEN_BEDROCK", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_WEB_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    with pytest.raises(ProviderUnavailable, match="AWS credentials are not available"):
        BedrockProvider()


# -- GitHub Copilot ---------------------------------------------------------------------------

def test_github_copilot_token_exchange_discovery_and_embeddings(fake: FakeServer) -> None:
    copilot_token = f"tid=1;exp={int(time.time()) + 3600};proxy-ep=proxy.example"

    def route(req: dict[str, Any], n: int) -> Any:
        if req["path"] == "/copilot_internal/v2/token":
            return 200, {"token": copilot_token, "expires_at": int(time.time()) + 3600}
        if req["path"] == "/models":
            return 200, {"data": [{"id": "gpt-4o", "supported_endpoints": ["/chat"]},
                                  {"id": "text-embedding-3-large"},
                                  {"id": "text-embedding-3-small",
                                   "supported_endpoints": ["/embeddings"]}]}
        return openai_answer(req, n)

    fake.route = route
    p = GitHubCopilotProvider(github_token=SECRET, base_url=fake.url,
                              token_url=fake.url + "/copilot_internal/v2/token")
    v = p.embed_query("hello")
    np.testing.assert_allclose(v, unit(vector_for("hello")), rtol=1e-6)
    token_req, models_req, embed_req = fake.requests
    assert token_req["method"] == "GET"
    assert token_req["headers"]["authorization"] == f"Bearer {SECRET}"
    assert token_req["headers"]["copilot-integration-id"] == "vscode-chat"
    assert token_req["headers"]["editor-version"].startswith("vscode/")
    assert models_req["headers"]["authorization"] == f"Bearer {copilot_token}"
    assert embed_req["body"] == {"model": "text-embedding-3-small", "input": ["hello"]}
    assert p.model == "text-embedding-3-small"
    assert SECRET not in repr(p) and copilot_token not in p.settings_key
    p.embed_documents(["a"])
    assert len(fake.requests) == 4  # token reused, models discovered once
    bad = GitHubCopilotProvider(github_token=SECRET, base_url=fake.url, model="nope",
                                token_url=fake.url + "/copilot_internal/v2/token")
    with pytest.raises(ProviderUnavailable, match="not available"):
        bad.embed_query("x")


def test_github_copilot_token_exchange_failure(fake: FakeServer) -> None:
    fake.route = lambda req, n: (401, {"message": f"Bad credentials {SECRET}"})
    p = GitHubCopilotProvider(github_token=SECRET, token_url=fake.url + "/t")
    with pytest.raises(ProviderUnavailable, match="token exchange failed") as info:
        p.embed_query("x")
    assert SECRET not in str(info.value) and "Copilot subscription" in str(info.value)


# -- faults: retries, backoff, timeouts, resets, fail-closed, secrets -------------------------

def test_429_and_500_are_retried_with_backoff(fake: FakeServer) -> None:
    waits: list[float] = []
    fake.route = lambda req, n: (429, {"error": "slow down"}) if n == 0 else \
        (503, {"error": "busy"}) if n == 1 else openai_answer(req, n)
    p = MistralProvider(api_key=SECRET, base_url=fake.url, sleep=waits.append)
    assert p.embed_query("q").shape == (4,)
    assert len(fake.requests) == 3
    assert 0.5 <= waits[0] <= 0.6 and 1.0 <= waits[1] <= 1.2


def test_persistent_5xx_fails_after_3_attempts_naming_provider_and_fix(
        fake: FakeServer, caplog: Any) -> None:
    fake.route = lambda req, n: (500, {"error": f"internal {SECRET}"})
    p = VoyageProvider(api_key=SECRET, base_url=fake.url, sleep=lambda s: None)
    with caplog.at_level(logging.DEBUG), pytest.raises(ProviderUnavailable) as info:
        p.embed_documents(["a"])
    msg = str(info.value)
    assert msg.startswith("voyage embeddings failed") and "HTTP 500" in msg
    assert "3 attempt" in msg and "fix:" in msg
    assert len(fake.requests) == 3
    assert SECRET not in msg and SECRET not in caplog.text and SECRET not in repr(p)


@pytest.mark.parametrize("status", [400, 401, 403])
def test_client_errors_fail_at_once(fake: FakeServer, status: int) -> None:
    fake.route = lambda req, n: (status, {"error": {"message": "no"}})
    p = GeminiProvider(api_key=SECRET, base_url=fake.url, sleep=lambda s: None)
    with pytest.raises(ProviderUnavailable, match=f"HTTP {status}") as info:
        p.embed_query("q")
    assert len(fake.requests) == 1
    if status != 400:
        assert "GEMINI_API_KEY" in str(info.value)


def test_timeout_is_retried_then_fails(fake: FakeServer) -> None:
    fake.route = openai_answer
    fake.delay = 0.5
    p = OllamaProvider(base_url=fake.url, query_timeout=0.1, sleep=lambda s: None)
    start = time.monotonic()
    with pytest.raises(ProviderUnavailable, match="timed out"):
        p.embed_query("q")
    assert time.monotonic() - start < 1.5 and len(fake.requests) == 3


def test_reset_splits_the_batch(fake: FakeServer) -> None:
    def route(req: dict[str, Any], n: int) -> Any:
        return RESET if len(req["body"]["input"]) > 1 else openai_answer(req, n)

    fake.route = route
    p = DeepInfraProvider(api_key=SECRET, base_url=fake.url, sleep=lambda s: None)
    out = p.embed_documents(["a", "b", "c"])
    np.testing.assert_array_equal(out[2], np.asarray(vector_for("c"), dtype=np.float32))
    sizes = [len(r["body"]["input"]) for r in fake.requests]
    assert sizes[:3] == [3, 3, 3] and sizes[3:] == [2, 2, 2, 1, 1, 1]


def test_inline_batches_stay_under_8000_bytes(fake: FakeServer) -> None:
    fake.route = openai_answer
    p = OpenAIProvider(api_key=SECRET, base_url=fake.url)
    p.embed_documents(["x" * 5000, "y" * 2999, "é" * 1000, "z" * 9000])
    sizes = [sum(len(t.encode()) for t in r["body"]["input"]) for r in fake.requests]
    assert sizes == [7999, 2000, 9000]


def test_malformed_answers_fail_loudly(fake: FakeServer) -> None:
    fake.route = lambda req, n: (200, {"embeddings": [[1.0, "x"]]})
    with pytest.raises(ProviderUnavailable, match="malformed"):
        OllamaProvider(base_url=fake.url).embed_query("q")
    fake.route = lambda req, n: (200, {"embedding": {}})
    with pytest.raises(ProviderUnavailable, match="malformed"):
        GeminiProvider(api_key="k", base_url=fake.url).embed_query("q")


def test_connection_refused_names_the_fix() -> None:
    p = OllamaProvider(base_url="http://127.0.0.1:9", sleep=lambda s: None)
    with pytest.raises(ProviderUnavailable, match="connection error") as info:
        p.embed_documents(["a"])
    assert "ollama" in str(info.value) and "remote.baseUrl" in str(info.value)


# -- make_embedder: config and environment ----------------------------------------------------

def test_make_embedder_env_keys_and_timeouts(fake: FakeServer, monkeypatch: Any) -> None:
    fake.route = gemini_route
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", SECRET)
    cfg = load_config({"memorySearch": {
        "provider": "gemini", "remote": {"baseUrl": fake.url + "/v1beta"},
        "cache": {"enabled": False}, "sync": {"embeddingBatchTimeoutSeconds": 7}}})
    emb = make_embedder(cfg)
    assert isinstance(emb, GeminiProvider) and emb.batch_timeout == 7.0
    emb.embed_query("x")
    assert fake.requests[0]["headers"]["x-goog-api-key"] == SECRET
    assert SECRET not in repr(emb) and SECRET not in json.dumps(emb.cache_key_data())
    cfg = load_config({"memorySearch": {"provider": "voyage", "cache": {"enabled": False}}})
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)
    with pytest.raises(ProviderUnavailable, match="VOYAGE_API_KEY"):
        make_embedder(cfg)


def test_make_embedder_maps_remote_settings(fake: FakeServer, monkeypatch: Any) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-key-not-used")
    cfg = load_config({"memorySearch": {
        "provider": "openai", "model": "text-embedding-3-large",
        "remote": {"baseUrl": fake.url + "/v1", "apiKey": SECRET, "headers": {"X-A": "b"}},
        "inputType": "shared", "outputDimensionality": 4, "cache": {"enabled": False}}})
    emb = make_embedder(cfg)
    assert isinstance(emb, OpenAIProvider)
    assert (emb.base_url, emb.model, emb.output_dimensionality, emb.input_type) == (
        fake.url + "/v1", "text-embedding-3-large", 4, "shared")
    assert emb.batch_timeout == 120.0 and emb.query_timeout == 60.0
    assert emb._api_key == SECRET
    ollama = make_embedder(load_config({"memorySearch": {
        "provider": "ollama", "model": "nomic-embed-text", "cache": {"enabled": False}}}))
    assert isinstance(ollama, OllamaProvider) and ollama.batch_timeout == 600.0
    copilot = get_provider("github-copilot", github_token=SECRET)
    assert SECRET not in repr(copilot)
