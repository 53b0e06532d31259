"""docs/models.md's tables are rendered from benchmarks/model_table.py's result files
(``--render ... --write docs/models.md``), not typed: the rendering and the block rewrite."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location("model_table",
                                                      ROOT / "benchmarks" / "model_table.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return module


def _row(alias, vector, thai, **collections):
    return {"alias": alias, "languages": ["en"], "dims": 384, "window": 256,
            "window_report": {"over": 3, "chunks": 10, "share": 0.3},
            "docs_per_s": 12.34, "loadavg_before": [5.0, 4.0, 3.0],
            "loadavg_after": [7.0, 4.0, 3.0], "sample_vector": vector, "sample_hybrid": 0.5,
            "sample_vector_tags": {"thai": thai, "cjk": 0.2},
            "sample_hybrid_tags": {"thai": 0.1, "cjk": 0.3}, **collections}


PAYLOAD = {"machine": {"cpus": 2}, "collections": ["cacm"], "keyword_hybrid_model": "minilm",
           "models": [_row("minilm", 0.4, 0.3, cacm_vector=0.45, cacm_hybrid=0.5),
                      _row("use-multilingual", 0.55, 0.6)],
           "keyword_paths": [{"path": "FTS5 unicode61", "exports_to": "x", "keyword_all": 0.3,
                              "keyword_cjk": 0.2, "keyword_thai": 0.0, "hybrid_all": 0.5,
                              "hybrid_cjk": 0.4, "hybrid_thai": 0.3}]}


def test_the_model_table_shows_load_beside_docs_per_s_and_names_what_was_not_measured():
    text = _script().render_models(PAYLOAD)
    assert "| `minilm` | en | 384 | 256 | 3/10 (30%) | 12.3 (5.0) | — | 0.400 | 0.500 | 0.450 | " \
        "0.500 |" in text
    assert "| `use-multilingual` | en | 384 | 256 | 3/10 (30%) | 12.3 (5.0) | — | 0.550 | " \
        "0.500 | — | — |" in text
    assert "load average 5.0-7.0" in text
    assert "not measured in the runs rendered here (`use-multilingual` on cacm)" in text
    assert ("Best vector-only nDCG@10 on the sample: `use-multilingual` 0.550 (`minilm` 0.400); "
            "on its `cjk` queries: `use-multilingual` 0.200 (`minilm` 0.200)") in text


def test_write_doc_rewrites_only_the_marked_blocks(tmp_path):
    mod = _script()
    doc = tmp_path / "models.md"
    doc.write_text("intro\n<!-- figures:model-table -->\nold\n<!-- /figures -->\nmiddle\n"
                   "<!-- figures:keyword-paths -->\nold\n<!-- /figures -->\nend\n")
    mod.write_doc(doc, PAYLOAD)
    text = doc.read_text()
    assert text.startswith("intro\n<!-- figures:model-table -->\n\nnDCG@10. Machine: 2 CPUs")
    assert "old" not in text and "\nmiddle\n" in text and text.endswith("<!-- /figures -->\nend\n")
    assert "| FTS5 unicode61 | 0.300 | 0.200 | 0.000 | 0.500 | 0.400 | 0.300 | x |" in text


def test_write_doc_names_missing_markers(tmp_path):
    doc = tmp_path / "models.md"
    doc.write_text("no markers\n")
    with pytest.raises(SystemExit, match="model-table"):
        _script().write_doc(doc, PAYLOAD)


def test_render_merges_runs_of_one_model_and_writes_the_model_window_block(tmp_path, capsys):
    import json

    mod = _script()
    window_run = {**PAYLOAD, "collections": [], "keyword_paths": [],
                  "models": [{**_row("minilm", 0.4, 0.3), "model_window_chunks": 13,
                              "sample_vector_model_window": 0.39,
                              "sample_hybrid_model_window": 0.48}]}
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(window_run))
    second.write_text(json.dumps(PAYLOAD))
    doc = tmp_path / "models.md"
    doc.write_text("<!-- figures:model-table -->\n<!-- /figures -->\n"
                   "<!-- figures:model-window -->\n<!-- /figures -->\n"
                   "<!-- figures:keyword-paths -->\n<!-- /figures -->\n")
    assert mod.main(["--render", str(first), str(second), "--write", str(doc)]) == 0
    text = doc.read_text()
    assert "| `minilm` | 256 | 3/10 | 0.400 | 0.500 | 13 | 0.390 | 0.480 |" in text
    assert "| `minilm` | en | 384 | 256 | 3/10 (30%) | 12.3 (5.0) | — | 0.400 | 0.500 | 0.450 |" \
        in text
    assert "| `minilm` | 256 | 3/10 | 0.400 | 0.500 | 13 |" in capsys.readouterr().out


def test_a_collection_over_the_budget_says_not_measured_with_the_estimate_and_cpu_per_wall():
    reason = "embedding its 5183 chunks was estimated at 40 CPU min (a probe of 64)"
    row = {**_row("e5-small-multilingual", 0.57, 0.6, cacm_vector=0.4, cacm_hybrid=0.5),
           "docs_per_cpu_s": 1.46, "cpu_per_wall": 1.92, "scifact_not_measured": reason}
    text = _script().render_models({**PAYLOAD, "collections": ["cacm", "scifact"],
                                    "models": [row]})
    assert ("| 12.3 (5.0, 1.9) | 1.5 | 0.570 | 0.500 | 0.400 | 0.500 | not measured | "
            "not measured |") in text
    assert f"not measured: `e5-small-multilingual` on scifact: {reason}." in text
    assert "not measured in the runs rendered here" not in text  # the reason replaces it
    assert "CPU/wall ratio" in text


class _Clocked:
    """A provider whose embedding burns CPU in proportion to the text lengths."""

    def __init__(self):
        self.seen = []

    def embed_documents(self, texts):
        self.seen.extend(texts)
        total = sum(len(t) for t in texts)
        x = 0
        for i in range(total * 2000):
            x += i
        return [[0.0]] * len(texts)


def test_docs_per_second_reports_wall_cpu_and_their_ratio():
    rates = _script().docs_per_second(_Clocked(), ["ab"] * 10, repeat=2)
    assert rates["docs_per_s"] > 0 and rates["docs_per_cpu_s"] > 0
    assert 0.05 < rates["cpu_per_wall"] <= 2.5  # one busy thread, give or take a loaded box
    assert rates["docs_per_cpu_s"] >= rates["docs_per_s"] * 0.4


def test_probe_embeds_evenly_spaced_texts_and_scales_to_all():
    mod = _script()
    provider = _Clocked()
    texts = [f"{i:03d}" for i in range(100)]
    estimate = mod.probe_cpu_minutes(provider, texts, probe=10)
    assert provider.seen == texts[::10]
    assert estimate > 0
    assert mod.probe_cpu_minutes(_Clocked(), [], probe=10) == 0.0
