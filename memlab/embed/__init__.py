"""Embedding providers (reference §7) and the embedding cache (§8).

>>> from memlab.embed import get_provider, available_providers
>>> {"local", "none"} <= set(available_providers())
True
>>> set(available_providers()) >= {"openai", "gemini", "voyage", "ollama", "bedrock"}
True
>>> get_provider("auto")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
memlab.embed.base.ProviderUnavailable: 'auto' is not supported: choose a provider explicitly ...

Providers live one per module in this package (module name = provider id with ``-`` as
``_``), each class decorated with :func:`~memlab.embed.base.register_provider`; adding one is
adding one file. Unknown or unimplemented ids fail closed with :class:`ProviderUnavailable`:
memlab never falls back to another provider silently.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from memlab.embed.base import (
    PROVIDER_CLASSES,
    EmbeddingProvider,
    ModelNotFound,
    ProviderUnavailable,
    canonical_json,
    register_provider,
    text_hash,
)
from memlab.embed.cache import CachedEmbedder, EmbeddingCache
from memlab.embed.local import LocalProvider
from memlab.embed.none import NoneProvider

__all__ = [
    "OPENCLAW_PROVIDERS",
    "CachedEmbedder",
    "EmbeddingCache",
    "EmbeddingProvider",
    "LocalProvider",
    "ModelNotFound",
    "NoneProvider",
    "ProviderUnavailable",
    "available_providers",
    "canonical_json",
    "get_provider",
    "register_provider",
    "text_hash",
]

#: Provider ids OpenClaw 2026.7.35 accepts (reference §7).
OPENCLAW_PROVIDERS = (
    "openai", "gemini", "voyage", "mistral", "deepinfra", "bedrock", "github-copilot",
    "local", "ollama", "lmstudio", "openai-compatible", "none",
)
# Modules of this package that are infrastructure, not providers.
_NOT_PROVIDERS = {"base", "cache", "http", "models", "server", "bench", "fallback"}
# Provider modules that failed to import (a missing optional dependency): id -> error.
_BROKEN: dict[str, Exception] = {}


def _discover() -> None:
    """Import every provider module of this package so that it registers itself."""
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name in _NOT_PROVIDERS:
            continue
        try:
            importlib.import_module(f"{__name__}.{info.name}")
        except ImportError as exc:  # one broken provider must not break the others
            _BROKEN[info.name.replace("_", "-")] = exc


def available_providers() -> list[str]:
    """Ids of the providers memlab implements."""
    _discover()
    return sorted(PROVIDER_CLASSES)


def get_provider(name: str, **settings: Any) -> EmbeddingProvider:
    """Create the provider registered as ``name`` with ``settings`` (its constructor arguments).

    Raises :class:`ProviderUnavailable` for ids memlab does not implement (yet), and
    ``TypeError`` (naming the accepted settings) for settings the provider does not take.
    """
    pid = str(name).strip().lower()
    if pid not in PROVIDER_CLASSES:
        _discover()
    cls = PROVIDER_CLASSES.get(pid)
    if cls is None:
        have = ", ".join(repr(p) for p in sorted(PROVIDER_CLASSES))
        if pid in _BROKEN:
            why = (f"embedding provider {pid!r} could not be imported "
                   f"({type(_BROKEN[pid]).__name__}: {_BROKEN[pid]})")
        elif pid == "auto":
            why = ("'auto' is not supported: choose a provider explicitly (OpenClaw 2026.6+ maps "
                   "'auto' to 'openai')")
        elif pid in OPENCLAW_PROVIDERS:
            why = (f"embedding provider {pid!r} is an OpenClaw provider that memlab does not "
                   "implement yet")
        else:
            known = ", ".join(OPENCLAW_PROVIDERS)
            why = f"unknown embedding provider {name!r} (OpenClaw's ids: {known})"
        raise ProviderUnavailable(f"{why}; available providers: {have}")
    try:
        return cls(**settings)
    except TypeError as exc:
        import inspect

        accepted = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
        raise TypeError(f"invalid settings for embedding provider {pid!r}: {exc}; it accepts "
                        f"{accepted or 'no settings'}") from exc
