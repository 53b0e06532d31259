"""What an embedding costs: USD per million input tokens, for the model reports of
``memlab bench-providers`` and model sweeps (:mod:`memlab.tune.models`).

A price comes from the user's table (``"PROVIDER:MODEL"`` first, then ``"PROVIDER"``); a
packaged local model, ``none`` and a server on this machine (such as ``memlab
serve-embeddings``) cost nothing; anything else is unknown (NaN), never guessed.

>>> price_per_million("openai", "text-embedding-3-small", None, {"openai": 0.02})
0.02
>>> price_per_million("openai-compatible", "minilm", "http://127.0.0.1:8765/v1", {})
0.0
>>> price_per_million("voyage", "voyage-3", None, {})
nan
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlparse

__all__ = ["LOOPBACK_HOSTS", "is_loopback", "price_per_million"]

#: Host names of this machine (a server there is free to call).
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})


def is_loopback(url: object) -> bool:
    """Whether ``url`` (a string; anything else is not) points at this machine."""
    return isinstance(url, str) and (urlparse(url).hostname or "") in LOOPBACK_HOSTS


def price_per_million(provider: str, model: str | None, base_url: object,
                      prices: Mapping[str, float]) -> float:
    """USD per 1M tokens of ``provider``/``model`` (module docstring)."""
    for key in (f"{provider}:{model or ''}", provider):
        if key in prices:
            return float(prices[key])
    if provider in ("local", "none") or is_loopback(base_url):
        return 0.0
    return float("nan")
