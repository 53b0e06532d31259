"""Chunking as a sweep axis: equal to full runs, embedded once per text, truncation counted,
"model-window" resolved to the model's window, and what each OpenClaw schema exports."""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from memlab.config import ExportError, export_config, import_config
from memlab.embed.cache import CachedEmbedder
from memlab.embed.hashing import HashingProvider
from memlab.eval.experiment import evaluate
from memlab.eval.systems import dataset_corpus
from memlab.openclaw import openclaw_pipeline
from memlab.tune.chunkings import MODEL_WINDOW, chunking_report, resolve_chunking, truncation
from memlab.tune.optimize import tune
from memlab.tune.sweep import SweepEngine, SweepError, expand_grid

CHUNKINGS = {"chunking.tokens": [400, 120], "chunking.overlap": [0, 80]}
KNOBS = {"query.hybrid.vectorWeight": [0.3, 0.8], "query.hybrid.mmr.enabled": [False, True],
         "query.minScore": [0.0, 0.3]}
METRICS = ["ndcg@10", "recall@10"]
SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "sample-memory"


class TextCounter(HashingProvider):
    """Counts every document text it embeds, and reads ``window`` words (its tokens)."""

    window = 40

    def __init__(self) -> None:
        super().__init__()
        self.seen: Counter[str] = Counter()

    def embed_documents(self, texts):
        self.seen.update(texts)
        return super().embed_documents(texts)

    def token_lengths(self, texts) -> np.ndarray:
        return np.array([len(str(t).split()) for t in texts], dtype=np.int64)


def _engine(dataset, provider) -> SweepEngine:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SweepEngine(dataset, embedder=provider)


def test_a_sweep_over_chunkings_equals_separate_full_runs(small_dataset):
    """Every row of one sweep over four chunkings x the knobs equals a full openclaw_pipeline
    run on a corpus chunked from scratch, and a sweep of that chunking alone."""
    grid = {**CHUNKINGS, **KNOBS}
    engine = _engine(small_dataset, TextCounter())
    overrides, configs = expand_grid(grid, engine.base)
    values, qids, hits = engine.evaluate_configs(configs, METRICS, keep_hits=True)
    chunk_sizes = {(c.memory_search.chunking.tokens, c.memory_search.chunking.overlap):
                   len(engine.corpus(c)) for c in configs}
    assert len(chunk_sizes) == 4 and len(set(chunk_sizes.values())) > 1  # they really differ
    table = engine.table(overrides, configs, values, METRICS)
    for tokens in CHUNKINGS["chunking.tokens"]:
        for overlap in CHUNKINGS["chunking.overlap"]:
            alone = _engine(small_dataset, TextCounter()).run(
                {"chunking.tokens": [tokens], "chunking.overlap": [overlap], **KNOBS}, METRICS)
            rows = table[(table["chunking.tokens"] == tokens)
                         & (table["chunking.overlap"] == overlap)]
            assert len(rows) == len(alone) == 8
            np.testing.assert_array_equal(rows[METRICS].to_numpy(), alone[METRICS].to_numpy())
    for j in range(0, len(configs), 3):  # a third of the points against from-scratch runs
        cfg = configs[j]
        fresh = TextCounter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            corpus = dataset_corpus(small_dataset, cfg, fresh)
            full = openclaw_pipeline(corpus, cfg, CachedEmbedder(fresh)).transform(
                engine.queries)
        by_q = dict(tuple(full.groupby("qid", sort=False)))
        for qi, qid in enumerate(qids):
            docnos, scores = hits[qi][j]
            ref = by_q.get(qid)
            assert list(docnos) == (ref["docno"].tolist() if ref is not None else []), \
                (overrides[j], qid)
            if ref is not None:
                np.testing.assert_array_equal(scores, ref["score"].to_numpy())
        per_query, _ = evaluate(full, small_dataset.qrels, METRICS, engine.queries)
        np.testing.assert_allclose(values[:, j, :], per_query[METRICS].to_numpy(dtype=float),
                                   rtol=0, atol=1e-12)


def test_each_distinct_text_is_embedded_once(small_dataset):
    provider = TextCounter()
    engine = _engine(small_dataset, provider)
    grid = {"chunking.tokens": [400, 200, 400], "chunking.overlap": [0, 80], **KNOBS}
    _, configs = expand_grid(grid, engine.base)
    engine.evaluate_configs(configs, ["ndcg@10"])
    per_chunking = [engine.corpus(engine.base.with_overrides({"chunking.tokens": t,
                                                              "chunking.overlap": o})).texts
                    for t in (400, 200) for o in (0, 80)]
    distinct = set().union(*map(set, per_chunking))
    assert sum(len(set(t)) for t in per_chunking) > len(distinct)  # chunkings share texts
    assert set(provider.seen) == distinct
    assert max(provider.seen.values()) == 1
    assert provider.texts == len(distinct)
    engine.evaluate_configs(configs, METRICS)  # evaluated again: nothing new embedded
    assert provider.texts == len(distinct) and max(provider.seen.values()) == 1


def test_the_truncated_share_equals_a_direct_count(small_dataset):
    provider = TextCounter()
    engine = _engine(small_dataset, provider)
    grid = {"chunking.tokens": [400, 60], "query.hybrid.vectorWeight": [0.5, 0.7],
            "provider": ["local", "none"]}
    overrides, configs = expand_grid(grid, engine.base)
    values, _, _ = engine.evaluate_configs(configs, ["ndcg@10"])
    report = chunking_report(engine, engine.table(overrides, configs, values, ["ndcg@10"]),
                             configs)
    assert len(report) == 4 and (report["configs"] == 2).all()
    shares = []
    for tokens in (400, 60):
        cfg = engine.base.with_overrides({"chunking.tokens": tokens})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            texts = dataset_corpus(small_dataset, cfg, TextCounter()).texts
        over = sum(len(t.split()) > TextCounter.window for t in texts)
        row = report[(report["chunking.tokens"] == tokens) & (report["embedding"] != "none")]
        assert row["chunks"].item() == len(texts)
        assert row["truncated"].item() == over
        assert row["truncated_share"].item() == over / len(texts)
        assert row["max_tokens"].item() == max(len(t.split()) for t in texts)
        assert row["window"].item() == TextCounter.window
        shares.append(over / len(texts))
        keyword = report[(report["chunking.tokens"] == tokens) & (report["embedding"] == "none")]
        assert np.isnan(keyword["truncated_share"].item())  # no model, no window
    assert shares[0] > shares[1]  # 400-token chunks exceed a 40-word window more often


def test_truncation_without_a_known_window_is_nan():
    cut = truncation(["a b c"], CachedEmbedder(HashingProvider()))
    assert not cut.known and cut.chunks == 1 and np.isnan(cut.share)


def test_model_window_resolves_to_each_models_window():
    overrides, configs = expand_grid({"chunking.tokens": [MODEL_WINDOW, 400],
                                      "embedding": ["local:minilm", "local:e5-small"]})
    got = {(o["embedding"], o["chunking.tokens"]) for o in overrides}
    assert got == {("local:minilm", 256), ("local:minilm", 400), ("local:e5-small", 512),
                   ("local:e5-small", 400)}
    assert sorted(c.memory_search.chunking.tokens for c in configs) == [256, 400, 400, 512]
    with pytest.raises(SweepError, match="model-window.*provider 'openai'"):
        expand_grid({"chunking.tokens": [MODEL_WINDOW], "provider": ["openai"]})
    base = import_config('{agents: {defaults: {memorySearch: {provider: "local"}}}}')
    assert resolve_chunking({"chunking.tokens": 300}, base) == {"chunking.tokens": 300}


def test_optuna_keeps_chunkings_to_the_listed_values(tiny_dataset):
    provider = TextCounter()
    engine = _engine(tiny_dataset, provider)
    result = tune(tiny_dataset, {"chunking.tokens": [400, MODEL_WINDOW],
                                 "query.hybrid.vectorWeight": [0.2, 0.9]},
                  n_trials=6, cv=2, seed=1, engine=engine)
    assert set(result.trials["chunking.tokens"]) <= {400, 256}  # the window as its number
    assert result.overrides["chunking.tokens"] in (400, 256)
    assert result.config.memory_search.chunking.tokens == result.overrides["chunking.tokens"]


def test_a_tuned_chunking_exports_to_2026_7_and_is_refused_by_2026_9():
    row = pd.Series({"chunking.tokens": 256, "chunking.overlap": 40, "ndcg@10": 0.5})
    text = export_config({k: v for k, v in row.items() if k != "ndcg@10"})
    back = import_config(str(text)).memory_search.chunking
    assert (back.tokens, back.overlap) == (256, 40)
    with pytest.raises(ExportError, match="chunking.tokens.*retired"):
        export_config({"chunking.tokens": 256}, schema="2026.9")
    lossy = export_config({"chunking.tokens": 256}, schema="2026.9", allow_lossy=True)
    body = [line for line in str(lossy).splitlines() if not line.lstrip().startswith("//")]
    assert "chunking.tokens = 256" in str(lossy) and "chunking" not in "\n".join(body)
    for schema in ("2026.7", "2026.9"):  # splitting to the window has no OpenClaw setting
        with pytest.raises(ExportError, match="memlab.chunking.*model-window"):
            export_config({"memlab.chunking": "model-window"}, schema=schema)


def test_a_local_models_window_and_tokenizer_count_the_truncated_chunks():
    """With memlab's packaged MiniLM the window is its registry window (256) and the tokens
    are its tokenizer's: a text of 300 words is truncated, a short one is not."""
    from memlab.embed.local import LocalProvider
    from memlab.embed.window import window_report

    texts = ["hello world", "word " * 300, "a short note\nwith two lines"]
    provider = LocalProvider("minilm", show_progress=False)
    cut = truncation(texts, CachedEmbedder(provider))
    direct = window_report(texts, "minilm", provider=provider)
    assert (cut.window, cut.over, cut.chunks) == (256, 1, 3) == (direct.window, direct.over,
                                                                 direct.chunks)
    assert cut.max_tokens == direct.max_tokens > 256


def test_inline_grid_axes_combine_with_a_grid_file(tmp_path):
    from memlab.cli.sweep import load_grids

    grid_file = tmp_path / "grid.json5"
    grid_file.write_text('{"query.minScore": [0, 0.3], base: "base.json5"}', encoding="utf-8")
    grid, base = load_grids([str(grid_file), "chunking.tokens=200,400,model-window",
                             "chunking.overlap=[0, 80]"])
    assert grid == {"query.minScore": [0, 0.3], "chunking.tokens": [200, 400, MODEL_WINDOW],
                    "chunking.overlap": [0, 80]}
    assert base == str(tmp_path / "base.json5")
    with pytest.raises(SweepError, match="'chunking.tokens' is given twice"):
        load_grids(["chunking.tokens=200", "memorySearch.chunking.tokens=400"])
    with pytest.raises(SweepError, match="unknown sweep axis"):
        load_grids(["chunking.token=200"])


def test_cli_sweep_prints_the_truncation_per_chunking(capsys, tmp_path):
    from memlab.cli.main import main

    base = tmp_path / "keyword.json5"
    base.write_text('{agents: {defaults: {memorySearch: {provider: "none"}}}}', encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["sweep", str(SAMPLE), "--grid", "chunking.tokens=200,400",
                     "--grid", "chunking.overlap=0,80", "--base", str(base), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    table = out[out.index("per chunking"):]
    assert len([line for line in table.splitlines() if " openclaw " in line]) == 4
