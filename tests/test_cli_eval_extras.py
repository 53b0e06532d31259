"""``memlab eval --out``, ``--against best|all`` and the warning for metrics deeper than
``--depth`` (keyword-only systems: no model)."""

from pathlib import Path

from memlab.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "sample-memory"


def test_eval_out_against_all_and_depth_warning(tmp_path, capsys):
    tfidf = tmp_path / "tfidf.json5"
    tfidf.write_text('{memorySearch: {provider: "none"}, memlab: {keyword: "tfidf"}}')
    out = tmp_path / "eval.md"
    code = main(["eval", str(SAMPLE), "--config", "keyword", "--config", str(tfidf),
                 "--metrics", "ndcg@10,map@100", "--resamples", "300", "--against", "all",
                 "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "map@100 look deeper than --depth 10" in captured.err
    assert "Paired tests, all pairs:" in captured.out
    assert "| ndcg@10 | tfidf  | keyword |" in captured.out
    assert out.read_text(encoding="utf-8").strip() == captured.out.strip()


def test_eval_reports_chunks_over_the_model_window(capsys):
    from memlab.cli.eval import _report_truncation
    from memlab.eval import load_dataset

    _report_truncation(load_dataset(SAMPLE), ["keyword", "vector", "hybrid"])
    err = capsys.readouterr().err
    assert err.count("minilm reads 256 tokens") == 1  # once per model, not per system
    over, total = (int(x) for x in err.split("tokens: ")[1].split(" chunks")[0].split(" of "))
    assert 0 < over < total
