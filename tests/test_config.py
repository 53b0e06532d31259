"""memlab.config: OpenClaw 2026.7.35 memorySearch schema, resolution, loading and dumping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlab.config import (
    ConfigError,
    HybridConfig,
    MemlabConfig,
    MemlabOptions,
    MemorySearchConfig,
    dump_config,
    load_config,
    merge_memory_search,
)

SECRET = "sk-THIS-IS-A-SECRET-5f3a9c"


def get_alias(model: Any, dotted: str) -> Any:
    """Read a value by its camelCase config path (``query.hybrid.vectorWeight``)."""
    node = model
    for part in dotted.split("."):
        fields = type(node).model_fields
        name = next((n for n, f in fields.items() if (f.alias or n) == part), None)
        assert name is not None, f"no key {part!r} in {type(node).__name__}"
        node = getattr(node, name)
    return node


def openclaw(memory_search: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A whole OpenClaw config with ``agents.defaults.memorySearch``."""
    defaults: dict[str, Any] = {"model": "anthropic/claude-opus-4"}
    if memory_search is not None:
        defaults["memorySearch"] = memory_search
    return {"agents": {"defaults": defaults}, **extra}


# --------------------------------------------------------------------------------------------
# Defaults = reference section 10 (2026.7.35)
# --------------------------------------------------------------------------------------------

REFERENCE_DEFAULTS = [
    ("enabled", True),
    ("sources", ["memory"]),
    ("extraPaths", []),
    ("multimodal.enabled", False),
    ("multimodal.maxFileBytes", 10485760),
    ("experimental.sessionMemory", False),
    ("provider", "openai"),
    ("remote.baseUrl", None),
    ("remote.apiKey", None),
    ("remote.headers", None),
    ("remote.nonBatchConcurrency", None),
    ("remote.batch.enabled", False),
    ("remote.batch.wait", True),
    ("remote.batch.concurrency", 2),
    ("remote.batch.pollIntervalMs", 2000),
    ("remote.batch.timeoutMinutes", 60),
    ("fallback", "none"),
    ("model", None),
    ("inputType", None),
    ("queryInputType", None),
    ("documentInputType", None),
    ("outputDimensionality", None),
    ("local.modelPath", None),
    ("local.modelCacheDir", None),
    ("local.contextSize", 4096),
    ("store.driver", "sqlite"),
    ("store.fts.tokenizer", "unicode61"),
    ("store.vector.enabled", True),
    ("store.vector.extensionPath", None),
    ("chunking.tokens", 400),
    ("chunking.overlap", 80),
    ("sync.onSessionStart", True),
    ("sync.onSearch", True),
    ("sync.watch", True),
    ("sync.watchDebounceMs", 1500),
    ("sync.intervalMinutes", 0),
    ("sync.embeddingBatchTimeoutSeconds", None),
    ("sync.sessions.deltaBytes", 100000),
    ("sync.sessions.deltaMessages", 50),
    ("sync.sessions.postCompactionForce", True),
    ("query.maxResults", 6),
    ("query.minScore", 0.35),
    ("query.hybrid.enabled", True),
    ("query.hybrid.vectorWeight", 0.7),
    ("query.hybrid.textWeight", 0.3),
    ("query.hybrid.candidateMultiplier", 4),
    ("query.hybrid.mmr.enabled", False),
    ("query.hybrid.mmr.lambda", 0.7),
    ("query.hybrid.temporalDecay.enabled", False),
    ("query.hybrid.temporalDecay.halfLifeDays", 30),
    ("cache.enabled", True),
    ("cache.maxEntries", None),
]


@pytest.mark.parametrize(("path", "expected"), REFERENCE_DEFAULTS)
def test_defaults_match_reference_table(path: str, expected: Any) -> None:
    for cfg in (MemorySearchConfig(), load_config(None).memory_search,
                load_config(openclaw()).memory_search, load_config("{}").memory_search):
        value = get_alias(cfg, path)
        assert value == expected and type(value) is type(expected), (path, value)


def test_resolved_defaults() -> None:
    ms = MemorySearchConfig()
    assert ms.resolved_provider() == "openai"
    assert ms.provider_requirement() == "optional"  # unset provider degrades, never fails
    assert ms.resolved_model() == "text-embedding-3-small"
    assert ms.normalized_weights() == (0.7, 0.3)
    assert ms.candidates() == 24
    assert ms.half_life_days() == 30
    assert ms.mmr_lambda() == 0.7
    assert ms.resolved_overlap() == 80
    assert (ms.chunking.max_chars(), ms.chunking.overlap_chars()) == (1600, 320)
    assert ms.effective_sources() == ["memory"]
    assert ms.query.resolved_min_score() == 0.35
    assert ms.index_concurrency() == 4
    assert ms.batch_timeout_seconds() == 120
    assert ms.resolved_fallback() is None
    assert ms.multimodal.resolved_modalities() == []
    assert ms.cache.resolved_max_entries() is None


def test_memlab_defaults() -> None:
    opts = MemlabOptions()
    assert opts.keyword == "fts5"
    assert (opts.bm25.variant, opts.bm25.k1, opts.bm25.b, opts.bm25.delta) == (
        "lucene", 1.2, 0.75, 0.5)
    tok = opts.tokenizer
    assert (tok.lowercase, tok.stopwords, tok.stemmer, tok.cjk, tok.thai) == (
        True, None, None, "none", "none")
    assert opts.match == "all"
    assert (opts.fusion.method, opts.fusion.rrf_k) == ("openclaw", 60)
    assert (opts.vector_index, opts.decay_rule, opts.embedding_cache, opts.batch_size) == (
        "Flat", "2026.7", None, 32)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_vector_weight_out_of_range_names_full_path_and_range() -> None:
    cfg = openclaw({"query": {"hybrid": {"vectorWeight": 1.7}}})
    with pytest.raises(ConfigError) as info:
        load_config(cfg)
    msg = str(info.value)
    assert "agents.defaults.memorySearch.query.hybrid.vectorWeight" in msg
    assert "must be between 0 and 1" in msg
    assert "1.7" in msg
    assert isinstance(info.value, ValueError)
    assert [i.path for i in info.value.issues] == [
        "agents.defaults.memorySearch.query.hybrid.vectorWeight"]


def test_unknown_key_is_named_with_allowed_keys() -> None:
    with pytest.raises(ConfigError) as info:
        load_config(openclaw({"provider": "openai", "foo": 1}))
    msg = str(info.value)
    assert "agents.defaults.memorySearch.foo" in msg
    assert "unknown key 'foo'" in msg
    assert "allowed keys here:" in msg
    for key in ("provider", "query", "extraPaths", "remote", "chunking", "sync"):
        assert key in msg


def test_unknown_nested_key_lists_that_objects_keys() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({"query": {"hybrid": {"mmr": {"enabled": True, "lamda": 0.5}}}})
    msg = str(info.value)
    assert "query.hybrid.mmr.lamda" in msg
    assert "did you mean 'lambda'" in msg
    assert "allowed keys here: enabled, lambda" in msg


def test_snake_case_keys_are_not_config_keys() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({"query": {"max_results": 3}})
    assert "unknown key 'max_results' (did you mean 'maxResults'?)" in str(info.value)
    # ...but Python construction by attribute name works.
    assert MemorySearchConfig(query={"max_results": 3}).query.max_results == 3


@pytest.mark.parametrize(("memory_search", "path", "expected"), [
    ({"enabled": "yes"}, "enabled", "expected a boolean (true or false), got 'yes'"),
    ({"query": {"hybrid": {"enabled": 1}}}, "query.hybrid.enabled", "expected a boolean"),
    ({"query": {"maxResults": "6"}}, "query.maxResults", "expected an integer, got '6'"),
    ({"query": {"maxResults": 2.5}}, "query.maxResults", "expected an integer, got 2.5"),
    ({"query": {"maxResults": 0}}, "query.maxResults", "must be a positive integer (> 0), got 0"),
    ({"query": {"minScore": True}}, "query.minScore", "expected a number, got true"),
    ({"query": {"minScore": float("inf")}}, "query.minScore", "finite number"),
    ({"chunking": {"overlap": -1}}, "chunking.overlap", "non-negative integer"),
    ({"sources": "memory"}, "sources", "expected a list, got 'memory'"),
    ({"sources": ["memory", "chats"]}, "sources[1]", "'memory' or 'sessions', got 'chats'"),
    ({"query": 5}, "query", "expected an object, got 5"),
    ({"provider": 5}, "provider", "expected a string, got 5"),
    ({"model": None}, "model", "null is not allowed"),
    ({"store": {"fts": {"tokenizer": "porter"}}}, "store.fts.tokenizer",
     "'unicode61' or 'trigram', got 'porter'"),
    ({"local": {"contextSize": "big"}}, "local.contextSize", 'positive integer or "auto"'),
    ({"inputType": ""}, "inputType", "must not be empty"),
    ({"qmd": {"extraCollections": [{"name": "x"}]}}, "qmd.extraCollections[0].path",
     "required key is missing"),
    ({"remote": {"headers": {"X-Org": 1}}}, 'remote.headers["X-Org"]', "expected a string"),
])
def test_wrong_types_and_values(memory_search: dict, path: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(openclaw(memory_search))
    msg = str(info.value)
    assert f"agents.defaults.memorySearch.{path}: " in msg, msg
    assert expected in msg, msg


def test_integral_floats_are_integers_like_zod() -> None:
    ms = load_config({"query": {"maxResults": 6.0}, "chunking": {"tokens": 1e3}}).memory_search
    assert ms.query.max_results == 6 and type(ms.query.max_results) is int
    assert ms.chunking.tokens == 1000


def test_all_errors_collected_in_one_readable_message() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({"enabled": "no", "query": {"minScore": 2, "maxResults": -1},
                     "bogus": 1, "memlab": {"fusion": {"method": "borda"}}})
    err = info.value
    assert len(err.issues) == 5
    msg = str(err)
    assert msg.startswith("<dict>: 5 config errors:")
    assert msg.count("\n  - ") == 5
    assert "memlab.fusion.method: must be 'openclaw', 'rrf', 'minmax' or 'zscore'" in msg


def test_store_path_is_rejected_as_legacy() -> None:
    with pytest.raises(ConfigError) as info:
        load_config(openclaw({"store": {"path": "~/.openclaw/memory/{agentId}.sqlite"}}))
    msg = str(info.value)
    assert "agents.defaults.memorySearch.store.path" in msg and "legacy" in msg


def test_top_level_memory_search_in_whole_config_is_legacy() -> None:
    with pytest.raises(ConfigError, match="top-level memorySearch was moved"):
        load_config({"gateway": {"port": 1}, "memorySearch": {"provider": "none"}})


def test_multimodal_with_fallback_fails_resolution() -> None:
    cfg = {"provider": "gemini", "model": "gemini-embedding-2-preview", "fallback": "openai",
           "multimodal": {"enabled": True}}
    with pytest.raises(ConfigError, match='multimodal does not support memorySearch.fallback'):
        load_config(cfg)
    cfg["fallback"] = "none"
    assert load_config(cfg).memory_search.multimodal.resolved_modalities() == ["image", "audio"]
    with pytest.raises(ConfigError, match="gemini-embedding-2-preview"):
        load_config({"provider": "openai", "multimodal": {"enabled": True}})


# --------------------------------------------------------------------------------------------
# Shapes, files, JSON5
# --------------------------------------------------------------------------------------------


def test_keys_outside_memory_search_are_left_alone() -> None:
    cfg = {
        "gateway": {"port": "not a number", "nonsense": True},
        "models": {"providers": {"x": 1}},
        "agents": {"defaults": {"model": 42, "workspace": ["odd"],
                                "memorySearch": {"provider": "none"}},
                   "list": [{"id": "main", "tools": "anything"}]},
        "channels": None,
    }
    ms = load_config(cfg).memory_search
    assert ms.provider == "none"
    assert ms.provider_requirement() == "fts-only"


def test_whole_config_without_memory_search_gives_defaults() -> None:
    cfg = load_config({"gateway": {"port": 18789}})
    assert cfg == MemlabConfig()


def test_wrapper_and_bare_shapes() -> None:
    wrapped = load_config({"memorySearch": {"provider": "local"}, "memlab": {"keyword": "tfidf"}})
    bare = load_config({"provider": "local", "memlab": {"keyword": "tfidf"}})
    assert wrapped == bare
    assert wrapped.memory_search.provider == "local" and wrapped.memlab.keyword == "tfidf"
    with pytest.raises(ConfigError, match="unknown top-level key 'extra'"):
        load_config({"memorySearch": {}, "extra": 1})
    with pytest.raises(ConfigError, match="memorySearch: expected an object"):
        load_config({"memorySearch": None})
    # a bare block applies to every agent (the CLI's --agent then only picks transcripts)
    assert load_config({"provider": "none"}, agent_id="main").memory_search.provider == "none"


def test_caller_dict_not_mutated() -> None:
    cfg = openclaw({"extraPaths": ["a"]})
    cfg["agents"]["list"] = [{"id": "w", "memorySearch": {"extraPaths": ["b"]}}]
    before = json.dumps(cfg, sort_keys=True)
    assert load_config(cfg).memory_search.extra_paths == ["a", "b"]
    assert json.dumps(cfg, sort_keys=True) == before


JSON5_TEXT = """\
// OpenClaw config with comments
{
  /* block comment */
  gateway: { port: 18789, },
  agents: {
    defaults: {
      memorySearch: {
        provider: 'none',          // single quotes, unquoted keys
        query: { maxResults: 10, minScore: .2, },
        extraPaths: ["../notes",],  // trailing commas
      },
    },
  },
}
"""


def test_json5_comments_and_trailing_commas(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json5"
    path.write_text(JSON5_TEXT, encoding="utf-8")
    for source in (path, str(path), JSON5_TEXT):
        ms = load_config(source).memory_search
        assert ms.provider == "none"
        assert (ms.query.max_results, ms.query.min_score) == (10, 0.2)
        assert ms.extra_paths == ["../notes"]


def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json5"
    path.write_text('{\n  agents: {\n    defaults: {\n      memorySearch: { provider: }\n',
                    encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    err = info.value
    assert str(path) in str(err)
    assert err.line == 4
    assert "line 4" in str(err)
    assert "syntax error" in str(err)


def test_validation_error_names_file(tmp_path: Path) -> None:
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(openclaw({"query": {"minScore": 5}})), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: agents.defaults.memorySearch.query.minScore")


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config("/nonexistent/openclaw.json5")


def test_top_level_must_be_object() -> None:
    with pytest.raises(ConfigError, match="must be an object"):
        load_config("[1, 2]")


# --------------------------------------------------------------------------------------------
# Per-agent overrides
# --------------------------------------------------------------------------------------------

AGENTS = {
    "agents": {
        "defaults": {"memorySearch": {
            "provider": "gemini",
            "extraPaths": ["../shared", "../notes"],
            "sources": ["memory", "sessions"],
            "remote": {"baseUrl": "https://example.test/v1",
                       "headers": {"X-Org": "acme", "X-Team": "a"},
                       "batch": {"enabled": True, "concurrency": 3}},
            "query": {"maxResults": 8, "hybrid": {"vectorWeight": 0.6, "mmr": {"enabled": True}}},
        }},
        "list": [
            {"id": "main"},
            {"id": "Work", "default": True, "memorySearch": {
                "provider": "ollama",
                "extraPaths": ["../work", "../notes"],
                "sources": ["memory"],
                "remote": {"headers": {"X-Org": "work"}, "batch": {"concurrency": 1}},
                "query": {"hybrid": {"mmr": {"lambda": 0.3}}},
            }},
            "not-an-object",
        ],
    },
}


def test_per_agent_override_merges_leaf_by_leaf() -> None:
    ms = load_config(AGENTS, agent_id="work").memory_search
    assert ms.provider == "ollama"                                # agent value
    assert ms.query.max_results == 8                              # defaults value
    assert ms.query.min_score == 0.35                             # built-in
    assert ms.query.hybrid.vector_weight == 0.6
    assert (ms.query.hybrid.mmr.enabled, ms.query.hybrid.mmr.lambda_) == (True, 0.3)
    assert ms.remote.base_url == "https://example.test/v1"
    assert (ms.remote.batch.enabled, ms.remote.batch.concurrency) == (True, 1)
    assert ms.remote.headers == {"X-Org": "work"}                 # maps replaced, not merged
    assert ms.sources == ["memory"]                               # lists replaced
    assert ms.extra_paths == ["../shared", "../notes", "../work"]  # defaults ∪ agent
    assert ms.provider_requirement() == "required"


def test_default_agent_and_agent_selection() -> None:
    # No agent_id: OpenClaw's default agent (default: true) -> "Work".
    assert load_config(AGENTS).memory_search.provider == "ollama"
    assert load_config(AGENTS, agent_id=" WORK ").memory_search.provider == "ollama"
    main = load_config(AGENTS, agent_id="main").memory_search
    assert main.provider == "gemini" and main.extra_paths == ["../shared", "../notes"]
    with pytest.raises(ConfigError, match="agent 'ghost' is not configured; agents: main, work"):
        load_config(AGENTS, agent_id="ghost")


def test_errors_in_agent_blocks_use_their_path() -> None:
    bad = json.loads(json.dumps(AGENTS))
    bad["agents"]["list"][1]["memorySearch"]["query"]["minScore"] = -0.5
    bad["agents"]["list"][0]["memorySearch"] = {"chunking": {"tokens": "big"}}
    with pytest.raises(ConfigError) as info:
        load_config(bad, agent_id="work")
    paths = sorted(i.path for i in info.value.issues)
    assert paths == ["agents.list[0].memorySearch.chunking.tokens",
                     "agents.list[1].memorySearch.query.minScore"]


def test_merge_memory_search_direct() -> None:
    merged = merge_memory_search(
        {"inputType": "passage", "qmd": {"extraCollections": [{"path": "/a"}]}},
        {"inputType": "  ", "qmd": {"extraCollections": [{"path": "/b"}]}})
    assert merged == {"inputType": "passage",
                      "qmd": {"extraCollections": [{"path": "/a"}, {"path": "/b"}]}}


# --------------------------------------------------------------------------------------------
# Resolution (src/agents/memory-search.ts)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("vector", "text", "expected"), [
    (0.5, 0.5, (0.5, 0.5)),
    (0.0, 0.0, (0.7, 0.3)),
    (1.0, 1.0, (0.5, 0.5)),
    (0.2, 0.6, (0.25, 0.75)),
    (0.7, 0.3, (0.7, 0.3)),
    (0.0, 0.4, (0.0, 1.0)),
])
def test_weight_normalisation(vector: float, text: float, expected: tuple) -> None:
    ms = load_config({"query": {"hybrid": {"vectorWeight": vector, "textWeight": text}}})
    assert ms.memory_search.normalized_weights() == pytest.approx(expected)


def test_weights_above_one_clamp_before_normalising() -> None:
    # The schema rejects 2.0; the resolution clamps anyway (as OpenClaw's clampNumber does).
    with pytest.raises(ConfigError):
        load_config({"query": {"hybrid": {"vectorWeight": 2.0}}})
    hybrid = HybridConfig.model_construct(vector_weight=2.0, text_weight=0.5)
    assert hybrid.normalized_weights() == pytest.approx((1 / 1.5, 0.5 / 1.5))
    hybrid = HybridConfig.model_construct(vector_weight=-1.0, text_weight=-1.0)
    assert hybrid.normalized_weights() == (0.7, 0.3)


@pytest.mark.parametrize(("max_results", "multiplier", "expected"), [
    (6, 4, 24),
    (100, 4, 200),     # capped at 200
    (7, 4, 28),
    (6, 0, 6),         # multiplier clamped up to 1
    (6, 50, 120),      # multiplier clamped down to 20
    (20, 20, 200),
    (0, 4, 1),         # at least one candidate
])
def test_candidates(max_results: int, multiplier: int, expected: int) -> None:
    hybrid = HybridConfig.model_construct(candidate_multiplier=multiplier)
    assert hybrid.candidates(max_results) == expected


def test_candidates_from_config() -> None:
    ms = load_config({"query": {"maxResults": 100, "hybrid": {"candidateMultiplier": 50}}})
    assert ms.memory_search.query.hybrid.resolved_candidate_multiplier() == 20
    assert ms.memory_search.candidates() == 200
    assert ms.memory_search.candidates(3) == 60


def test_half_life_lambda_overlap_clamps() -> None:
    ms = MemorySearchConfig.model_construct()
    ms.query.hybrid.temporal_decay = ms.query.hybrid.temporal_decay.model_construct(
        half_life_days=0.5)
    assert ms.half_life_days() == 1
    assert load_config({"query": {"hybrid": {"temporalDecay": {"halfLifeDays": 7}}}}
                       ).memory_search.half_life_days() == 7
    hybrid = HybridConfig.model_construct()
    assert hybrid.mmr.model_construct(lambda_=1.5).resolved_lambda() == 1.0
    assert hybrid.mmr.model_construct(lambda_=-0.2).resolved_lambda() == 0.0
    assert load_config({"chunking": {"tokens": 100, "overlap": 500}}
                       ).memory_search.resolved_overlap() == 99
    assert load_config({"chunking": {"tokens": 1}}).memory_search.resolved_overlap() == 0


@pytest.mark.parametrize(("sources", "session_memory", "expected"), [
    (["memory", "sessions"], False, ["memory"]),
    (["memory", "sessions"], True, ["memory", "sessions"]),
    (["sessions"], False, ["memory"]),
    (["sessions"], True, ["sessions"]),
    ([], True, ["memory"]),
    (["sessions", "sessions", "memory"], True, ["sessions", "memory"]),
])
def test_effective_sources(sources: list, session_memory: bool, expected: list) -> None:
    ms = load_config({"sources": sources, "experimental": {"sessionMemory": session_memory}})
    assert ms.memory_search.effective_sources() == expected


@pytest.mark.parametrize(("provider", "resolved", "requirement"), [
    (None, "openai", "optional"),
    ("auto", "openai", "optional"),
    ("", "openai", "optional"),
    ("openai", "openai", "required"),
    ("none", "none", "fts-only"),
    ("local", "local", "optional"),
    ("ollama", "ollama", "required"),
    ("my-custom-provider", "my-custom-provider", "required"),  # schema: any string
])
def test_provider_resolution(provider: str | None, resolved: str, requirement: str) -> None:
    raw = {} if provider is None else {"provider": provider}
    ms = load_config(raw).memory_search
    assert ms.resolved_provider() == resolved
    assert ms.provider_requirement() == requirement


def test_provider_dependent_values() -> None:
    ollama = load_config({"provider": "ollama"}).memory_search
    assert ollama.resolved_model() == "nomic-embed-text"
    assert ollama.index_concurrency() == 1
    assert ollama.batch_timeout_seconds() == 600
    custom = load_config({"provider": "openai-compatible", "inputType": "passage",
                          "queryInputType": "query"}).memory_search
    assert custom.resolved_model() == ""
    assert custom.query_input_type_resolved() == "query"
    assert custom.document_input_type_resolved() == "passage"
    with_fallback = load_config({"provider": "none", "fallback": "openai"}).memory_search
    assert with_fallback.resolved_fallback() is None


# --------------------------------------------------------------------------------------------
# Dump / round trip / secrets
# --------------------------------------------------------------------------------------------

ROUND_TRIP = {
    "agents": {"defaults": {"memorySearch": {
        "provider": "openai",
        "model": "text-embedding-3-large",
        "extraPaths": ["../notes", "docs/"],
        "sources": ["memory", "sessions"],
        "experimental": {"sessionMemory": True},
        "remote": {"baseUrl": "https://api.example.test/v1",
                   "apiKey": {"source": "env", "provider": "default", "id": "OPENAI_API_KEY"},
                   "headers": {"X-Org": "acme"}, "batch": {"enabled": True}},
        "local": {"contextSize": "auto"},
        "store": {"fts": {"tokenizer": "trigram"}},
        "qmd": {"extraCollections": [{"path": "/srv/x", "pattern": "**/*.md"}]},
        "query": {"maxResults": 10, "minScore": 0.25,
                  "hybrid": {"vectorWeight": 0.55, "textWeight": 0.45,
                             "mmr": {"enabled": True, "lambda": 0.6},
                             "temporalDecay": {"enabled": True, "halfLifeDays": 14}}},
        "cache": {"maxEntries": 5000},
    }}},
    "memlab": {"keyword": "bm25", "bm25": {"variant": "bm25+", "k1": 1.5},
               "tokenizer": {"stemmer": "english", "cjk": "bigram"},
               "fusion": {"method": "rrf", "rrfK": 20}, "embeddingCache": "/tmp/e.sqlite"},
}


@pytest.mark.parametrize("style", ["json5", "json"])
def test_dump_load_round_trip(style: str) -> None:
    cfg = load_config(ROUND_TRIP)
    text = dump_config(cfg, style=style)
    again = load_config(text)
    assert again == cfg
    assert again.memory_search.model_fields_set == cfg.memory_search.model_fields_set
    assert again.memory_search.provider_requirement() == "required"
    if style == "json":
        assert json.loads(text)["agents"]["defaults"]["memorySearch"]["model"] == (
            "text-embedding-3-large")


def test_dump_writes_only_configured_keys() -> None:
    text = dump_config(load_config({"query": {"maxResults": 3}}), style="json")
    doc = json.loads(text)
    assert doc == {"agents": {"defaults": {"memorySearch": {"query": {"maxResults": 3}}}}}
    assert json.loads(dump_config(MemlabConfig(), style="json")) == {
        "agents": {"defaults": {"memorySearch": {}}}}


def test_full_dump_round_trips_and_keeps_provider_unset() -> None:
    cfg = load_config(ROUND_TRIP)
    assert load_config(dump_config(cfg, full=True)) == cfg
    text = dump_config(MemlabConfig(), full=True)
    assert "maxResults: 6" in text and "halfLifeDays: 30" in text
    again = load_config(text)
    assert again == MemlabConfig()
    assert again.memory_search.provider_requirement() == "optional"


def test_dump_rejects_unknown_schema() -> None:
    with pytest.raises(ValueError, match="only '2026.7'"):
        dump_config(MemlabConfig(), schema="2026.8")


def test_api_key_never_leaks() -> None:
    raw = openclaw({"provider": "openai", "remote": {
        "apiKey": SECRET, "headers": {"Authorization": f"Bearer {SECRET}", "X-Org": "acme"}}})
    cfg = load_config(raw)
    assert cfg.memory_search.remote.api_key.get_secret_value() == SECRET
    for text in (repr(cfg), str(cfg), repr(cfg.memory_search.remote),
                 dump_config(cfg), dump_config(cfg, style="json"), dump_config(cfg, full=True),
                 cfg.model_dump_json()):
        assert SECRET not in text
    dumped = dump_config(cfg)
    assert "apiKey" in dumped and "never dumped" in dumped  # a placeholder comment
    assert '"X-Org": "acme"' in dumped
    again = load_config(dumped)
    assert again.memory_search.remote.api_key is None
    assert again.memory_search.remote.headers == {"X-Org": "acme"}

    # Errors elsewhere in the same config do not echo the key...
    raw["agents"]["defaults"]["memorySearch"]["query"] = {"minScore": 9}
    with pytest.raises(ConfigError) as info:
        load_config(raw)
    assert SECRET not in str(info.value)
    # ...nor does an error about the key itself.
    for bad in (123456789987, [SECRET], {"source": "env", "provider": "default", "id": SECRET}):
        with pytest.raises(ConfigError) as info:
            load_config({"remote": {"apiKey": bad}})
        assert "remote.apiKey" in str(info.value)
        assert SECRET not in str(info.value) and "123456789987" not in str(info.value)
        err = info.value  # no chained pydantic error carries the input either
        assert err.__cause__ is None and (err.__context__ is None or err.__suppress_context__)


def test_secret_ref_is_validated() -> None:
    ok = load_config({"remote": {"apiKey": {"source": "env", "provider": "default",
                                            "id": "OPENAI_API_KEY"}}})
    assert ok.memory_search.remote.api_key.id == "OPENAI_API_KEY"
    with pytest.raises(ConfigError, match="remote.apiKey.source: must be 'env', 'file' or 'exec'"):
        load_config({"remote": {"apiKey": {"source": "vault", "provider": "d", "id": "X"}}})


# --------------------------------------------------------------------------------------------
# memlab options and overrides
# --------------------------------------------------------------------------------------------


def test_memlab_options_validate() -> None:
    cfg = load_config({"memlab": {"tokenizer": {"stemmer": "english", "stopwords": "en"},
                                  "match": "any", "decayRule": "2026.8", "batchSize": 8}})
    assert cfg.memlab.tokenizer.stemmer == "english" and cfg.memlab.match == "any"
    assert (cfg.memlab.decay_rule, cfg.memlab.batch_size) == ("2026.8", 8)
    with pytest.raises(ConfigError, match="memlab.tokenizer.stemmer: unknown stemmer 'klingon'"):
        load_config({"memlab": {"tokenizer": {"stemmer": "klingon"}}})
    with pytest.raises(ConfigError, match="memlab.batchSize: must be a positive integer"):
        load_config({"memlab": {"batchSize": 0}})
    with pytest.raises(ConfigError, match="memlab.vectorIdx: unknown key"):
        load_config({"memlab": {"vectorIdx": "HNSW32"}})


def test_with_overrides() -> None:
    base = load_config({"provider": "none"})
    swept = base.with_overrides({"query.hybrid.vectorWeight": 0.4,
                                 "memorySearch.query.maxResults": 12,
                                 "memlab.fusion.method": "zscore"})
    assert swept.memory_search.query.hybrid.vector_weight == 0.4
    assert swept.memory_search.query.max_results == 12
    assert swept.memlab.fusion.method == "zscore"
    assert swept.memory_search.provider == "none"
    assert base.memory_search.query.max_results == 6  # unchanged
    with pytest.raises(ConfigError, match="memorySearch.query.minScore: must be between 0 and 1"):
        base.with_overrides({"query.minScore": 3})


def test_default_agent_id_follows_workspace_then_default(tmp_path) -> None:
    from memlab.config import default_agent_id, load_config

    cfg = {"agents": {"defaults": {"memorySearch": {"provider": "none"}},
                      "list": [{"id": "Main", "default": True},
                               {"id": "ops", "workspace": str(tmp_path / "ops"),
                                "memorySearch": {"query": {"maxResults": 3}}}]}}
    assert default_agent_id(cfg) == "main"
    assert default_agent_id(cfg, tmp_path / "ops") == "ops"
    assert default_agent_id(cfg, tmp_path / "other") == "main"
    assert default_agent_id(None) == default_agent_id({"provider": "none"}) == "main"
    assert load_config(cfg, agent_id="ops").memory_search.query.max_results == 3
    # a bare memorySearch block applies to every agent
    assert load_config({"provider": "none"}, agent_id="ops").memory_search.provider == "none"
