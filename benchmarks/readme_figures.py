"""README figures, generated: re-run what the README quotes and rewrite its tables.

    python benchmarks/readme_figures.py                 # sample figures: rewrite README.md
    python benchmarks/readme_figures.py --check         # exit 1 when the README disagrees
    python benchmarks/readme_figures.py --collections cacm,scifact   # + those table rows

Each figure lives between markers in README.md, ``<!-- figures:NAME -->`` and
``<!-- /figures -->``, and is the output of one evaluation:

- ``sample-eval``: ``memlab eval datasets/sample-memory --config keyword --config vector
  --config hybrid --config hybrid+decay+mmr`` (the comparison table and its legend, and how
  many of the chunks the vector leg embeds are longer than MiniLM's input window);
- ``sample-tags``: the same systems' nDCG@10 by tag (keyword, vector, hybrid);
- ``sample-sessions``: nDCG@10 of the ``session`` queries keyword-only, without and with
  session transcripts (``sources: ["memory", "sessions"]``, ``experimental.sessionMemory``);
- ``sample-data``: what the sample holds (files memlab indexes, transcripts, queries and their
  tags, judgments);
- ``collections``: ``memlab eval ../shared/datasets/NAME --config keyword --config vector
  --config hybrid --unknown-ids keep --depth 100 --metrics ndcg@10,recall@100,map@100``, one
  row per collection, and the sentence comparing hybrid with the better leg on each. Collections
  take minutes each (the corpus is embedded), so only those named with ``--collections`` are
  re-run; the other rows are kept as they are (``--check`` without ``--collections`` does not
  look at them).

``make readme-figures`` runs the sample figures; ``tests/test_readme_figures.py`` runs
``--check`` on them in ``make test`` (about a minute on two cores, mostly embedding the sample
with MiniLM and 10,000 bootstrap resamples per comparison).
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
#: Keyword-only with session transcripts indexed (the ``sample-sessions`` figure).
SESSIONS_SYSTEM = {"memorySearch": {"provider": "none", "sources": ["memory", "sessions"],
                                    "experimental": {"sessionMemory": True}}}
#: nDCG@10 differences up to this are called a tie in the collections sentence (the table
#: rounds to three decimals).
TIE = 0.005
_BLOCK = re.compile(r"(<!-- figures:(?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /figures -->)",
                    re.S)


def blocks(text: str) -> dict[str, str]:
    """The README's figure blocks by name (their text between the markers).

    >>> blocks("x\\n<!-- figures:a -->\\n| 1 |\\n<!-- /figures -->\\n")
    {'a': '| 1 |\\n'}
    """
    return {m.group("name"): m.group("body") for m in _BLOCK.finditer(text)}


def replace_blocks(text: str, new: dict[str, str]) -> str:
    """``text`` with the named blocks' bodies replaced (other blocks untouched).

    >>> replace_blocks("<!-- figures:a -->\\nold\\n<!-- /figures -->", {"a": "new\\n"})
    '<!-- figures:a -->\\nnew\\n<!-- /figures -->'
    """
    def sub(m: re.Match) -> str:
        name = m.group("name")
        body = new.get(name, m.group("body"))
        return f"{m.group(1)}{body}{m.group(4)}"

    return _BLOCK.sub(sub, text)


def _quiet_dataset(path: Path, **kwargs):
    from memlab.eval.datasets import load_dataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(path, **kwargs)


def window_line(ds) -> str:
    """The sample's chunks as the vector and hybrid systems embed them (the provider's input
    cap applied) against MiniLM's input window, counted by its tokenizer."""
    from memlab.embed.window import window_report
    from memlab.eval.systems import dataset_corpus, resolve_system
    from memlab.openclaw import make_embedder

    _, cfg = resolve_system("vector")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        texts = dataset_corpus(ds, cfg, make_embedder(cfg)).chunks["text"].tolist()
        report = window_report(texts, "minilm")
    return (f"{report.over} of the {report.chunks} chunks the vector and hybrid systems embed "
            f"are longer than {report.model}'s {report.window}-token window and are embedded "
            f"truncated (longest {report.max_tokens} tokens; `memlab eval` reports this for "
            "each packaged local model).")


def data_line(ds) -> str:
    """The sample's contents, as memlab loads them."""
    from memlab.eval.systems import dataset_corpus, resolve_system

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        corpus = dataset_corpus(ds, resolve_system("keyword")[1])
    transcripts = sorted((Path(ds.workspace) / "sessions").rglob("*.jsonl"))
    tags = sorted({t for ts in ds.queries["tags"] for t in ts})
    skipped = (f" (plus {len(corpus.skipped)} that OpenClaw's discovery rules skip)"
               if corpus.skipped else "")
    return (f"{len(corpus.files)} Markdown files{skipped} and {len(transcripts)} session "
            f"transcripts, {len(ds.queries)} queries tagged by kind ({', '.join(tags)}), "
            f"{len(ds.qrels)} line-span judgments.")


def sessions_line(ds) -> str:
    """nDCG@10 of the sample's ``session`` queries keyword-only, without and with transcripts."""
    from memlab.eval.systems import evaluate_systems

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sessions = evaluate_systems(ds, ["keyword", SESSIONS_SYSTEM], ["ndcg@10"], by_tag=True,
                                    n_resamples=1000)
    st = sessions.by_tag[sessions.by_tag["tag"] == "session"].set_index("system")
    without, with_ = (float(st.loc[s, "ndcg@10"]) for s in sessions.table.index)
    return (f"Keyword-only (`provider: \"none\"`), nDCG@10 on the {int(st['judged'].iloc[0])} "
            f"`session` queries is {without:.3f} without transcripts and {with_:.3f} with them.")


def sample_figures() -> dict[str, str]:
    """The ``sample-eval``, ``sample-tags``, ``sample-sessions`` and ``sample-data`` blocks,
    computed."""
    from memlab.eval.report import markdown_table
    from memlab.eval.systems import evaluate_systems

    ds = _quiet_dataset(SAMPLE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
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
    return {"sample-eval": f"\n{main}\n\n{window_line(ds)}\n\n",
            "sample-tags": f"\n{table}\n\n",
            "sample-sessions": f"\n{sessions_line(ds)}\n\n",
            "sample-data": f"\n{data_line(ds)}\n\n"}


def collection_row(name: str) -> list[str]:
    """One collection's row: nDCG@10 then MAP@100 of keyword, vector, hybrid."""
    from memlab.eval.systems import evaluate_systems

    ds = _quiet_dataset(SHARED / name, unknown_ids="keep")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = evaluate_systems(ds, COLLECTION_SYSTEMS, COLLECTION_METRICS, depth=100)
    cells = [name]
    for metric in ("ndcg@10", "map@100"):
        cells += [f"{cmp.table.loc[s, metric]:.3f}" for s in COLLECTION_SYSTEMS]
    return cells


def collection_summary(rows: list[list[str]]) -> str:
    """The sentence comparing hybrid's nDCG@10 with the better leg on each collection row
    (``[name, keyword, vector, hybrid, ...]``, as in the table).

    >>> collection_summary([["a", "0.1", "0.4", "0.5"]])
    'nDCG@10: hybrid beats both legs on a (0.500 vs 0.400 for vector).'
    """
    tie = f"ties (within {TIE})"
    groups: dict[str, list[str]] = {"beats both legs on": [], tie: [], "falls below": []}
    for name, *cells in rows:
        kw, vec, hyb = (float(c) for c in cells[:3])
        leg, best = ("vector", vec) if vec >= kw else ("keyword", kw)
        if hyb - best > TIE:
            groups["beats both legs on"].append(f"{name} ({hyb:.3f} vs {best:.3f} for {leg})")
        elif abs(hyb - best) <= TIE:
            groups[tie].append(f"{leg} on {name} ({hyb:.3f} vs {best:.3f})")
        else:
            groups["falls below"].append(f"{leg} alone on {name} ({hyb:.3f} vs {best:.3f})")
    parts = [f"{verb} {', '.join(items)}" for verb, items in groups.items() if items]
    return f"nDCG@10: hybrid {'; '.join(parts)}."


def collection_figures(body: str, names: list[str]) -> str:
    """The ``collections`` block with the rows of ``names`` re-measured (others kept) and its
    sentence rewritten from the rows."""
    lines = [line for line in body.strip("\n").split("\n") if line.startswith("|")]
    head, rows = lines[:2], lines[2:]
    by_name = {r.split("|")[1].strip(): r for r in rows}
    for name in names:
        by_name[name] = "| " + " | ".join(collection_row(name)) + " |"
    order = list(dict.fromkeys([r.split("|")[1].strip() for r in rows] + names))
    table = [by_name[n] for n in order]
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in table]
    return ("\n" + "\n".join([*head, *table]) + "\n\n" + collection_summary(cells) + "\n\n")


def gate_figure() -> str:
    """The ``quality-gate`` block: :func:`memlab.tune.gate.quality_gate` on the sample
    (5-fold CV; the overall, per-fold and per-tag tables and the verdict)."""
    from memlab.tune.gate import quality_gate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gate = quality_gate(SAMPLE)
    return f"\n{gate.to_markdown()}\n\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 and show the differences when the README "
                        "disagrees")
    parser.add_argument("--collections", default="",
                        help="comma-separated shared collections to re-measure (e.g. cacm)")
    parser.add_argument("--readme", default=str(README))
    parser.add_argument("--gate", action="store_true",
                        help="also re-run the quality gate (the quality-gate block; slow)")
    args = parser.parse_args(argv)
    path = Path(args.readme)
    text = path.read_text(encoding="utf-8")
    have = blocks(text)
    missing = [n for n in ("sample-eval", "sample-tags", "sample-sessions", "sample-data")
               if n not in have]
    names = [n.strip() for n in args.collections.split(",") if n.strip()]
    if args.gate and "quality-gate" not in have:
        missing.append("quality-gate")
    if names and "collections" not in have:
        missing.append("collections")
    if missing:
        print(f"{path}: no figure markers for {missing} (<!-- figures:NAME --> ... "
              "<!-- /figures -->)", file=sys.stderr)
        return 2
    new = sample_figures()
    if args.gate:
        new["quality-gate"] = gate_figure()
    if names:
        new["collections"] = collection_figures(have["collections"], names)
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
