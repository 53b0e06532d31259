"""Comparison exports: exact Markdown / LaTeX text for a tiny table, CSV, JSON, HTML."""

import io
import json

import pandas as pd
import pytest

from memlab.eval.experiment import compare
from memlab.eval.report import format_comparison, latex_escape, markdown_table

N = 8


def _run(first: set[int]) -> pd.DataFrame:
    """The relevant line ranks 1st for queries in ``first``, 2nd otherwise; q9 is unjudged."""
    rows = []
    for i in range(1, N + 1):
        order = [("notes.md", i), ("other.md", 1)] if i in first else [("other.md", 1),
                                                                       ("notes.md", i)]
        rows += [(f"q{i}", path, line, line, 1.0 / rank, rank)
                 for rank, (path, line) in enumerate(order, start=1)]
    rows.append((f"q{N + 1}", "other.md", 1, 1, 0.2, 1))
    return pd.DataFrame(rows, columns=["qid", "path", "start_line", "end_line", "score", "rank"])


@pytest.fixture(scope="module")
def cmp():
    queries = pd.DataFrame({
        "qid": [f"q{i}" for i in range(1, N + 2)], "query": "x",
        "tags": [["exact"]] * 4 + [["paraphrase"]] * 4 + [["none"]]})
    qrels = pd.DataFrame({"qid": [f"q{i}" for i in range(1, N + 1)], "path": "notes.md",
                          "start_line": range(1, N + 1), "end_line": range(1, N + 1),
                          "grade": 1})
    # mrr@10: bm25 0.5 everywhere; hybrid_v2 1.0 on q1-q6 -> 6 wins, 2 ties, delta 0.375;
    # exact randomization p = 2/64 (all six nonzero differences positive)
    runs = {"bm25": _run(set()), "hybrid_v2": _run({1, 2, 3, 4, 5, 6})}
    return compare(runs, qrels, ["mrr@10"], queries, by_tag=True, seed=0)


LEGEND = ("Δ: difference from the baseline (bm25) with its 95% bootstrap CI; W/L/T: queries "
          "where the system beats / loses to / ties the baseline; † p < 0.05, paired "
          "randomization test, Holm-corrected over 1 comparison. 8 judged queries (1 without "
          "judgments reported apart); 10000 resamples, seed 0.")

MARKDOWN = """\
| system    | mrr@10 |                Δ mrr@10 | W/L/T mrr@10 |
|:----------|-------:|------------------------:|-------------:|
| bm25      |  0.500 |                       — |            — |
| hybrid_v2 | 0.875† | +0.375 [+0.188, +0.500] |        6/0/2 |

""" + LEGEND + """

mrr@10 by tag (mean over judged queries):

| tag        | queries | judged |  bm25 | hybrid_v2 |
|:-----------|--------:|-------:|------:|----------:|
| exact      |       4 |      4 | 0.500 |     1.000 |
| none       |       1 |      0 |     — |         — |
| paraphrase |       4 |      4 | 0.500 |     0.750 |"""

LATEX = r"""% needs \usepackage{booktabs}
\begin{tabular}{lrrr}
\toprule
system & mrr@10 & $\Delta$ mrr@10 & W/L/T mrr@10 \\
\midrule
bm25 & 0.500 & -- & -- \\
hybrid\_v2 & 0.875$^{\dagger}$ & +0.375 [+0.188, +0.500] & 6/0/2 \\
\bottomrule
\end{tabular}

{\footnotesize $\Delta$: difference from the baseline (bm25) with its 95\% bootstrap CI; W/L/T: queries where the system beats / loses to / ties the baseline; $^{\dagger}$ p $<$ 0.05, paired randomization test, Holm-corrected over 1 comparison. 8 judged queries (1 without judgments reported apart); 10000 resamples, seed 0.}"""  # noqa: E501


def test_numbers_behind_the_tiny_table(cmp):
    row = cmp.table.loc["hybrid_v2"]
    assert row["mrr@10"] == 0.875 and row["mrr@10 delta"] == 0.375
    assert row["mrr@10 p_rand"] == pytest.approx(2 / 64, abs=0.006)
    assert (row["mrr@10 ci_low"], row["mrr@10 ci_high"]) == (0.1875, 0.5)


def test_markdown_exact(cmp):
    assert cmp.to_markdown() == MARKDOWN


def test_latex_exact(cmp):
    text = cmp.to_latex(by_tag=False)
    assert text == LATEX
    tagged = cmp.to_latex()
    assert tagged.startswith(LATEX)
    assert "exact & 4 & 4 & 0.500 & 1.000 \\\\" in tagged
    assert "none & 1 & 0 & -- & -- \\\\" in tagged


def test_options_change_markers_and_columns(cmp):
    strict = cmp.to_markdown(alpha=0.01, ci=False, wlt=False, by_tag=False)
    assert strict.splitlines()[:4] == [
        "| system    | mrr@10 | Δ mrr@10 |",
        "|:----------|-------:|---------:|",
        "| bm25      |  0.500 |        — |",
        "| hybrid_v2 |  0.875 |   +0.375 |",
    ]
    assert "† p < 0.01, paired randomization test" in strict
    t_test = cmp.to_markdown(test="t", by_tag=False, digits=2)
    assert "| hybrid_v2 |  0.88† | +0.38 [+0.19, +0.50] |        6/0/2 |" in t_test
    assert "paired t-test" in t_test
    with pytest.raises(ValueError, match="test must be"):
        cmp.to_markdown(test="sign")
    with pytest.raises(ValueError, match="format must be"):
        format_comparison(cmp, "rst")


def test_csv(cmp, tmp_path):
    text = cmp.to_csv()
    assert text.splitlines()[0] == (
        "system,mrr@10,queries,mrr@10 delta,mrr@10 wins,mrr@10 losses,mrr@10 ties,"
        "mrr@10 ci_low,mrr@10 ci_high,mrr@10 p_t,mrr@10 p_wilcoxon,mrr@10 p_rand,"
        "mrr@10 p_t_raw,mrr@10 p_wilcoxon_raw,mrr@10 p_rand_raw")
    assert text.splitlines()[1] == "bm25,0.5,8,,,,,,,,,,,,"
    assert text.splitlines()[2].startswith("hybrid_v2,0.875,8,0.375,6,0,2,0.1875,0.5,")
    path = tmp_path / "cmp.csv"
    assert cmp.to_csv(path) is None
    back = pd.read_csv(path, index_col="system")
    assert back.loc["hybrid_v2", "mrr@10 p_rand"] == pytest.approx(
        cmp.table.loc["hybrid_v2", "mrr@10 p_rand"])
    long = pd.read_csv(io.StringIO(cmp.to_csv(what="per_query")))
    assert list(long.columns) == ["system", "qid", "metric", "value"] and len(long) == 16
    assert len(pd.read_csv(io.StringIO(cmp.to_csv(what="by_tag")))) == 6
    with pytest.raises(ValueError, match="what must be"):
        cmp.to_csv(what="everything")


def test_dict_is_plain_json(cmp):
    data = json.loads(json.dumps(cmp.to_dict(), allow_nan=False))
    assert data["baseline"] == "bm25" and data["judged_queries"] == 8
    assert data["unjudged_queries"] == 1 and data["correction"] == "holm"
    hv = data["systems"]["hybrid_v2"]
    assert hv["means"] == {"mrr@10": 0.875}
    vs = hv["vs_baseline"]["mrr@10"]
    assert (vs["delta"], vs["wins"], vs["losses"], vs["ties"]) == (0.375, 6, 0, 2)
    assert vs["ci"] == [0.1875, 0.5] and set(vs["p"]) == {"t", "wilcoxon", "rand"}
    assert "vs_baseline" not in data["systems"]["bm25"]
    assert data["by_tag"]["bm25"]["none"] == {"queries": 1, "judged": 0,
                                              "means": {"mrr@10": None}}
    assert data["by_tag"]["hybrid_v2"]["paraphrase"]["means"] == {"mrr@10": 0.75}
    assert data["abstention"]["bm25"]["auc"] == 1.0
    assert data["abstention"]["bm25"]["unanswerable"]["queries"] == 1


def test_repr_and_html(cmp):
    text = repr(cmp)
    assert text.startswith("Comparison of 2 systems against 'bm25' (span level)")
    assert MARKDOWN in text
    page = cmp._repr_html_()
    assert page.startswith("<table>") and "p &lt; 0.05" in page
    assert '<td style="text-align:right">0.875†</td>' in page


def test_small_formatters():
    assert markdown_table(["a", "bb"], [["x", "1"], ["yyyy", "22"]], "lr") == (
        "| a    |  bb |\n"
        "|:-----|----:|\n"
        "| x    |   1 |\n"
        "| yyyy |  22 |")
    assert markdown_table(["a|b"], [["c"]], "l") == "| a\\|b |\n|:-----|\n| c    |"
    assert latex_escape(r"a_b & 100% {x} #1 $ ~ ^ \ ") == (
        r"a\_b \& 100\% \{x\} \#1 \$ \textasciitilde{} \textasciicircum{} "
        r"\textbackslash{} ")
