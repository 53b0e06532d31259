"""The ``github-copilot`` provider: embeddings through a GitHub Copilot subscription (§7).

OpenClaw's ``extensions/github-copilot/embeddings.ts``:

1. Token exchange: ``GET https://api.github.com/copilot_internal/v2/token`` with
   ``Authorization: Bearer <GitHub token>``, ``Copilot-Integration-Id: vscode-chat`` and the
   VS Code editor headers; the answer ``{"token", "expires_at"}`` holds a short-lived Copilot
   token whose ``proxy-ep=proxy.<host>`` field gives the API base ``https://api.<host>``
   (default ``https://api.individual.githubcopilot.com``; ``remote.baseUrl`` overrides it).
   The token is reused until 5 minutes before it expires.
2. Model discovery: ``GET {base}/models``; models whose ``supported_endpoints`` mention
   embeddings (or whose id contains "embedding"). The configured model must be among them;
   otherwise the first of text-embedding-3-small, -3-large, ada-002, else the first found.
3. ``POST {base}/embeddings`` with ``{"model", "input"}``; ``data[i]`` carry their ``index``;
   vectors are L2-normalised.

The GitHub token comes from ``remote.apiKey`` or ``COPILOT_GITHUB_TOKEN``, ``GH_TOKEN``,
``GITHUB_TOKEN``. Discovery happens on first use (the cache key needs the model). Cache key
(§8): baseUrl and model.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any

from memlab.embed.base import ProviderUnavailable, register_provider
from memlab.embed.http import (
    OpenAIShapedEmbedder,
    RequestFailed,
    clean_headers,
    is_sensitive_header,
    malformed,
)

TOKEN_URL = "https://api.github.com/copilot_internal/v2/token"
DEFAULT_BASE_URL = "https://api.individual.githubcopilot.com"
PREFERRED_MODELS = ("text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002")
IDE_HEADERS = {"accept-encoding": "identity", "editor-version": "vscode/1.107.0",
               "editor-plugin-version": "copilot-chat/0.35.0",
               "user-agent": "GitHubCopilotChat/0.35.0"}
ENV_VARS = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")
DISCOVERY_TIMEOUT_S = 60.0


def base_url_from_token(token: str) -> str | None:
    """``https://api.<host>`` from a Copilot token's ``proxy-ep=proxy.<host>`` field.

    >>> base_url_from_token("tid=1;proxy-ep=proxy.business.githubcopilot.com;exp=9")
    'https://api.business.githubcopilot.com'
    """
    match = re.search(r"(?:^|;)\s*proxy-ep=([^;\s]+)", token.strip(), re.IGNORECASE)
    if not match:
        return None
    host = re.sub(r"^https?://", "", match.group(1).strip(), flags=re.IGNORECASE)
    host = host.split("/")[0].split(":")[0].lower()
    if not host:
        return None
    return "https://" + re.sub(r"^proxy\.", "api.", host, flags=re.IGNORECASE)


@register_provider
class GitHubCopilotProvider(OpenAIShapedEmbedder):
    """Copilot embeddings (token exchange, model discovery, L2-normalised vectors)."""

    id = "github-copilot"
    normalize = True
    secret_settings = frozenset({"github_token"})
    auth_fix = ("check that the GitHub token (remote.apiKey, COPILOT_GITHUB_TOKEN, GH_TOKEN or "
                "GITHUB_TOKEN) has an active Copilot subscription")

    def __init__(self, github_token: str | None = None, model: str | None = None,
                 base_url: str | None = None, headers: Mapping[str, str] | None = None,
                 token_url: str = TOKEN_URL, **http: Any):
        token = github_token.strip() if isinstance(github_token, str) else ""
        if not token:
            raise ProviderUnavailable(
                "No GitHub token available for Copilot embedding provider: set "
                "memorySearch.remote.apiKey or one of " + ", ".join(ENV_VARS) + ".")
        self._github_token = token
        self._requested_model = (model or "").strip() or None
        if self._requested_model and self._requested_model.startswith("github-copilot/"):
            self._requested_model = self._requested_model[len("github-copilot/"):]
        self.model = self._requested_model or ""
        self._configured_base = (base_url or "").strip().rstrip("/") or None
        self.base_url = self._configured_base or ""
        self.token_url = token_url
        self._extra_headers = clean_headers(headers)
        self._copilot_token: str | None = None
        self._expires_at = 0.0
        self._resolved = False
        self._api_key = None
        self._init_http(secrets=[token, *(v for k, v in self._extra_headers.items()
                                          if is_sensitive_header(k))], **http)

    # -- session ----------------------------------------------------------------------------

    def _exchange(self) -> None:
        headers = {"accept": "application/json", "authorization": f"Bearer {self._github_token}",
                   "copilot-integration-id": "vscode-chat", **IDE_HEADERS,
                   "x-github-api-version": "2025-04-01"}
        try:
            payload = self._request_json("GET", self.token_url, headers=headers,
                                         timeout=DISCOVERY_TIMEOUT_S)
        except RequestFailed as exc:
            raise ProviderUnavailable(self.scrub(
                f"github-copilot embeddings: Copilot token exchange failed at {self.token_url}: "
                f"{exc}; fix: {self.auth_fix}")) from None
        token = payload.get("token") if isinstance(payload, dict) else None
        expires = payload.get("expires_at") if isinstance(payload, dict) else None
        if not isinstance(token, str) or not token.strip():
            raise ProviderUnavailable("github-copilot embeddings: Copilot token response "
                                      "missing token")
        try:
            expires_at = float(expires)
        except (TypeError, ValueError):
            raise ProviderUnavailable("github-copilot embeddings: Copilot token response has "
                                      "invalid expires_at") from None
        if expires_at > 1e11:  # milliseconds
            expires_at /= 1000.0
        self._copilot_token = token
        self._add_secret(token)
        self._expires_at = expires_at
        if not self._configured_base:
            self.base_url = (base_url_from_token(token) or DEFAULT_BASE_URL).rstrip("/")

    def _ensure_token(self) -> None:
        if self._copilot_token is None or self._expires_at - time.time() <= 300:
            self._exchange()

    def request_headers(self) -> dict[str, str]:
        self._ensure_token()
        return {"content-type": "application/json", **IDE_HEADERS, **self._extra_headers,
                "authorization": f"Bearer {self._copilot_token}"}

    def resolve(self) -> None:
        """Exchange the token and pick the model (done once, on first use)."""
        if self._resolved:
            return
        self._ensure_token()
        try:
            payload = self._request_json("GET", f"{self.base_url}/models",
                                         headers=self.request_headers(),
                                         timeout=DISCOVERY_TIMEOUT_S)
        except RequestFailed as exc:
            raise ProviderUnavailable(self.scrub(
                f"github-copilot embeddings: GitHub Copilot model discovery failed at "
                f"{self.base_url}/models: {exc}; fix: {self.auth_fix}")) from None
        data = payload.get("data") if isinstance(payload, dict) else None
        available: list[str] = []
        for entry in data if isinstance(data, list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
                continue
            mid = entry["id"].strip()
            eps = [e for e in entry.get("supported_endpoints") or [] if isinstance(e, str)]
            if mid and (any("embeddings" in e for e in eps) or
                        re.search(r"\bembedding", mid, re.IGNORECASE)):
                available.append(mid)
        if not available:
            raise ProviderUnavailable("No embedding models available from GitHub Copilot; "
                                      "fix: choose another memorySearch.provider")
        if self._requested_model:
            if self._requested_model not in available:
                raise ProviderUnavailable(
                    f'GitHub Copilot embedding model "{self._requested_model}" is not available.'
                    f" Available: {', '.join(available)}")
            self.model = self._requested_model
        else:
            self.model = next((m for m in PREFERRED_MODELS if m in available), available[0])
        self._resolved = True

    # -- identity & wire --------------------------------------------------------------------

    def cache_key_data(self) -> dict[str, Any]:
        self.resolve()
        return super().cache_key_data()

    def key_settings(self) -> dict[str, Any]:
        return {"base_url": self.base_url}

    def public_settings(self) -> dict[str, Any]:
        return {"base_url": self.base_url or self._configured_base or "(discovered)",
                "model": self.model or self._requested_model or "(discovered)"}

    def _embed_request(self, texts: list[str], kind: str, timeout: float) -> Any:
        self.resolve()
        payload = self._request_json("POST", self.url, body={"model": self.model,
                                                             "input": texts},
                                     headers=self.request_headers(), timeout=timeout)
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise malformed("GitHub Copilot embeddings response missing data[]")
        rows: list[Any] = [None] * len(texts)
        for entry in data:
            index = entry.get("index") if isinstance(entry, dict) else None
            if not isinstance(index, int) or isinstance(index, bool) or not \
                    0 <= index < len(texts) or rows[index] is not None:
                raise malformed("GitHub Copilot embeddings response has a bad index")
            rows[index] = entry.get("embedding")
        if any(r is None for r in rows):
            raise malformed("GitHub Copilot embeddings response missing vectors")
        return rows
