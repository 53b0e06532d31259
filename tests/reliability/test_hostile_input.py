"""Issue 18, input items: queries bounded in the work they cause (7), dataset fields with the
wrong type or value named by file and line (14, 20)."""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import pytest

from memlab.text.keywords import MAX_QUERY_TERMS, QueryTruncated


@pytest.mark.parametrize("index", [True, False])
def test_a_query_of_one_word_repeated_43000_times_is_bounded(cli, workspace, none_config,
                                                            tmp_path, index):
    query = " ".join(["deploy"] * 43_000)
    where = ["--index", tmp_path / "i.sqlite"] if index else ["--no-index"]
    start = time.monotonic()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = cli("search", workspace, query, "--config", none_config, *where)
    assert time.monotonic() - start < 30, "more than 30 s for one query"
    assert result.code == 0, result
    assert any(issubclass(w.category, QueryTruncated) for w in caught) or \
        "43000 terms" in result.err


def test_query_terms_keep_openclaws_query_below_the_bound():
    from memlab.index.fts import build_fts_query

    assert build_fts_query("deploy deploy key") == '"deploy" AND "deploy" AND "key"'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        many = build_fts_query(" ".join(f"w{i}" for i in range(MAX_QUERY_TERMS + 50)))
    assert many.count(" AND ") == MAX_QUERY_TERMS - 1
    assert "searching its first 128 distinct terms" in str(caught[0].message)


def _dataset(root: Path, queries: list[dict], qrels: list[dict] | None = None) -> Path:
    (root / "workspace").mkdir(parents=True)
    (root / "workspace" / "MEMORY.md").write_text("# Facts\nThe deploy window is Tuesday.\n")
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    rows = qrels if qrels is not None else [
        {"query_id": queries[0]["id"], "path": "MEMORY.md", "start_line": 1, "end_line": 2}]
    (root / "qrels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


@pytest.mark.parametrize("bad, expected", [
    ({"tags": 5}, "queries.jsonl:2: 'tags' must be a list of strings, got 5"),
    ({"tags": ["ok", 3]}, "queries.jsonl:2: 'tags' must be a list of strings"),
    ({"now": "not-a-date"}, "queries.jsonl:2: 'now' 'not-a-date' is not an ISO-8601"),
    ({"now": 20261001}, "queries.jsonl:2: 'now' must be an ISO-8601 date-time string"),
])
def test_bad_query_fields_are_named_by_file_and_line(cli, tmp_path, bad, expected):
    root = _dataset(tmp_path / "ds", [{"id": "q1", "text": "deploy window"},
                                      {"id": "q2", "text": "when", **bad}])
    result = cli("eval", root, "--config", "keyword")
    assert result.code == 2, result
    assert expected in result.err, result


def test_nul_in_a_qrels_path_is_named_by_file_and_line(cli, tmp_path):
    root = _dataset(tmp_path / "ds", [{"id": "q1", "text": "deploy"}],
                    [{"query_id": "q1", "path": "MEMORY.md\x00.txt", "start_line": 1,
                      "end_line": 1}])
    result = cli("eval", root, "--config", "keyword")
    assert result.code == 2 and "qrels.jsonl:1: 'path'" in result.err, result


def test_now_values_with_and_without_a_zone_mix(tmp_path):
    from memlab.eval.datasets import load_memory_dataset

    root = _dataset(tmp_path / "ds", [
        {"id": "q1", "text": "deploy", "now": "2026-10-01T09:00:00Z"},
        {"id": "q2", "text": "window", "now": "2026-10-01T09:00:00"},
        {"id": "q3", "text": "tuesday", "now": "2026-10-01T11:00:00+02:00"}])
    ds = load_memory_dataset(root)
    assert ds.queries["now"].nunique() == 1
    assert str(ds.queries["now"].dt.tz) == "UTC"


# -- 11, 12: config size and depth ----------------------------------------------------------------


def test_a_50_mb_config_is_refused_quickly(cli, workspace, tmp_path):
    cfg = tmp_path / "big.json5"
    with cfg.open("w") as fh:
        fh.write('{"memorySearch": {"provider": "none"}, "notes": "')
        fh.write("x" * (50 * 1024 * 1024))
        fh.write('"}')
    start = time.monotonic()
    result = cli("search", workspace, "deploy", "--config", cfg, "--no-index")
    assert time.monotonic() - start < 10
    assert result.code == 2 and "larger than the 262144 bytes" in result.err, result


@pytest.mark.parametrize("where", ["memorySearch", "ignored"])
def test_a_deeply_nested_config_is_a_config_error(cli, workspace, tmp_path, where):
    deep = "[" * 60 + "]" * 60
    text = ('{"memorySearch": {"provider": "none", "extraPaths": ' + deep + "}}"
            if where == "memorySearch" else
            '{"memorySearch": {"provider": "none"}, "ui": {"x": ' + deep + "}}")
    cfg = tmp_path / "deep.json5"
    cfg.write_text(text)
    result = cli("search", workspace, "deploy", "--config", cfg, "--no-index")
    assert result.code == 2 and "more than 32 levels deep" in result.err, result


# -- 5: credentials in remote.baseUrl never exported ------------------------------------------


def test_base_url_credentials_are_not_exported():
    from memlab.config import dump_config, load_config

    cfg = load_config({"memorySearch": {
        "provider": "openai-compatible", "model": "m",
        "remote": {"baseUrl": "https://bob:s3cr3t-pw-77@embed.example/v1?api_key=qk-99887766",
                   "headers": {"Ocp-Apim-Subscription-Key": "sub-5566778899"}}}})
    text = dump_config(cfg)
    for secret in ("s3cr3t-pw-77", "qk-99887766", "sub-5566778899", "bob:"):
        assert secret not in text, text
    assert "https://***@embed.example/v1?api_key=***" in text
