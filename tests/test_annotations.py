"""Curated annotations and their multipliers (OpenClaw 2026.9.6): golden values from the real
package (tests/data/openclaw-2026.9/golden.json, parity/golden_tiered.mjs) and hand-computed
cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from memlab.annotations import (
    INVALID_PROJECT_KEY,
    RecallMetadata,
    entry_metadata,
    importance_multiplier,
    normalize_project_key,
    project_eligible,
    project_keys,
    project_multiplier,
    strip_annotations,
)

GOLDEN = json.loads((Path(__file__).parent / "data" / "openclaw-2026.9" / "golden.json")
                    .read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", GOLDEN["stripMemoryAnnotationCarriers"],
                         ids=lambda c: repr(c["text"][:30]))
def test_strip_equals_openclaw(case):
    assert strip_annotations(case["text"]) == case["expected"]


@pytest.mark.parametrize("case", GOLDEN["extractCuratedEntryRecallMetadata"],
                         ids=lambda c: f"{c['sourceLines'][0][:30]}-{c['curatedRoot']}-"
                                       f"{c['projectScopeEligible']}")
def test_entry_metadata_equals_openclaw(case):
    got = entry_metadata(case["sourceLines"], case["curatedRoot"], case["projectScopeEligible"])
    want = case["expected"]
    assert got == RecallMetadata(want["importance"], want["triggers"], want["projectKey"])


@pytest.mark.parametrize("case", GOLDEN["extractProjectKeysFromCuratedEntry"],
                         ids=lambda c: repr(c["text"][:30]))
def test_project_keys_equal_openclaw(case):
    got, want = project_keys(case["text"]), case["expected"]
    assert (got.annotated, got.valid, list(got.keys), got.raw_count, got.valid_count) == (
        want["annotated"], want["valid"], want["keys"], want["rawCount"], want["validCount"])


@pytest.mark.parametrize("case", GOLDEN["normalizeProjectAnnotationKey"],
                         ids=lambda c: repr(c["value"]))
def test_normalize_project_key_equals_openclaw(case):
    assert normalize_project_key(case["value"]) == case["expected"]


def test_importance_multiplier_equals_openclaw():
    cases = GOLDEN["importanceMultiplier"]
    got = importance_multiplier([c["importance"] for c in cases])
    np.testing.assert_array_equal(got, [c["expected"] for c in cases])


def test_importance_multiplier_by_hand():
    # 0.75 + 0.05 * clamp(floor(N), 1, 10); missing: 1
    got = importance_multiplier(np.array([np.nan, 1, 2, 9, 10, 3.99, 0, 42]))
    np.testing.assert_allclose(got, [1, 0.80, 0.85, 1.20, 1.25, 0.90, 0.80, 1.25], rtol=0,
                               atol=1e-15)


@pytest.mark.parametrize("case", GOLDEN["projectScoreMultiplier"],
                         ids=lambda c: f"{c['projectKey']}-{c['active']}")
def test_project_multiplier_equals_openclaw(case):
    got = project_multiplier([case["projectKey"]], case["active"])
    assert got.tolist() == [case["expected"]]


@pytest.mark.parametrize("case", GOLDEN["applyProjectRanking"], ids=lambda c: str(c["active"]))
def test_project_ranking_equals_openclaw(case):
    results = case["results"]
    keys = [r.get("projectKey") for r in results]
    keep = project_eligible(keys)
    scores = np.array([r["score"] for r in results]) * project_multiplier(keys, case["active"])
    got = [{**r, "score": float(s)} for r, s, k in zip(results, scores, keep, strict=True) if k]
    want = case["expected"]
    assert [g["path"] for g in got] == [w["path"] for w in want]
    assert all(math.isclose(g["score"], w["score"], rel_tol=0, abs_tol=0)
               for g, w in zip(got, want, strict=True))


def test_project_rules_by_hand():
    assert project_multiplier(["infra/nas", "acme/x; infra/nas", None], {"infra/nas"}).tolist() == [
        1.15, 0.9, 1.0]
    assert project_multiplier(["infra/nas"], None).tolist() == [1.0]
    assert project_eligible([INVALID_PROJECT_KEY, "a", None]).tolist() == [False, True, True]
    meta = entry_metadata(["- x <!-- project: ACME/Lighthouse; infra/nas -->"])
    assert meta.project_key == "acme/Lighthouse; infra/nas"
    assert entry_metadata(["- x <!-- project: -->"]).project_key == INVALID_PROJECT_KEY
    # USER.md (project_scope_eligible False): project annotations are ignored
    assert entry_metadata(["- x <!-- project: a -->"], True, False).project_key is None


def test_importance_rules_by_hand():
    lines = ["- a <!-- importance: 2 --> <!-- importance: 7 -->"]
    assert entry_metadata(lines, curated_root=True).importance == 7
    assert entry_metadata(lines, curated_root=False).importance is None  # not a curated root
    assert entry_metadata(["- a <!-- importance: 4 --> tail"], True).importance is None
    assert entry_metadata(["- a <!-- importance: ٣ -->"], True).importance is None  # ASCII only
    assert strip_annotations("- a <!-- importance:\n 8 -->") == "- a <!-- importance:\n 8 -->"
