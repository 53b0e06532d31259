"""``selectHybridSearchResults``: hand-computed cases and 2026.9.6's own answers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from memlab.kernels.selection import select_hybrid

GOLDEN = json.loads((Path(__file__).parents[1] / "data" / "openclaw-2026.9" / "golden.json")
                    .read_text(encoding="utf-8"))


def _key(e):
    return f"{e['source']}:{e['path']}:{e['startLine']}:{e['endLine']}"


def test_fill_appends_keyword_only_hits_below_the_threshold():
    scores = np.array([0.9, 0.3, 0.2, 0.1])
    vector = np.array([0.8, 0.4, 0.0, 0.0])
    kw = np.array([False, True, True, True])
    # b.md has a vector score: not a fill candidate; c.md and d.md are keyword-only
    assert select_hybrid(scores, vector, kw, 0.35, 3).tolist() == [0, 2, 3]
    assert select_hybrid(scores, vector, kw, 0.35, 1).tolist() == [0]


def test_nothing_strict_gives_keyword_hits_at_or_above_zero():
    assert select_hybrid(np.array([0.2, -0.1, 0.0]), np.zeros(3), np.array([True, True, True]),
                         0.35, 10).tolist() == [0, 2]


def test_no_keyword_hits_means_strict_only():
    assert select_hybrid(np.array([0.2]), np.zeros(1), np.array([False]), 0.35, 10).tolist() == []


@pytest.mark.parametrize("case", GOLDEN["selectHybridSearchResults"],
                         ids=lambda c: f"{c['maxResults']}-{c['minScore']}")
def test_equals_openclaw_2026_9(case):
    merged = case["merged"]
    keys = {_key(e) for e in case["keyword"]}
    picks = select_hybrid(np.array([e["score"] for e in merged], dtype=float),
                          np.array([e["vectorScore"] for e in merged], dtype=float),
                          np.array([_key(e) in keys for e in merged], dtype=bool),
                          case["minScore"], case["maxResults"],
                          any_keyword=bool(case["keyword"]))
    assert [_key(merged[i]) for i in picks.tolist()] == case["expected"]
