"""Exact-path tiers and the exact-hit tie score: hand-computed values and 2026.9.6's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlab.kernels.tiers import exact_path_tier, exact_tie_score, normalize_path_identifier

GOLDEN = json.loads((Path(__file__).parents[1] / "data" / "openclaw-2026.9" / "golden.json")
                    .read_text(encoding="utf-8"))


def test_tiers_by_hand():
    assert exact_path_tier("memory/team/billing.md", "memory/team/billing.md") == 3
    assert exact_path_tier("billing.md", "memory/team/billing.md") == 2
    assert exact_path_tier("billing", "memory/team/billing.md") == 1
    assert exact_path_tier("team/billing.md", "memory/team/billing.md") == 0  # has a "/"
    assert exact_path_tier(".env", "memory/.env") == 2  # leading dot: no stem
    assert exact_path_tier("", "MEMORY.md") == 0
    assert exact_path_tier(".", "memory/.") == 0
    assert normalize_path_identifier(" ./A\\B.md ") == "a/b.md"


def test_tie_score_by_hand():
    assert exact_tie_score(0.4) == pytest.approx(0.7)
    assert exact_tie_score(-1.0) == 0.5
    assert exact_tie_score(3.0) == 1.0


@pytest.mark.parametrize("case", GOLDEN["prepareExactPathMatcher"], ids=lambda c: c["query"])
def test_tiers_equal_openclaw_2026_9(case):
    assert [exact_path_tier(case["query"], p) for p in case["paths"]] == case["expected"]


@pytest.mark.parametrize("case", GOLDEN["scoreExactPathTieForTemporalDecay"],
                         ids=lambda c: str(c["contentScore"]))
def test_tie_score_equals_openclaw_2026_9(case):
    assert exact_tie_score(case["contentScore"]) == case["expected"]
