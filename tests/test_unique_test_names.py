"""Test files have unique basenames: the test folders are not packages, so pytest imports each
file as a top-level module named after it, and two ``test_models.py`` in different folders stop
a full run at collection ("import file mismatch")."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_two_test_files_share_a_basename():
    names = Counter(p.name for p in TESTS.rglob("test_*.py") if "data" not in p.parts)
    assert [n for n, c in names.items() if c > 1] == []
