"""``memlab export`` of 2026.9 sweep results with importance axes (``importance.FILE:LINE``,
issue 14 item 3): never written as config keys; refused with each entry, its importance, its
measured effect and the line to write, together with the config's own losses; ``--allow-lossy``
lists them in the header; ``--best-expressible`` skips them; a row with the files as written
exports as usual."""

from __future__ import annotations

import json5
import pandas as pd
import pytest

AXIS = "importance.MEMORY.md:2"


def run(argv, capsys):
    from memlab.cli.main import main

    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def workspace(tmp_path):
    root = tmp_path / "ds"
    (root / "workspace").mkdir(parents=True)
    (root / "workspace" / "MEMORY.md").write_text("# Notes\n- Deploy window is Tuesday\n")
    return root


def results(tmp_path, frame: pd.DataFrame, name: str = "rows.csv"):
    path = tmp_path / name
    (frame.to_parquet if name.endswith(".parquet") else frame.to_csv)(path, index=False)
    return path


def block(text: str) -> dict:
    return json5.loads(text[text.index("{"):])["memory"]["search"]


def test_one_refusal_lists_the_annotation_and_the_config_losses(tmp_path, capsys, workspace):
    rows = results(tmp_path, pd.DataFrame({
        AXIS: pd.array([7, None, 7], dtype="Int64"),
        "memlab.whatIf.halfLifeDays": [3650, 3650, 30],
        "ndcg@10": [0.52, 0.50, 0.49], "dataset": "ds"}), "rows.parquet")
    out = tmp_path / "cfg.json5"
    code, _, err = run(["export", str(rows), "--schema", "2026.9", "--dataset", str(workspace),
                        "--out", str(out)], capsys)
    assert code == 2 and not out.exists()
    assert f"{AXIS}: importance 7 on MEMORY.md line 2" in err
    assert "+0.0200 ndcg@10 (this row vs the same point with MEMORY.md as written)" in err
    assert "    - Deploy window is Tuesday <!-- importance: 7 -->" in err
    assert "memlab.whatIf.halfLifeDays" in err and "+0.0300 ndcg@10" in err  # vs 30 days
    code, _, err = run(["export", str(rows), "--schema", "2026.9", "--dataset", str(workspace),
                        "--out", str(out), "--allow-lossy"], capsys)
    assert code == 0
    text = out.read_text()
    assert "importance" not in block(text) and "whatIf" not in text.split("{", 1)[1]
    header = [line for line in text.splitlines() if line.startswith("//")]
    assert any("add to MEMORY.md line 2: - Deploy window is Tuesday <!-- importance: 7 -->"
               in line and "+0.0200" in line for line in header)
    assert any("memlab.whatIf.halfLifeDays = 3650" in line for line in header)


def test_other_schemas_refuse_it_too_and_say_2026_9_reads_it(tmp_path, capsys):
    rows = results(tmp_path, pd.DataFrame({AXIS: [3, None], "query.minScore": [0.2, 0.3],
                                           "ndcg@10": [0.4, 0.3]}))
    code, _, err = run(["export", str(rows), "--schema", "2026.7", "--out", "-"], capsys)
    assert code == 2 and "OpenClaw 2026.7 has no importance annotations" in err
    assert "end line 2 of MEMORY.md with <!-- importance: 3 -->" in err
    assert "effect not measured" in err  # the as-written row has another minScore


def test_best_expressible_skips_annotated_rows_and_as_written_rows_export(tmp_path, capsys):
    frame = pd.DataFrame({AXIS: pd.array([10, None, 1], dtype="Int64"),
                          "ndcg@10": [0.60, 0.55, 0.50], "dataset": "d"})
    rows = results(tmp_path, frame)
    code, text, _ = run(["export", str(rows), "--schema", "2026.9", "--out", "-",
                         "--best-expressible"], capsys)
    assert code == 0 and "rank: 2 of 3" in text and "cost of expressing: -0.0500" in text
    assert "importance" not in text.split("{", 1)[1]
    code, text, err = run(["export", str(rows), "--schema", "2026.9", "--out", "-", "--rank",
                           "2"], capsys)
    assert code == 0 and "not written" not in text + err  # the file as written: nothing to add
    code, _, err = run(["export", str(rows), "--schema", "2026.9", "--out", "-", "--rank",
                        "3"], capsys)
    assert code == 2 and "importance 1 on MEMORY.md line 2" in err and "-0.0500 ndcg@10" in err


def test_a_changed_workspace_is_named_instead_of_a_wrong_line(tmp_path, capsys, workspace):
    rows = results(tmp_path, pd.DataFrame({"importance.MEMORY.md:1": [4, None],
                                           "ndcg@10": [0.5, 0.4]}))
    code, _, err = run(["export", str(rows), "--schema", "2026.9", "--dataset", str(workspace),
                        "--out", "-"], capsys)
    assert code == 2 and "line 1 of MEMORY.md is not an entry" in err
    assert "has the file changed since the sweep?" in err
    assert "end line 1 of MEMORY.md with <!-- importance: 4 -->" in err
