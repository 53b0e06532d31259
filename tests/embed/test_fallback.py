"""``memorySearch.fallback`` and failure semantics (reference §7.3), through the API and the
CLI, against loopback OpenAI-compatible servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memlab.cli import main
from memlab.config import load_config
from memlab.embed.base import ProviderUnavailable
from memlab.embed.fallback import (
    FallbackEmbedder,
    ProviderSwitched,
    RequiredProviderUnavailable,
    create_with_fallback,
    unavailable_result,
)
from memlab.index.errors import IndexPaused
from memlab.indexed_search import IndexedMemorySearch
from memlab.openclaw import MemorySearch, make_embedder
from tests.embed.conftest import FakeServer, vector_for

pytestmark = pytest.mark.filterwarnings("ignore::memlab.workspace.MemlabWarning")

SECRET = "sk-fallback-secret-987"


def openai_route(req: dict[str, Any], n: int) -> Any:
    inputs = req["body"]["input"]
    return 200, {"data": [{"index": i, "embedding": vector_for(t)} for i, t in
                          enumerate(inputs)]}


def failing_route(req: dict[str, Any], n: int) -> Any:
    return 401, {"error": {"message": "bad key"}}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Facts\nThe billing deploy happens on Tuesday.\n")
    (ws / "memory" / "2026-09-01.md").write_text("The staging database host is db-7.\n")
    return ws


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("MEMLAB_CACHE_DIR", str(tmp_path / "cache"))
    for var in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "VOYAGE_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def compat(url: str, model: str = "m1", **extra: Any) -> dict[str, Any]:
    return {"provider": "openai-compatible", "model": model,
            "remote": {"baseUrl": url + "/v1", "apiKey": SECRET}, **extra}


# -- the state machine ----------------------------------------------------------------------


class Fails:
    id, model = "primary", "p"

    def embed_documents(self, texts: Any) -> np.ndarray:
        raise ProviderUnavailable("primary down (HTTP 503)")

    embed_query = embed_documents


def test_create_with_fallback_init_and_runtime(fake: FakeServer) -> None:
    from memlab.embed import get_provider

    fake.route = openai_route

    def fallback(at_init: bool) -> Any:
        return get_provider("openai-compatible", model="init" if at_init else "late",
                            base_url=fake.url + "/v1")

    def broken() -> Any:
        raise ProviderUnavailable('No API key found for provider "openai"')

    # start-up: the primary cannot be created -> fallback with the primary's request
    emb = create_with_fallback("openai", broken, "openai-compatible", fallback)
    assert isinstance(emb, FallbackEmbedder)
    assert (emb.id, emb.model, emb.fallback_from) == ("openai-compatible", "init", "openai")
    assert emb.lifecycle["mode"] == "fallback-active"
    # later: the primary fails while embedding -> switch once, raise ProviderSwitched
    emb = FallbackEmbedder(Fails(), "primary", "openai-compatible", fallback)  # type: ignore[arg-type]
    with pytest.raises(ProviderSwitched, match="switched to fallback provider"):
        emb.embed_documents(["a"])
    assert (emb.id, emb.model, emb.fallback_from) == ("openai-compatible", "late", "primary")
    assert emb.embed_documents(["a"]).shape == (1, 4)
    # no fallback / fallback == primary: the creation error propagates
    with pytest.raises(ProviderUnavailable):
        create_with_fallback("openai", broken, "none", fallback)
    with pytest.raises(ProviderUnavailable, match="Fallback to openai-compatible failed"):
        create_with_fallback("openai", broken, "openai-compatible",
                             lambda at_init: broken())


def test_make_embedder_fallback_from_config(fake: FakeServer) -> None:
    fake.route = openai_route
    # openai without a key cannot be created; the fallback (openai-compatible) can
    cfg = load_config({"provider": "openai", "fallback": "openai-compatible", "model": "m1",
                       "remote": {"baseUrl": fake.url + "/v1"}})
    emb = make_embedder(cfg)
    assert emb is not None and (emb.id, emb.model) == ("openai-compatible", "m1")
    inner = emb.provider  # type: ignore[attr-defined]
    assert isinstance(inner, FallbackEmbedder) and inner.fallback_from == "openai"
    assert "No API key found" in (inner.fallback_reason or "")


def test_runtime_fallback_changes_identity_and_pauses(fake: FakeServer, workspace: Path,
                                                      tmp_path: Path) -> None:
    """The primary (openai-compatible, model m1) indexes; later it fails at query time: the
    fallback (the openai adapter, same remote, its default model) takes over, the identity
    changes and search pauses with the rebuild hint; `index --force` rebuilds with it."""
    fake.route = openai_route
    cfg = compat(fake.url, fallback="openai")
    cfg["remote"]["apiKey"] = SECRET  # openai gets the same remote (OpenClaw shares remote)
    index = tmp_path / "i.sqlite"
    ms = IndexedMemorySearch(workspace, cfg, index_path=index)
    assert ms.search("billing deploy")["results"]
    ms.store.close()
    calls = {"n": 0}

    def route(req: dict[str, Any], n: int) -> Any:  # the primary model fails from now on
        calls["n"] += 1
        if req["body"]["model"] == "m1":
            return 401, {"error": {"message": "revoked"}}
        return openai_route(req, n)

    fake.route = route
    ms = IndexedMemorySearch(workspace, cfg, index_path=index)
    with pytest.raises(IndexPaused, match="index --force"):
        ms.search("billing deploy tuesday")
    inner = ms.embedder.provider  # type: ignore[union-attr]
    assert inner.fallback_from == "openai-compatible" and inner.id == "openai"
    assert inner.model == "text-embedding-3-small"  # the fallback's default model
    ms.store.close()
    # rebuilding: the primary fails on the first uncached text of the full reindex (cached
    # texts cost no provider call), and the fallback redoes the whole reindex
    (workspace / "memory" / "2026-09-02.md").write_text("A new note about the release.\n")
    assert main(["index", str(workspace), "--config", json.dumps({"memorySearch": cfg}),
                 "--index", str(index), "--force"]) == 0
    from memlab.index.store import IndexStore

    store = IndexStore(index)
    assert (store.read_meta() or {})["provider"] == "openai"
    store.close()


# -- failure semantics ------------------------------------------------------------------------


def test_required_provider_unavailable_api_and_cli(fake: FakeServer, workspace: Path,
                                                   tmp_path: Path, capsys: Any) -> None:
    # creation fails: no API key for an explicitly configured gemini
    with pytest.raises(RequiredProviderUnavailable) as info:
        MemorySearch(workspace, {"provider": "gemini"})
    msg = str(info.value)
    assert msg.startswith('Memory search unavailable: embedding provider "gemini" is '
                          "configured but unavailable. Reason: No API key found")
    assert "Fix:" in msg
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"memorySearch": {"provider": "gemini"}}))
    assert main(["search", str(workspace), "billing", "--config", str(cfg),
                 "--index", str(tmp_path / "i.sqlite"), "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["results"] == [] and out["disabled"] is True and out["unavailable"] is True
    assert "No API key found" in out["error"] and out["action"]
    # the endpoint answers 401 at query time: still "unavailable", never keyword-only
    fake.route = openai_route
    conf = compat(fake.url)
    ms = IndexedMemorySearch(workspace, conf, index_path=tmp_path / "j.sqlite")
    ms.store.close()
    fake.route = failing_route
    cfg.write_text(json.dumps({"memorySearch": conf}))
    code = main(["search", str(workspace), "billing deploy", "--config", str(cfg),
                 "--index", str(tmp_path / "j.sqlite"), "--json"])
    captured = capsys.readouterr()
    assert code == 3
    out = json.loads(captured.out)
    assert out["unavailable"] is True and "HTTP 401" in out["error"]
    assert "Memory search unavailable" in captured.err
    assert SECRET not in captured.out + captured.err
    code = main(["search", str(workspace), "billing deploy", "--config", str(cfg),
                 "--index", str(tmp_path / "j.sqlite")])
    err = capsys.readouterr().err
    assert code == 3 and 'embedding provider "openai-compatible" is configured but ' \
        "unavailable" in err and "Fix:" in err and SECRET not in err


def test_none_is_keyword_only_on_purpose(workspace: Path, capsys: Any) -> None:
    ms = MemorySearch(workspace, {"provider": "none"})
    assert ms.mode == "fts-only" and ms.degraded is None
    assert main(["search", str(workspace), "staging database", "--config",
                 json.dumps({"memorySearch": {"provider": "none"}}), "--no-index"]) == 0
    captured = capsys.readouterr()
    assert "db-7" in captured.out and "keyword-only" not in captured.err


@pytest.mark.parametrize("provider_cfg", [
    {"provider": "local", "local": {"modelPath": "/nonexistent/model-dir"}},
    {},  # provider unset -> openai without a key: optional
    {"provider": "auto"},
])
def test_optional_provider_degrades_with_a_warning(workspace: Path, tmp_path: Path,
                                                   provider_cfg: dict, capsys: Any) -> None:
    from memlab.workspace import MemlabWarning

    with pytest.warns(MemlabWarning, match="keyword-only"):
        ms = MemorySearch(workspace, provider_cfg or {"query": {"maxResults": 6}})
    assert ms.mode == "fts-only" and ms.degraded
    assert ms.search("staging database")["results"][0]["path"] == "memory/2026-09-01.md"
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"memorySearch": provider_cfg}))
    assert main(["search", str(workspace), "staging database", "--config", str(cfg),
                 "--index", str(tmp_path / "k.sqlite")]) == 0
    captured = capsys.readouterr()
    assert "db-7" in captured.out and "keyword-only" in captured.err


def test_degraded_local_keeps_an_existing_vector_index(fake: FakeServer, workspace: Path,
                                                       tmp_path: Path, capsys: Any) -> None:
    """An index with vectors is searched keyword-only, not rebuilt in fts-only mode."""
    from memlab.embed import get_provider

    fake.route = openai_route
    index = tmp_path / "v.sqlite"
    emb = get_provider("openai-compatible", model="m1", base_url=fake.url + "/v1")
    local_cfg = {"provider": "local", "local": {"modelPath": "/nonexistent/model-dir"}}
    ms = IndexedMemorySearch(workspace, local_cfg, embedder=emb, index_path=index)
    ms.store.close()
    with pytest.warns(Warning, match="not syncing the index in keyword-only mode"):
        ms = IndexedMemorySearch(workspace, local_cfg, index_path=index)
    assert ms.mode == "fts-only"
    assert ms.search("staging database")["results"][0]["path"] == "memory/2026-09-01.md"
    ms.store.close()
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"memorySearch": local_cfg}))
    assert main(["index", str(workspace), "--config", str(cfg), "--index", str(index)]) == 3
    assert "Refusing to run sync in fts-only fallback mode" in capsys.readouterr().err


def test_unavailable_result_quota_wording() -> None:
    out = unavailable_result("HTTP 429: insufficient_quota")
    assert out["warning"].endswith("quota is exhausted.") and out["disabled"] is True
