from pathlib import Path

import pytest

from memlab.eval.datasets import load_dataset
from memlab.eval.systems import NAMED_SYSTEMS, evaluate_systems, resolve_system

SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "sample-memory"


def test_named_systems_are_valid_configs():
    for name in NAMED_SYSTEMS:
        resolved, cfg = resolve_system(name)
        assert resolved == name
    assert resolve_system("keyword")[1].memory_search.resolved_provider() == "none"
    assert resolve_system("hybrid+rrf")[1].memlab.fusion.method == "rrf"


def test_config_file_and_unknown_name(tmp_path):
    path = tmp_path / "mine.json5"
    path.write_text('{memorySearch: {provider: "none", query: {maxResults: 3}}}')
    name, cfg = resolve_system(str(path))
    assert name == "mine" and cfg.memory_search.query.max_results == 3
    with pytest.raises(ValueError, match="unknown system"):
        resolve_system("no-such-system")


def test_keyword_systems_on_the_sample(tmp_path):
    ds = load_dataset(SAMPLE)
    tfidf = tmp_path / "tfidf.json5"
    tfidf.write_text('{memorySearch: {provider: "none"}, memlab: {keyword: "tfidf"}}')
    result = evaluate_systems(ds, ["keyword", str(tfidf)], ["ndcg@10", "recall@10"],
                              by_tag=True, runs_dir=tmp_path / "runs", n_resamples=500)
    assert list(result.table.index) == ["keyword", "tfidf"]
    assert 0 < result.table.loc["keyword", "ndcg@10"] < 1
    assert set(result.by_tag["tag"]) >= {"exact", "cjk", "thai", "none"}
    runs = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert runs == ["keyword.run", "tfidf.run"]
    first = (tmp_path / "runs" / "keyword.run").read_text().splitlines()[0].split()
    assert len(first) == 6 and "#L" in first[2]
