"""``models.providers`` entries that ``memorySearch.provider`` may name (custom provider ids):
finding the entry, the embedding adapter that serves it, and the config error when neither
works. :mod:`memlab.embed.custom` applies the entry to the provider it creates.

OpenClaw's rules (``readConfiguredProviderApiId``, ``getAdapter``): the entry is
``providers[id]``, else the one whose id matches after trimming and lower-casing; its adapter
is its ``api`` (trimmed, lower-cased) when that is a memory embedding provider, the
``openai-compatible`` adapter for the OpenAI-compatible model APIs (``openai-completions``,
``openai-responses``) and for an entry without ``api`` that has a ``baseUrl``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memlab.config.types import KNOWN_PROVIDERS

__all__ = ["OPENAI_COMPATIBLE_APIS", "adapter_for", "custom_provider_issue", "find_entry"]

#: Model APIs OpenClaw serves through its ``openai-compatible`` embedding adapter.
OPENAI_COMPATIBLE_APIS = frozenset({"openai-completions", "openai-responses"})


def _norm(value: Any) -> str:
    """OpenClaw's ``normalizeProviderId``: trimmed and lower-cased."""
    return str(value).strip().lower() if isinstance(value, str) else ""


def _builtin_ids() -> list[str]:
    return sorted(KNOWN_PROVIDERS)


def find_entry(provider_id: str, providers: Mapping[str, Any] | None
               ) -> tuple[str, Mapping[str, Any]] | None:
    """``(entry id, entry)`` of ``models.providers`` that ``provider_id`` names, or ``None``.

    >>> find_entry(" Ollama-5080", {"ollama-5080": {"api": "ollama"}})
    ('ollama-5080', {'api': 'ollama'})
    """
    if not providers:
        return None
    if provider_id in providers and isinstance(providers[provider_id], Mapping):
        return provider_id, providers[provider_id]
    want = _norm(provider_id)
    for key, entry in providers.items():
        if _norm(key) == want and isinstance(entry, Mapping):
            return key, entry
    return None


def adapter_for(entry: Mapping[str, Any]) -> str | None:
    """The memlab provider that serves a ``models.providers`` entry, or ``None``.

    >>> adapter_for({"api": " Ollama "}), adapter_for({"api": "openai-responses"})
    ('ollama', 'openai-compatible')
    >>> adapter_for({"baseUrl": "http://127.0.0.1:8080/v1"}), adapter_for({"api": "anthropic"})
    ('openai-compatible', None)
    """
    api = _norm(entry.get("api"))
    if api:
        if api in OPENAI_COMPATIBLE_APIS:
            return "openai-compatible"
        return api if api in _builtin_ids() and api not in ("none", "auto") else None
    if str(entry.get("baseUrl") or entry.get("baseURL") or "").strip():
        return "openai-compatible"
    return None


def custom_provider_issue(provider_id: str, providers: Mapping[str, Any] | None
                          ) -> tuple[str, str] | None:
    """``(key path, message)`` when ``provider_id`` cannot be resolved, else ``None``.

    ``None`` too for ids memlab implements, and for unknown ids when the config has no
    ``models.providers`` at all (plugin ids OpenClaw may know; creating the provider then
    fails with the list of memlab's providers).
    """
    if not isinstance(provider_id, str) or _norm(provider_id) in _builtin_ids():
        return None
    found = find_entry(provider_id, providers)
    if found is None:
        if not providers:
            return None
        return ("memorySearch.provider",
                f"{provider_id!r} is neither an embedding provider memlab implements "
                f"({', '.join(_builtin_ids())}) nor a models.providers entry (configured: "
                f"{', '.join(sorted(map(str, providers)))})")
    key, entry = found
    if adapter_for(entry) is None:
        api = entry.get("api")
        return (f"models.providers.{key}.api",
                f"{api!r} has no memory embedding adapter in memlab; use one of "
                f"{', '.join(a for a in _builtin_ids() if a not in ('none', 'auto'))}, "
                f"{', '.join(sorted(OPENAI_COMPATIBLE_APIS))}, or leave api unset with a "
                "baseUrl (OpenAI-compatible)" if api is not None else
                "is unset and the entry has no baseUrl: memlab cannot tell which embedding "
                "adapter serves it")
    return None
