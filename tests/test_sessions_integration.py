"""Session transcripts wired through the corpus, the pipeline, the index, eval and the CLI."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest

from memlab.chunking import chunk_id
from memlab.cli import main
from memlab.config import load_config
from memlab.corpus import load_workspace
from memlab.openclaw import MemorySearch, QuerySessionVisibility, openclaw_pipeline
from memlab.sessions import SessionVisibility, scan_sessions
from memlab.stages.threshold import Threshold

DATASET = Path(__file__).resolve().parents[1] / "datasets" / "sample-memory"
RESTIC = "3f6b2c1e-8a4d-4b7e-9c21-5d0e7f1a2b34"   # the requester's own session
KHAMDEE = "5e2f8d13-9c47-4a6b-b0e8-7f1d2a3c4b69"  # another session of the agent
TOAST = "9a0d4e77-2c15-4f0b-8e63-b1c2d3e4f5a6"    # spawned by the requester
JAPAN = "c47e1a90-6b3d-4e28-a5f1-0d9c8b7a6e55"    # orphan: not in the store
SESSIONS_ON = {"memorySearch": {"provider": "none", "sources": ["memory", "sessions"],
                                "experimental": {"sessionMemory": True}}}
QUERIES = ["What restic retention policy did we settle on?",
           "Which B2 region is the backup bucket in?",
           "Which story got cut from my toast for Lena's wedding?",
           "How does my wedding toast for Lena open?",
           "Why didn't we buy a JR Pass for Japan?",
           "What starting ease factor does Khamdee's SM-2 scheduler use?",
           "What does the Khamdee app icon look like?",
           "Kyoto luggage storage last day"]


def path_of(session_id: str) -> str:
    return f"sessions/main/{session_id}.jsonl"


@pytest.fixture(autouse=True)
def _quiet(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MEMLAB_CACHE_DIR", str(tmp_path_factory.mktemp("memlab-cache")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sample's decoy memory.md is reported skipped
        yield


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The sample workspace (MEMORY.md, memory/, sessions/main/*.jsonl) plus a session store."""
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


# ------------------------------------------------------------------------------ corpus


@pytest.mark.parametrize("cfg, expected", [
    ({"provider": "none"}, False),
    ({"provider": "none", "sources": ["memory", "sessions"]}, False),
    ({"provider": "none", "experimental": {"sessionMemory": True}}, False),
    (SESSIONS_ON, True),
])
def test_sessions_indexed_only_with_sources_and_experimental_flag(workspace, cfg, expected):
    ms = MemorySearch(workspace, cfg)
    sources = set(ms.corpus.chunks["source"])
    assert ("sessions" in sources) is expected
    assert "memory" in sources
    assert ("sessions" in set(ms.corpus.files["source"])) is expected


def test_session_chunks_carry_jsonl_lines_ids_and_file_rows(workspace):
    cfg = load_config(SESSIONS_ON)
    corpus = load_workspace(workspace, sources=cfg.memory_search.effective_sources())
    sess = corpus.chunks[corpus.chunks["source"] == "sessions"]
    assert set(sess["path"]) == {path_of(s) for s in (RESTIC, KHAMDEE, TOAST, JAPAN)}
    # memory files first, then transcripts (OpenClaw's order)
    assert corpus.chunks["source"].tolist() == sorted(corpus.chunks["source"].tolist())
    loaded, _ = scan_sessions(workspace / "sessions", "main")
    expected = []
    for s in loaded:
        for c in s.chunks():
            expected.append((chunk_id("sessions", s.file.path, c.start_line, c.end_line,
                                      c.hash, "fts-only"), s.file.path, c.start_line,
                             c.end_line, c.text))
    got = list(sess[["chunk_id", "path", "start_line", "end_line", "text"]].itertuples(
        index=False, name=None))
    assert got == expected
    for row in sess.itertuples():
        records = (workspace / row.path).read_text("utf-8").split("\n")
        assert 1 <= row.start_line <= row.end_line <= len(records)
        # both ends cite a message record of the transcript
        for n in (row.start_line, row.end_line):
            assert json.loads(records[n - 1])["type"] == "message"
    files = corpus.files.set_index("path")
    for s in loaded:
        assert files.loc[s.file.path, "source"] == "sessions"
        assert files.loc[s.file.path, "hash"] == s.transcript.hash
    # a workspace-relative judgment of the dataset points into the chunks' JSONL ranges
    qrels = [json.loads(line) for line in (DATASET / "qrels.jsonl").read_text().splitlines()]
    q110 = next(q for q in qrels if q["query_id"] == "q110")
    assert ((sess["path"] == q110["path"]) & (sess["start_line"] <= q110["start_line"])
            & (sess["end_line"] >= q110["end_line"])).any()


def test_sessions_only_source(workspace):
    corpus = load_workspace(workspace, sources=["sessions"])
    assert set(corpus.chunks["source"]) == {"sessions"}
    with pytest.raises(ValueError, match="unknown source"):
        load_workspace(workspace, sources=["memory", "chats"])


# -------------------------------------------------------------------------- visibility


def test_visibility_stage_follows_threshold(workspace):
    corpus = load_workspace(workspace, sources=["memory", "sessions"])
    pipe = openclaw_pipeline(corpus, SESSIONS_ON, session="agent:main:main")
    assert isinstance(pipe.stages[-1], SessionVisibility)
    assert isinstance(pipe.stages[-2], Threshold)
    memory_only = load_workspace(workspace)
    assert not any(isinstance(s, SessionVisibility)
                   for s in openclaw_pipeline(memory_only, SESSIONS_ON, session="main").stages)
    with pytest.raises(ValueError, match="visibility"):
        openclaw_pipeline(corpus, SESSIONS_ON, session="main", visibility="friends")


@pytest.mark.parametrize("mode, hidden", [
    ("self", {TOAST, KHAMDEE, JAPAN}),
    ("tree", {KHAMDEE, JAPAN}),
    ("agent", {JAPAN}),
])
def test_hidden_session_never_appears_at_any_max_results(workspace, mode, hidden):
    hidden_paths = {path_of(s) for s in hidden}
    open_ms = MemorySearch(workspace, SESSIONS_ON)
    ms = MemorySearch(workspace, SESSIONS_ON, session="agent:main:main", visibility=mode)
    seen_hidden_unfiltered = set()
    seen_visible = set()
    for n in range(1, 11):
        for q in QUERIES:
            unfiltered = {r["path"] for r in open_ms.search(q, max_results=n,
                                                            min_score=0)["results"]}
            seen_hidden_unfiltered |= unfiltered & hidden_paths
            results = ms.search(q, max_results=n, min_score=0)["results"]
            paths = {r["path"] for r in results}
            assert not paths & hidden_paths, (mode, n, q)
            assert len(results) <= n
            seen_visible |= {p for p in paths if p.startswith("sessions/")}
            # the filter only removes: the rest is the unfiltered result, in order
            assert [r["path"] for r in results] == [
                r["path"] for r in open_ms.search(q, max_results=n, min_score=0)["results"]
                if r["path"] not in hidden_paths]
    assert seen_hidden_unfiltered == hidden_paths  # the hidden transcripts would have matched
    assert path_of(RESTIC) in seen_visible


def test_session_id_resolves_and_unknown_requester_sees_no_transcript(workspace):
    by_id = MemorySearch(workspace, SESSIONS_ON, session=RESTIC)
    by_key = MemorySearch(workspace, SESSIONS_ON, session="agent:main:main")
    bare = MemorySearch(workspace, SESSIONS_ON, session="main")
    q = QUERIES[0]
    assert by_id.search(q) == by_key.search(q) == bare.search(q)
    stranger = MemorySearch(workspace, SESSIONS_ON, session="agent:main:nobody")
    for q in QUERIES:
        results = stranger.search(q, max_results=10, min_score=0)["results"]
        assert all(r["source"] == "memory" for r in results)


def test_per_query_session_column(workspace):
    ms = MemorySearch(workspace, SESSIONS_ON)
    queries = pd.DataFrame({"qid": ["a", "b", "c"], "query": [QUERIES[6]] * 3,
                            "session": ["agent:main:main", "agent:main:telegram:direct:42",
                                        None]})
    hits = ms.run(queries, max_results=10, min_score=0)
    khamdee = hits[hits["path"] == path_of(KHAMDEE)]
    assert set(khamdee["qid"]) == {"b", "c"}  # hidden from main's tree, its own for b
    for _, g in hits.groupby("qid"):
        assert g["rank"].tolist() == list(range(1, len(g) + 1))
    stage = ms.pipeline(10, 0).stages[-1]
    assert isinstance(stage, QuerySessionVisibility)


# ------------------------------------------------------------------------------ eval


def test_eval_scores_session_queries_only_with_sessions_enabled(tmp_path):
    from memlab.eval.datasets import load_dataset
    from memlab.eval.systems import evaluate_systems

    cfg = tmp_path / "sessions.json"
    cfg.write_text(json.dumps(SESSIONS_ON))
    dataset = load_dataset(DATASET)
    result = evaluate_systems(dataset, ["keyword", str(cfg)], ["ndcg@10", "recall@10"],
                              by_tag=True, n_resamples=100)
    tags = result.by_tag.set_index(["system", "tag"])
    assert tags.loc[("keyword", "session"), "ndcg@10"] == 0
    assert tags.loc[("sessions", "session"), "ndcg@10"] > 0
    assert tags.loc[("sessions", "session"), "recall@10"] > 0


def test_cli_eval_with_sessions_config(tmp_path, capsys):
    cfg = tmp_path / "sessions.json"
    cfg.write_text(json.dumps(SESSIONS_ON))
    assert main(["eval", str(DATASET), "--config", str(cfg), "--by-tag", "--json",
                 "--resamples", "50", "--metrics", "recall@10"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["by_tag"]["sessions"]["session"]["means"]["recall@10"] > 0


def test_dataset_session_column(tmp_path):
    from memlab.eval.datasets import load_dataset

    root = tmp_path / "ds"
    shutil.copytree(DATASET, root)
    lines = (root / "queries.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["session"] = "agent:main:main"
    lines[0] = json.dumps(first)
    (root / "queries.jsonl").write_text("\n".join(lines) + "\n")
    queries = load_dataset(root).queries
    assert queries["session"].iloc[0] == "agent:main:main"
    assert queries["session"].iloc[1:].isna().all()
    assert "session" not in load_dataset(DATASET).queries.columns


# ------------------------------------------------------------------------------ index


def test_persistent_index_round_trip(workspace, tmp_path):
    from memlab.index.search import index_status
    from memlab.index.store import IndexStore
    from memlab.index.sync import sync_index
    from memlab.indexed_search import IndexedMemorySearch

    cfg = load_config(SESSIONS_ON)
    db = tmp_path / "index.sqlite"
    store = IndexStore(db)
    report = sync_index(store, workspace, cfg)
    assert report.mode == "full"
    counts = store.counts()
    assert counts["sessions"]["files"] == 4
    expected = load_workspace(workspace, sources=["memory", "sessions"]).chunks
    stored = store.corpus().chunks
    cols = ["chunk_id", "path", "source", "start_line", "end_line", "text"]
    assert sorted(map(tuple, stored[cols].to_numpy().tolist())) == sorted(
        map(tuple, expected[cols].to_numpy().tolist()))
    assert store.read_meta()["sources"] == ["memory", "sessions"]

    # unchanged: nothing re-indexed
    again = sync_index(store, workspace, cfg)
    assert (again.mode, again.indexed, again.deleted) == ("incremental", 0, 0)
    assert again.unchanged == again.files

    # a new message in one transcript: only that transcript is re-indexed
    path = workspace / path_of(TOAST)
    record = {"type": "message", "timestamp": "2026-08-22T10:00:00.000Z",
              "message": {"role": "user", "content": "Add the zeppelin anecdote at the end."}}
    path.write_text(path.read_text("utf-8").rstrip("\n") + "\n" + json.dumps(record) + "\n",
                    "utf-8")
    n_lines = len(path.read_text("utf-8").rstrip("\n").split("\n"))
    status = index_status(workspace, cfg, index_path=db)
    assert status["dirty"] and status["changedFiles"] == [path_of(TOAST)]
    changed = sync_index(store, workspace, cfg)
    assert (changed.indexed, changed.deleted) == (1, 0)
    hits = IndexedMemorySearch(workspace, cfg, index_path=db).search("zeppelin anecdote")
    top = hits["results"][0]
    assert (top["path"], top["source"], top["endLine"]) == (path_of(TOAST), "sessions", n_lines)

    # a transcript removed: its rows go
    (workspace / path_of(JAPAN)).unlink()
    removed = sync_index(store, workspace, cfg)
    assert (removed.indexed, removed.deleted) == (0, 1)
    assert path_of(JAPAN) not in set(store.corpus().chunks["path"])
    assert store.check_consistency() == []
    assert not index_status(workspace, cfg, index_path=db)["dirty"]

    # the indexed search filters like the in-memory one
    mem = MemorySearch(workspace, cfg, session="agent:main:main")
    idx = IndexedMemorySearch(workspace, cfg, index_path=db, session="agent:main:main")
    for q in QUERIES:
        a = [(r["path"], r["startLine"], r["endLine"]) for r in mem.search(q)["results"]]
        b = [(r["path"], r["startLine"], r["endLine"]) for r in idx.search(q)["results"]]
        assert a == b
        assert path_of(KHAMDEE) not in {p for p, _, _ in b}

    # turning sessions off changes the identity: searches pause until a rebuild
    off = load_config({"memorySearch": {"provider": "none"}})
    assert IndexedMemorySearch(workspace, off, index_path=db).paused == "index sources changed"
    rebuilt = sync_index(store, workspace, off)
    assert rebuilt.mode == "full" and "sessions" not in store.counts()
    store.close()


# -------------------------------------------------------------------------------- CLI


@pytest.mark.parametrize("no_index", [True, False])
def test_cli_search_session_flags(workspace, tmp_path, capsys, no_index):
    cfg = tmp_path / "sessions.json"
    cfg.write_text(json.dumps(SESSIONS_ON))
    where = ["--no-index"] if no_index else ["--index", str(tmp_path / "i.sqlite")]
    base = ["search", str(workspace), QUERIES[6], "--config", str(cfg), "--json",
            "--min-score", "0", *where]
    assert main(base) == 0
    open_paths = {r["path"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert path_of(KHAMDEE) in open_paths
    assert main([*base, "--session", "agent:main:main"]) == 0
    tree_paths = {r["path"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert path_of(KHAMDEE) not in tree_paths
    assert main([*base, "--session", "main", "--visibility", "agent"]) == 0
    agent_paths = {r["path"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert path_of(KHAMDEE) in agent_paths
    store = tmp_path / "store.json"
    store.write_text(json.dumps({"agent:main:main": {"sessionId": KHAMDEE}}))
    assert main([*base, "--session", "main", "--sessions-store", str(store)]) == 0
    own = {r["path"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert path_of(KHAMDEE) in own


def test_cli_agent_picks_transcripts_and_override(tmp_path, capsys) -> None:
    """`--agent ID` (or the agents.list entry whose workspace is WORKSPACE) selects the agent's
    transcripts (sessions/<ID>/) and its memorySearch override, as `openclaw ... --agent`."""
    import json

    from memlab.cli import main

    ws = tmp_path / "ws"
    (ws / "sessions" / "ops").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Memory\n\nNothing about root vegetables.\n")
    (ws / "sessions" / "ops" / "s1.jsonl").write_text(json.dumps(
        {"type": "message", "message": {"role": "user", "content": "plant turnips in March"}})
        + "\n")
    cfg = tmp_path / "openclaw.json"
    cfg.write_text(json.dumps({"agents": {
        "defaults": {"memorySearch": {"provider": "none", "sources": ["memory", "sessions"],
                                      "experimental": {"sessionMemory": True}}},
        "list": [{"id": "main", "default": True},
                 {"id": "ops", "workspace": str(ws)}]}}))
    paths = {}
    for extra in ([], ["--agent", "ops"], ["--agent", "main"]):
        code = main(["search", str(ws), "turnips March", "--json", "--config", str(cfg),
                     "--index", str(tmp_path / f"i{len(extra)}{''.join(extra)}.sqlite"),
                     *extra])
        assert code == 0
        paths[tuple(extra)] = [r["path"] for r in json.loads(capsys.readouterr().out)[
            "results"]]
    assert paths[()] == paths[("--agent", "ops")] == ["sessions/ops/s1.jsonl"]
    assert paths[("--agent", "main")] == []
    assert main(["search", str(ws), "x", "--config", str(cfg), "--agent", "nobody"]) == 2
    assert "agent 'nobody' is not configured" in capsys.readouterr().err
