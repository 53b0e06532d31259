"""Chunking as a sweep axis, and how many chunks the model cannot read whole.

``chunking.tokens`` and ``chunking.overlap`` (OpenClaw 2026.7's
``agents.defaults.memorySearch.chunking``, default 400 / 80) are outer axes of a sweep: each
distinct chunking re-chunks the corpus once (:func:`memlab.eval.systems.dataset_corpus`) and
runs its legs once; the chunk texts go through the engine's embedding cache, so a text two
chunkings share is embedded once. Every other knob is then evaluated from those legs by the
fast engine. ``memlab.chunking`` (``"openclaw"`` or the research ``"model-window"``, which
splits every chunk to fit the local model's window, :func:`memlab.embed.window.window_corpus`)
is an axis too.

Two ways to chunk at the model window:

* the axis value ``chunking.tokens: "model-window"`` (:data:`MODEL_WINDOW`) resolves, per grid
  point, to the input window of the model that point embeds with (256 for MiniLM, 512 for the
  E5 models; :func:`config_window`). The row carries that number, so it exports to OpenClaw
  2026.7 as ``chunking.tokens: 256``. OpenClaw counts a token as about 4 characters, not the
  model's own tokens, so some chunks can still exceed the window: the report says how many.
* ``memlab.chunking: "model-window"`` splits every chunk longer than the window by lines (then
  words) so that none is truncated. OpenClaw has no such setting: exporting it is refused
  (``--allow-lossy`` drops it).

:func:`truncation` counts, for one chunked corpus, the chunks longer than the embedder's
window, with the model's own tokenizer (special tokens included); :func:`chunking_report`
puts one row per chunking of a sweep: quality next to the truncated share.

>>> from memlab.config import load_config
>>> config_window(load_config({"memorySearch": {"provider": "local",
...                                             "local": {"modelPath": "e5-small"}}}))
512
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["CHUNKING_AXES", "MODEL_WINDOW", "Truncation", "chunking_label", "chunking_report",
           "config_window", "embedder_window", "resolve_chunking", "truncation"]

#: The sweep axes that change how the corpus is chunked.
CHUNKING_AXES = ("chunking.tokens", "chunking.overlap", "memlab.chunking")
#: The ``chunking.tokens`` axis value that stands for the model's input window.
MODEL_WINDOW = "model-window"


def config_window(cfg: Any) -> int | None:
    """The input window (the model's own tokens) of ``cfg``'s embedding model, when memlab
    knows it without loading the model: a packaged local model (``memorySearch.local.modelPath``
    an alias of :data:`memlab.embed.models.PACKAGED_MODELS`, unset = MiniLM). ``None`` for
    any other provider or model, and for a packaged model without a window."""
    from memlab.embed.models import find_packaged

    ms = cfg.memory_search
    if ms.resolved_provider() != "local":
        return None
    path = ms.local.model_path if ms.local is not None else None
    spec = find_packaged(path or "minilm")
    return spec.window if spec is not None else None


def resolve_chunking(overrides: Mapping[str, Any], base: Any) -> dict[str, Any]:
    """``overrides`` with ``chunking.tokens: "model-window"`` replaced by the window of the
    model those overrides (on ``base``) embed with; other overrides are returned unchanged.

    Raises :class:`~memlab.tune.sweep.SweepError` when that model's window is unknown (only
    packaged local models have one memlab knows).

    >>> from memlab.config import load_config
    >>> resolve_chunking({"chunking.tokens": "model-window", "chunking.overlap": 0},
    ...                  load_config({"memorySearch": {"provider": "local"}}))
    {'chunking.tokens': 256, 'chunking.overlap': 0}
    """
    out = dict(overrides)
    if out.get("chunking.tokens") != MODEL_WINDOW:
        return out
    from memlab.tune.errors import SweepError
    from memlab.tune.models import expand_overrides

    rest = {k: v for k, v in out.items() if k != "chunking.tokens"}
    cfg = base.with_overrides(expand_overrides(rest))
    window = config_window(cfg)
    if window is None:
        ms = cfg.memory_search
        path = ms.local.model_path if ms.local is not None else None
        raise SweepError(
            f'chunking.tokens "{MODEL_WINDOW}" needs a model whose input window memlab knows '
            f"(provider \"local\" with a packaged model, memlab models); got provider "
            f"{ms.resolved_provider()!r}, modelPath {path!r} (grid point {dict(overrides)})")
    out["chunking.tokens"] = int(window)
    return out


@dataclass(frozen=True)
class Truncation:
    """One chunked corpus against an embedder's window: ``over`` of ``chunks`` are longer
    than ``window`` tokens (``share`` = over / chunks). ``window`` ``None`` with ``known``:
    the model reads every token (nothing truncated); not ``known``: the embedder's window or
    tokenizer is unknown (keyword only, a remote provider), ``over``/``share`` are NaN."""

    chunks: int
    window: int | None
    over: float
    share: float
    max_tokens: float
    known: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def embedder_window(embedder: Any
                    ) -> tuple[int | None, Callable[[Sequence[str]], np.ndarray]] | None:
    """``(window, token_lengths)`` of an embedder (a :class:`~memlab.embed.cache.CachedEmbedder`
    is unwrapped), or ``None`` when unknown.

    A provider exposing ``window`` and ``token_lengths(texts)`` is taken at its word; a
    :class:`~memlab.embed.local.LocalProvider` has its packaged model's window (else the
    loaded model's ``max_seq_length``) and counts with the model's tokenizer
    (:func:`memlab.embed.window.token_lengths`). A remote provider's ``max_input_tokens`` is an
    input cap OpenClaw splits chunks at, not a window it truncates at, so it gives ``None``.
    """
    from memlab.embed.cache import CachedEmbedder

    inner = embedder
    while isinstance(inner, CachedEmbedder):
        inner = inner.provider
    if inner is None:
        return None
    lengths = getattr(inner, "token_lengths", None)
    if callable(lengths) and hasattr(inner, "window"):
        return inner.window, lengths
    from memlab.embed.local import LocalProvider

    if not isinstance(inner, LocalProvider):
        return None
    from memlab.embed.models import find_packaged
    from memlab.embed.window import token_lengths

    spec = find_packaged(inner.model_path or "minilm")
    window = spec.window if spec is not None else getattr(inner.load(), "max_seq_length", None)
    return window, lambda texts: token_lengths(inner, texts)


def truncation(texts: Sequence[str], embedder: Any) -> Truncation:
    """How many of ``texts`` (one corpus's chunk texts) ``embedder`` truncates.

    >>> class Words:  # a provider whose tokens are words and whose window is 3
    ...     window = 3
    ...     def token_lengths(self, texts):
    ...         return np.array([len(t.split()) for t in texts])
    >>> t = truncation(["a b", "a b c d", "a b c d e"], Words())
    >>> t.over, round(t.share, 3), t.max_tokens
    (2, 0.667, 5)
    """
    n = len(texts)
    got = embedder_window(embedder) if embedder is not None else None
    if got is None:
        return Truncation(n, None, math.nan, math.nan, math.nan, False)
    window, count = got
    from memlab.embed.window import count_over

    over, share, max_tokens = count_over(count(list(texts)) if n else [], window)
    return Truncation(n, window, over, share, max_tokens, True)


def chunking_label(cfg: Any) -> tuple[int, int, str]:
    """``(tokens, overlap, memlab.chunking)`` of a config, the overlap as OpenClaw clamps it."""
    ms = cfg.memory_search
    return (int(ms.chunking.resolved_tokens()), int(ms.resolved_overlap()),
            str(getattr(cfg.memlab, "chunking", "openclaw")))


def chunking_report(engine: Any, table: pd.DataFrame, configs: Sequence[Any],
                    metric: str = "ndcg@10") -> pd.DataFrame:
    """One row per chunking (and embedding model) of a sweep, in grid order.

    ``table`` and ``configs`` are a sweep's rows and configurations (same order,
    :meth:`memlab.tune.sweep.SweepEngine.table`). Columns: ``chunking.tokens``,
    ``chunking.overlap`` (as OpenClaw clamps it), ``memlab.chunking``, ``embedding``, the
    grid rows using it (``configs``), the best and the first row's ``metric``, and the
    corpus against the model's window (:meth:`~memlab.tune.sweep.SweepEngine.truncation`):
    ``chunks``, ``window``, ``truncated`` (chunks longer than the window), ``truncated_share``
    and ``max_tokens`` (NaN where the window is unknown, e.g. keyword only).
    """
    from memlab.tune.models import model_label

    if len(table) != len(configs):
        raise ValueError(f"the table has {len(table)} rows but {len(configs)} configs were given")
    if metric not in table.columns:
        raise ValueError(f"no metric column {metric!r} in the table; columns: "
                         f"{', '.join(map(str, table.columns))}")
    scores = pd.to_numeric(table[metric], errors="coerce").to_numpy(dtype=float)
    keys = [(chunking_label(c), model_label(c)) for c in configs]
    rows = []
    for key in dict.fromkeys(keys):
        idx = [i for i, k in enumerate(keys) if k == key]
        (tokens, overlap, how), label = key
        cut = engine.truncation(configs[idx[0]])
        best = scores[idx]
        rows.append({
            "chunking.tokens": tokens, "chunking.overlap": overlap, "memlab.chunking": how,
            "embedding": label, "configs": len(idx),
            f"best {metric}": float(np.nanmax(best)) if np.isfinite(best).any() else math.nan,
            f"first {metric}": float(scores[idx[0]]), "chunks": cut.chunks,
            "window": cut.window if cut.window is not None else math.nan,
            "truncated": cut.over, "truncated_share": cut.share,
            "max_tokens": cut.max_tokens})
    return pd.DataFrame(rows)
