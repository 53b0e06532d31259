"""The tiered search runs its line's recipe: a line without a step skips it.

Each made-up line here is compared with a search that must give the same ranking another way:
without ``importance``, the annotated workspace ranks as a copy without the annotations does;
without ``mmr``, as MMR with lambda 1 (pure relevance) does; without ``decay``, as a half-life so
long that nothing decays within the test's dates.
"""

from __future__ import annotations

import re
import shutil

import pytest

from memlab.embed.hashing import HashingProvider
from memlab.lines import get_line
from memlab.tiered.search import TieredSearch

NOW = "2026-10-01T00:00:00Z"
NINE = get_line("2026.9")
QUERIES = ["deploy window", "billing cutover", "staging host", "on call rotation"]
NOTES = {
    "MEMORY.md": "# Memory\n\n- Billing deploy window is Tuesday <!-- importance: 9 -->\n"
                 "- Staging host is stg-db-2 <!-- importance: 2 -->\n"
                 "- The on call rotation is weekly\n",
    "memory/2026-08-01.md": "# Aug 1\n\n- Billing cutover moved to the deploy window\n",
    "memory/2026-05-02.md": "# May 2\n\n- Staging host rebuilt; deploy window unchanged\n",
    "memory/2026-09-20.md": "# Sep 20\n\n- On call rotation: billing team this week\n",
}


@pytest.fixture()
def workspace(tmp_path):
    ws = tmp_path / "ws"
    for name, text in NOTES.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text, encoding="utf-8")
    return ws


def _ranked(ws, line, provider="none", memlab=None):
    config = {"memory": {"search": {"provider": provider}}, "memlab": memlab or {}}
    s = TieredSearch(ws, config, line=line,
                     embedder=None if provider == "none" else HashingProvider())
    try:
        return [[(r["path"], r["startLine"], r["endLine"], round(r["score"], 12))
                 for r in s.search(q, now=NOW)["results"]] for q in QUERIES]
    finally:
        s.close()


@pytest.mark.parametrize("provider", ["none", "local"])
def test_a_line_without_importance_ignores_the_annotations(workspace, tmp_path, provider):
    plain = tmp_path / "plain"
    shutil.copytree(workspace, plain)
    memory = plain / "MEMORY.md"
    memory.write_text(re.sub(r" <!-- importance: \d+ -->", "", memory.read_text()))
    without = NINE.derive("no-importance", drop=("importance",))
    assert _ranked(workspace, without, provider) == _ranked(plain, NINE, provider)
    assert _ranked(workspace, NINE, provider) != _ranked(plain, NINE, provider)


def test_a_line_without_mmr_ranks_by_relevance(workspace):
    without = NINE.derive("no-mmr", drop=("mmr",))
    relevance = NINE.derive("mmr-lambda-1", steps={"mmr": {"lambda": 1.0}})
    assert _ranked(workspace, without, "local") == _ranked(workspace, relevance, "local")


def test_a_line_without_decay_keeps_the_dated_notes_scores(workspace):
    without = NINE.derive("no-decay", drop=("decay",))
    forever = {"whatIf": {"halfLifeDays": 1e300}}
    assert _ranked(workspace, without) == _ranked(workspace, NINE, memlab=forever)
    assert _ranked(workspace, without) != _ranked(workspace, NINE)
