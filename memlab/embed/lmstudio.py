"""The ``lmstudio`` provider: LM Studio's OpenAI-compatible server (reference §7).

OpenClaw's ``extensions/lmstudio/src/embedding-provider.ts``:

* Inference base: ``remote.baseUrl`` (or ``http://localhost:1234``) with any ``/v1`` or
  ``/api/v1`` suffix removed, then ``/v1`` appended; ``POST {base}/embeddings`` with
  ``{"model", "input"}``.
* Default model ``text-embedding-nomic-embed-text-v1.5`` (an ``lmstudio/`` prefix is dropped);
  no query prefixes, vectors returned as sent.
* Optional ``Authorization: Bearer <key>`` (``remote.apiKey`` or ``LM_API_TOKEN``; the
  placeholder ``lmstudio-local`` sends nothing); a configured authorization header wins.
* Before the first embedding the model is preloaded: ``GET {server}/api/v1/models`` and, when
  it is not loaded, ``POST {server}/api/v1/models/load`` ``{"model", "context_length"}``. A
  failed preload only logs a warning, as in OpenClaw.
* Timeouts 60 s (query) / 600 s (batch, the adapter's runtime override).
* Cache key (§8): baseUrl, model, non-auth headers.

    >>> LMStudioProvider(base_url="http://127.0.0.1:1234/api/v1/").url
    'http://127.0.0.1:1234/v1/embeddings'
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from memlab.embed.base import register_provider
from memlab.embed.http import (
    LOCAL_BATCH_TIMEOUT_S,
    REMOTE_QUERY_TIMEOUT_S,
    OpenAIShapedEmbedder,
    RequestFailed,
    clean_headers,
    strip_prefixes,
)

log = logging.getLogger(__name__)

DEFAULT_SERVER = "http://localhost:1234"
DEFAULT_MODEL = "text-embedding-nomic-embed-text-v1.5"
DEFAULT_CONTEXT_LENGTH = 64000
PRELOAD_TIMEOUT_S = 120.0


def server_base(configured: str | None) -> str:
    raw = (configured or "").strip() or DEFAULT_SERVER
    if not re.match(r"^https?://", raw, re.IGNORECASE):
        raw = f"http://{raw}"
    raw = raw.split("?")[0].split("#")[0].rstrip("/")
    return re.sub(r"(/api/v1|/v1)$", "", raw, flags=re.IGNORECASE)


@register_provider
class LMStudioProvider(OpenAIShapedEmbedder):
    """LM Studio embeddings with model preloading."""

    id = "lmstudio"
    secret_settings = frozenset({"api_key"})
    auth_fix = "check memorySearch.remote.apiKey (or LM_API_TOKEN)"

    def __init__(self, model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, headers: Mapping[str, str] | None = None,
                 preload: bool = True, context_length: int | None = None,
                 query_timeout: float = REMOTE_QUERY_TIMEOUT_S,
                 batch_timeout: float = LOCAL_BATCH_TIMEOUT_S, **http: Any):
        self.server = server_base(base_url)
        self.base_url = f"{self.server}/v1"
        self.model = strip_prefixes(model, DEFAULT_MODEL, ("lmstudio/",))
        self._extra_headers = clean_headers(headers)
        key = api_key.strip() if isinstance(api_key, str) else ""
        if "authorization" in self._extra_headers or key in ("", "lmstudio-local"):
            key = ""
        self._api_key = key or None
        self.preload = bool(preload)
        self.context_length = context_length
        self._preloaded = False
        self._init_http(query_timeout=query_timeout, batch_timeout=batch_timeout, **http)

    def ensure_loaded(self) -> None:
        """Preload the model (best effort; a failure is logged, not raised)."""
        self._preloaded = True
        headers = self.request_headers()
        try:
            listing = self._request_json("GET", f"{self.server}/api/v1/models",
                                         headers=headers, timeout=PRELOAD_TIMEOUT_S)
            models = listing.get("models") or listing.get("data") or [] if isinstance(
                listing, dict) else []
            entry = next((m for m in models if isinstance(m, dict) and str(
                m.get("key") or m.get("id") or "").strip() == self.model), None)
            want = self.context_length or DEFAULT_CONTEXT_LENGTH
            limit = entry.get("max_context_length") if entry else None
            if isinstance(limit, int) and limit > 0:
                want = min(want, limit)
            loaded = [i.get("config", {}).get("context_length")
                      for i in (entry or {}).get("loaded_instances") or []
                      if isinstance(i, dict)]
            loaded = [c for c in loaded if isinstance(c, int) and c > 0]
            if loaded and max(loaded) >= want:
                return
            answer = self._request_json("POST", f"{self.server}/api/v1/models/load",
                                        body={"model": self.model, "context_length": want},
                                        headers=headers, timeout=PRELOAD_TIMEOUT_S)
            status = answer.get("status") if isinstance(answer, dict) else None
            if isinstance(status, str) and status.lower() != "loaded":
                raise RequestFailed(f"model load returned status {status!r}", retryable=False)
        except RequestFailed as exc:
            log.warning("lmstudio embeddings warmup failed; continuing without preload "
                        "(base %s, model %s): %s", self.server, self.model,
                        self.scrub(str(exc)))

    def _embed_request(self, texts: list[str], kind: str, timeout: float) -> Any:
        if self.preload and not self._preloaded:
            self.ensure_loaded()
        return super()._embed_request(texts, kind, timeout)
