"""Security: session visibility, extraPaths and links, secrets never written anywhere, the
embedding server's default bind address."""

from __future__ import annotations

import itertools
import json
import logging
import shutil
from pathlib import Path

import pytest
from memlab_reliability import ROOT, embeddings_route, write_config, write_workspace

DATASET = ROOT / "datasets" / "sample-memory"
RESTIC = "3f6b2c1e-8a4d-4b7e-9c21-5d0e7f1a2b34"   # agent:main:main
KHAMDEE = "5e2f8d13-9c47-4a6b-b0e8-7f1d2a3c4b69"  # agent:main:telegram:direct:42
TOAST = "9a0d4e77-2c15-4f0b-8e63-b1c2d3e4f5a6"    # spawned by agent:main:main
JAPAN = "c47e1a90-6b3d-4e28-a5f1-0d9c8b7a6e55"    # orphan: in no session store
ALL = {RESTIC, KHAMDEE, TOAST, JAPAN}
SESSIONS_ON = {"memorySearch": {"provider": "none", "sources": ["memory", "sessions"],
                                "experimental": {"sessionMemory": True}},
               "memlab": {"keyword": "fts5"}}
QUERIES = ["restic retention policy", "story cut from my toast for Lena's wedding",
           "JR Pass for Japan Kyoto luggage storage", "Khamdee SM-2 scheduler ease factor"]
# requester -> (its own session, the sessions it spawned)
REQUESTERS = {"agent:main:main": (RESTIC, {TOAST}), RESTIC: (RESTIC, {TOAST}),
              "agent:main:subagent:toast": (TOAST, set()),
              "agent:main:telegram:direct:42": (KHAMDEE, set()),
              "agent:main:nobody": (None, set())}


@pytest.fixture
def session_ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(DATASET / "workspace", ws)
    store = {
        "agent:main:main": {"sessionId": RESTIC, "updatedAt": 3},
        "agent:main:subagent:toast": {"sessionId": TOAST, "spawnedBy": "agent:main:main",
                                      "updatedAt": 2},
        "agent:main:telegram:direct:42": {"sessionId": KHAMDEE, "updatedAt": 1},
    }
    (ws / "sessions" / "main" / "sessions.json").write_text(json.dumps(store), "utf-8")
    return ws


def _sessions(results) -> set[str]:
    return {Path(r["path"]).stem for r in results if r["path"].startswith("sessions/")}


def test_session_visibility_matrix(session_ws, tmp_path):
    import warnings

    from memlab.indexed_search import IndexedMemorySearch
    from memlab.openclaw import MemorySearch

    warnings.simplefilter("ignore")
    unfiltered = MemorySearch(session_ws, SESSIONS_ON)
    seen_unfiltered = set()
    for q in QUERIES:
        seen_unfiltered |= _sessions(unfiltered.search(q, max_results=10, min_score=0)
                                     ["results"])
    assert seen_unfiltered == ALL  # every transcript would match without a requester
    index = tmp_path / "i.sqlite"
    for (who, (own, spawned)), mode in itertools.product(REQUESTERS.items(),
                                                         ["self", "tree", "agent", "all"]):
        allowed = {"self": {own}, "tree": {own} | spawned,
                   "agent": {RESTIC, KHAMDEE, TOAST}, "all": {RESTIC, KHAMDEE, TOAST}}[mode]
        if own is None and mode in ("self", "tree"):
            allowed = set()
        mem = MemorySearch(session_ws, SESSIONS_ON, session=who, visibility=mode)
        idx = IndexedMemorySearch(session_ws, SESSIONS_ON, session=who, visibility=mode,
                                  index_path=index)
        for q in QUERIES:
            for n in (2, 10):
                a = mem.search(q, max_results=n, min_score=0)["results"]
                b = idx.search(q, max_results=n, min_score=0)["results"]
                assert _sessions(a) <= allowed - {None}, (who, mode, q, n, _sessions(a))
                assert [r["path"] for r in a] == [r["path"] for r in b], (who, mode, q)
                assert JAPAN not in _sessions(a)  # an orphan transcript is never shared
                full = unfiltered.search(q, max_results=n, min_score=0)["results"]
                assert [r["path"] for r in a] == [r["path"] for r in full
                                                  if not r["path"].startswith("sessions/")
                                                  or Path(r["path"]).stem in allowed]


def test_session_visibility_cli(cli, session_ws, tmp_path):
    cfg = write_config(tmp_path, SESSIONS_ON)
    for where in (["--no-index"], ["--index", tmp_path / "i.sqlite"]):
        for mode in ("self", "tree", "agent"):
            result = cli("search", session_ws, "Khamdee SM-2 scheduler ease factor", "--json",
                         "--min-score", "0", "--config", cfg, "--session", "agent:main:main",
                         "--visibility", mode, *where)
            seen = _sessions(json.loads(result.out)["results"])
            assert (KHAMDEE in seen) == (mode == "agent"), (mode, where, seen)
            assert JAPAN not in seen


# -- extraPaths and links ----------------------------------------------------------------------


def test_extra_paths_do_not_follow_links_outside(cli, tmp_path, none_config):
    secret_dir = tmp_path / "private"
    write_workspace(secret_dir, {"diary.md": "SECRET-DIARY quokka\n",
                                 "deep/keys.md": "SECRET-KEYS quokka\n"})
    allowed = write_workspace(tmp_path / "shared", {"ok.md": "quokka shared note\n"})
    (allowed / "link-to-diary.md").symlink_to(secret_dir / "diary.md")
    (allowed / "link-to-dir").symlink_to(secret_dir / "deep")
    ws = write_workspace(tmp_path / "ws", {"MEMORY.md": "quokka root\n"})
    (ws / "memory").mkdir()
    (ws / "memory" / "up.md").symlink_to(secret_dir / "diary.md")
    (ws / "extra-link").symlink_to(secret_dir)  # an extra path that is itself a link
    (ws / "notes.md").symlink_to(secret_dir / "diary.md")
    cfg = write_config(tmp_path, {"memorySearch": {
        "provider": "none", "extraPaths": [str(allowed), "extra-link", "notes.md",
                                           "../shared/link-to-diary.md"]},
        "memlab": {"keyword": "fts5"}}, "extra.json5")
    for where in (["--no-index"], ["--index", tmp_path / "i.sqlite"]):
        result = cli("search", ws, "quokka", "--json", "--config", cfg, *where)
        assert result.code == 0, result
        assert "SECRET" not in result.out
        paths = {r["path"] for r in json.loads(result.out)["results"]}
        assert paths == {"MEMORY.md", "../shared/ok.md"}, paths
        for skipped in ("memory/up.md", "extra-link", "notes.md", "link-to-diary.md",
                        "link-to-dir"):
            assert skipped in result.err and "symlink" in result.err, (skipped, result.err)
    from memlab.index.store import IndexStore

    blob = b"".join(p.read_bytes() for p in tmp_path.glob("i.sqlite*"))
    assert b"SECRET-DIARY" not in blob and b"SECRET-KEYS" not in blob
    assert IndexStore(tmp_path / "i.sqlite").check_consistency() == []


# -- secrets -----------------------------------------------------------------------------------

KEY = "sk-live-SECRETKEY-4f9a1c2b3d4e5f60718293a4b5c6d7e8"
ENV_KEY = "sk-env-SECRETKEY-0a1b2c3d4e5f60718293a4b5c6d7e8f9"


@pytest.fixture
def keyed(tmp_path, fake):
    fake.route = embeddings_route(4)
    cfg = {"agents": {"defaults": {"memorySearch": {
        "provider": "openai-compatible", "model": "m",
        "remote": {"baseUrl": f"{fake.url}/v1", "apiKey": KEY,
                   "headers": {"X-Api-Key": KEY, "Authorization": f"Bearer {KEY}"}},
        "query": {"minScore": 0}}}}, "memlab": {"keyword": "fts5"}}
    return write_config(tmp_path, cfg, "keyed.json5")


def _assert_no_secret(where: str, data: bytes | str) -> None:
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    for secret in (KEY, ENV_KEY, KEY[8:30], ENV_KEY[8:30]):
        assert secret.encode() not in raw, f"an API key leaked into {where}"


def test_api_keys_never_written_anywhere(cli, workspace, tmp_path, fake, keyed, caplog,
                                         monkeypatch):
    import os

    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    index = tmp_path / "i.sqlite"
    outputs = []
    outputs.append(cli("index", workspace, "--config", keyed, "--index", index))
    outputs.append(cli("search", workspace, "deploy window", "--config", keyed, "--index",
                       index, "--json"))
    outputs.append(cli("status", workspace, "--config", keyed, "--index", index, "--json",
                       "--deep"))
    assert all(o.code == 0 for o in outputs), outputs
    # the key did reach the provider, as a header only
    assert any(KEY in r["headers"].get("authorization", "") for r in fake.requests)
    # failures: every error path
    for route in (lambda r, n: (401, {"error": f"invalid key {KEY}"}),
                  lambda r, n: (500, f"echo {r['headers'].get('authorization')}".encode()),
                  lambda r, n: (200, b"garbage")):
        fake.route = route
        (workspace / "memory" / "2026-05-01.md").write_text(f"changed {len(outputs)}\n")
        outputs.append(cli("index", workspace, "--config", keyed, "--index", index))
        outputs.append(cli("search", workspace, f"q{len(outputs)}", "--config", keyed,
                           "--index", index))
        assert outputs[-1].code == 3 and outputs[-2].code == 3
    # an env-var key through openai
    env_cfg = write_config(tmp_path, {"memorySearch": {"provider": "openai", "remote": {
        "baseUrl": f"{fake.url}/v1"}}}, "env.json5")
    outputs.append(cli("index", workspace, "--config", env_cfg, "--index", tmp_path / "e.db"))
    assert any(ENV_KEY in r["headers"].get("authorization", "") for r in fake.requests)
    for o in outputs:
        _assert_no_secret("CLI output", o.text)
    _assert_no_secret("logs", caplog.text)
    # exported configs and config dumps
    from memlab.config import dump_config, export_config, load_config

    cfg = load_config(keyed)
    for style in ("json5", "json"):
        _assert_no_secret("dump_config", dump_config(cfg, style=style, full=True))
    _assert_no_secret("export_config", str(export_config(cfg)))
    _assert_no_secret("repr", repr(cfg) + str(cfg))
    exported = tmp_path / "exported.json5"
    res = cli("export", "--help")
    assert res.code == 0
    # every file memlab wrote: index, WAL, embedding caches, lock files
    cache = Path(os.environ["MEMLAB_CACHE_DIR"])
    files = [p for p in [*tmp_path.rglob("*"), *cache.rglob("*")]
             if p.is_file() and p.suffix not in (".json5",) and "ws" not in p.parts]
    assert any(p.name.startswith("i.sqlite") for p in files)
    assert any(p.name == "embeddings.sqlite" for p in files)
    for p in files:
        _assert_no_secret(str(p), p.read_bytes())
    assert not exported.exists() or KEY not in exported.read_text()


def test_run_files_and_eval_output_hold_no_secret(cli, tmp_path, fake, monkeypatch):
    fake.route = embeddings_route(4)
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    cfg = write_config(tmp_path, {"memorySearch": {
        "provider": "openai-compatible", "model": "m",
        "remote": {"baseUrl": f"{fake.url}/v1", "apiKey": KEY}},
        "memlab": {"keyword": "fts5"}}, "sys.json5")
    runs = tmp_path / "runs"
    result = cli("eval", DATASET, "--config", cfg, "--config", "keyword", "--resamples", "10",
                 "--runs-dir", runs, "--json")
    assert result.code == 0, result
    _assert_no_secret("eval output", result.text)
    assert list(runs.iterdir())
    for p in runs.rglob("*"):
        if p.is_file():
            _assert_no_secret(str(p), p.read_bytes())


def test_notebook_outputs_hold_no_secret():
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        data = json.loads(nb.read_text())
        for cell in data.get("cells", []):
            for out in cell.get("outputs", []):
                text = json.dumps(out)
                for marker in ("sk-", "Bearer ", "api_key=", "AKIA"):
                    assert marker not in text, f"{nb.name}: {marker!r} in a cell output"


def test_serve_embeddings_binds_loopback_by_default():
    from memlab.cli import build_parser
    from memlab.cli.serve_embeddings import EmbeddingServer, make_server

    args = build_parser().parse_args(["serve-embeddings"])
    assert args.host == "127.0.0.1"
    import inspect

    assert inspect.signature(make_server).parameters["host"].default == "127.0.0.1"
    assert inspect.signature(EmbeddingServer.__init__).parameters["host"].default == \
        "127.0.0.1"

    from memlab_reliability import FakeProvider

    server = EmbeddingServer(FakeProvider(), port=0)
    try:
        assert server.server_address[0] == "127.0.0.1"
        assert server.url.startswith("http://127.0.0.1:")
    finally:
        server.server_close()
