"""The OpenClaw lines as data: detection, registration, derivation, and the one query path
(a 2026.9 config in a notebook ranks exactly as ``memlab search --json`` does)."""

from __future__ import annotations

import json

import pytest

from memlab.lines import (
    DATE_RULES,
    DEFAULT_DATE_RULE,
    Line,
    Step,
    detect_line,
    export_schema,
    export_schemas,
    get_line,
    layout_of,
    line_names,
    register,
    registered,
    upgrade_lines,
)
from memlab.openclaw import MemorySearch

WORKSPACE = "datasets/sample-memory/workspace"
NOW = "2026-10-01T00:00:00Z"


def test_detection_by_profile_then_layout():
    assert detect_line(None).name == "2026.7"
    assert detect_line({"memory": {"search": {}}}).name == "2026.9"
    assert detect_line({"memorySearch": {}}).name == "2026.7"
    assert detect_line({"memory": {"search": {}}}, "2026.7").name == "2026.7"
    assert layout_of({"memory": {"search": 3}}) == "memorySearch"
    with pytest.raises(ValueError, match=r"--profile: unknown OpenClaw line '9'; allowed: "):
        detect_line({}, "9")


def test_each_line_declares_what_differs():
    old, new = get_line("2026.7"), get_line("2026.9")
    assert (old.engine, new.engine) == ("stages", "tiered")
    assert "query.hybrid.vectorWeight" in old.tunable
    assert "query.hybrid.vectorWeight" not in new.tunable
    assert new.fixed["query.hybrid.vectorWeight"] == new.param("fusion", "vector_weight")
    assert new.fixed["query.hybrid.temporalDecay.halfLifeDays"] == new.param(
        "decay", "half_life_days")
    assert new.fixed["query.hybrid.mmr.lambda"] == new.param("mmr", "lambda")
    assert not set(new.tunable) & set(new.fixed)


def test_registered_is_scoped_and_names_are_unique():
    line = get_line("2026.9").derive("scratch")
    with registered(line):
        assert "scratch" in line_names() and detect_line({"memlab": {"profile": "scratch"}}) is line
        with pytest.raises(ValueError, match="already registered"), registered(line):
            pass
    assert "scratch" not in line_names()
    with pytest.raises(ValueError, match="both claim the memory.search layout"):
        register(get_line("2026.9").derive("other", detected=True))


def test_derive_and_recipe_checks():
    with pytest.raises(ValueError, match=r"has no step \['rerank'\]"):
        get_line("2026.9").derive("x", steps={"rerank": {}})
    with pytest.raises(ValueError, match="names each stage once"):
        Line("x", "1", "memorySearch", "stages", (Step("mmr"), Step("mmr")))


@pytest.mark.parametrize("config", [
    {"memory": {"search": {"provider": "none", "query": {"maxResults": 2}}},
     "memlab": {"profile": "2026.9"}},
    {"memory": {"search": {"provider": "none"}}},
])
def test_memory_search_equals_the_cli_on_a_2026_9_config(config, tmp_path, capsys):
    """The bug of issue 33: this config used to run 2026.7's ranking in MemorySearch."""
    from memlab.cli.main import main

    path = tmp_path / "c.json"
    path.write_text(json.dumps(config))
    ms = MemorySearch(WORKSPACE, config=str(path))
    assert ms.line.name == "2026.9"
    for query in ("staging db host", "deploy window billing", "MEMORY.md"):
        assert main(["search", WORKSPACE, query, "--config", str(path), "--json", "--now", NOW,
                     "--index", str(tmp_path / "i.sqlite")]) == 0
        cli = json.loads(capsys.readouterr().out)
        assert ms.search(query, now=NOW) == cli
        assert "citation" not in json.dumps(cli)  # 2026.9's result objects, not 2026.7's
    hits = ms.run(["staging db host"], now=NOW)
    assert list(hits["path"]) == [r["path"] for r in ms.search("staging db host", now=NOW)
                                  ["results"]]


def test_the_2026_7_layout_on_the_2026_9_line_is_refused_as_openclaw_does():
    from memlab.config.errors import ConfigError

    with pytest.raises(ConfigError, match="moved to memory.search"):
        MemorySearch(WORKSPACE, {"agents": {"defaults": {"memorySearch": {"provider": "none"}}},
                                 "memlab": {"profile": "2026.9"}})



def test_date_rules_schemas_and_the_upgrade_are_the_lines_data():
    lines = [get_line(name) for name in line_names()]
    assert {line.date_rule for line in lines} == set(DATE_RULES)
    assert DEFAULT_DATE_RULE == get_line("2026.7").date_rule == "2026.7"
    assert get_line("2026.9").date_rule == "2026.8"
    assert DATE_RULES["2026.8"].evergreen == {"MEMORY.md", "USER.md"}
    assert export_schemas() == ("2026.7", "2026.8", "2026.9")
    assert export_schema("2026.7.35") == ("2026.7", get_line("2026.7"))
    assert export_schema("2026.8") == ("2026.8", get_line("2026.9"))
    with pytest.raises(ValueError, match="schema must be one of 2026.7, 2026.8, 2026.9"):
        export_schema("2026.10")
    assert [line.name for line in upgrade_lines()] == ["2026.7", "2026.9"]
    assert get_line("2026.9").derive("scratch").schemas == ()  # a derived line exports nothing


def test_eval_runs_a_2026_9_config_on_its_line(tmp_path, capsys):
    """``memlab eval --config <memory.search file>`` ranks on that config's line, as
    ``--profile 2026.9`` does (it used to fail or run the other line)."""
    from memlab.cli.main import main

    path = tmp_path / "nine.json5"
    path.write_text(json.dumps({"memory": {"search": {"provider": "none"}}}))
    args = ["eval", "datasets/sample-memory", "--config", str(path), "--resamples", "100"]
    assert main(args) == 0
    detected = capsys.readouterr().out
    assert main([*args, "--profile", "2026.9"]) == 0
    assert detected == capsys.readouterr().out


def test_sweep_takes_the_line_of_its_base_config(tmp_path, capsys):
    """``memlab sweep --base <memory.search file>`` sweeps that config's line."""
    from memlab.cli.main import main

    base = tmp_path / "nine.json5"
    base.write_text(json.dumps({"memory": {"search": {"provider": "none"}}}))
    args = ["sweep", "datasets/sample-memory", "--base", str(base), "--grid",
            "query.maxResults=3,6", "--no-progress"]
    assert main(args) == 0
    detected = capsys.readouterr().out
    assert "configurations on the 2026.9 profile" in detected
    assert main([*args, "--profile", "2026.9"]) == 0
    assert detected == capsys.readouterr().out
