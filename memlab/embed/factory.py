"""The embedder a config asks for: provider creation, fallback, cache, OpenClaw's provider
requirement (reference, section 7).

:func:`make_embedder` turns ``memorySearch`` (provider, model, remote settings, fallback,
cache) into an :class:`~memlab.embed.base.EmbeddingProvider`; :func:`make_search_embedder`
adds OpenClaw's rule for search (a required provider that cannot be used is an error, an
optional one degrades to keyword-only with a warning).

>>> from memlab.config import load_config
>>> make_embedder(load_config({"memorySearch": {"provider": "none"}})) is None
True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memlab.config import MemlabConfig
from memlab.embed import get_provider
from memlab.embed.base import EmbeddingProvider
from memlab.embed.cache import CachedEmbedder, EmbeddingCache

__all__ = ["default_cache_path", "keyword_only_config", "make_embedder",
           "make_search_embedder"]


def default_cache_path() -> Path:
    """Where embeddings are cached unless the config says otherwise."""
    base = os.environ.get("MEMLAB_CACHE_DIR") or Path.home() / ".cache" / "memlab"
    return Path(base) / "embeddings.sqlite"


def make_embedder(config: MemlabConfig, cache: EmbeddingCache | None = None
                  ) -> EmbeddingProvider | None:
    """The configured provider behind the embedding cache; ``None`` for ``provider: "none"``.

    An explicitly configured provider that memlab cannot create raises
    :class:`memlab.embed.ProviderUnavailable`: it never silently degrades to keyword-only.
    With ``memorySearch.fallback`` the provider is a
    :class:`memlab.embed.fallback.FallbackEmbedder` (OpenClaw's fallback semantics).
    """
    from memlab.embed.custom import resolve_custom_provider
    from memlab.embed.fallback import create_with_fallback

    config = resolve_custom_provider(config)  # a models.providers.<id> entry (custom id)
    ms = config.memory_search
    provider_id = ms.resolved_provider()
    if provider_id == "none":
        return None
    fallback_id = ms.resolved_fallback()
    # OpenClaw: at start-up the fallback gets the primary's request (the configured model, or
    # the primary's default); activated later, its own default model (else the configured one)
    init_model = ms.model if ms.model is not None else (ms.resolved_model() or None)
    late_model = _default_model(fallback_id) or ms.model
    provider = create_with_fallback(
        provider_id, lambda: _create_provider(config, provider_id, ms.model), fallback_id,
        lambda at_init: _create_provider(config, str(fallback_id),
                                         init_model if at_init else late_model))
    if not ms.cache.enabled:
        return provider
    if cache is None:
        path = config.memlab.embedding_cache or default_cache_path()
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        cache = EmbeddingCache(path)
    return CachedEmbedder(provider, cache)


def _default_model(provider_id: str | None) -> str | None:
    from memlab.config import DEFAULT_MODELS

    return DEFAULT_MODELS.get((provider_id or "").lower()) or None


def _create_provider(config: MemlabConfig, provider_id: str, model: str | None
                     ) -> EmbeddingProvider:
    """Create provider ``provider_id`` from ``memorySearch`` with ``model`` (no cache)."""
    ms = config.memory_search
    settings: dict[str, Any] = {}
    if provider_id == "local":
        if ms.local and ms.local.model_path:
            settings["model_path"] = ms.local.model_path
        settings["batch_size"] = config.memlab.batch_size
    if model and provider_id != "local":
        settings["model"] = model
    if provider_id.lower() in _REMOTE_PROVIDERS:
        settings.update(_remote_settings(provider_id.lower(), ms))
    return get_provider(provider_id, **settings)


def keyword_only_config(config: MemlabConfig) -> MemlabConfig:
    """A copy of ``config`` searching keyword-only (``provider: "none"``), for an optional
    provider that is unavailable."""
    cfg = config.model_copy(deep=True)
    cfg.memory_search.provider = "none"
    cfg.memory_search.fallback = "none"
    return cfg


def make_search_embedder(config: MemlabConfig, cache: EmbeddingCache | None = None
                         ) -> tuple[EmbeddingProvider | None, str | None]:
    """``(embedder, degraded_reason)`` with OpenClaw's provider requirement (§7.3).

    ``provider: "none"`` -> ``(None, None)`` (keyword-only on purpose). A provider that
    cannot be created: *required* (any explicitly configured provider but ``local``) raises
    :class:`memlab.embed.fallback.RequiredProviderUnavailable` (search reports
    "unavailable" with the reason and the fix); *optional* (provider unset, ``"auto"`` or
    ``"local"``) warns with a :class:`memlab.workspace.MemlabWarning` and returns
    ``(None, reason)``: keyword-only search.
    """
    import warnings

    from memlab.embed import ProviderUnavailable
    from memlab.embed.fallback import RequiredProviderUnavailable
    from memlab.workspace import MemlabWarning

    ms = config.memory_search
    try:
        embedder = make_embedder(config, cache)
        if embedder is not None and embedder.id == "local" and \
                ms.provider_requirement() == "optional":
            _ = embedder.dims  # loads the model: a missing one degrades now, not mid-search
        return embedder, None
    except ProviderUnavailable as exc:
        if ms.provider_requirement() == "required":
            raise RequiredProviderUnavailable(ms.resolved_provider(), str(exc)) from None
        reason = str(exc)
        warnings.warn(f"memory search: embeddings unavailable (provider "
                      f"{ms.resolved_provider()!r}): {reason}; using keyword-only results. "
                      "Fix the provider or set provider \"none\" to silence this warning.",
                      MemlabWarning, stacklevel=2)
        return None, reason


#: Remote providers make_embedder maps config to: id -> environment variables of the API key.
_REMOTE_PROVIDERS: dict[str, tuple[str, ...]] = {
    "openai-compatible": (),
    "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "voyage": ("VOYAGE_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "deepinfra": ("DEEPINFRA_API_KEY",),
    "ollama": ("OLLAMA_API_KEY",),
    "lmstudio": ("LM_API_TOKEN",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"),
    "bedrock": (),
}


def _configured_api_key(key: Any) -> str | None:
    """``remote.apiKey`` as a string: a literal, or an ``env`` secret reference."""
    from pydantic import SecretStr

    from memlab.embed import ProviderUnavailable

    if key is None:
        return None
    if isinstance(key, SecretStr):
        return key.get_secret_value().strip() or None
    if key.source != "env":  # a secret reference {source, provider, id}
        raise ProviderUnavailable(
            f"memorySearch.remote.apiKey: memlab resolves only env secret references; "
            f"got source {key.source!r} (id {key.id!r})")
    if not os.environ.get(key.id):
        raise ProviderUnavailable(
            f"memorySearch.remote.apiKey: environment variable {key.id} is not set")
    return os.environ[key.id]


def _remote_settings(provider_id: str, ms: Any) -> dict[str, Any]:
    """Constructor settings of a remote provider from ``memorySearch`` (and the environment).

    API keys come from ``remote.apiKey`` or the provider's environment variables (OpenClaw's
    names); they are handed to the provider only, which keeps them out of keys and messages.
    """
    remote = ms.remote
    out: dict[str, Any] = {}
    key = _configured_api_key(remote.api_key)
    if provider_id == "gemini" and key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        key = (os.environ.get(key) or "").strip() or None
    envs = _REMOTE_PROVIDERS[provider_id]
    base_url = (remote.base_url or "").strip() or None
    if key is None and envs and provider_id != "ollama":
        key = next((os.environ[e].strip() for e in envs if (os.environ.get(e) or "").strip()),
                   None)
    if key is None and provider_id == "ollama" and "ollama.com" in (base_url or ""):
        key = (os.environ.get("OLLAMA_API_KEY") or "").strip() or None
    if provider_id == "github-copilot":
        if key is not None:
            out["github_token"] = key
    elif provider_id != "bedrock":
        if key is not None or provider_id in ("openai", "gemini", "voyage", "mistral",
                                              "deepinfra"):
            out["api_key"] = key
    if provider_id == "openai-compatible" or base_url:
        out["base_url"] = base_url
    if remote.headers and provider_id != "bedrock":
        out["headers"] = dict(remote.headers)
    if provider_id in ("openai", "openai-compatible"):
        out["input_type"] = ms.input_type
        out["query_input_type"] = ms.query_input_type
        out["document_input_type"] = ms.document_input_type
    if provider_id in ("openai", "openai-compatible", "gemini", "ollama", "bedrock"):
        out["output_dimensionality"] = ms.output_dimensionality
    if ms.sync.embedding_batch_timeout_seconds is not None:
        out["batch_timeout"] = float(ms.sync.embedding_batch_timeout_seconds)
    if provider_id in ("openai", "gemini", "voyage") and ms.remote.batch.enabled:
        out["batch"] = ms.remote.batch  # the async batch-job API (memlab.embed.batch)
    return out
