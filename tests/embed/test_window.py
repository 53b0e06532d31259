"""Chunks against a model's input window (memlab.embed.window) and ``memlab.chunking:
"model-window"``."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from memlab.config import ConfigError, load_config
from memlab.corpus import Corpus
from memlab.embed.local import LocalProvider
from memlab.embed.window import (
    fit_to_window,
    split_to_window,
    token_lengths,
    window_corpus,
    window_report,
)

SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "sample-memory"


def _words(text: str) -> bool:
    return len(text.split()) <= 3


def test_split_by_lines_then_words() -> None:
    text = "a b\nc d e f g\n\nh"
    assert split_to_window(text, 10, _words) == [
        (10, 10, "a b"), (11, 11, "c d e"), (11, 11, "f g"), (12, 13, "\nh")]
    assert split_to_window("x y", 4, _words) == [(4, 4, "x y")]  # fits: unchanged
    assert split_to_window("a\nb\nc\nd", 1, _words) == [(1, 3, "a\nb\nc"), (4, 4, "d")]


def test_report_counts_the_models_tokens() -> None:
    provider = LocalProvider("minilm", show_progress=False)
    short, long = token_lengths(provider, ["hello world", "word " * 300])
    assert short == 4  # [CLS] hello world [SEP]
    assert long == 302
    report = window_report(["hello world", "word " * 300], "minilm", provider=provider)
    assert (report.window, report.chunks, report.over, report.share) == (256, 2, 1, 0.5)
    assert report.max_tokens == 302
    assert window_report(["word " * 300], "use-multilingual").over == 0  # no window


def test_fit_to_window_keeps_lines_and_fits() -> None:
    provider = LocalProvider("minilm", show_progress=False)
    lines = [f"line {i} " + "alpha beta gamma " * 6 for i in range(40)]
    corpus = Corpus.from_texts(["\n".join(lines), "a short note"])
    fitted = fit_to_window(corpus, provider, 256)
    assert len(fitted) > len(corpus)
    assert (token_lengths(provider, fitted.texts) <= 256).all()
    pieces = fitted.chunks[fitted.chunks["path"] == "doc-1.md"]
    assert pieces["start_line"].tolist()[0] == 1 and pieces["end_line"].tolist()[-1] == 40
    for row in pieces.itertuples():
        assert row.text == "\n".join(lines[row.start_line - 1:row.end_line])
    assert fitted.chunks.iloc[-1]["text"] == "a short note"
    assert fitted.chunks["chunk_id"].is_unique
    assert fit_to_window(corpus, provider, None) is corpus


def test_model_window_option_in_dataset_corpus() -> None:
    from memlab.eval.datasets import load_dataset
    from memlab.eval.systems import dataset_corpus

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(SAMPLE)
        base = load_config({"memorySearch": {"provider": "local"}})
        fitted = load_config({"memorySearch": {"provider": "local"},
                              "memlab": {"chunking": "model-window"}})
        provider = LocalProvider("minilm", show_progress=False)
        plain, fit = dataset_corpus(ds, base, provider), dataset_corpus(ds, fitted, provider)
    lengths = token_lengths(provider, fit.texts)
    assert (token_lengths(provider, plain.texts) > 256).sum() > 0
    assert len(fit) > len(plain)
    # only a line longer than the window on its own may still exceed it
    over = fit.chunks.loc[lengths > 256]
    assert (over["start_line"] == over["end_line"]).all()


def test_model_window_errors() -> None:
    cfg = load_config({"memorySearch": {"provider": "none"},
                       "memlab": {"chunking": "model-window"}})
    with pytest.raises(ValueError, match='needs provider "local" with a packaged model'):
        window_corpus(Corpus.from_texts(["x"]), cfg)
    with pytest.raises(ConfigError, match="memlab.chunking"):
        load_config({"memlab": {"chunking": "window"}})
    with pytest.raises(KeyError, match="known aliases"):
        window_report(["x"], "text-embedding-3-small")
