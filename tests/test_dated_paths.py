"""The 2026.9 dating rule is memlab's ``rule="2026.8"`` (memlab.workspace): same
DATED_MEMORY_PATH_RE, USER.md evergreen. Checked against OpenClaw 2026.9.6's own
``parseMemoryDateFromPath``/``isEvergreenMemoryPath`` (tests/data/openclaw-2026.9/golden.json)."""

from __future__ import annotations

import calendar
import json
from pathlib import Path

import pytest

from memlab.workspace import dated_path_date, is_evergreen

GOLDEN = json.loads((Path(__file__).parent / "data" / "openclaw-2026.9" / "golden.json")
                    .read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", GOLDEN["parseMemoryDateFromPath"], ids=lambda c: c["path"])
def test_dated_and_evergreen_equal_openclaw_2026_9(case):
    day = dated_path_date(case["path"], rule="2026.8")
    ms = None if day is None else calendar.timegm(day.timetuple()) * 1000
    assert ms == case["expected"]
    assert is_evergreen(case["path"], rule="2026.8") == case["evergreen"]


def test_slugged_nested_dates_by_hand():
    assert str(dated_path_date("memory/projects/aurora/2026-09-20-kickoff.md", "2026.8")) == (
        "2026-09-20")
    assert dated_path_date("memory/projects/aurora/2026-09-20-kickoff.md") is None  # 2026.7
    # impossible date: matches the pattern (not evergreen) but has no date -> file mtime
    assert dated_path_date("memory/2026-02-30-x.md", "2026.8") is None
    assert not is_evergreen("memory/2026-02-30-x.md", rule="2026.8")
    assert is_evergreen("USER.md", rule="2026.8") and not is_evergreen("USER.md")
