"""How many chunks a local model cannot read whole: token lengths against its input window.

A packaged model's window comes from the registry (:func:`memlab.embed.models.model_window`);
tokens are counted by the model's own tokenizer, special tokens included (what the window
counts). all-MiniLM-L6-v2 truncates after 256 tokens, so the tail of a longer chunk is never
embedded: the vector describes only its beginning.

>>> report = window_report(["short note", "word " * 400], "minilm")  # doctest: +SKIP
>>> report.over, report.share  # doctest: +SKIP
(1, 0.5)

The research option ``memlab.chunking: "model-window"`` (:func:`window_corpus`) instead splits
every chunk longer than the window into consecutive pieces that fit: whole lines (so line-span
judgments still apply), and the words of a single line longer than the window. A piece keeps
the lines it spans; a single word longer than the window stays whole (the model truncates it).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from memlab.chunking import chunk_id, sha256_hex
from memlab.corpus import CHUNK_TABLE_COLUMNS, Corpus
from memlab.embed.local import LocalProvider
from memlab.embed.models import PACKAGED_MODELS, find_packaged, model_window

__all__ = ["WindowReport", "count_over", "fit_to_window", "split_to_window", "token_lengths",
           "window_corpus", "window_report"]


def token_lengths(provider: LocalProvider, texts: Sequence[str]) -> np.ndarray:
    """Tokens of each text for ``provider``'s model (special tokens included, not truncated).

    >>> token_lengths(LocalProvider("minilm"), ["hello world"]).tolist()  # doctest: +SKIP
    [4]
    """
    model = provider.load()
    texts = [provider.document_prefix + str(t) for t in texts]
    if hasattr(model, "count_tokens"):  # a packaged backend of memlab.embed.models
        return np.array([model.count_tokens([t]) for t in texts], dtype=np.int64)
    tokenizer = model.tokenizer  # a SentenceTransformer: its Hugging Face tokenizer
    lengths = [len(ids) for start in range(0, len(texts), 256)
               for ids in tokenizer(texts[start:start + 256], add_special_tokens=True,
                                    truncation=False, verbose=False)["input_ids"]]
    return np.array(lengths, dtype=np.int64)


@dataclass(frozen=True)
class WindowReport:
    """Chunks against a model's window: ``over`` of ``chunks`` exceed ``window`` tokens
    (``share`` = over / chunks; 0 when the model has no window)."""

    model: str
    window: int | None
    chunks: int
    over: int
    share: float
    max_tokens: int
    median_tokens: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def window_report(texts: Sequence[str], model: str | os.PathLike = "minilm", *,
                  provider: LocalProvider | None = None) -> WindowReport:
    """The share of ``texts`` (e.g. a corpus's chunk texts) longer than a packaged model's
    input window, counted by that model's tokenizer.

    ``model`` is a packaged alias (:data:`memlab.embed.models.PACKAGED_MODELS`); ``provider``
    reuses an already loaded :class:`LocalProvider` of that model.
    """
    window = model_window(model)  # KeyError naming the known aliases for anything else
    spec = find_packaged(model)
    provider = provider or LocalProvider(spec.alias, show_progress=False)
    lengths = token_lengths(provider, texts)
    over, share, max_tokens = count_over(lengths, window)
    n = len(lengths)
    return WindowReport(model=spec.alias, window=window, chunks=n, over=over, share=share,
                        max_tokens=max_tokens,
                        median_tokens=float(np.median(lengths)) if n else 0.0)


def count_over(lengths: Any, window: int | None) -> tuple[int, float, int]:
    """``(over, share, max_tokens)`` of token ``lengths`` against ``window``: how many exceed
    it, their share, and the longest (all 0 for no lengths; ``over`` 0 without a window).

    >>> count_over([3, 300, 257], 256)
    (2, 0.6666666666666666, 300)
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    n = len(lengths)
    over = int((lengths > window).sum()) if window is not None else 0
    return over, over / n if n else 0.0, int(lengths.max()) if n else 0


def split_to_window(text: str, start_line: int, fits: Any) -> list[tuple[int, int, str]]:
    r"""``(start_line, end_line, text)`` pieces of ``text`` (whose first line is
    ``start_line``), each accepted by ``fits(text) -> bool`` where possible: greedy runs of
    whole lines, then of words for a line that does not fit alone.

    >>> split_to_window("a b\nc d\ne", 1, lambda t: len(t.split()) <= 2)
    [(1, 1, 'a b'), (2, 2, 'c d'), (3, 3, 'e')]
    >>> split_to_window("a b c", 7, lambda t: len(t.split()) <= 2)
    [(7, 7, 'a b'), (7, 7, 'c')]
    """
    if fits(text):
        return [(start_line, start_line + text.count("\n"), text)]
    pieces: list[tuple[int, int, str]] = []
    run: list[str] = []
    run_start = start_line
    for number, line in enumerate(text.split("\n"), start=start_line):
        if run and fits("\n".join([*run, line])):
            run.append(line)
            continue
        if run:
            pieces.append((run_start, run_start + len(run) - 1, "\n".join(run)))
            run = []
        if fits(line) or not line.strip():
            run, run_start = [line], number
            continue
        words: list[str] = []  # one line too long on its own: split it by words
        for word in line.split(" "):
            if words and not fits(" ".join([*words, word])):
                pieces.append((number, number, " ".join(words)))
                words = []
            words.append(word)
        if words:
            pieces.append((number, number, " ".join(words)))
    if run:
        pieces.append((run_start, run_start + len(run) - 1, "\n".join(run)))
    return [p for p in pieces if p[2].strip()]


def fit_to_window(corpus: Corpus, provider: LocalProvider, window: int | None) -> Corpus:
    """``corpus`` with every chunk longer than ``window`` tokens (``provider``'s tokenizer)
    split by :func:`split_to_window`; ``window=None`` returns ``corpus`` itself."""
    if window is None or not len(corpus):
        return corpus
    lengths = token_lengths(provider, corpus.texts)
    if not (lengths > window).any():
        return corpus

    def fits(text: str) -> bool:
        return int(token_lengths(provider, [text])[0]) <= window

    rows = []
    for row, n in zip(corpus.chunks.itertuples(index=False), lengths.tolist(), strict=True):
        if n <= window:
            rows.append(tuple(getattr(row, c) for c in CHUNK_TABLE_COLUMNS))
            continue
        for start, end, text in split_to_window(row.text, int(row.start_line), fits):
            digest = sha256_hex(text)
            rows.append((chunk_id(row.source, row.path, start, end, digest, corpus.model),
                         row.path, row.source, start, end, text, digest))
    chunks = pd.DataFrame(rows, columns=CHUNK_TABLE_COLUMNS).astype(
        {"start_line": "int64", "end_line": "int64"})
    return Corpus(chunks=chunks, files=corpus.files, root=corpus.root,
                  skipped=list(corpus.skipped), model=corpus.model)


def window_corpus(corpus: Corpus, config: Any) -> Corpus:
    """The corpus ``config`` embeds: unchanged unless ``memlab.chunking`` is
    ``"model-window"``, which fits every chunk to the local packaged model's window.

    Raises :class:`ValueError` for ``"model-window"`` with a provider other than a packaged
    local model (only their windows and tokenizers are known).
    """
    if getattr(config.memlab, "chunking", "openclaw") != "model-window":
        return corpus
    ms = config.memory_search
    provider_id = ms.resolved_provider()
    path = ms.local.model_path if ms.local is not None else None
    spec = find_packaged(path or "minilm")
    if provider_id != "local" or spec is None:
        raise ValueError(
            f'memlab.chunking: "model-window" needs provider "local" with a packaged model '
            f"(memorySearch.local.modelPath one of {', '.join(PACKAGED_MODELS)}); got provider "
            f"{provider_id!r}, modelPath {path!r}")
    return fit_to_window(corpus, LocalProvider(spec.alias, show_progress=False), spec.window)
