"""parity/tiered_line.py: the 2026.9 line's config layout, max-results prefix check, chunker
check and saved outputs (pure functions, no Node)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

PARITY = Path(__file__).resolve().parents[1] / "parity"
sys.path.insert(0, str(PARITY))
spec = importlib.util.spec_from_file_location("tiered_line", PARITY / "tiered_line.py")
assert spec and spec.loader
line = importlib.util.module_from_spec(spec)
spec.loader.exec_module(line)


def _hit(path: str, score: float, start: int = 1) -> dict:
    return {"path": path, "startLine": start, "endLine": start, "score": score,
            "source": "memory"}


def test_config_layout():
    ms = line.suite_memory_search("fts", "http://x/v1", "m")
    assert ms == {"provider": "none", "extraPaths": ["extra"]}
    cfg = line.openclaw_config(ms, {"notes": Path("/w/notes")})
    assert cfg == {"memory": {"search": ms}, "agents": {"ownership": "explicit", "entries": {
        "notes": {"workspace": "/w/notes"}}}}
    assert line.suite_memory_search("sessions", "u", "m")["sources"] == ["memory", "sessions"]


def test_max_results_prefix_issues():
    full = [_hit("a.md", 0.9), _hit("b.md", 0.5), _hit("c.md", 0.1)]
    ok = {"json": {"results": full}, "alsoMaxResults": {"1": {"results": full[:1]},
                                                       "10": {"results": full}}}
    assert line.max_results_prefix_issues(ok) == []
    bad = {"json": {"results": full}, "alsoMaxResults": {"1": {"results": [full[1]]}}}
    assert line.max_results_prefix_issues(bad) == [
        "max-results 1: top-1 ('memory', 'b.md', 1, 1) vs ('memory', 'a.md', 1, 1)"]
    assert line.max_results_prefix_issues({"json": {"results": full},
                                           "alsoMaxResults": {"10": None}}) == [
        "max-results 10: no JSON"]


def test_chunker_check(tmp_path: Path):
    (tmp_path / "MEMORY.md").write_text("- a <!-- importance: 9 -->\n- b", encoding="utf-8")
    from memlab.chunking import sha256_hex

    rows = [{"path": "MEMORY.md", "source": "memory", "startLine": 1, "endLine": 1,
             "hash": sha256_hex("- a"), "importance": 9, "triggers": None, "projectKey": None},
            {"path": "MEMORY.md", "source": "memory", "startLine": 2, "endLine": 2,
             "hash": sha256_hex("- b"), "importance": None, "triggers": None,
             "projectKey": None}]
    assert line.chunker_issues(tmp_path, rows, None) == []
    rows[0]["importance"] = 8
    assert line.chunker_issues(tmp_path, rows, None)[0].startswith("MEMORY.md: chunks differ")


def test_save_and_load(tmp_path: Path):
    record = {"suite": "hybrid", "batch": {"agents": {}}, "now": "2026-10-01T09:00:00Z"}
    path = line.save_outputs(tmp_path, "hybrid", record)
    assert path.name == "hybrid.json.gz" and line.load_outputs(tmp_path, "hybrid") == record
    first = path.read_bytes()
    line.save_outputs(tmp_path, "hybrid", record)
    assert path.read_bytes() == first  # reproducible bytes
