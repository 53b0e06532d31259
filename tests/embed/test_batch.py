"""Provider batch APIs (``remote.batch.*``) against a loopback server playing the provider's
upload -> create -> poll -> download cycle (OpenAI/Voyage ``/files`` + ``/batches``, Gemini
``:asyncBatchEmbedContent``), plus OpenClaw's fallback-to-inline failure policy."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import numpy as np
import pytest

from memlab.config import load_config
from memlab.embed import ProviderUnavailable
from memlab.embed.base import EmbeddingProvider
from memlab.embed.batch import BatchSettings, split_groups
from memlab.embed.cache import CachedEmbedder, EmbeddingCache
from memlab.embed.fallback import FallbackEmbedder
from memlab.embed.gemini import GeminiProvider
from memlab.embed.openai import OpenAIProvider
from memlab.embed.voyage import VoyageProvider
from tests.embed.conftest import FakeServer, vector_for

SECRET = "sk-BATCH-never-leak-91c2e7"


def multipart_parts(req: dict[str, Any]) -> list[bytes]:
    """The bodies of a multipart request's parts."""
    boundary = re.search(r"boundary=([^;]+)", req["headers"]["content-type"]).group(1)
    out = []
    for part in req["raw"].split(b"--" + boundary.encode())[1:]:
        if part.startswith(b"--"):
            break
        out.append(part.split(b"\r\n\r\n", 1)[1].removesuffix(b"\r\n"))
    return out


class BatchAPI:
    """OpenAI/Voyage batch semantics: ``polls`` status checks say ``in_progress`` before the
    job reaches ``final``; output lines come back in reverse order (custom_id mapping)."""

    def __init__(self, prefix: str = "/v1", polls: int = 1, final: str = "completed",
                 drop_last: bool = False) -> None:
        self.prefix, self.polls, self.final, self.drop_last = prefix, polls, final, drop_last
        self.files: dict[str, list[dict[str, Any]]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.status_checks = 0
        self.fail_create: list[int] = []  # statuses answered to the next create calls
        self.upload_limit: int | None = None  # requests per upload before answering 413

    def __call__(self, req: dict[str, Any], n: int) -> Any:
        path, method, p = req["path"], req["method"], self.prefix
        if method == "POST" and path == f"{p}/embeddings":  # inline fallback
            data = [{"index": i, "embedding": vector_for(t)}
                    for i, t in enumerate(req["body"]["input"])]
            return 200, {"data": data}
        if method == "POST" and path == f"{p}/files":
            purpose, jsonl = multipart_parts(req)
            assert purpose == b"batch"
            lines = [json.loads(x) for x in jsonl.decode().split("\n")]
            if self.upload_limit is not None and len(lines) > self.upload_limit:
                return 413, {"error": {"message": "file too large"}}
            fid = f"file-in-{len(self.files)}"
            self.files[fid] = lines
            return 200, {"id": fid, "object": "file", "purpose": "batch"}
        if method == "POST" and path == f"{p}/batches":
            if self.fail_create:
                return self.fail_create.pop(0), {"error": {"message": "slow down"}}
            bid = f"batch_{len(self.batches)}"
            self.batches[bid] = {"id": bid, "input": req["body"]["input_file_id"], "polls": 0}
            return 200, {"id": bid, "status": "validating"}
        m = re.fullmatch(rf"{p}/batches/(\w+)", path)
        if method == "GET" and m:
            self.status_checks += 1
            b = self.batches[m.group(1)]
            b["polls"] += 1
            if b["polls"] < self.polls:
                return 200, {"id": b["id"], "status": "in_progress",
                             "request_counts": {"total": 3, "completed": 1, "failed": 0}}
            if self.final == "failed":
                return 200, {"id": b["id"], "status": "failed", "error_file_id": "file-err"}
            if self.final != "completed":
                return 200, {"id": b["id"], "status": self.final}
            return 200, {"id": b["id"], "status": "completed", "output_file_id": f"out-{b['id']}"}
        if method == "GET" and path == f"{p}/files/file-err/content":
            line = {"custom_id": "0", "response": {"status_code": 400, "body": {
                "error": {"message": "input too long"}}}}
            return 200, (json.dumps(line) + "\n").encode()
        m = re.fullmatch(rf"{p}/files/out-(\w+)/content", path)
        if method == "GET" and m:
            lines = self.files[self.batches[m.group(1)]["input"]]
            out = []
            for line in lines[::-1]:
                text = line["body"]["input"]
                out.append({"id": "r", "custom_id": line["custom_id"], "error": None,
                            "response": {"status_code": 200, "body": {
                                "object": "list", "data": [{"embedding": vector_for(text)}]}}})
            if self.drop_last:
                out = out[:-1]
            return 200, "\n".join(json.dumps(o) for o in out).encode()
        return 404, {"error": {"message": f"no route {method} {path}"}}


class Clock:
    """A fake clock: ``sleep`` advances ``now`` (ms)."""

    def __init__(self) -> None:
        self.t = 0.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds * 1000.0


def make_openai(fake: FakeServer, **batch: Any) -> OpenAIProvider:
    settings = {"enabled": True, "pollIntervalMs": 10, **batch}
    p = OpenAIProvider(api_key=SECRET, base_url=fake.url + "/v1", output_dimensionality=4,
                       document_input_type="passage", batch=settings, sleep=lambda s: None)
    clock = Clock()
    p.batch_jobs.now, p.batch_jobs.sleep = clock.now, clock.sleep
    return p


def expected(texts: list[str]) -> np.ndarray:
    return np.asarray([vector_for(t) for t in texts], dtype=np.float32)


# -- settings --------------------------------------------------------------------------------

def test_settings_from_config_match_openclaw_defaults() -> None:
    cfg = load_config({"memorySearch": {"remote": {"batch": {"enabled": True}}}})
    s = BatchSettings.from_config(cfg.memory_search.remote.batch)
    assert (s.enabled, s.wait, s.concurrency, s.poll_interval_ms, s.timeout_minutes) == \
        (True, True, 2, 2000, 60)
    assert s.timeout_ms == 3_600_000 and s.effective_poll_ms == 2000
    s = BatchSettings.from_config({"enabled": True, "pollIntervalMs": 0, "concurrency": 0,
                                   "timeoutMinutes": 1})
    assert (s.poll_interval_ms, s.concurrency, s.timeout_ms) == (2000, 1, 60_000)
    assert OpenAIProvider(api_key="k").batch_jobs is None  # off by default
    assert OpenAIProvider(api_key="k", batch={"enabled": False}).batch_jobs is None


def test_split_groups_by_count_and_bytes() -> None:
    reqs = [{"custom_id": str(i)} for i in range(5)]
    assert [len(g) for g in split_groups(reqs, 2)] == [2, 2, 1]
    one = len(json.dumps(reqs[0], separators=(",", ":")))
    assert [len(g) for g in split_groups(reqs, 10, one * 2 + 1)] == [2, 2, 1]


# -- success ---------------------------------------------------------------------------------

def test_openai_batch_cycle_wire_format_and_custom_id_order(fake: FakeServer) -> None:
    api = BatchAPI(polls=3)
    fake.route = api
    p = make_openai(fake)
    texts = ["alpha", "beta", "gamma"]
    np.testing.assert_array_equal(p.embed_documents(texts), expected(texts))
    paths = [(r["method"], r["path"]) for r in fake.requests]
    assert paths[:2] == [("POST", "/v1/files"), ("POST", "/v1/batches")]
    assert paths[2:5] == [("GET", "/v1/batches/batch_0")] * 3
    assert paths[5:] == [("GET", "/v1/files/out-batch_0/content")]
    assert all(r["headers"]["authorization"] == f"Bearer {SECRET}" for r in fake.requests)
    upload = fake.requests[0]
    assert upload["headers"]["content-type"].startswith("multipart/form-data; boundary=")
    assert b'filename="memory-embeddings.' in upload["raw"]
    assert api.files["file-in-0"][1] == {
        "custom_id": "1", "method": "POST", "url": "/v1/embeddings",
        "body": {"model": "text-embedding-3-small", "input": "beta", "dimensions": 4,
                 "input_type": "passage"}}
    assert fake.requests[1]["body"] == {
        "input_file_id": "file-in-0", "endpoint": "/v1/embeddings", "completion_window": "24h",
        "metadata": {"source": "openclaw-memory", "agent": "main"}}
    # the create answer counts as the first status (OpenClaw passes it as `initial`)
    assert p.batch_jobs.polls == [10, 20, 40]  # openai doubles its poll delay
    assert p.batch_jobs.status()["failures"] == 0 and p.texts_embedded == 3


def test_voyage_batch_request_params_and_constant_polling(fake: FakeServer) -> None:
    api = BatchAPI(polls=3)
    fake.route = api
    p = VoyageProvider(api_key=SECRET, base_url=fake.url + "/v1",
                       batch={"enabled": True, "pollIntervalMs": 10})
    clock = Clock()
    p.batch_jobs.now, p.batch_jobs.sleep = clock.now, clock.sleep
    np.testing.assert_array_equal(p.embed_documents(["x", "yy"]), expected(["x", "yy"]))
    assert api.files["file-in-0"] == [{"custom_id": "0", "body": {"input": "x"}},
                                      {"custom_id": "1", "body": {"input": "yy"}}]
    assert fake.requests[1]["body"] == {
        "input_file_id": "file-in-0", "endpoint": "/v1/embeddings", "completion_window": "12h",
        "request_params": {"model": "voyage-4-large", "input_type": "document"},
        "metadata": {"source": "clawdbot-memory", "agent": "main"}}
    assert p.batch_jobs.polls == [10, 10, 10]


def test_groups_run_concurrently_and_map_back_in_order(fake: FakeServer,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memlab.embed.batch.MAX_REQUESTS", 2)
    fake.route = BatchAPI(polls=1)
    p = make_openai(fake, concurrency=3)
    texts = [f"text {i}" for i in range(5)]
    np.testing.assert_array_equal(p.embed_documents(texts), expected(texts))
    assert sorted(p.batch_jobs.jobs) == ["batch_0", "batch_1", "batch_2"]


def test_gemini_async_batch_cycle(fake: FakeServer) -> None:
    state = {"polls": 0, "lines": []}

    def route(req: dict[str, Any], n: int) -> Any:
        path = req["path"]
        if path == "/upload/v1beta/files?uploadType=multipart":
            meta, jsonl = multipart_parts(req)
            assert json.loads(meta)["file"]["mimeType"] == "application/jsonl"
            state["lines"] = [json.loads(x) for x in jsonl.decode().split("\n")]
            return 200, {"file": {"name": "files/in-1"}}
        if path == "/v1beta/models/gemini-embedding-001:asyncBatchEmbedContent":
            return 200, {"name": "batches/b-1", "state": "PENDING"}
        if path == "/v1beta/batches/b-1":
            state["polls"] += 1
            if state["polls"] < 2:
                return 200, {"name": "batches/b-1", "state": "RUNNING"}
            return 200, {"name": "batches/b-1", "state": "SUCCEEDED",
                         "outputConfig": {"file": "files/out-1"}}
        if path == "/v1beta/files/out-1:download":
            out = [{"key": ln["key"], "response": {"embedding": {
                "values": vector_for(ln["request"]["content"]["parts"][0]["text"])}}}
                for ln in state["lines"][::-1]]
            return 200, "\n".join(json.dumps(o) for o in out).encode()
        return 404, {}

    fake.route = route
    p = GeminiProvider(api_key=SECRET, base_url=fake.url + "/v1beta",
                       batch={"enabled": True, "pollIntervalMs": 5})
    clock = Clock()
    p.batch_jobs.now, p.batch_jobs.sleep = clock.now, clock.sleep
    out = p.embed_documents(["one", "two"])
    want = expected(["one", "two"])
    np.testing.assert_allclose(out, want / np.linalg.norm(want, axis=1, keepdims=True),
                               rtol=1e-6)
    assert state["lines"][0] == {"key": "0", "request": {
        "content": {"parts": [{"text": "one"}]}, "taskType": "RETRIEVAL_DOCUMENT",
        "model": "models/gemini-embedding-001"}}
    upload, create = fake.requests[:2]
    assert upload["headers"]["content-type"].startswith("multipart/related; boundary=openclaw-")
    assert create["body"] == {"batch": {"displayName": "memory-embeddings-main",
                                        "inputConfig": {"file_name": "files/in-1"}}}
    assert all(r["headers"]["x-goog-api-key"] == SECRET for r in fake.requests)
    assert p.batch_jobs.polls == [5, 5]  # PENDING (create answer), RUNNING


# -- failures and the fallback policy ----------------------------------------------------------

def test_job_failure_falls_back_inline_then_disables_after_two(
        fake: FakeServer, caplog: pytest.LogCaptureFixture) -> None:
    api = BatchAPI(polls=1, final="failed")
    fake.route = api
    p = make_openai(fake)
    with caplog.at_level(logging.WARNING):
        np.testing.assert_array_equal(p.embed_documents(["a", "b"]), expected(["a", "b"]))
    st = p.batch_jobs.status()
    assert (st["enabled"], st["failures"], st["lastProvider"]) == (True, 1, "openai")
    assert st["lastError"] == "openai batch batch_0 failed: input too long"
    assert "batch failed (1/2); keeping batch enabled; falling back" in caplog.text
    assert fake.requests[-1]["path"] == "/v1/embeddings"  # inline fallback
    p.embed_documents(["c"])
    assert p.batch_jobs.status()["enabled"] is False
    assert "batch failed (2/2); disabling batch" in caplog.text
    before = len(fake.requests)
    p.embed_documents(["d"])  # batch disabled: inline only
    assert [r["path"] for r in fake.requests[before:]] == ["/v1/embeddings"]


def test_success_resets_failure_count(fake: FakeServer) -> None:
    api = BatchAPI(polls=1, drop_last=True)
    fake.route = api
    p = make_openai(fake)
    p.embed_documents(["a", "b"])
    assert "missing 1 embedding responses" in p.batch_jobs.status()["lastError"]
    api.drop_last = False
    p.embed_documents(["e", "f"])
    assert p.batch_jobs.status()["failures"] == 0 and p.batch_jobs.enabled


def test_timeout_is_retried_once_then_disables(fake: FakeServer) -> None:
    api = BatchAPI(polls=10**9)  # never completes
    fake.route = api
    p = make_openai(fake, timeoutMinutes=1, pollIntervalMs=20_000)
    np.testing.assert_array_equal(p.embed_documents(["slow"]), expected(["slow"]))
    st = p.batch_jobs.status()
    assert len(api.batches) == 2  # retried once after the timeout
    assert (st["enabled"], st["failures"]) == (False, 2)
    assert st["lastError"] == "openai batch batch_1 timed out after 60000ms"
    assert max(p.batch_jobs.polls) == 60_000  # backoff capped at min(timeout, 5 min)


def test_wait_disabled_fails_fast_and_falls_back(fake: FakeServer) -> None:
    fake.route = BatchAPI(polls=3)
    p = make_openai(fake, wait=False)
    np.testing.assert_array_equal(p.embed_documents(["a"]), expected(["a"]))
    assert "submitted; enable remote.batch.wait" in p.batch_jobs.status()["lastError"]
    assert p.batch_jobs.polls == []


def test_create_retries_429_and_upload_413_splits(fake: FakeServer) -> None:
    api = BatchAPI(polls=1)
    api.fail_create = [429]
    api.upload_limit = 2
    fake.route = api
    p = make_openai(fake)
    texts = ["a", "b", "c", "d"]
    np.testing.assert_array_equal(p.embed_documents(texts), expected(texts))
    assert len(api.files) == 2 and len(api.batches) == 2  # 4 -> 2 + 2 after the 413
    assert 240 <= p.batch_jobs.polls[0] <= 2000  # the create retry's delay
    assert p.batch_jobs.status()["failures"] == 0


def test_gemini_404_disables_batch_at_once(fake: FakeServer) -> None:
    def route(req: dict[str, Any], n: int) -> Any:
        if "uploadType" in req["path"]:
            return 200, {"name": "files/x"}
        if req["path"].endswith(":asyncBatchEmbedContent"):
            return 404, {"error": {"message": "not found"}}
        if req["path"].endswith(":batchEmbedContents"):
            return 200, {"embeddings": [{"values": vector_for("t")}]}
        return 404, {}

    fake.route = route
    p = GeminiProvider(api_key=SECRET, base_url=fake.url + "/v1beta",
                       batch={"enabled": True})
    assert p.embed_documents(["t"]).shape == (1, 4)
    st = p.batch_jobs.status()
    assert (st["enabled"], st["failures"]) == (False, 2)
    assert "asyncBatchEmbedContent not available" in st["lastError"]


def test_api_key_never_in_logs_errors_or_cache(fake: FakeServer, tmp_path: Any,
                                               caplog: pytest.LogCaptureFixture) -> None:
    def route(req: dict[str, Any], n: int) -> Any:  # echoes the credentials back
        return 500, {"error": {"message": f"boom {req['headers'].get('authorization')}"}}

    fake.route = route
    p = make_openai(fake)
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    emb = CachedEmbedder(p, cache)
    with caplog.at_level(logging.DEBUG), pytest.raises(ProviderUnavailable) as err:
        emb.embed_documents(["secret-free text"])
    assert SECRET not in str(err.value)
    assert SECRET not in caplog.text and "boom Bearer ***" in caplog.text
    assert SECRET not in json.dumps(p.batch_jobs.status())
    assert p.batch_jobs.status()["lastError"].startswith("openai batch file upload failed: 500")
    # a successful batch run writes vectors to the cache, never the key
    fake.route = BatchAPI(polls=1)
    p2 = make_openai(fake)
    CachedEmbedder(p2, cache).embed_documents(["cached text"])
    cache.close()
    raw = b"".join(f.read_bytes() for f in tmp_path.iterdir() if f.is_file())
    assert SECRET.encode() not in raw
    assert all(SECRET not in r["raw"].decode("utf-8", "replace") for r in fake.requests
               if r["path"].endswith("/files"))


# -- status ------------------------------------------------------------------------------------

class _Stub(EmbeddingProvider):
    id = "stub"
    model = "stub-model"

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def embed_documents(self, texts: Any) -> np.ndarray:
        if self.fail:
            raise ProviderUnavailable("primary down")
        return np.ones((len(texts), 2), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    @property
    def dims(self) -> int:
        return 2

    def key_settings(self) -> dict[str, Any]:
        return {}


def test_status_shows_fallback_state(tmp_path: Any) -> None:
    from memlab.index.search import format_status, index_status

    (tmp_path / "MEMORY.md").write_text("# notes\nhello\n")
    fb = FallbackEmbedder(None, "openai", "stub", lambda at_init: _Stub(), "No API key found")
    cfg = {"memorySearch": {"provider": "openai", "fallback": "stub"}}
    status = index_status(tmp_path, cfg, embedder=fb, index_path=tmp_path / "idx.sqlite")
    assert status["fallback"] == {"from": "openai", "reason": "No API key found"}
    assert "Fallback: openai" in format_status(status)
    plain = index_status(tmp_path, cfg, embedder=_Stub(), index_path=tmp_path / "idx.sqlite")
    assert "fallback" not in plain


def test_config_turns_batch_mode_on() -> None:
    """``remote.batch.enabled`` in memorySearch reaches the provider (OpenClaw's key)."""
    from memlab.config import load_config
    from memlab.openclaw import make_embedder

    def provider_of(batch: dict):
        cfg = load_config({"provider": "openai", "model": "text-embedding-3-small",
                           "remote": {"apiKey": "sk-test-not-real", "batch": batch}})
        emb = make_embedder(cfg)
        return getattr(emb, "provider", emb)

    assert provider_of({"enabled": True, "concurrency": 3}).batch_jobs is not None
    assert getattr(provider_of({"enabled": False}), "batch_jobs", None) is None
