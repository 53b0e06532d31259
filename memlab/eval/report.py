"""Tables and exports for a :class:`~memlab.eval.experiment.Comparison`.

The formatters are written here rather than borrowed from pandas on purpose:
``DataFrame.to_markdown`` needs the optional ``tabulate`` package (not a memlab dependency),
and ``DataFrame.to_latex`` goes through ``Styler``, which needs ``jinja2`` (installed here only
as a transitive dependency of torch) and whose output has changed between pandas versions.
A table for a paper should not depend on either, so :func:`markdown_table` and
:func:`latex_table` are a few lines each and their output is pinned by the tests.

The main table has, per metric, the system's mean (with a marker when the difference from the
baseline is significant after Holm correction), the difference from the baseline with its
bootstrap confidence interval, and wins/losses/ties; a legend line says what is what.

>>> print(markdown_table(["system", "ndcg@10"], [["bm25", "0.412"]], "lr"))
| system | ndcg@10 |
|:-------|--------:|
| bm25   |   0.412 |
"""

from __future__ import annotations

import html
import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd


class ComparisonView(Protocol):
    """What the tables read from a :class:`~memlab.eval.experiment.Comparison` (a protocol, so
    this module does not import the one whose methods call it)."""

    table: pd.DataFrame
    tests: pd.DataFrame
    per_query: pd.DataFrame
    by_tag: pd.DataFrame | None
    evaluations: dict[str, Any]
    baseline: str
    metrics: list[str]
    level: str
    n_resamples: int
    seed: int | None
    confidence: float
    options: dict[str, Any]

    @property
    def systems(self) -> list[str]: ...

    @property
    def n_judged(self) -> int: ...

    @property
    def n_unjudged(self) -> int: ...

    @property
    def abstention(self) -> pd.DataFrame: ...


MARKER = "†"
TESTS = {"rand": "paired randomization test", "t": "paired t-test",
         "wilcoxon": "Wilcoxon signed-rank test"}
FORMATS = ("markdown", "latex", "text", "html")


# -- generic table writers -------------------------------------------------------------------

def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> str:
    """A padded GitHub-flavoured Markdown table; ``align`` has one ``l`` or ``r`` per column.
    A ``|`` inside a cell is escaped."""
    cells = [[c.replace("|", "\\|") for c in r] for r in (header, *rows)]
    widths = [max(3, *(len(r[j]) for r in cells)) for j in range(len(header))]

    def line(row: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if a == "l" else c.rjust(w)
                                 for c, w, a in zip(row, widths, align, strict=True)) + " |"

    rule = "|" + "|".join(":" + "-" * (w + 1) if a == "l" else "-" * (w + 1) + ":"
                          for w, a in zip(widths, align, strict=True)) + "|"
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])])


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters in plain text."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def latex_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> str:
    """A booktabs ``tabular`` (cells are inserted as given: escape them first)."""
    out = [f"\\begin{{tabular}}{{{align}}}", r"\toprule", " & ".join(header) + r" \\",
           r"\midrule", *(" & ".join(r) + r" \\" for r in rows), r"\bottomrule",
           r"\end{tabular}"]
    return "\n".join(out)


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> str:
    """A plain HTML table (cells are escaped)."""
    style = {"l": "left", "r": "right"}
    head = "".join(f'<th style="text-align:{style[a]}">{html.escape(h)}</th>'
                   for h, a in zip(header, align, strict=True))
    body = "".join("<tr>" + "".join(f'<td style="text-align:{style[a]}">{html.escape(c)}</td>'
                                    for c, a in zip(r, align, strict=True)) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# -- the comparison table --------------------------------------------------------------------

def _num(value: Any, digits: int, signed: bool = False) -> str:
    if value is None or (isinstance(value, float | np.floating) and math.isnan(value)):
        return "—"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def comparison_cells(cmp: ComparisonView, *, test: str = "rand", alpha: float = 0.05,
                     digits: int = 3, ci: bool = True, wlt: bool = True
                     ) -> tuple[list[str], list[list[str]], str, list[str]]:
    """Header, rows, alignment and the markers used (``[]`` or ``[MARKER]``) of the main
    table, as plain text cells (the marker is :data:`MARKER`)."""
    if test not in TESTS:
        raise ValueError(f"test must be one of {sorted(TESTS)}, got {test!r}")
    header, align = ["system"], "l"
    for m in cmp.metrics:
        header.append(m)
        align += "r"
        header.append(f"Δ {m}")
        align += "r"
        if wlt:
            header.append(f"W/L/T {m}")
            align += "r"
    rows, used = [], []
    for name, row in cmp.table.iterrows():
        cells = [str(name)]
        for m in cmp.metrics:
            p = row[f"{m} p_{test}"]
            mark = MARKER if not pd.isna(p) and p < alpha else ""
            if mark and not used:
                used.append(mark)
            cells.append(_num(row[m], digits) + mark)
            if name == cmp.baseline:
                cells.append("—")
            else:
                delta = _num(row[f"{m} delta"], digits, signed=True)
                if ci and not pd.isna(row[f"{m} ci_low"]):
                    delta += (f" [{_num(row[f'{m} ci_low'], digits, signed=True)}, "
                              f"{_num(row[f'{m} ci_high'], digits, signed=True)}]")
                cells.append(delta)
            if wlt:
                cells.append("—" if name == cmp.baseline else
                             f"{row[f'{m} wins']}/{row[f'{m} losses']}/{row[f'{m} ties']}")
        rows.append(cells)
    return header, rows, align, used


def legend(cmp: ComparisonView, *, test: str = "rand", alpha: float = 0.05, ci: bool = True,
           wlt: bool = True) -> str:
    """One plain-text paragraph saying what the columns and markers mean."""
    n_comp = int(cmp.tests[f"p_{test}_raw"].notna().sum()) if len(cmp.tests) else 0
    delta = f"Δ: difference from the baseline ({cmp.baseline})"
    if ci:
        delta += f" with its {cmp.confidence:.0%} bootstrap CI"
    parts = [delta]
    if wlt:
        parts.append("W/L/T: queries where the system beats / loses to / ties the baseline")
    parts.append(f"{MARKER} p < {alpha:g}, {TESTS[test]}, Holm-corrected over {n_comp} "
                 f"comparison{'s' if n_comp != 1 else ''}")
    text = "; ".join(parts) + f". {cmp.n_judged} judged queries"
    if cmp.n_unjudged:
        text += f" ({cmp.n_unjudged} without judgments reported apart)"
    if ci or test == "rand":
        text += f"; {cmp.n_resamples} resamples, seed {cmp.seed}"
    shares = cmp.options.get("unjudged_share")
    if shares:  # pooled labels: how much of each run no judgment covers
        text += ("; unjudged hits: " + ", ".join(f"{s} {v:.0%}" for s, v in shares.items()
                                                  if v == v))
        if cmp.options.get("condensed"):
            text += " (condensed lists: only judged hits scored)"
    return text + "."


def tag_cells(cmp: ComparisonView, metric: str, *, digits: int = 3
              ) -> tuple[list[str], list[list[str]], str]:
    """Per-tag table for one metric: tag, queries, judged, then each system's mean."""
    if cmp.by_tag is None:
        raise ValueError("this comparison has no by-tag breakdown (compare(..., by_tag=True))")
    wide = cmp.by_tag.pivot(index="tag", columns="system", values=metric)
    counts = cmp.by_tag.loc[cmp.by_tag["system"] == cmp.baseline].set_index("tag")
    header = ["tag", "queries", "judged", *cmp.systems]
    rows = [[str(tag), str(counts.at[tag, "queries"]), str(counts.at[tag, "judged"]),
             *(_num(wide.at[tag, s], digits) for s in cmp.systems)] for tag in counts.index]
    return header, rows, "lrr" + "r" * len(cmp.systems)


def format_comparison(cmp: ComparisonView, fmt: str = "markdown", *, test: str = "rand",
                      alpha: float = 0.05, digits: int = 3, ci: bool = True, wlt: bool = True,
                      by_tag: bool = True) -> str:
    """The comparison as ``markdown``, ``latex``, ``text`` (``repr``) or ``html``.

    ``test`` picks the p-value behind the marker (``rand``, ``t`` or ``wilcoxon``, always
    Holm-corrected); ``alpha`` its threshold; ``ci`` and ``wlt`` add the confidence interval
    and the wins/losses/ties columns; ``by_tag`` appends one per-tag table per metric when
    the comparison has them.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    header, rows, align, _ = comparison_cells(cmp, test=test, alpha=alpha, digits=digits,
                                              ci=ci, wlt=wlt)
    note = legend(cmp, test=test, alpha=alpha, ci=ci, wlt=wlt)
    tags = ([(m, *tag_cells(cmp, m, digits=digits)) for m in cmp.metrics]
            if by_tag and cmp.by_tag is not None else [])
    if fmt in ("markdown", "text"):
        parts = [markdown_table(header, rows, align), "", note]
        for m, h, r, a in tags:
            parts += ["", f"{m} by tag (mean over judged queries):", "", markdown_table(h, r, a)]
        text = "\n".join(parts)
        if fmt == "text":
            text = (f"Comparison of {len(cmp.systems)} systems against {cmp.baseline!r} "
                    f"({cmp.level} level)\n\n" + text)
        return text
    if fmt == "html":
        parts = [html_table(header, rows, align), f"<p>{html.escape(note)}</p>"]
        for m, h, r, a in tags:
            parts += [f"<p>{html.escape(m)} by tag (mean over judged queries):</p>",
                      html_table(h, r, a)]
        return "\n".join(parts)
    return _latex(header, rows, align, note, tags)


def _latex_cell(cell: str) -> str:
    cell = latex_escape(cell).replace(MARKER, r"$^{\dagger}$").replace("—", "--")
    return cell.replace("Δ", r"$\Delta$").replace(" < ", " $<$ ")


def _latex(header, rows, align, note, tags) -> str:
    def table(h, r, a):
        return latex_table([_latex_cell(c) for c in h], [[_latex_cell(c) for c in row]
                                                          for row in r], a)

    parts = [r"% needs \usepackage{booktabs}", table(header, rows, align), "",
             r"{\footnotesize " + _latex_cell(note) + "}"]
    for m, h, r, a in tags:
        parts += ["", r"{\footnotesize " + _latex_cell(f"{m} by tag (mean over judged queries)")
                  + "}", "", table(h, r, a)]
    return "\n".join(parts)


# -- machine-readable exports ----------------------------------------------------------------

def comparison_csv(cmp: ComparisonView, path: str | Path | None = None, *,
                   what: str = "table") -> str | None:
    """``cmp.table`` (or ``tests``, ``per_query``, ``by_tag``, ``abstention``) as CSV."""
    frames = {"table": lambda: cmp.table, "tests": lambda: cmp.tests,
              "per_query": lambda: cmp.per_query, "by_tag": lambda: cmp.by_tag,
              "abstention": lambda: cmp.abstention}
    if what not in frames:
        raise ValueError(f"what must be one of {sorted(frames)}, got {what!r}")
    frame = frames[what]()
    if frame is None:
        raise ValueError("this comparison has no by-tag breakdown (compare(..., by_tag=True))")
    index = what == "table"
    if path is None:
        buf = io.StringIO()
        frame.to_csv(buf, index=index, lineterminator="\n")
        return buf.getvalue()
    frame.to_csv(path, index=index, lineterminator="\n")
    return None


def _json(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    if value is None or value is pd.NA:
        return None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def comparison_dict(cmp: ComparisonView) -> dict[str, Any]:
    """Plain-JSON dict: settings, per-system means and tests, per-tag means, abstention."""
    systems: dict[str, Any] = {}
    tests = cmp.tests.set_index(["system", "metric"]) if len(cmp.tests) else None
    for name in cmp.systems:
        entry: dict[str, Any] = {"queries": cmp.table.at[name, "queries"],
                                 "means": {m: cmp.table.at[name, m] for m in cmp.metrics}}
        if name != cmp.baseline and tests is not None:
            entry["vs_baseline"] = {
                m: {"delta": tests.at[(name, m), "delta"],
                    "ci": [tests.at[(name, m), "ci_low"], tests.at[(name, m), "ci_high"]],
                    "wins": tests.at[(name, m), "wins"],
                    "losses": tests.at[(name, m), "losses"],
                    "ties": tests.at[(name, m), "ties"],
                    "p": {t: tests.at[(name, m), f"p_{t}"] for t in TESTS},
                    "p_raw": {t: tests.at[(name, m), f"p_{t}_raw"] for t in TESTS}}
                for m in cmp.metrics}
        systems[name] = entry
    out: dict[str, Any] = {
        "baseline": cmp.baseline, "level": cmp.level, "metrics": list(cmp.metrics),
        "judged_queries": cmp.n_judged, "unjudged_queries": cmp.n_unjudged,
        "n_resamples": cmp.n_resamples, "seed": cmp.seed, "confidence": cmp.confidence,
        "correction": "holm", "systems": systems, "by_tag": None, "abstention": None,
        "unjudged_share": cmp.options.get("unjudged_share"),
        "condensed": bool(cmp.options.get("condensed", False)),
    }
    if cmp.by_tag is not None:
        out["by_tag"] = {
            name: {row["tag"]: {"queries": row["queries"], "judged": row["judged"],
                                "means": {m: row[m] for m in cmp.metrics}}
                   for _, row in group.iterrows()}
            for name, group in cmp.by_tag.groupby("system", sort=False)}
    if cmp.n_unjudged:
        out["abstention"] = {}
        for name, ev in cmp.evaluations.items():
            view = ev.abstention()
            out["abstention"][name] = {**view.drop(columns="auc").to_dict("index"),
                                       "auc": view["auc"].iloc[0]}
    return _json(out)
