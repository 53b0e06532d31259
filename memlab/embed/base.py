"""The embedding-provider interface every provider implements, and the provider registry.

A provider turns texts into float32 vectors. Documents and queries are separate calls because
some providers embed them differently (instruction prefixes, ``input_type``). The
:attr:`EmbeddingProvider.settings_key` identifies everything that changes the vectors, so the
embedding cache (:mod:`memlab.embed.cache`) never serves a vector made under other settings;
secrets (API keys, auth headers) never reach it, as in OpenClaw's ``provider_key`` (§8).

Adding a provider is one new module in :mod:`memlab.embed` whose class is decorated with
:func:`register_provider`; :func:`memlab.embed.get_provider` discovers it by its ``id``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

# re-exported: providers and callers import the input contract from here too
from memlab.embedding_input import EmbeddingInput, as_input, text_hash  # noqa: F401

#: OpenClaw's default provider input cap (tokens, used as a UTF-8 byte cap when chunking).
DEFAULT_MAX_INPUT_TOKENS = 8192

# Setting names (split into lower-case words, camelCase and -/_ aware) that hold secrets.
_SECRET_WORDS = frozenset({
    "apikey", "token", "secret", "secrets", "password", "passwd",
    "authorization", "auth", "cookie", "credential", "credentials", "bearer", "signature",
})
_SECRET_JOINED = ("apikey", "accesskey", "secretkey", "privatekey", "sessionkey",
                  "clientsecret", "authtoken", "accesstoken", "refreshtoken", "sessiontoken")
_SECRET_VALUE = re.compile(r"^\s*(bearer|basic|token)\s+\S", re.IGNORECASE)


class ProviderUnavailable(RuntimeError):
    """An embedding provider cannot be used (not implemented, misconfigured, model missing).

    memlab fails closed like OpenClaw's explicitly configured providers: it raises this
    instead of silently falling back to another provider or to keyword-only search.
    """


class ModelNotFound(ProviderUnavailable):
    """A local embedding model could not be found or loaded offline."""


#: Provider classes by id, filled by :func:`register_provider`.
PROVIDER_CLASSES: dict[str, type[EmbeddingProvider]] = {}


def register_provider(cls: type[EmbeddingProvider]) -> type[EmbeddingProvider]:
    """Class decorator: make ``cls`` available to :func:`memlab.embed.get_provider`."""
    pid = getattr(cls, "id", None)
    if not isinstance(pid, str) or not pid:
        raise TypeError(f"{cls.__name__} needs a non-empty string class attribute 'id'")
    other = PROVIDER_CLASSES.get(pid)
    if other is not None and other is not cls and other.__qualname__ != cls.__qualname__:
        raise ValueError(f"embedding provider id {pid!r} is already registered by {other!r}")
    PROVIDER_CLASSES[pid] = cls
    return cls


def is_secret_setting(name: str, value: Any = None) -> bool:
    """Whether a setting named ``name`` (with ``value``) looks like a credential.

    >>> [is_secret_setting(n) for n in ("api_key", "X-Api-Key", "Authorization", "model")]
    [True, True, True, False]
    >>> is_secret_setting("max_input_tokens"), is_secret_setting("accessToken")
    (False, True)
    """
    if _secret_name(str(name)):
        return True
    return isinstance(value, str) and bool(_SECRET_VALUE.match(value))


@functools.lru_cache(maxsize=4096)
def _secret_name(name: str) -> bool:
    """The name half of :func:`is_secret_setting` (a pure function of the name, memoised:
    every cache-key computation asks it for the same few setting names)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    words = [w for w in re.split(r"[^a-z0-9]+", spaced) if w]
    joined = "".join(words)
    return any(w in _SECRET_WORDS for w in words) or any(s in joined for s in _SECRET_JOINED)


def scrub_secrets(obj: Any, extra: frozenset[str] | set[str] = frozenset()) -> Any:
    """A copy of ``obj`` (nested dicts/lists) without secret-looking settings.

    ``extra`` names (compared case-insensitively) are dropped too.
    """
    lowered = {e.lower() for e in extra}
    if isinstance(obj, Mapping):
        return {
            str(k): scrub_secrets(v, extra)
            for k, v in obj.items()
            if str(k).lower() not in lowered and not is_secret_setting(str(k), v)
        }
    if isinstance(obj, list | tuple):
        return [scrub_secrets(v, extra) for v in obj]
    return obj


def canonical_json(obj: Any) -> str:
    """Deterministic JSON (sorted keys, no whitespace, non-JSON values as ``str``)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)


class EmbeddingProvider(ABC):
    """Interface of an embedding provider.

    Subclasses set the class attribute ``id``, an instance attribute ``model``, implement
    :meth:`embed_documents`, :meth:`embed_query`, :attr:`dims` and :meth:`key_settings`, and
    are registered with :func:`register_provider`. Heavy state (models, clients) must be
    created lazily, on the first embedding call.
    """

    id: ClassVar[str] = ""
    model: str = ""
    #: Input cap (tokens; OpenClaw applies it as a UTF-8 byte cap when splitting chunks).
    max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS
    #: Names of constructor settings that are secrets (never hashed, never shown in repr).
    secret_settings: ClassVar[frozenset[str]] = frozenset()

    @abstractmethod
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents: a float32 array of shape ``(len(texts), dims)``."""

    @abstractmethod
    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query: a float32 array of shape ``(dims,)``."""

    def supports_multimodal(self) -> bool:
        """Whether :meth:`embed_inputs` accepts image/audio parts for this model."""
        return False

    def embed_inputs(self, inputs: Sequence[str | EmbeddingInput]) -> np.ndarray:
        """Embed documents given as structured inputs: float32 ``(len(inputs), dims)``.

        Text-only inputs are embedded as documents; providers that support multimodal
        embeddings (:meth:`supports_multimodal`) override this for image/audio parts.
        """
        items = [as_input(i) for i in inputs]
        if any(i.structured for i in items):
            raise MultimodalUnsupported(
                f'Embedding provider "{self.id}" does not support multimodal memory inputs '
                f"(model {self.model!r}); fix: use provider \"gemini\" with model "
                '"gemini-embedding-2-preview", or disable memorySearch.multimodal')
        return self.embed_documents([i.text for i in items])

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed several queries at once: float32 ``(len(texts), dims)``.

        The default calls :meth:`embed_query` per text; providers that can batch override it.
        """
        if len(texts) == 0:
            return np.zeros((0, self.dims), dtype=np.float32)
        return np.stack([np.asarray(self.embed_query(t), dtype=np.float32) for t in texts])

    @property
    @abstractmethod
    def dims(self) -> int:
        """Vector dimension (may load the model)."""

    @abstractmethod
    def key_settings(self) -> dict[str, Any]:
        """Settings that change the vectors (model, dimensions, normalisation, prefixes...).

        Settings that only change speed or reporting (batch size, device, progress bars) do
        not belong here. Secrets are scrubbed by :attr:`settings_key` anyway, but should not
        be returned at all.
        """

    def cache_key_data(self) -> dict[str, Any]:
        """What :attr:`settings_key` hashes: provider id, model and the scrubbed settings."""
        data = scrub_secrets(dict(self.key_settings()), self.secret_settings)
        return {"provider": self.id, "model": self.model, "settings": data}

    @property
    def settings_key(self) -> str:
        """sha256 hex of the canonical JSON of :meth:`cache_key_data` (no secrets).

        Remembered for the settings it was made from, so a query's cache look-up neither
        scrubs nor hashes them again: the memo is checked against Python's ``hash`` of the
        ``repr`` (which tells ``1`` from ``True``) of the id, model, raw settings and secret
        names, all the key is made from. Any change of the settings, assigned or mutated in
        place, changes that and so the key; the memo keeps no secret, only that hash."""
        seen = hash((self.id, self.model, repr(self.key_settings()),
                     repr(self.secret_settings)))
        attrs = getattr(self, "__dict__", {})  # a provider with __slots__ just recomputes
        memo = attrs.get("_settings_key_memo")
        if memo is not None and memo[0] == seen:
            return memo[1]
        data = self.cache_key_data()
        key = hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()
        attrs["_settings_key_memo"] = (seen, key)
        return key

    def public_settings(self) -> dict[str, Any]:
        """Constructor settings for display (secrets removed). Defaults to the key settings."""
        return scrub_secrets(dict(self.key_settings()), self.secret_settings)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.public_settings().items())
        return f"{type(self).__name__}({args})"


def check_vectors(vectors: Any, n: int, dims: int | None, who: str) -> np.ndarray:
    """Validate a provider's output: float32, 2-D, ``n`` rows (and ``dims`` columns), finite."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[0] != n or (dims is not None and arr.shape[1] != dims):
        want = f"({n}, {dims if dims is not None else 'dims'})"
        raise ValueError(f"{who} returned an array of shape {arr.shape}; expected {want}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{who} returned non-finite values (NaN/inf) in its embeddings")
    return np.ascontiguousarray(arr)


class MultimodalUnsupported(ProviderUnavailable):
    """The provider cannot embed image/audio inputs (OpenClaw's "does not support multimodal
    memory inputs")."""
