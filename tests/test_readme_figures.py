"""The README's sample figures are what a fresh run gives (benchmarks/readme_figures.py
--check; `make readme-figures` rewrites them). About a minute on two cores: the sample is
embedded with the packaged MiniLM (or read from the session's embedding cache) and four systems
are compared with 10,000 resamples. The shared collections' rows take minutes each and are
re-measured only by `make readme-figures README_COLLECTIONS=...`, not here."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("readme_figures",
                                                  ROOT / "benchmarks" / "readme_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_sample_figures_match_a_fresh_run(capsys):
    code = _script().main(["--check"])
    assert code == 0, capsys.readouterr().err


def test_blocks_are_replaced_in_place():
    mod = _script()
    text = ("a\n<!-- figures:x -->\nold\n<!-- /figures -->\n"
            "b\n<!-- figures:y -->\nkeep\n<!-- /figures -->\n")
    assert mod.blocks(text) == {"x": "old\n", "y": "keep\n"}
    assert mod.replace_blocks(text, {"x": "new\n"}) == text.replace("old", "new")


def test_a_remeasured_collection_row_replaces_only_its_row_and_rewrites_the_sentence(
        monkeypatch):
    mod = _script()
    body = ("\n| collection | nDCG@10 keyword | vector | hybrid | MAP@100 keyword | vector | "
            "hybrid |\n|---|---:|---:|---:|---:|---:|---:|\n"
            "| adi | 0.275 | 0.497 | 0.491 | 0.230 | 0.409 | 0.432 |\n"
            "| cacm | 0.161 | 0.456 | 0.408 | 0.099 | 0.296 | 0.332 |\n\n"
            "nDCG@10: hybrid falls below vector alone on adi (0.491 vs 0.497), cacm.\n\n")
    monkeypatch.setattr(mod, "collection_row",
                        lambda name: [name, "0.170", "0.450", "0.510", "0.1", "0.3", "0.3"])
    out = mod.collection_figures(body, ["cacm"])
    lines = out.strip().split("\n")
    assert lines[2] == "| adi | 0.275 | 0.497 | 0.491 | 0.230 | 0.409 | 0.432 |"
    assert lines[3] == "| cacm | 0.170 | 0.450 | 0.510 | 0.1 | 0.3 | 0.3 |"
    assert lines[-1] == ("nDCG@10: hybrid beats both legs on cacm (0.510 vs 0.450 for vector); "
                         "falls below vector alone on adi (0.491 vs 0.497).")


def test_the_summary_calls_differences_up_to_the_tie_margin_a_tie():
    mod = _script()
    text = mod.collection_summary([["cranfield", "0.061", "0.370", "0.372"],
                                   ["kw", "0.500", "0.300", "0.400"]])
    assert text == (f"nDCG@10: hybrid ties (within {mod.TIE}) vector on cranfield (0.372 vs "
                    "0.370); falls below keyword alone on kw (0.400 vs 0.500).")
