"""`memlab search` end to end, including bad workspaces, bad configs and odd queries."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memlab.cli import main

NONE = '{"provider": "none"}'


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Facts\nThe staging database host is pg-stage-02.\n")
    (ws / "memory" / "2026-05-01.md").write_text("Deploy window moved to Tuesday 10:00.\n")
    return ws


def _config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "openclaw.json5"
    path.write_text(text)
    return str(path)


def test_search_json_shape(workspace, tmp_path, capsys):
    code = main(["search", str(workspace), "staging database host", "--json",
                 "--config", _config(tmp_path, NONE)])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["provider"] == "none" and payload["model"] is None
    top = payload["results"][0]
    assert set(top) == {"path", "startLine", "endLine", "score", "textScore", "snippet",
                        "source", "citation"}
    # the trailing newline makes an empty third line, as in OpenClaw's split on "\n"
    assert (top["path"], top["startLine"], top["endLine"]) == ("MEMORY.md", 1, 3)
    assert top["citation"] == "MEMORY.md#L1-L3" and top["source"] == "memory"
    assert "pg-stage-02" in top["snippet"]


def test_plain_output_mirrors_openclaw(workspace, tmp_path, capsys):
    main(["search", str(workspace), "deploy window", "--config", _config(tmp_path, NONE)])
    out = capsys.readouterr().out.splitlines()
    score, where = out[0].split(" ")
    assert len(score.split(".")[1]) == 3 and where == "memory/2026-05-01.md:1-2"
    assert out[1] == "Deploy window moved to Tuesday 10:00."


@pytest.mark.parametrize("query", ["", "   ", "?!...", "—", "🙂"])
def test_empty_and_odd_queries(workspace, tmp_path, capsys, query):
    assert main(["search", str(workspace), query, "--config", _config(tmp_path, NONE)]) == 0
    assert capsys.readouterr().out.strip() == "No matches."


@pytest.mark.parametrize("block, path, hint", [
    ('{"query": {"hybrid": {"vectorWeight": 1.7}}}', "query.hybrid.vectorWeight", "1"),
    ('{"query": {"maxResult": 3}}', "query.maxResult", "maxResults"),
    ('{"query": {"hybrid": {"enabled": "yes"}}}', "query.hybrid.enabled", "boolean"),
])
def test_bad_config_names_the_key(workspace, tmp_path, capsys, block, path, hint):
    text = "{agents: {defaults: {memorySearch: " + block + "}}, gateway: {port: 1}}"
    cfg = _config(tmp_path, text)
    assert main(["search", str(workspace), "x", "--config", cfg]) == 2
    err = capsys.readouterr().err
    assert f"agents.defaults.memorySearch.{path}" in err and hint in err
    assert "Traceback" not in err


def test_keys_outside_memory_search_are_left_alone(workspace, tmp_path, capsys):
    cfg = _config(tmp_path, '{gateway: {anything: [1, 2]}, agents: {defaults: {model: "x", '
                  'memorySearch: {provider: "none"}}}}')
    assert main(["search", str(workspace), "deploy", "--config", cfg, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]


def test_bad_files_are_skipped_and_reported(workspace, tmp_path, capsys):
    mem = workspace / "memory"
    (mem / "binary.md").write_bytes(b"\x00\x01\x02PNG\x00" * 100)
    (mem / "latin1.md").write_bytes("caf\xe9 deploy".encode("latin-1"))
    (mem / "empty.md").write_text("")
    (mem / "huge.md").write_text("deploy " + "x" * 5_000_000)
    outside = tmp_path / "secret.md"
    outside.write_text("deploy secret outside the workspace")
    (mem / "link.md").symlink_to(outside)
    (mem / "dir.md").mkdir()  # a directory named like a note
    code = main(["search", str(workspace), "deploy window", "--json",
                 "--config", _config(tmp_path, NONE)])
    assert code == 0
    captured = capsys.readouterr()
    paths = {r["path"] for r in json.loads(captured.out)["results"]}
    assert "memory/2026-05-01.md" in paths
    assert not any("link" in p or "secret" in p for p in paths)
    for name, reason in [("binary.md", "binary"), ("latin1.md", "UTF-8"), ("link.md", "symlink")]:
        assert f"memory/{name}" in captured.err and reason in captured.err


def test_huge_line_is_searchable(workspace, tmp_path, capsys):
    (workspace / "memory" / "huge.md").write_text("zanzibar " + "y" * 5_000_000)
    main(["search", str(workspace), "zanzibar", "--json", "--config", _config(tmp_path, NONE)])
    results = json.loads(capsys.readouterr().out)["results"]
    assert results[0]["path"] == "memory/huge.md" and len(results[0]["snippet"]) == 700


def test_missing_workspace_is_a_clear_error(tmp_path, capsys):
    assert main(["search", str(tmp_path / "nope"), "x", "--config",
                 _config(tmp_path, NONE)]) == 2
    assert "nope" in capsys.readouterr().err


def test_unavailable_provider_fails_closed(workspace, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # explicit openai, no key: unavailable
    cfg = _config(tmp_path, '{"provider": "openai"}')
    assert main(["search", str(workspace), "deploy", "--config", cfg]) == 3
    err = capsys.readouterr().err
    assert "openai" in err and "No matches" not in err


def test_console_script_with_local_model(tmp_path):
    """The installed entry point, hybrid mode with the bundled local model."""
    root = Path(__file__).resolve().parents[1] / "datasets" / "sample-memory" / "workspace"
    env = {**os.environ, "MEMLAB_CACHE_DIR": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "memlab.cli", "search", str(root), "ECONNRESET /v2/invoices",
           "--json", "--max-results", "3", "--now", "2026-10-01T00:00:00Z"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["provider"] == "local" and "MiniLM" in payload["model"]
    assert 1 <= len(payload["results"]) <= 3
    top = payload["results"][0]
    assert top["textScore"] > 0 and top["vectorScore"] > 0
    assert top["score"] == pytest.approx(0.7 * top["vectorScore"] + 0.3 * top["textScore"])
    assert (tmp_path / "cache" / "embeddings.sqlite").exists()


def test_eval_command(tmp_path, capsys):
    root = Path(__file__).resolve().parents[1] / "datasets" / "sample-memory"
    cfg = _config(tmp_path, '{memorySearch: {provider: "none"}, memlab: {keyword: "bm25"}}')
    code = main(["eval", str(root), "--config", "keyword", "--config", cfg,
                 "--metrics", "ndcg@10,recall@5", "--resamples", "200", "--json",
                 "--runs-dir", str(tmp_path / "runs")])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    text = json.dumps(payload)
    assert "ndcg@10" in text and "recall@5" in text and "keyword" in text
    assert len(list((tmp_path / "runs").glob("*.run"))) == 2
    assert main(["eval", str(root), "--config", "nope", "--resamples", "10"]) == 2
    assert "unknown system" in capsys.readouterr().err
