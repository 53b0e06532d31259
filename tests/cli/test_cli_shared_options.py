"""The options every memlab verb shares (--set, --no-progress), --version and `memlab models`."""

from __future__ import annotations

import csv
import json
import os
from importlib.metadata import version
from pathlib import Path

import pytest

from memlab.cli import build_parser, main
from memlab.cli.main import PROGRESS_VERBS, SET_VERBS
from memlab.config import load_config

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "datasets" / "sample-memory"
BEIR_MINI = REPO / "tests" / "data" / "beir-mini"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Facts\nThe staging database host is pg-stage-02.\n")
    (ws / "memory" / "2026-05-01.md").write_text(
        "The staging host moved.\n\n" + "filler line\n" * 40 + "\nstaging host notes: pg-b.\n")
    (ws / "memory" / "2026-05-02.md").write_text("Staging host checks ran on Tuesday.\n")
    return ws


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _hits(capsys, argv: list[str]) -> list[dict]:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)["results"]


def test_version_is_the_installed_packages(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"memlab {version('memlab')}\n"


def test_every_verb_has_help_and_its_shared_options(capsys):
    sub = next(a for a in build_parser()._actions if a.dest == "command")  # noqa: SLF001
    assert {"search", "index", "status", "eval", "sweep", "calibrate", "bench-providers",
            "export", "models", "demo"} <= set(sub.choices)
    for verb in sub.choices:
        with pytest.raises(SystemExit) as info:
            main([verb, "--help"])
        assert info.value.code == 0
        text = capsys.readouterr().out
        assert ("--set KEY=VALUE" in text) == (verb in SET_VERBS), verb
        assert ("--no-progress" in text) == (verb in PROGRESS_VERBS), verb
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0 and "--version" in capsys.readouterr().out


def test_models_lists_the_registry(capsys):
    from memlab.embed.models import PACKAGED_MODELS, packaged_models_table

    assert main(["models", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows == json.loads(json.dumps(packaged_models_table()))
    assert [r["alias"] for r in rows] == list(PACKAGED_MODELS)
    assert main(["models"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["alias", "package", "dims", "window", "languages", "installed"]
    for alias, spec in PACKAGED_MODELS.items():
        row = next(line.split() for line in lines if line.startswith(alias + " "))
        assert row[1:4] == [spec.package, str(spec.dims), str(spec.window or "none")]
        assert row[-1] == ("yes" if spec.installed() else "no")


def test_search_set_on_the_defaults(workspace, capsys):
    base = ["search", str(workspace), "staging host", "--json", "--no-index"]
    many = _hits(capsys, [*base, "--set", "provider=none"])
    assert len(many) >= 2
    one = _hits(capsys, [*base, "--set", "provider=none", "--set", "query.maxResults=1"])
    assert one == many[:1]


def test_search_set_over_a_config_file_in_each_layout(workspace, tmp_path, capsys):
    base = ["search", str(workspace), "staging host", "--json", "--no-index"]
    for name, text, key in [
        ("wrapper.json5", "{memorySearch: {provider: 'none', query: {maxResults: 5}}}",
         "memorySearch.query.maxResults"),
        ("whole.json5", "{agents: {defaults: {memorySearch: {provider: 'none'}}}}",
         "agents.defaults.memorySearch.query.maxResults"),
        ("whole-short.json5", "{agents: {defaults: {memorySearch: {provider: 'none'}}}}",
         "query.maxResults"),
    ]:
        cfg = _file(tmp_path, name, text)
        assert len(_hits(capsys, [*base, "--config", cfg])) >= 2, name
        assert len(_hits(capsys, [*base, "--config", cfg, "--set", f"{key}=1"])) == 1, name
    # 2026.9 (its own ranking: keyword-only hits pass a threshold tied to minScore)
    cfg = _file(tmp_path, "v9.json5", "{memory: {search: {provider: 'none'}}}")
    plain = _hits(capsys, [*base, "--config", cfg])
    for key in ("memory.search.query.minScore", "query.minScore"):
        assert _hits(capsys, [*base, "--config", cfg, "--set", f"{key}=0.9"]) != plain, key


def test_a_value_json5_reads_as_a_number_gets_a_hint(workspace, tmp_path, capsys):
    cfg = _file(tmp_path, "v7.json5", "{memorySearch: {provider: 'none'}}")
    argv = ["search", str(workspace), "staging host", "--no-index", "--config", cfg]
    assert main([*argv, "--set", "memlab.profile=2026.9"]) == 2
    err = capsys.readouterr().err
    assert "got 2026.9" in err and "read 2026.9 as a JSON5 number" in err
    assert """--set 'memlab.profile="2026.9"'""" in err
    # quoted, it is the profile: 2026.9 refuses the 2026.7 layout of this file
    assert main([*argv, "--set", 'memlab.profile="2026.9"']) == 2
    assert "use memory.search instead" in capsys.readouterr().err


def test_a_wrong_key_is_a_config_error_naming_it(workspace, tmp_path, capsys):
    cfg = _file(tmp_path, "oc.json5", "{memorySearch: {provider: 'none'}}")
    code = main(["search", str(workspace), "q", "--no-index", "--config", cfg,
                 "--set", "query.hybrid.vectorWeigth=0.6"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{cfg} with --set query.hybrid.vectorWeigth" in err
    assert "memorySearch.query.hybrid.vectorWeigth: unknown key" in err
    assert "allowed keys here:" in err and "vectorWeight" in err
    code = main(["search", str(workspace), "q", "--no-index", "--config", cfg,
                 "--set", "memory.search.provider=none"])
    assert code == 2 and "names the 2026.9 search block" in capsys.readouterr().err


def test_broken_json5_is_a_usage_error(workspace, capsys):
    with pytest.raises(SystemExit) as info:
        main(["search", str(workspace), "q", "--set", "query.maxResults=[1"])
    assert info.value.code == 2
    assert "is not valid JSON5" in capsys.readouterr().err


def test_eval_set_applies_to_every_system_and_keeps_their_names(capsys):
    argv = ["eval", str(SAMPLE), "--config", "keyword", "--config", "hybrid+rrf",
            "--metrics", "ndcg@10", "--resamples", "50", "--json", "--no-progress",
            "--set", "provider=none"]

    def means(extra: list[str]) -> dict[str, float]:
        assert main(argv + extra) == 0
        systems = json.loads(capsys.readouterr().out)["systems"]
        return {name: row["means"]["ndcg@10"] for name, row in systems.items()}

    plain = means([])
    assert list(plain) == ["keyword", "hybrid+rrf"]  # built-in names kept
    assert plain["keyword"] == plain["hybrid+rrf"]  # provider none: both keyword-only
    bm25 = means(["--set", "memlab.keyword=bm25", "--set", "memlab.match=any"])
    assert list(bm25) == ["keyword", "hybrid+rrf"]
    assert bm25["keyword"] != plain["keyword"]
    # the overrides were scoped to the command
    assert load_config({"memorySearch": {"provider": "none"}}).memlab.keyword == "fts5"


def test_calibrate_and_export_take_set(tmp_path, capsys):
    assert main(["calibrate", str(SAMPLE), "--config", "keyword", "--target-precision", "0.5",
                 "--json", "--set", "query.hybrid.candidateMultiplier=8"]) == 0
    capsys.readouterr()
    cfg = _file(tmp_path, "oc.json5", "{agents: {defaults: {memorySearch: {provider: 'none', "
                "query: {maxResults: 8}}}}}")
    assert main(["export", cfg, "--out", "-", "--set", "query.maxResults=4",
                 "--set", "query.hybrid.vectorWeight=0.6",
                 "--set", "query.hybrid.textWeight=0.4"]) == 0
    text = capsys.readouterr().out
    assert "maxResults: 4" in text and "vectorWeight: 0.6" in text


def test_sweep_set_changes_the_base(tmp_path, capsys):
    grid = _file(tmp_path, "grid.json5", '{"query.hybrid.candidateMultiplier": [4]}')
    out = tmp_path / "rows.csv"
    assert main(["sweep", str(BEIR_MINI), "--unknown-ids", "keep", "--grid", grid,
                 "--no-progress", "--set", "provider=none", "--out", str(out)]) == 0
    capsys.readouterr()
    with out.open() as fh:
        assert [row["mode"] for row in csv.DictReader(fh)] == ["fts-only"]


def test_no_progress_on_index_hides_bars_and_restores_the_environment(workspace, tmp_path,
                                                                      capsys, monkeypatch):
    monkeypatch.setenv("MEMLAB_PROGRESS", "1")  # bars forced on, even into a pipe
    cfg = _file(tmp_path, "oc.json5", "{memorySearch: {provider: 'none'}}")
    argv = ["index", str(workspace), "--config", cfg, "--index", str(tmp_path / "i.sqlite")]
    assert main([*argv, "--force"]) == 0
    assert "file/s]" in capsys.readouterr().err  # the indexing bar
    assert main([*argv, "--force", "--no-progress"]) == 0
    assert "file/s]" not in capsys.readouterr().err
    assert os.environ["MEMLAB_PROGRESS"] == "1"


def test_suppressed_restores_an_unset_variable(monkeypatch):
    from memlab.progress import show_progress, suppressed

    monkeypatch.delenv("MEMLAB_PROGRESS", raising=False)
    with suppressed():
        assert not show_progress(True)
    assert "MEMLAB_PROGRESS" not in os.environ
    with suppressed(False):
        assert "MEMLAB_PROGRESS" not in os.environ
