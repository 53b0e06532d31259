"""How many chunks a local model cannot read whole: token lengths against its input window.

A packaged model's window comes from the registry (:func:`memlab.embed.models.model_window`);
tokens are counted by the model's own tokenizer, special tokens included (what the window
counts). all-MiniLM-L6-v2 truncates after 256 tokens, so the tail of a longer chunk is never
embedded: the vector describes only its beginning.

>>> report = window_report(["short note", "word " * 400], "minilm")  # doctest: +SKIP
>>> report.over, report.share  # doctest: +SKIP
(1, 0.5)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from memlab.embed.local import LocalProvider
from memlab.embed.models import find_packaged, model_window

__all__ = ["WindowReport", "token_lengths", "window_report"]


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
    over = int((lengths > window).sum()) if window is not None else 0
    n = len(lengths)
    return WindowReport(model=spec.alias, window=window, chunks=n, over=over,
                        share=over / n if n else 0.0,
                        max_tokens=int(lengths.max()) if n else 0,
                        median_tokens=float(np.median(lengths)) if n else 0.0)
