"""Custom provider ids: ``memorySearch.provider`` naming a ``models.providers.<id>`` entry.

OpenClaw (docs/reference/memory-config.md "Custom provider ids"; ``readConfiguredProviderApiId``
and ``getAdapter`` in its bundle) lets a memory search use an entry of the config's
``models.providers``, e.g. a second Ollama host::

    models: {providers: {"ollama-5080": {api: "ollama", baseUrl: "http://gpu-box.local:11435",
                                          apiKey: "ollama-local"}}},
    agents: {defaults: {memorySearch: {provider: "ollama-5080", model: "qwen3-embedding:0.6b"}}}

It resolves the id as follows (steps 1-2: :mod:`memlab.config.providers`), and so does
:func:`resolve_custom_provider`:

1. the entry is ``providers[id]``, else the one whose id matches after trimming and
   lower-casing; ids memlab implements itself are never looked up;
2. the embedding adapter is the entry's ``api`` (trimmed, lower-cased) when memlab has that
   adapter; ``"openai-completions"`` and ``"openai-responses"`` (OpenAI-compatible model APIs)
   map to ``openai-compatible``, and so does an entry without ``api`` that has a ``baseUrl``;
3. the adapter gets the entry's endpoint and auth: ``memorySearch.remote.baseUrl`` if set,
   else the entry's ``baseUrl``; ``remote.apiKey`` if set, else the entry's ``apiKey`` (a
   literal, an environment variable's name, or a secret reference; OpenClaw's non-secret
   markers such as ``"ollama-local"`` mean no key); the entry's ``headers`` under
   ``remote.headers``; the model is ``memorySearch.model`` with a ``"<id>/"`` or
   ``"<api>/"`` prefix removed.

>>> from memlab.config import load_config
>>> cfg = load_config({"models": {"providers": {"ollama-5080": {
...     "api": "ollama", "baseUrl": "http://gpu-box.local:11435", "apiKey": "ollama-local"}}},
...     "agents": {"defaults": {"memorySearch": {"provider": "ollama-5080",
...                                              "model": "ollama-5080/qwen3-embedding:0.6b"}}}})
>>> ms = resolve_custom_provider(cfg).memory_search
>>> ms.provider, ms.model, ms.remote.base_url, ms.remote.api_key
('ollama', 'qwen3-embedding:0.6b', 'http://gpu-box.local:11435', None)
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from memlab.config.providers import adapter_for, custom_provider_issue, find_entry
from memlab.config.types import KNOWN_PROVIDERS

__all__ = ["NON_SECRET_API_KEY_MARKERS", "resolve_custom_provider"]

#: OpenClaw's non-secret ``apiKey`` markers (``model-auth-markers.ts``): no key is sent.
NON_SECRET_API_KEY_MARKERS = frozenset({"custom-local", "codex-app-server",
                                        "gcp-vertex-credentials", "ollama-local",
                                        "secretref-managed"})
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


def _entry_api_key(entry: Mapping[str, Any]) -> Any:
    """The entry's ``apiKey`` as a ``remote.apiKey`` value (``None``: no key)."""
    key = entry.get("apiKey")
    if isinstance(key, Mapping):
        return dict(key)  # a secret reference {source, provider, id}
    if not isinstance(key, str) or not key.strip():
        return None
    key = key.strip()
    if key in NON_SECRET_API_KEY_MARKERS:
        return None
    if _ENV_NAME.match(key) and key in os.environ:  # an environment variable's name
        return {"source": "env", "provider": "default", "id": key}
    return key


def resolve_custom_provider(config: Any) -> Any:
    """``config`` with a custom ``memorySearch.provider`` id replaced by its adapter and the
    entry's endpoint, auth, headers and model (module docstring); any other config is
    returned as is. Raises :class:`memlab.embed.ProviderUnavailable` naming the key when the
    id cannot be resolved."""
    from memlab.embed import ProviderUnavailable

    ms = config.memory_search
    provider_id = ms.provider
    providers = getattr(config, "model_providers", None) or {}
    if not isinstance(provider_id, str) or provider_id.strip().lower() in KNOWN_PROVIDERS:
        return config
    problem = custom_provider_issue(provider_id, providers)
    if problem is not None:
        raise ProviderUnavailable(f"unknown embedding provider: {problem[0]}: {problem[1]}")
    found = find_entry(provider_id, providers)
    if found is None:
        return config  # no models.providers: get_provider reports the unknown id
    key, entry = found
    adapter = str(adapter_for(entry))
    overrides: dict[str, Any] = {"provider": adapter}
    if ms.model:
        model = ms.model.strip()
        for prefix in (f"{key}/", f"{provider_id.strip()}/", f"{adapter}/"):
            if model.startswith(prefix):
                model = model[len(prefix):]
                break
        overrides["model"] = model
    base_url = str(entry.get("baseUrl") or entry.get("baseURL") or "").strip()
    if base_url and not (ms.remote.base_url or "").strip():
        overrides["remote.baseUrl"] = base_url
    api_key = _entry_api_key(entry)
    if api_key is not None and ms.remote.api_key is None:
        overrides["remote.apiKey"] = api_key
    headers = entry.get("headers")
    if isinstance(headers, Mapping) and headers:
        overrides["remote.headers"] = {**{str(k): str(v) for k, v in headers.items()},
                                       **dict(ms.remote.headers or {})}
    return config.with_overrides(overrides)
