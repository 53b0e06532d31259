"""The ``openai-compatible`` provider against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from memlab.config import load_config
from memlab.embed import CachedEmbedder, ProviderUnavailable, get_provider
from memlab.embed.openai_compatible import (
    OpenAICompatibleProvider,
    batch_by_bytes,
    retry_delay,
)
from memlab.openclaw import make_embedder

SECRET = "sk-test-DO-NOT-LEAK-1234567890"


def vector_for(text: str, dims: int = 4) -> list[float]:
    """A deterministic vector per text."""
    rng = np.random.default_rng(sum(text.encode("utf-8")) + len(text))
    return [float(x) for x in rng.standard_normal(dims).astype(np.float32)]


class Server:
    """A tiny ``/v1/embeddings`` server; ``behave`` may override the answer per request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.behave: Callable[[int, dict[str, Any]], tuple[int, Any] | None] | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                n = len(server.requests)
                server.requests.append({"path": self.path, "headers": dict(self.headers),
                                        "body": body})
                answer = server.behave(n, body) if server.behave else None
                if answer is None:
                    vectors = [vector_for(t) for t in body["input"]]
                    answer = (200, {"object": "list", "model": body["model"], "data": [
                        {"object": "embedding", "index": i, "embedding": v}
                        for i, v in enumerate(vectors)]})
                status, payload = answer
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def provider(server: Server, **kw: Any) -> OpenAICompatibleProvider:
    kw.setdefault("model", "test-embed")
    kw.setdefault("base_delay", 0.01)
    return OpenAICompatibleProvider(base_url=server.base_url + "/", **kw)


def test_request_shape_auth_and_vectors(server: Server) -> None:
    p = provider(server, api_key=SECRET, headers={"X-Team": "memlab", "Authorization": "no"},
                 document_input_type="passage", query_input_type="query",
                 output_dimensionality=4)
    docs = p.embed_documents(["alpha", "beta"])
    q = p.embed_query("gamma")
    assert docs.dtype == np.float32 and docs.shape == (2, 4)
    np.testing.assert_array_equal(docs[1], np.asarray(vector_for("beta"), dtype=np.float32))
    np.testing.assert_array_equal(q, np.asarray(vector_for("gamma"), dtype=np.float32))
    first, second = server.requests
    assert first["path"] == "/v1/embeddings"
    assert first["body"] == {"model": "test-embed", "input": ["alpha", "beta"],
                             "dimensions": 4, "input_type": "passage"}
    assert second["body"]["input"] == ["gamma"] and second["body"]["input_type"] == "query"
    headers = {k.lower(): v for k, v in first["headers"].items()}
    assert headers["authorization"] == f"Bearer {SECRET}"  # the config's header is ignored
    assert headers["x-team"] == "memlab"
    assert headers["content-type"] == "application/json"
    assert p.dims == 4


def test_no_auth_header_without_key_and_shared_input_type(server: Server) -> None:
    p = provider(server, input_type="search")
    p.embed_documents(["a"])
    p.embed_query("b")
    for req in server.requests:
        assert "authorization" not in {k.lower() for k in req["headers"]}
        assert req["body"]["input_type"] == "search"
        assert "dimensions" not in req["body"]


def test_batches_by_utf8_bytes(server: Server) -> None:
    texts = ["x" * 3000, "y" * 3000, "é" * 1500, "z" * 9000, "w"]  # "é" is 2 bytes
    p = provider(server)
    out = p.embed_documents(texts)
    assert out.shape == (5, 4)
    sizes = [[len(t.encode()) for t in r["body"]["input"]] for r in server.requests]
    assert sizes == [[3000, 3000], [3000], [9000], [1]]
    assert all(sum(s) <= 8000 or len(s) == 1 for s in sizes)
    assert batch_by_bytes(texts) == [[0, 1], [2], [3], [4]]
    # rows come back in input order
    np.testing.assert_array_equal(out[4], np.asarray(vector_for("w"), dtype=np.float32))


def test_retries_429_then_succeeds(server: Server) -> None:
    server.behave = lambda n, body: (429, {"error": "rate limited"}) if n == 0 else None
    p = provider(server)
    v = p.embed_query("hello")
    assert v.shape == (4,)
    assert len(server.requests) == 2 and p.requests == 2


def test_persistent_500_fails_loudly_without_secret(server: Server) -> None:
    server.behave = lambda n, body: (500, {"error": f"boom {SECRET}"})
    p = provider(server, api_key=SECRET)
    with pytest.raises(ProviderUnavailable) as info:
        p.embed_documents(["a", "b"])
    message = str(info.value)
    assert "HTTP 500" in message and "3 attempt" in message
    assert SECRET not in message and SECRET not in repr(info.value)
    assert len(server.requests) == 3


def test_4xx_is_not_retried(server: Server) -> None:
    server.behave = lambda n, body: (400, {"error": "bad model"})
    with pytest.raises(ProviderUnavailable, match="HTTP 400"):
        provider(server).embed_query("q")
    assert len(server.requests) == 1


def test_slow_response_times_out(server: Server) -> None:
    def slow(n: int, body: dict) -> None:
        time.sleep(1.0)
        return None

    server.behave = slow
    p = provider(server, query_timeout=0.2, max_attempts=2)
    start = time.monotonic()
    with pytest.raises(ProviderUnavailable, match="timed out"):
        p.embed_query("q")
    assert time.monotonic() - start < 1.5
    assert len(server.requests) == 2


def test_connection_refused_fails_loudly() -> None:
    p = OpenAICompatibleProvider(base_url="http://127.0.0.1:9/v1", model="m", api_key=SECRET,
                                 base_delay=0.01)
    with pytest.raises(ProviderUnavailable, match="connection error") as info:
        p.embed_query("q")
    assert SECRET not in str(info.value)


def test_malformed_response(server: Server) -> None:
    server.behave = lambda n, body: (200, {"data": [{"embedding": [1.0, "x"]}]})
    with pytest.raises(ProviderUnavailable, match="malformed"):
        provider(server).embed_query("q")
    server.behave = lambda n, body: (200, {"data": []})
    with pytest.raises(ProviderUnavailable, match="malformed"):
        provider(server).embed_query("q")


def test_secrets_stay_out_of_key_repr_and_settings(server: Server) -> None:
    a = provider(server, api_key=SECRET, headers={"X-Api-Key": SECRET, "X-Team": "t"})
    b = provider(server, api_key="another-key", headers={"X-Api-Key": "other", "X-Team": "t"})
    assert a.settings_key == b.settings_key
    for text in (repr(a), a.settings_key, json.dumps(a.cache_key_data()),
                 json.dumps(a.public_settings())):
        assert SECRET not in text
    c = provider(server, headers={"X-Team": "other"})
    d = provider(server, document_input_type="passage")
    assert len({a.settings_key, c.settings_key, d.settings_key}) == 3


def test_missing_base_url_or_model() -> None:
    with pytest.raises(ProviderUnavailable, match="baseUrl"):
        OpenAICompatibleProvider(model="m")
    with pytest.raises(ProviderUnavailable, match="missing model"):
        OpenAICompatibleProvider(base_url="http://127.0.0.1:1/v1")
    assert OpenAICompatibleProvider(base_url="http://h/v1", model="openai-compatible/m"
                                    ).model == "m"


def test_registry_and_retry_delay() -> None:
    p = get_provider("openai-compatible", base_url="http://127.0.0.1:1/v1", model="m")
    assert isinstance(p, OpenAICompatibleProvider)
    assert retry_delay(1, rand=lambda: 0.0) == 0.5
    assert retry_delay(3, rand=lambda: 1.0) == pytest.approx(2.4)
    assert retry_delay(6, rand=lambda: 1.0) == 8.0


def test_make_embedder_maps_the_config(server: Server, tmp_path: Any) -> None:
    cfg = load_config({
        "memorySearch": {
            "provider": "openai-compatible", "model": "test-embed",
            "remote": {"baseUrl": server.base_url, "apiKey": SECRET,
                       "headers": {"X-Team": "memlab"}},
            "queryInputType": "query", "documentInputType": "passage",
            "outputDimensionality": 4,
        },
        "memlab": {"embeddingCache": str(tmp_path / "cache.sqlite")},
    })
    emb = make_embedder(cfg)
    assert isinstance(emb, CachedEmbedder)
    inner = emb.provider
    assert isinstance(inner, OpenAICompatibleProvider)
    assert (inner.base_url, inner.model, inner.output_dimensionality) == (
        server.base_url, "test-embed", 4)
    assert inner.query_input_type == "query" and inner.document_input_type == "passage"
    emb.embed_documents(["one", "two"])
    emb.embed_documents(["one", "two"])  # served by the cache
    assert len(server.requests) == 1
    headers = {k.lower(): v for k, v in server.requests[0]["headers"].items()}
    assert headers["authorization"] == f"Bearer {SECRET}"
    assert headers["x-team"] == "memlab"
    assert SECRET not in repr(emb)


def test_make_embedder_env_secret_ref(server: Server, monkeypatch: Any, tmp_path: Any) -> None:
    cfg = load_config({"memorySearch": {
        "provider": "openai-compatible", "model": "m", "cache": {"enabled": False},
        "remote": {"baseUrl": server.base_url,
                   "apiKey": {"source": "env", "provider": "default", "id": "MEMLAB_TEST_KEY"}},
    }})
    monkeypatch.delenv("MEMLAB_TEST_KEY", raising=False)
    with pytest.raises(ProviderUnavailable, match="MEMLAB_TEST_KEY"):
        make_embedder(cfg)
    monkeypatch.setenv("MEMLAB_TEST_KEY", SECRET)
    emb = make_embedder(cfg)
    emb.embed_query("x")
    headers = {k.lower(): v for k, v in server.requests[0]["headers"].items()}
    assert headers["authorization"] == f"Bearer {SECRET}"
