"""README figures, generated: re-run what the README quotes and rewrite its tables.

    python benchmarks/readme_figures.py                 # sample figures: rewrite README.md
    python benchmarks/readme_figures.py --check         # exit 1 when the README disagrees
    python benchmarks/readme_figures.py --collections cacm,scifact   # + those table rows

Each figure lives between markers in README.md, ``<!-- figures:NAME -->`` and
``<!-- /figures -->``, and is the output of one evaluation:

- ``sample-eval``: ``memlab eval datasets/sample-memory --config keyword --config vector
  --config hybrid --config hybrid+decay+mmr`` (the comparison table and its legend);
- ``sample-tags``: the same systems' nDCG@10 by tag (keyword, vector, hybrid);
- ``collections``: ``memlab eval ../shared/datasets/NAME --config keyword --config vector
  --config hybrid --unknown-ids keep --depth 100 --metrics ndcg@10,recall@100,map@100``, one
  row per collection. Collections take minutes each (the corpus is embedded), so only those
  named with ``--collections`` are re-run; the other rows are kept as they are.

``make readme-figures`` runs the sample figures; ``tests/test_readme_figures.py`` runs
``--check`` on them (about a minute, mostly embedding the sample with MiniLM).
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SAMPLE = ROOT / "datasets" / "sample-memory"
SHARED = ROOT.parent / "shared" / "datasets"
SAMPLE_SYSTEMS = ["keyword", "vector", "hybrid", "hybrid+decay+mmr"]
TAG_SYSTEMS = ["keyword", "vector", "hybrid"]
COLLECTION_SYSTEMS = ["keyword", "vector", "hybrid"]
COLLECTION_METRICS = ["ndcg@10", "recall@100", "map@100"]
_BLOCK = re.compile(r"(<!-- figures:(?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /figures -->)",
                    re.S)


def blocks(text: str) -> dict[str, str]:
    """The README's figure blocks by name (their text between the markers)."""
    return {m.group("name"): m.group("body") for m in _BLOCK.finditer(text)}


def replace_blocks(text: str, new: dict[str, str]) -> str:
    """``text`` with the named blocks' bodies replaced (other blocks untouched)."""
    def sub(m: re.Match) -> str:
        name = m.group("name")
        body = new.get(name, m.group("body"))
        return f"{m.group(1)}{body}{m.group(4)}"

    return _BLOCK.sub(sub, text)


def sample_figures() -> dict[str, str]:
    """The ``sample-eval`` and ``sample-tags`` blocks, computed."""
    from memlab.eval.datasets import load_dataset
    from memlab.eval.report import markdown_table
    from memlab.eval.systems import evaluate_systems

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(SAMPLE)
        cmp = evaluate_systems(ds, SAMPLE_SYSTEMS, by_tag=True)
    main = cmp.to_markdown(by_tag=False)
    tags = cmp.by_tag
    rows = []
    for tag in sorted(tags["tag"].unique()):
        sub = tags[tags["tag"] == tag].set_index("system")
        first = sub.iloc[0]
        cells = [tag, str(int(first["queries"])), str(int(first["judged"]))]
        for system in TAG_SYSTEMS:
            v = sub.loc[system, "ndcg@10"]
            cells.append("—" if v != v else f"{v:.3f}")
        rows.append(cells)
    table = markdown_table(["tag", "queries", "judged", *TAG_SYSTEMS], rows,
                           "lrr" + "r" * len(TAG_SYSTEMS))
    return {"sample-eval": f"\n{main}\n\n", "sample-tags": f"\n{table}\n\n"}


def collection_row(name: str) -> list[str]:
    """One collection's row: nDCG@10 then MAP@100 of keyword, vector, hybrid."""
    from memlab.eval.datasets import load_dataset
    from memlab.eval.systems import evaluate_systems

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(SHARED / name, unknown_ids="keep")
        cmp = evaluate_systems(ds, COLLECTION_SYSTEMS, COLLECTION_METRICS, depth=100)
    cells = [name]
    for metric in ("ndcg@10", "map@100"):
        cells += [f"{cmp.table.loc[s, metric]:.3f}" for s in COLLECTION_SYSTEMS]
    return cells


def collection_figures(body: str, names: list[str]) -> str:
    """The ``collections`` block with the rows of ``names`` re-measured (others kept)."""
    lines = body.strip("\n").split("\n")
    head, rows = lines[:2], lines[2:]
    by_name = {r.split("|")[1].strip(): r for r in rows}
    for name in names:
        by_name[name] = "| " + " | ".join(collection_row(name)) + " |"
    order = [r.split("|")[1].strip() for r in rows] + [n for n in names if n not in by_name]
    return "\n" + "\n".join([*head, *(by_name[n] for n in dict.fromkeys(order))]) + "\n\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 and show the differences when the README "
                        "disagrees")
    parser.add_argument("--collections", default="",
                        help="comma-separated shared collections to re-measure (e.g. cacm)")
    parser.add_argument("--readme", default=str(README))
    args = parser.parse_args(argv)
    path = Path(args.readme)
    text = path.read_text(encoding="utf-8")
    have = blocks(text)
    missing = [n for n in ("sample-eval", "sample-tags") if n not in have]
    if missing:
        print(f"{path}: no figure markers for {missing} (<!-- figures:NAME --> ... "
              "<!-- /figures -->)", file=sys.stderr)
        return 2
    new = sample_figures()
    names = [n.strip() for n in args.collections.split(",") if n.strip()]
    if names:
        new["collections"] = collection_figures(have.get("collections", ""), names)
    if args.check:
        import difflib

        bad = [n for n, body in new.items() if have.get(n) != body]
        for n in bad:
            print(f"README block {n!r} disagrees with a fresh run:", file=sys.stderr)
            sys.stderr.writelines(difflib.unified_diff(
                have.get(n, "").splitlines(True), new[n].splitlines(True), "README", "run"))
        return 1 if bad else 0
    # read again just before writing: others may have edited the README meanwhile
    path.write_text(replace_blocks(path.read_text(encoding="utf-8"), new), encoding="utf-8")
    print(f"rewrote {', '.join(new)} in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
