"""``memlab status --profile 2026.9`` against what the real ``openclaw memory status [--json]``
of 2026.9.6 printed on the curated parity workspace (tests/data/openclaw-2026.9/cli/, captured
by parity/capture_cli_tiered.py with the parity embedding server)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from memlab.embed.hashing import HashingProvider
from memlab.tiered.search import TieredSearch
from memlab.tiered.status import format_byte_size, format_status, index_status

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "tests" / "data" / "openclaw-2026.9" / "cli"
spec = importlib.util.spec_from_file_location("tiered_line", ROOT / "parity" / "tiered_line.py")
line = importlib.util.module_from_spec(spec)
spec.loader.exec_module(line)


@pytest.fixture()
def status(tmp_path):
    ws = tmp_path / "curated"
    shutil.copytree(ROOT / "parity" / "workspaces" / "curated", ws)
    ms = line.suite_memory_search("hybrid", "http://127.0.0.1:9/v1", "memlab-parity-hash64")
    cfg = line.openclaw_config(ms, {"curated": ws})
    index = tmp_path / "index.sqlite"
    s = TieredSearch(ws, cfg, agent_id="curated", index_path=index, embedder=HashingProvider())
    try:
        entry = index_status(s, "curated", index)
    finally:
        s.close()
    return ws, entry


def test_json_has_openclaw_keys_and_values(status):
    ws, entry = status
    theirs = json.loads((CLI / "status-json.stdout").read_text())[0]
    assert entry["agentId"] == theirs["agentId"]
    mine, ref = entry["status"], theirs["status"]
    for key in ("backend", "files", "chunks", "dirty", "provider", "model", "requestedProvider",
                "sources", "extraPaths", "sourceCounts", "fts", "batch"):
        assert mine[key] == ref[key], key
    assert mine["workspaceDir"] == str(ws) and ref["workspaceDir"] == "$WORKSPACE"
    assert mine["cache"]["maxEntries"] == ref["cache"]["maxEntries"]
    assert mine["cache"]["enabled"] == ref["cache"]["enabled"]
    assert mine["vector"] == ref["vector"]
    assert mine["custom"]["searchMode"] == ref["custom"]["searchMode"]
    assert entry["scan"] == theirs["scan"]
    assert set(mine) <= set(ref)  # no key OpenClaw does not print


def test_text_lines_match_openclaw(status):
    ws, entry = status
    theirs = (CLI / "status.stdout").read_text().replace("$WORKSPACE", str(ws)).splitlines()
    mine = format_status(entry).splitlines()
    by_label = {t.split(":")[0]: t for t in theirs if ":" in t and not t.startswith("  ")}
    shared = [m for m in mine if ":" in m and m.split(":")[0] in by_label]
    assert len(shared) >= 12
    for m in shared:
        label = m.split(":")[0]
        if label in ("Store", "Embedding cache"):  # memlab's own file; no entry count
            continue
        assert m == by_label[label]
    assert [m for m in mine if m.startswith("  ")] == [t for t in theirs if t.startswith("  ")]
    assert mine[0] == theirs[0]


def test_format_byte_size():
    assert [format_byte_size(v) for v in (0, 1023, 1024, 14397, 1060864)] == [
        "0.0 B", "1023.0 B", "1.0 KiB", "14.1 KiB", "1.0 MiB"]
