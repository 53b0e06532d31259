"""``memlab eval DATASET --profile 2026.7 --profile 2026.9 --set KEY=VALUE``: each override
reaches the run(s) whose layout accepts it (memlab.eval.upgrade.split_overrides), a key that
no profile it names accepts is refused naming the key and the profile, and
``memlab eval --profile 2026.9`` applies ``--set`` in the 2026.9 layout (upgraded_config)."""

from __future__ import annotations

import pytest

import memlab.eval.systems as systems
import memlab.eval.upgrade as upgrade
from memlab.cli.main import main
from memlab.config.errors import ConfigError
from memlab.config.overrides import (
    active_overrides,
    block_key,
    explain_error,
    override_profiles,
    parse_override,
)
from tests.upgrade_dataset import write_dataset


def _sets(*texts: str):
    return [parse_override(t) for t in texts]


@pytest.fixture()
def dataset(tmp_path):
    return write_dataset(tmp_path)


def test_override_profiles_and_block_key():
    assert override_profiles(parse_override("memory.search.query.maxResults=3")) == ("2026.9",)
    assert override_profiles(parse_override("agents.defaults.memorySearch.provider=none")) == (
        "2026.7",)
    assert override_profiles(parse_override("memlab.fusion.method=rrf")) == (
        "2026.7", "2026.9")
    assert block_key(parse_override("memory.search.query.maxResults=3")) == "query.maxResults"
    assert block_key(parse_override("session.dmScope=main")) == "session.dmScope"


def test_split_sends_each_key_where_it_is_accepted():
    split = upgrade.split_overrides("keyword", _sets(
        "memory.search.query.maxResults=3", "query.minScore=0.3",
        "memorySearch.query.hybrid.vectorWeight=0.5", "query.hybrid.vectorWeight=0.6",
        "rememberAcrossConversations=false"), production=True)
    keys = {p: [o.key for o in os] for p, os in split.by_profile.items()}
    assert keys == {
        "2026.7": ["query.minScore", "memorySearch.query.hybrid.vectorWeight",
                   "query.hybrid.vectorWeight"],
        "2026.9": ["memory.search.query.maxResults", "query.minScore",
                   "rememberAcrossConversations"]}
    assert len(split.notes) == 2
    assert split.notes[0].startswith("--set query.hybrid.vectorWeight: 2026.7 only (2026.9 "
                                     "does not accept it: memory.search.query.hybrid."
                                     "vectorWeight: retired in OpenClaw 2026.9")
    assert split.notes[1].startswith("--set rememberAcrossConversations: 2026.9 only (2026.7 "
                                     "does not accept it")


def test_cut_off_keys_without_production_are_noted():
    split = upgrade.split_overrides("keyword", _sets("query.maxResults=3"))
    assert [o.key for o in split.by_profile["2026.9"]] == ["query.maxResults"]
    assert "--production" in split.notes[-1] and split.notes[-1].startswith(
        "--set query.maxResults: every run ranks --depth hits")


@pytest.mark.parametrize(("text", "profiles"), [
    ("memory.search.query.hybrid.vectorWeight=0.5", ["2026.9"]),
    ("memorySearch.rememberAcrossConversations=false", ["2026.7"]),
    ("agents.defaults.memorySearch.query.bogus=1", ["2026.7"]),
    ("query.bogus=1", ["2026.7", "2026.9"]),
])
def test_a_key_no_named_profile_accepts_is_refused(text, profiles):
    with pytest.raises(ConfigError) as info:
        upgrade.split_overrides("keyword", _sets(text))
    (issue,) = info.value.issues
    assert issue.path == text.split("=")[0]
    for p in profiles:
        assert f"the {p} profile does not accept it (" in issue.message
    assert len(profiles) == issue.message.count("does not accept it")
    # where-the-key-goes errors get no "read as a JSON5 number" hint
    assert "JSON5" not in str(explain_error(info.value, _sets(text)))


def test_report_runs_get_their_own_overrides(dataset, monkeypatch):
    seen: dict[str, object] = {}
    real_7, real_9 = systems.run_system, upgrade.run_tiered

    def run_7(ds, cfg, **kw):
        seen["2026.7"] = cfg
        return real_7(ds, cfg, **kw)

    def run_9(ds, cfg, **kw):
        seen["2026.9"] = cfg
        seen["hits_9"] = real_9(ds, cfg, **kw)
        return seen["hits_9"]

    monkeypatch.setattr(systems, "run_system", run_7)
    monkeypatch.setattr(upgrade, "run_tiered", run_9)
    with active_overrides(_sets("memory.search.query.maxResults=1", "query.minScore=0.05",
                                "memorySearch.query.hybrid.temporalDecay.enabled=true")):
        report = upgrade.upgrade_report(dataset, "keyword", metrics=["mrr@10"], tune=False,
                                        n_resamples=50, production=True)
    ms7 = seen["2026.7"].memory_search
    assert ms7.query.max_results == 6 and ms7.query.min_score == 0.05  # 6: 2026.7's default
    assert ms7.query.hybrid.temporal_decay.enabled is True
    assert seen["2026.9"]["memory"]["search"]["query"] == {"maxResults": 1, "minScore": 0.05}
    assert seen["hits_9"].groupby("qid").size().max() == 1  # applied, not just written
    assert report.overrides == {
        "2026.7": ("query.minScore", "memorySearch.query.hybrid.temporalDecay.enabled"),
        "2026.9": ("memory.search.query.maxResults", "query.minScore")}
    assert "--set overrides per run:" in report.to_markdown()


def test_cli_refuses_naming_key_and_profile(dataset, capsys):
    code = main(["eval", str(dataset.root), "--profile", "2026.7", "--profile", "2026.9",
                 "--config", "keyword", "--no-tune", "--resamples", "20",
                 "--set", "memorySearch.rememberAcrossConversations=false"])
    err = capsys.readouterr().err
    assert code == 2
    assert ("memorySearch.rememberAcrossConversations: the 2026.7 profile does not accept it"
            in err)


def test_profile_2026_9_applies_set_in_its_layout(tmp_path):
    cfg9 = {"memory": {"search": {"provider": "none"}}}
    got = upgrade.upgraded_config(cfg9, _sets("memory.search.query.maxResults=2",
                                              "query.minScore=0.1"))[1]
    assert got["memory"]["search"] == {"provider": "none",
                                       "query": {"maxResults": 2, "minScore": 0.1}}
    assert upgrade.upgraded_config("keyword", _sets("memory.search.query.maxResults=2"))[1][
        "memory"]["search"]["query"] == {"maxResults": 2}
    with pytest.raises(ConfigError, match="names the 2026.7 search block"):
        upgrade.upgraded_config(cfg9, _sets("memorySearch.query.maxResults=2"))
    with pytest.raises(ConfigError, match="retired in OpenClaw 2026.9"):
        upgrade.upgraded_config("keyword", _sets("query.hybrid.vectorWeight=0.5"))
