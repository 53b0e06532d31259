"""memlab.config.overrides: ``--set KEY=VALUE`` parsing, layouts, scoping and validation."""

from __future__ import annotations

import pytest

from memlab.config import ConfigError, load_config
from memlab.config.overrides import (
    OPENCLAW_ROOT_KEYS,
    active_overrides,
    apply_overrides,
    config_layout,
    current_overrides,
    parse_override,
)
from memlab.config.schema import MemorySearchConfig


def _set(*items: str) -> list:
    return [parse_override(i) for i in items]


@pytest.mark.parametrize(("text", "value"), [
    ("a=0.6", 0.6), ("a=3", 3), ("a=true", True), ("a=null", None), ("a=[1, 2]", [1, 2]),
    ("a={enabled: true}", {"enabled": True}), ('a="007"', "007"), ("a='x y'", "x y"),
    ("a=local", "local"), ("a=./models/e5", "./models/e5"), ("a=", ""),
    ("a=e5-small-multilingual", "e5-small-multilingual"),
    ("a=http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ("a=b=c", "b=c"),  # only the first '=' separates the key
])
def test_values_are_json5_else_plain_strings(text, value):
    assert parse_override(text).value == value


@pytest.mark.parametrize("text", ["a=[1, 2", "a={x: ", 'a="open', "noequals", "=3", "a..b=1"])
def test_bad_assignments_are_errors(text):
    with pytest.raises(ConfigError, match="--set"):
        parse_override(text)


def test_list_indexes_in_paths():
    assert parse_override("agents.list[2].memorySearch.enabled=false").path == (
        "agents", "list", 2, "memorySearch", "enabled")


def test_short_form_targets_each_layouts_search_block():
    ov = _set("query.maxResults=3")
    assert apply_overrides({}, ov) == {"query": {"maxResults": 3}}
    assert apply_overrides({"memorySearch": {}}, ov) == {"memorySearch": {"query": {
        "maxResults": 3}}}
    assert apply_overrides({"agents": {"list": []}}, ov)["agents"]["defaults"] == {
        "memorySearch": {"query": {"maxResults": 3}}}
    assert apply_overrides({"memory": {"search": {"provider": "none"}}}, ov) == {
        "memory": {"search": {"provider": "none", "query": {"maxResults": 3}}}}


def test_spelled_out_2026_7_prefixes_fit_any_2026_7_shape():
    for key in ("memorySearch.query.maxResults=3",
                "agents.defaults.memorySearch.query.maxResults=3"):
        ov = _set(key)
        assert apply_overrides({"memorySearch": {}}, ov) == {"memorySearch": {"query": {
            "maxResults": 3}}}
        assert apply_overrides({"agents": {}}, ov) == {"agents": {"defaults": {
            "memorySearch": {"query": {"maxResults": 3}}}}}


def test_memory_search_keys_make_an_empty_config_2026_9():
    tree = apply_overrides({}, _set("memory.search.provider=none"))
    assert tree == {"memory": {"search": {"provider": "none"}}}
    assert config_layout(tree) == "2026.9"


@pytest.mark.parametrize(("raw", "key"), [
    ({"memorySearch": {"provider": "none"}}, "memory.search.provider=none"),
    ({"agents": {}}, "memory.search.query.maxResults=1"),
    ({"memory": {"search": {}}}, "agents.defaults.memorySearch.provider=none"),
    ({"memory": {"search": {}}}, "memorySearch.provider=none"),
])
def test_the_other_releases_layout_is_refused_naming_both(raw, key):
    with pytest.raises(ConfigError, match="search block, but the config uses the"):
        apply_overrides(raw, _set(key))


def test_whole_config_keys_and_list_entries():
    raw = {"agents": {"list": [{"id": "main"}, {"id": "ops"}]}}
    tree = apply_overrides(raw, _set("agents.list[1].memorySearch.provider=none",
                                     "models.providers.lab.baseUrl=http://x/v1"))
    assert tree["agents"]["list"][1] == {"id": "ops", "memorySearch": {"provider": "none"}}
    assert tree["models"] == {"providers": {"lab": {"baseUrl": "http://x/v1"}}}
    assert raw == {"agents": {"list": [{"id": "main"}, {"id": "ops"}]}}  # not mutated
    with pytest.raises(ConfigError, match=r"agents\.list\[5\]: no entry 5: the list has 2"):
        apply_overrides(raw, _set("agents.list[5].memorySearch.provider=none"))
    with pytest.raises(ConfigError, match="whole OpenClaw config"):
        apply_overrides({"memorySearch": {}}, _set("agents.list[0].id=x"))


def test_a_path_through_a_scalar_is_an_error():
    with pytest.raises(ConfigError, match="memorySearch.provider: is 'none', not an object"):
        apply_overrides({"memorySearch": {"provider": "none"}}, _set("provider.x=1"))


def test_memlab_keys_sit_at_the_top_in_every_layout():
    ov = _set("memlab.fusion.method=rrf")
    for raw in ({}, {"memorySearch": {}}, {"agents": {}}, {"memory": {"search": {}}}):
        assert apply_overrides(raw, ov)["memlab"] == {"fusion": {"method": "rrf"}}


def test_no_search_key_is_also_a_top_level_openclaw_key():
    """What keeps the short form unambiguous: if the schema grew such a key, this fails."""
    names = {f.alias or n for n, f in MemorySearchConfig.model_fields.items()}
    assert not names & OPENCLAW_ROOT_KEYS


def test_load_config_applies_active_overrides_then_validates():
    base = {"memorySearch": {"provider": "none", "query": {"maxResults": 8}}}
    with active_overrides(_set("query.maxResults=3", "memlab.keyword=bm25")):
        cfg = load_config(base)
        assert load_config(None).memory_search.query.max_results == 3
    assert cfg.memory_search.query.max_results == 3 and cfg.memlab.keyword == "bm25"
    assert current_overrides() == ()
    assert load_config(base).memory_search.query.max_results == 8  # scoped to the block


def test_a_wrong_key_is_the_schemas_error_naming_key_allowed_keys_and_set():
    with active_overrides(_set("query.hybrid.vectorWeigth=0.6")):
        with pytest.raises(ConfigError) as info:
            load_config({"memorySearch": {"provider": "none"}})
    text = str(info.value)
    assert "--set query.hybrid.vectorWeigth" in text
    assert "memorySearch.query.hybrid.vectorWeigth: unknown key" in text
    assert "did you mean 'vectorWeight'" in text and "allowed keys here:" in text
    with active_overrides(_set("memlab.fusion.method=bogus")):
        with pytest.raises(ConfigError, match="must be 'openclaw', 'rrf', 'minmax' or 'zscore'"):
            load_config({"memorySearch": {"provider": "none"}})


def test_a_secret_value_is_not_echoed_in_the_source_name():
    with active_overrides(_set("remote.apiKey=sk-live-123", "query.maxResults=x")):
        with pytest.raises(ConfigError) as info:
            load_config({"memorySearch": {"provider": "none"}})
    assert "sk-live-123" not in str(info.value)
