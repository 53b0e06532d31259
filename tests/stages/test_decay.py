import math

import numpy as np
import pandas as pd
import pytest

from memlab.frames import as_queries
from memlab.stages.decay import TemporalDecay, decay_multiplier
from memlab.stages.fusion import Fusion


def test_multiplier_matches_reference_table():
    assert decay_multiplier(7, 30) == pytest.approx(0.8507, abs=1e-4)
    assert decay_multiplier(30, 30) == pytest.approx(0.5)
    assert decay_multiplier(90, 30) == pytest.approx(0.125)
    assert decay_multiplier(-5, 30) == 1.0  # future dates do not decay


def _hits(static_leg, corpus, now):
    leg = static_leg(corpus, {"q": [(d, 1.0) for d in range(8)]}, "vector_score")
    queries = as_queries(["q"]).assign(now=pd.Timestamp(now))
    return Fusion(vector=leg).transform(queries)


def test_dated_evergreen_and_mtime(static_leg, tiny_corpus):
    hits = _hits(static_leg, tiny_corpus, "2026-01-31T00:00:00Z")
    out = TemporalDecay(tiny_corpus).transform(hits)
    score = dict(zip(out["path"], out["score"], strict=True))
    assert score["MEMORY.md"] == 1.0                      # evergreen
    assert score["memory/notes.md"] == 1.0                # undated under memory/
    assert score["memory/2026-01-01-retro.md"] == 1.0     # slugged: evergreen in 2026.7
    assert score["memory/2026-01-01.md"] == pytest.approx(0.5)
    assert score["memory/2026-01-31.md"] == 1.0
    assert score["memory/2026-03-02.md"] == 1.0           # in the future
    assert score["other/x.md"] < 1e-50                    # mtime 0 (1970)
    assert out["score"].is_monotonic_decreasing


def test_2026_8_rule_decays_slugged_notes(static_leg, tiny_corpus):
    hits = _hits(static_leg, tiny_corpus, "2026-01-31T00:00:00Z")
    out = TemporalDecay(tiny_corpus, rule="2026.8").transform(hits)
    score = dict(zip(out["path"], out["score"], strict=True))
    assert score["memory/2026-01-01-retro.md"] == pytest.approx(0.5)


def test_now_parameter_and_half_life(static_leg, tiny_corpus):
    leg = static_leg(tiny_corpus, {"q": [(1, 0.8)]}, "vector_score")
    hits = Fusion(vector=leg).transform(as_queries(["q"]))
    out = TemporalDecay(tiny_corpus, half_life_days=10, now="2026-01-11").transform(hits)
    assert out["score"].iloc[0] == pytest.approx(0.8 * math.exp(-math.log(2)))
    assert TemporalDecay(tiny_corpus, enabled=False).transform(hits) is hits


def test_real_mtime_read_at_query_time(tmp_path, static_leg):
    from memlab.corpus import load_workspace

    (tmp_path / "memory").mkdir()
    note = tmp_path / "memory" / "2026-02-01.md"
    note.write_text("dated note\n")
    extra = tmp_path / "extra.md"
    extra.write_text("extra note\n")
    import os
    day = 86_400
    os.utime(extra, (1_767_225_600 - 30 * day, 1_767_225_600 - 30 * day))  # 2025-12-02
    corpus = load_workspace(tmp_path, extra_paths=["extra.md"])
    docs = {p: i for i, p in enumerate(corpus.chunks["path"])}
    leg = static_leg(corpus, {"q": [(docs["extra.md"], 1.0)]}, "vector_score")
    hits = Fusion(vector=leg).transform(as_queries(["q"]))
    out = TemporalDecay(corpus, now=1_767_225_600_000).transform(hits)  # 2026-01-01
    np.testing.assert_allclose(out["score"], [0.5])


def test_session_hits_do_not_decay(tmp_path) -> None:
    """OpenClaw stats workspace/<path> for a session hit; production keeps transcripts outside
    the workspace, so they never decay (parity suite sessions+decay) even when memlab's
    dataset layout has the file at that path."""
    import os

    from memlab.corpus import Corpus

    path = "sessions/main/abc.jsonl"
    (tmp_path / "sessions" / "main").mkdir(parents=True)
    (tmp_path / path).write_text("{}\n")
    os.utime(tmp_path / path, (0, 0))  # 1970: would decay to ~0
    (tmp_path / "notes.md").write_text("x\n")
    os.utime(tmp_path / "notes.md", (0, 0))
    chunks = pd.DataFrame({"chunk_id": ["a", "b"], "path": [path, "notes.md"],
                           "source": ["sessions", "memory"], "start_line": [1, 1],
                           "end_line": [1, 1], "text": ["x", "x"], "hash": ["h", "g"]})
    corpus = Corpus(chunks=chunks, root=tmp_path)
    hits = pd.DataFrame({"path": [path, "notes.md"], "source": ["sessions", "memory"]})
    stamps = TemporalDecay(corpus, now="2026-10-01T00:00:00Z").timestamps_ms(hits)
    assert np.isnan(stamps[0]) and stamps[1] == 0.0
