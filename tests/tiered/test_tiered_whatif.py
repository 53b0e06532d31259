"""What-if axes of the 2026.9 profile (``memlab.whatIf``, ``memlab.fusion``): defaults are
2026.9.6's behaviour; each axis changes the ranking as its formula says."""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np
import pytest

from memlab.config import ConfigError
from memlab.tiered.search import TieredSearch

NOW = "2026-10-01T00:00:00Z"


class HashEmbedder:
    """Deterministic bag-of-words vectors (no model): enough for a hybrid search."""

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(32)
        for word in text.lower().split():
            v[int(hashlib.sha256(word.encode()).hexdigest(), 16) % 32] += 1.0
        return v / (np.linalg.norm(v) or 1.0)

    def embed_documents(self, texts):
        return np.stack([self._vec(t) for t in texts]).astype(np.float32)

    def embed_query(self, text):
        return self._vec(text)


@pytest.fixture()
def workspace(tmp_path):
    mem = tmp_path / "memory"
    mem.mkdir()
    (mem / "billing.md").write_text("Billing deploys on Tuesday after the invoice run.\n")
    (mem / "infra.md").write_text("The staging database host is db-stage-2.\n")
    (mem / "notes.md").write_text("Deploy checklist: billing, invoices, staging.\n")
    (mem / "2026-09-01.md").write_text("Billing deploy moved to Wednesday.\n")
    return tmp_path


def search(ws, memlab=None, provider=None, **kw):
    cfg = {"memory": {"search": {"provider": provider or "openai"}}, "memlab": memlab or {}}
    s = TieredSearch(ws, cfg, embedder=None if provider == "none" else HashEmbedder())
    return s.search("billing deploy", now=NOW, min_score=-1, **kw)["results"]


def test_defaults_are_2026_9_and_unknown_what_if_values_are_config_errors(workspace):
    assert search(workspace) == search(workspace, {"whatIf": {
        "keywordScore": "boosted", "candidateUniverse": 200, "halfLifeDays": 30}})
    with pytest.raises(ConfigError, match="keywordScore"):
        search(workspace, {"whatIf": {"keywordScore": "max"}})


def test_half_life_scales_the_decay_of_a_dated_note(workspace):
    def dated(memlab):
        hits = search(workspace, memlab, provider="none")
        return next(h["score"] for h in hits if h["path"] == "memory/2026-09-01.md")

    # 30 days old: factor 2^-1 at 30 days, 2^-1/2 at 60 days
    assert dated({"whatIf": {"halfLifeDays": 60}}) / dated({}) == pytest.approx(math.sqrt(2))


def test_candidate_universe_caps_each_leg(workspace):
    assert len(search(workspace, provider="none", max_results=10)) >= 2
    assert len(search(workspace, {"whatIf": {"candidateUniverse": 1}}, provider="none",
                      max_results=10)) == 1


def test_raw_keyword_score_fuses_the_fts_score(workspace):
    hits = [h for h in search(workspace, {"whatIf": {"keywordScore": "raw"}}, max_results=10)
            if h["textScore"] > 0 and h["path"] != "memory/2026-09-01.md"]
    assert hits
    for h in hits:  # undated memory/ notes are evergreen: the fused score is reported as is
        assert h["score"] == pytest.approx(0.7 * h["vectorScore"] + 0.3 * h["textScore"])
    boosted = [h for h in search(workspace, max_results=10)
               if h["textScore"] > 0 and h["path"] != "memory/2026-09-01.md"]
    assert any(h["score"] != pytest.approx(0.7 * h["vectorScore"] + 0.3 * h["textScore"])
               for h in boosted)


def test_rrf_replaces_the_weighted_blend(workspace):
    hits = search(workspace, {"fusion": {"method": "rrf", "rrfK": 60}}, max_results=10)
    n = 8
    feasible = {0.7 * (a and 1 / (60 + a)) + 0.3 * (b and 1 / (60 + b))
                for a, b in itertools.product(range(n + 1), repeat=2)}
    for h in hits:
        if h["path"] == "memory/2026-09-01.md":
            continue  # decayed
        assert any(math.isclose(h["score"], f, rel_tol=1e-12) for f in feasible), h
