"""``memorySearch.fallback`` and the fail-closed report (reference §7.3).

OpenClaw 2026.7.35 (``extensions/memory-core/src/memory/embeddings.ts``,
``manager-provider-state.ts``, ``manager-sync-ops.ts``, ``manager.ts``):

* **At start-up** (``createEmbeddingProvider``): when creating the primary adapter fails and
  ``fallback`` is set (not ``"none"``, not the primary's id), the fallback adapter is created
  with the *same request* -- including the resolved ``model``, which is the configured model
  or, when unset, the *primary's* default model (OpenClaw's ``mergeConfig``). Status shows
  ``fallback-active`` with ``fallback: {from, reason}``. If the fallback fails too the error
  is ``"<reason>\\n\\nFallback to <id> failed: <reason>"``.
* **Later** (``activateFallbackProvider``): when an embedding operation of the active
  provider fails (sync or query), the fallback is created once (never a second time), with
  the fallback adapter's *default* model (else the configured model). The provider key is
  recomputed, so the index identity changes: a full reindex in progress is redone with the
  fallback; otherwise the index stays dirty and searches are paused until it is rebuilt
  (``memlab index --force``); a query is re-embedded only when the index identity still
  matches.

:class:`FallbackEmbedder` is that state machine as a provider: it delegates to the active
provider and, when the primary fails, switches and raises :class:`ProviderSwitched` so the
caller (sync, search) can re-check the index identity instead of mixing vectors of two models.

The fail-closed report: :func:`unavailable_message` and :func:`unavailable_result` build
OpenClaw's "Memory search unavailable: embedding provider ... is configured but unavailable"
error and the ``memory_search`` tool's ``{results: [], disabled: true, unavailable: true, error,
warning, action}`` payload.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from memlab.embed.base import EmbeddingInput, EmbeddingProvider, ProviderUnavailable

log = logging.getLogger(__name__)

__all__ = [
    "FallbackEmbedder",
    "ProviderSwitched",
    "RequiredProviderUnavailable",
    "create_with_fallback",
    "unavailable_message",
    "unavailable_result",
]


class ProviderSwitched(RuntimeError):
    """The primary provider failed and the fallback is now active: vectors made so far (and
    the index identity) belong to the previous provider, so the operation must be redone."""

    def __init__(self, previous: str, current: str, reason: str):
        self.previous, self.current, self.reason = previous, current, reason
        super().__init__(f"memory embeddings: switched to fallback provider ({current}) after "
                         f"{previous} failed: {reason}")


class RequiredProviderUnavailable(ProviderUnavailable):
    """An explicitly configured provider is unavailable: search reports "unavailable" (with
    the reason and the fix) instead of silently degrading to keyword-only results."""

    def __init__(self, provider: str, reason: str, operation: str = "search"):
        self.provider, self.reason, self.operation = provider, reason, operation
        super().__init__(unavailable_message(provider, reason, operation))

    @property
    def action(self) -> str:
        return unavailable_result(self.reason)["action"]


def unavailable_message(provider: str, reason: str, operation: str = "search") -> str:
    """OpenClaw's ``buildRequiredProviderUnavailableError`` text, plus the fix.

    >>> unavailable_message("gemini", "No API key found")[:78]
    'Memory search unavailable: embedding provider "gemini" is configured but unava'
    """
    reason = reason.strip().rstrip(".") or "provider is unavailable"
    fix = unavailable_result(reason)["action"]
    return (f'Memory {operation} unavailable: embedding provider "{provider}" is configured '
            f"but unavailable. Reason: {reason}. Fix: {fix}")


def unavailable_result(error: str | None) -> dict[str, Any]:
    """OpenClaw's ``buildMemorySearchUnavailableResult``: what ``memory_search`` returns when
    memory search is unavailable (quota errors and missing ``node:sqlite`` get their own
    warning/action; memlab names its own fix commands)."""
    reason = (error or "memory search unavailable").strip() or "memory search unavailable"
    low = reason.lower()
    if re.search(r"insufficient_quota|quota|429", low):
        warning = "Memory search is unavailable because the embedding provider quota is exhausted."
        action = "Top up or switch embedding provider, then retry memory_search."
    else:
        warning = "Memory search is unavailable due to an embedding/provider error."
        action = ("Check embedding provider configuration (memorySearch.provider, model, "
                  "remote.baseUrl, remote.apiKey or the provider's API key variable), or set "
                  'provider "none" for keyword-only search, then retry; `memlab status --deep` '
                  "probes the provider.")
    return {"results": [], "disabled": True, "unavailable": True, "error": reason,
            "warning": warning, "action": action,
            "debug": {"warning": warning, "action": action, "error": reason}}


class FallbackEmbedder(EmbeddingProvider):
    """A provider with ``memorySearch.fallback``: the active provider is the primary until an
    embedding operation fails, then the fallback (created once, lazily).

    ``id``, ``model``, ``dims`` and the settings key are the *active* provider's, so the
    embedding cache and the index identity follow the switch. ``fallback_from`` and
    ``fallback_reason`` are set once the fallback is active (OpenClaw's status ``fallback``).
    """

    def __init__(self, primary: EmbeddingProvider | None, primary_id: str, fallback_id: str,
                 make_fallback: Callable[[bool], EmbeddingProvider],
                 primary_error: str | None = None):
        self.primary_id = primary_id
        self.fallback_id = fallback_id
        self._make_fallback = make_fallback
        self.fallback_from: str | None = None
        self.fallback_reason: str | None = None
        if primary is None:  # creation failed: start on the fallback (OpenClaw's init path)
            try:
                self.active = make_fallback(True)
            except ProviderUnavailable as exc:
                raise ProviderUnavailable(f"{primary_error}\n\nFallback to {fallback_id} "
                                          f"failed: {exc}") from None
            self.fallback_from, self.fallback_reason = primary_id, primary_error
            log.warning("memory embeddings: %s unavailable; using fallback provider %s: %s",
                        primary_id, fallback_id, primary_error)
        else:
            self.active = primary

    # -- identity of the active provider -------------------------------------------------
    @property
    def id(self) -> str:  # type: ignore[override]
        return self.active.id

    @property
    def model(self) -> str:  # type: ignore[override]
        return self.active.model

    @property
    def max_input_tokens(self) -> int:  # type: ignore[override]
        return self.active.max_input_tokens

    @property
    def dims(self) -> int:
        return self.active.dims

    @property
    def settings_key(self) -> str:
        return self.active.settings_key

    def key_settings(self) -> dict[str, Any]:
        return self.active.key_settings()

    def cache_key_data(self) -> dict[str, Any]:
        return self.active.cache_key_data()

    def public_settings(self) -> dict[str, Any]:
        return self.active.public_settings()

    def supports_multimodal(self) -> bool:
        return self.active.supports_multimodal()

    @property
    def lifecycle(self) -> dict[str, Any]:
        """OpenClaw's provider lifecycle: ``active`` or ``fallback-active``."""
        if self.fallback_from:
            return {"mode": "fallback-active", "providerId": self.id,
                    "fallbackFrom": self.fallback_from, "reason": self.fallback_reason}
        return {"mode": "active", "providerId": self.id}

    # -- switching -----------------------------------------------------------------------
    def _switch(self, exc: ProviderUnavailable) -> None:
        """Activate the fallback after ``exc`` (once) and raise :class:`ProviderSwitched`;
        re-raise ``exc`` when the fallback is already active or is the same provider."""
        if self.fallback_from is not None or self.fallback_id == self.active.id:
            raise exc
        reason = str(exc)
        try:
            fallback = self._make_fallback(False)
        except ProviderUnavailable as fexc:
            log.warning("memory embeddings: failed to activate fallback provider: %s", fexc)
            raise exc from None
        previous = self.active.id
        self.active = fallback
        self.fallback_from, self.fallback_reason = previous, reason
        log.warning("memory embeddings: switched to fallback provider (%s): %s",
                    self.fallback_id, reason)
        raise ProviderSwitched(previous, fallback.id, reason) from None

    def _call(self, method: str, *args: Any) -> np.ndarray:
        try:
            return getattr(self.active, method)(*args)
        except ProviderUnavailable as exc:
            self._switch(exc)
            raise  # pragma: no cover - _switch always raises

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._call("embed_documents", texts)

    def embed_inputs(self, inputs: Sequence[str | EmbeddingInput]) -> np.ndarray:
        return self._call("embed_inputs", inputs)

    def embed_query(self, text: str) -> np.ndarray:
        return self._call("embed_query", text)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._call("embed_queries", texts)

    def __repr__(self) -> str:
        state = f", fallback_from={self.fallback_from!r}" if self.fallback_from else ""
        return f"FallbackEmbedder({self.active!r}, fallback={self.fallback_id!r}{state})"


def create_with_fallback(primary_id: str, make_primary: Callable[[], EmbeddingProvider],
                         fallback_id: str | None,
                         make_fallback: Callable[[bool], EmbeddingProvider]
                         ) -> EmbeddingProvider:
    """The primary provider, wrapped in a :class:`FallbackEmbedder` when a fallback is set.

    ``make_fallback(at_init)`` creates the fallback: ``at_init=True`` when the primary could
    not be created (OpenClaw passes the primary's request, model included), ``False`` when
    it is activated after a failed embedding (OpenClaw uses the fallback's default model).
    Without a fallback, or with the primary's own id, a creation error propagates.
    """
    if not fallback_id or fallback_id == "none" or fallback_id == primary_id:
        return make_primary()
    try:
        primary: EmbeddingProvider | None = make_primary()
        error = None
    except ProviderUnavailable as exc:
        primary, error = None, str(exc)
    return FallbackEmbedder(primary, primary_id, fallback_id, make_fallback, error)
