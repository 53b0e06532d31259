"""memlab.config.memory_layout: OpenClaw 2026.9's memory.search schema, layout, retired keys.

Hand-written cases, plus (when present) the answers of the real ``openclaw config validate`` and
``openclaw doctor --fix`` of 2026.9.6 recorded by parity/check_config_memory_search.py in
tests/data/openclaw-2026.9/config_cases.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlab.config.errors import ConfigError
from memlab.config.memory_layout import (
    MEMORY_DEFAULTS,
    RETIRED_PATHS,
    doctor_fix,
    read_config,
    retired_message,
    strip_retired,
)

RECORDED = Path(__file__).parents[1] / "data" / "openclaw-2026.9" / "config_cases.json"


def _issues(config) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        read_config(config)
    return {i.path: i.message for i in info.value.issues}


def test_accepted_keys_and_resolution():
    cfg = read_config({
        "memory": {"search": {
            "provider": "openai-compatible", "model": "m", "sources": ["memory", "sessions"],
            "experimental": {"sessionMemory": True}, "extraPaths": ["a", {"path": "b"}],
            "store": {"fts": {"tokenizer": "trigram"}, "vector": {"enabled": False}},
            "query": {"maxResults": 8.0, "minScore": 0}, "cache": {"enabled": False},
            "remote": {"baseUrl": "http://x/v1", "apiKey": "sk-secret", "batch": {"enabled": True}},
            "outputDimensionality": 256}},
        "agents": {"entries": {"a1": {"memory": {"search": {"query": {"maxResults": 2},
                                                            "extraPaths": ["c"]}}}}}})
    top, a1 = cfg.resolve(), cfg.resolve("a1")
    assert (top.max_results, a1.max_results, top.min_score) == (8, 2, 0.0)
    assert top.sources == ("memory", "sessions") and top.search_sources == ("memory", "sessions")
    assert (top.fts_tokenizer, top.vector_enabled, top.cache_enabled, top.batch_enabled) == (
        "trigram", False, False, True)
    assert [p if isinstance(p, str) else p.path for p in a1.extra_paths] == ["a", "b", "c"]
    assert "sk-secret" not in repr(cfg)


def test_defaults_and_sources_policy():
    r = read_config({}).resolve()
    assert (r.provider, r.max_results, r.min_score, r.fallback) == ("openai", 6, 0.35, "none")
    # rememberAcrossConversations defaults on: transcripts indexed, searched only when asked
    assert (r.sources, r.search_sources, r.session_memory) == (("memory", "sessions"),
                                                               ("memory",), True)
    off = read_config({"memory": {"search": {"rememberAcrossConversations": False,
                                             "sources": ["memory", "sessions"]}}}).resolve()
    assert (off.sources, off.search_sources) == (("memory",), ("memory",))
    scoped = read_config({"session": {"dmScope": "per-peer"}}).resolve()
    assert scoped.remember_across_conversations is False and scoped.sources == ("memory",)
    assert read_config({"memory": {"search": {"provider": "auto"}}}).resolve().provider == "openai"


def test_schema_violations_name_the_key():
    issues = _issues({"memory": {"search": {"query": {"maxResults": 0, "minScore": 1.5},
                                            "store": {"fts": {"tokenizer": "porter"}},
                                            "unknownKey": 1}}})
    assert set(issues) >= {"memory.search.query.maxResults", "memory.search.query.minScore",
                           "memory.search.store.fts.tokenizer", "memory.search.unknownKey"}
    assert _issues({"memory": {"search": {"enabled": "yes"}}})


def test_retired_keys_are_reported_with_the_doctor_fix():
    issues = _issues({"memory": {"search": {"chunking": {"tokens": 200},
                                            "query": {"hybrid": {"mmr": {"lambda": 0.5}}}}}})
    assert set(issues) == {"memory.search.chunking", "memory.search.query.hybrid.mmr.lambda"}
    assert "doctor --fix" in issues["memory.search.chunking"]
    assert "0.7" in issues["memory.search.query.hybrid.mmr.lambda"]
    # not retired, but not in the schema either: a plain schema error
    assert set(_issues({"memory": {"search": {"query": {"hybrid": {"enabled": False}}}}})) == {
        "memory.search.query.hybrid"}


def test_legacy_layout_is_reported():
    issues = _issues({"agents": {"defaults": {"memorySearch": {"provider": "none"}},
                                 "entries": {"x": {"memorySearch": {}}}}, "memorySearch": {}})
    assert issues["agents.defaults.memorySearch"].startswith(
        "agents.defaults.memorySearch moved to memory.search")
    assert "agents.entries.x.memorySearch" in issues and "memorySearch" in issues


def test_strip_retired_like_the_doctor():
    cfg = {"memory": {"search": {"provider": "none", "chunking": {"tokens": 1},
                                 "query": {"maxResults": 5, "hybrid": {"vectorWeight": 0.5,
                                                                       "enabled": False}},
                                 "cache": {"maxEntries": 3}}},
           "agents": {"defaults": {"memory": {"search": {"sync": {"intervalMinutes": 1}}}}}}
    cleaned, removed = strip_retired(cfg)
    assert cleaned == {"memory": {"search": {"provider": "none", "query": {
        "maxResults": 5, "hybrid": {"enabled": False}}}}, "agents": {"defaults": {}}}
    assert removed == ["memory.search.chunking", "memory.search.query.hybrid.vectorWeight",
                       "memory.search.cache.maxEntries",
                       "agents.defaults.memory.search.sync.intervalMinutes"]
    assert retired_message(removed).startswith("Removed retired runtime tuning knobs: memory.")
    assert retired_message([]) is None
    assert cfg["memory"]["search"]["chunking"] == {"tokens": 1}  # input untouched
    assert len(RETIRED_PATHS) == 9 and MEMORY_DEFAULTS["query.hybrid.textWeight"] == 0.3


def _recorded_cases():
    if not RECORDED.is_file():
        return []
    return json.loads(RECORDED.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", _recorded_cases(), ids=lambda c: c["name"])
def test_validation_agrees_with_openclaw_config_validate(case):
    accepted = case["validate"]["exitCode"] == 0
    try:
        read_config(case["config"])
        ours = True
    except ConfigError:
        ours = False
    assert ours == accepted, case["validate"]


@pytest.mark.parametrize("case", _recorded_cases(), ids=lambda c: c["name"])
def test_doctor_fix_agrees_with_openclaw_doctor_fix(case):
    after = case["doctor"]["configAfter"]
    if case["doctor"]["exitCode"] != 0:
        pytest.skip(f"openclaw doctor --fix did not finish: {case['doctor']['stderr'][-200:]}")
    cleaned, _removed = doctor_fix(case["config"])
    mine = {k: cleaned.get(k) for k in ("memory",) if k in cleaned}
    theirs = {k: after.get(k) for k in ("memory",) if k in after}
    assert mine == theirs
    mine_entries = cleaned.get("agents", {}).get("entries") or {}
    for aid, entry in (after.get("agents", {}).get("entries") or {}).items():
        assert entry.get("memory") == (mine_entries.get(aid) or {}).get("memory")


def test_doctor_fix_moves_the_2026_7_layout():
    fixed, removed = doctor_fix({"agents": {"defaults": {"memorySearch": {
        "provider": "none", "query": {"maxResults": 4, "hybrid": {"vectorWeight": 0.6}},
        "chunking": {"tokens": 300}}}}})
    assert fixed["memory"] == {"search": {"provider": "none", "query": {"maxResults": 4}}}
    assert "memorySearch" not in fixed["agents"]["defaults"]
    assert removed == ["memory.search.chunking", "memory.search.query.hybrid.vectorWeight"]


def test_doctor_fix_drops_unknown_keys_too():
    cfg = {"memory": {"search": {"provider": "none", "sync": {"onSearch": False},
                                 "query": {"maxResults": 2, "hybrid": {"mmr": {"enabled": True,
                                                                              "lambda": 0.2}}}}}}
    fixed, removed = doctor_fix(cfg)
    assert fixed == {"memory": {"search": {"provider": "none", "query": {"maxResults": 2}}}}
    assert removed == ["memory.search.query.hybrid.mmr.lambda", "memory.search.sync",
                       "memory.search.query.hybrid"]
