"""``memlab search --profile 2026.9`` (text and ``--json``) against what the real ``openclaw
memory search`` of 2026.9.6 printed on the curated parity workspace
(tests/data/openclaw-2026.9/cli/, captured by parity/capture_cli_tiered.py): the same staged
workspace, config, clock and embeddings (the parity embedding server, on 127.0.0.1)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from memlab.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
PARITY = ROOT / "parity"
CLI = ROOT / "tests" / "data" / "openclaw-2026.9" / "cli"
if str(PARITY) not in sys.path:
    sys.path.insert(0, str(PARITY))


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


run = _load("memlab_parity_run", PARITY / "run.py")
line = run.tiered_line
embed_server = _load("memlab_parity_embed_server", PARITY / "embed_server.py")


@pytest.fixture(scope="module")
def search(tmp_path_factory):
    """``memlab search`` on the staged curated workspace as the capture ran OpenClaw."""
    tmp = tmp_path_factory.mktemp("cli-2026-9")
    ws = run.stage_workspaces(["curated"], tmp / "ws", run.iso_to_ms(run.DEFAULT_NOW))
    with embed_server.EmbedServer() as srv:
        cfg = line.openclaw_config(
            line.suite_memory_search("hybrid", srv.base_url, embed_server.MODEL), ws)
        cfg["memlab"] = {"embeddingCache": str(tmp / "cache.sqlite")}
        path = tmp / "openclaw.json"
        path.write_text(json.dumps(cfg), encoding="utf-8")

        def search_cli(capsys, *args: str) -> str:
            code = main(["search", str(ws["curated"]), *args, "--agent", "curated",
                         "--config", str(path), "--now", run.DEFAULT_NOW,
                         "--profile", "2026.9", "--index", str(tmp / "index.sqlite")])
            assert code == 0
            return capsys.readouterr().out

        yield search_cli


def test_text_output_is_openclaws(search, capsys):
    out = search(capsys, "deploy window", "--max-results", "3")
    assert out == (CLI / "search-text.stdout").read_text(encoding="utf-8")
    out = search(capsys, "zebra unicorn quantum", "--min-score", "0.99")
    assert out == (CLI / "search-no-matches.stdout").read_text(encoding="utf-8")


def test_json_output_is_openclaws(search, capsys):
    mine = json.loads(search(capsys, "deploy window", "--max-results", "3", "--json"))
    theirs = json.loads((CLI / "search-json.stdout").read_text(encoding="utf-8"))
    assert [list(r) for r in mine["results"]] == [list(r) for r in theirs["results"]]
    for m, t in zip(mine["results"], theirs["results"], strict=True):
        for key, value in t.items():
            if isinstance(value, float):
                assert m[key] == pytest.approx(value, abs=1e-6), key
            else:
                assert m[key] == value, key
    none = json.loads(search(capsys, "zebra unicorn quantum", "--min-score", "0.99", "--json"))
    assert none == json.loads((CLI / "search-json-no-matches.stdout").read_text())
