"""The files in examples/ that the README names load and validate."""

from pathlib import Path

from memlab.cli.sweep import load_grid
from memlab.config import load_config
from memlab.tune.sweep import expand_grid

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_example_configs_validate():
    whole = load_config(EXAMPLES / "openclaw.json5").memory_search
    assert whole.query.hybrid.mmr.enabled and whole.query.max_results == 6
    mine = load_config(EXAMPLES / "mine.json5")
    assert mine.memory_search.query.hybrid.vector_weight == 0.5
    assert mine.memlab.keyword == "bm25"


def test_example_grid_expands_without_inert_rows():
    grid, base = load_grid(EXAMPLES / "grid.json5")
    overrides, _ = expand_grid(grid)
    assert base is None and len(overrides) == 4 * 2 * 2 * (1 + 2)


def test_readme_names_only_files_that_exist():
    import re

    readme = (EXAMPLES.parent / "README.md").read_text(encoding="utf-8")
    for name in re.findall(r"examples/[\w./-]+\.json5", readme):
        assert (EXAMPLES.parent / name).is_file(), name
    assert "mine.json5" not in readme.replace("examples/mine.json5", "")
