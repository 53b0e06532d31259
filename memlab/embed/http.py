"""Shared HTTP machinery of memlab's remote embedding providers (reference §7.4).

OpenClaw's embedding loop (``manager-embedding-ops.ts``) in Python, for every provider that
talks HTTP (openai, openai-compatible, gemini, voyage, mistral, deepinfra, ollama, lmstudio,
bedrock, github-copilot):

* :func:`batch_by_bytes`: documents go in inline batches whose UTF-8 sizes add up to at most
  8000 bytes (a single bigger text goes alone).
* :func:`retry_delay`: each request is tried up to 3 times when it fails with HTTP 429 or 5xx,
  a timeout or a connection error, waiting ``500 ms x 2^(attempt-1)`` with up to +20 % jitter,
  capped at 8 s. 400/401/403 and malformed answers fail at once. A batch that still fails with
  a connection reset is split in halves, recursively.
  A 429 or 503 with ``Retry-After`` (seconds or an HTTP date) waits that long instead (capped
  at :data:`MAX_RETRY_AFTER_S`). Redirects are never followed: a 3xx fails at once naming
  the target (an API key must not travel to another URL).
* Deadlines are *total*, not per socket read (:func:`memlab.embed.fetch.bounded_request`): a
  batch attempt takes at most ``batch_timeout`` (120 s remote, 600 s for ollama/lmstudio;
  ``sync.embeddingBatchTimeoutSeconds`` overrides); a query attempt at most
  ``query_timeout`` (60 s remote), and all attempts and waits of one query together at most
  ``query_budget`` (default 60 s, or ``$MEMLAB_QUERY_TIMEOUT_SECONDS``), so a provider that
  never answers costs a search one budget, not three timeouts. Response bodies are capped at
  ``max_response_bytes`` decoded bytes (gzip decoded within the cap).
* Anything that still fails raises :class:`~memlab.embed.base.ProviderUnavailable` naming the
  provider, the endpoint, the reason and a fix, never a secret: the API key, every
  ``remote.headers`` value and the credentials of ``remote.baseUrl`` are registered with
  :mod:`memlab.secrets` and replaced by ``***`` (before any excerpt is cut) in every message
  and log line.

A provider subclasses :class:`RemoteEmbedder`, calls :meth:`RemoteEmbedder._init_http` from its
constructor and implements :meth:`RemoteEmbedder._embed_request` (one HTTP exchange for a list
of texts) with :meth:`RemoteEmbedder._request_json` and :func:`read_vector`.
:mod:`memlab.embed.batch` drives a provider's batch API through its public side:
:meth:`RemoteEmbedder.send`, :meth:`~RemoteEmbedder.scrub`, :meth:`~RemoteEmbedder.sleep`,
:meth:`~RemoteEmbedder.checked_vectors` and the provider's ``request_headers()``.
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from memlab import secrets as _secrets
from memlab.embed.base import EmbeddingInput, EmbeddingProvider, ProviderUnavailable, as_input
from memlab.embed.fetch import DEFAULT_MAX_RESPONSE_BYTES, FetchFailed, bounded_request

log = logging.getLogger(__name__)

#: Inline batch cap: the UTF-8 bytes of the texts in one request add up to at most this.
MAX_BATCH_BYTES = 8000
#: Attempts per request, first delay and the delay cap (OpenClaw's EMBEDDING_RETRY_*).
MAX_ATTEMPTS = 3
BASE_DELAY_S = 0.5
MAX_DELAY_S = 8.0
#: Timeouts (seconds) per attempt (reference §7.4).
REMOTE_QUERY_TIMEOUT_S = 60.0
LOCAL_QUERY_TIMEOUT_S = 300.0
REMOTE_BATCH_TIMEOUT_S = 120.0
LOCAL_BATCH_TIMEOUT_S = 600.0
#: Longest excerpt of an error body quoted in an error message (cut after scrubbing).
ERROR_BODY_CHARS = 300
#: Longest ``Retry-After`` honoured; a longer one fails the request at once.
MAX_RETRY_AFTER_S = 60.0
#: Total time one query embedding may take, all attempts and waits included.
DEFAULT_QUERY_BUDGET_S = 60.0
QUERY_BUDGET_ENV = "MEMLAB_QUERY_TIMEOUT_SECONDS"


def default_query_budget() -> float:
    """``$MEMLAB_QUERY_TIMEOUT_SECONDS`` (a positive number of seconds), else 60.

    >>> default_query_budget()
    60.0
    """
    import os

    raw = os.environ.get(QUERY_BUDGET_ENV, "").strip()
    if not raw:
        return DEFAULT_QUERY_BUDGET_S
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise ValueError(f"{QUERY_BUDGET_ENV}={raw!r}: expected a positive number of seconds "
                         "(the longest a search may wait for its query embedding)")
    return value


class RequestFailed(Exception):
    """One failed HTTP exchange; ``retryable``/``splittable`` say what may be done about it."""

    def __init__(self, message: str, retryable: bool, splittable: bool = False,
                 status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.splittable = splittable
        self.status = status
        #: Seconds the server asked to wait (``Retry-After``), if it said.
        self.retry_after = retry_after


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date
    (``None`` when absent or unreadable; never negative).

    >>> parse_retry_after("3"), parse_retry_after("Thu, 01 Jan 1970 00:00:10 GMT", now=4.0)
    (3.0, 6.0)
    >>> parse_retry_after("soon"), parse_retry_after("-5")
    (None, 0.0)
    """
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def is_sensitive_header(name: str) -> bool:
    """Whether a header name looks like it carries a credential.

    >>> is_sensitive_header("X-Goog-Api-Key"), is_sensitive_header("Ocp-Apim-Subscription-Key")
    (True, True)
    >>> is_sensitive_header("X-Team")
    False
    """
    return _secrets.is_sensitive_name(name)


def clean_headers(headers: Mapping[str, Any] | None, drop: Iterable[str] = ()) -> dict[str, str]:
    """Headers with lower-cased names, empty values and the ``drop`` names removed."""
    dropped = {d.lower() for d in drop}
    out: dict[str, str] = {}
    for key, value in (headers or {}).items():
        name = str(key).strip().lower()
        if not name or name in dropped or value is None or str(value) == "":
            continue
        out[name] = str(value)
    return out


def batch_by_bytes(texts: Sequence[str], max_bytes: int = MAX_BATCH_BYTES,
                   sizes: Sequence[int] | None = None) -> list[list[int]]:
    """Indices of ``texts`` grouped into batches of at most ``max_bytes`` UTF-8 bytes.

    OpenClaw's ``buildMemoryEmbeddingBatches``: texts are taken in order; a text that would
    overflow the current batch starts a new one; a text bigger than the cap goes alone.

    >>> batch_by_bytes(["aaaa", "bb", "cccc", "dddddddddd", "e"], max_bytes=6)
    [[0, 1], [2], [3], [4]]

    ``sizes`` gives each item's byte estimate instead (structured inputs count their text
    parts only, as OpenClaw's ``estimateStructuredEmbeddingInputBytes`` in the loop does).
    """
    batches: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i, text in enumerate(texts):
        n = int(sizes[i]) if sizes is not None else len(str(text).encode("utf-8"))
        if current and size + n > max_bytes:
            batches.append(current)
            current, size = [], 0
        if not current and n > max_bytes:
            batches.append([i])
            continue
        current.append(i)
        size += n
    if current:
        batches.append(current)
    return batches


def retry_delay(attempt: int, base: float = BASE_DELAY_S, cap: float = MAX_DELAY_S,
                rand: Callable[[], float] = random.random) -> float:
    """Seconds to wait after failed attempt ``attempt`` (1-based): ``base x 2^(attempt-1)``
    with up to +20 % jitter, capped.

    >>> retry_delay(1, rand=lambda: 0.0), retry_delay(2, rand=lambda: 1.0), retry_delay(9)
    (0.5, 1.2, 8.0)
    """
    return min(cap, base * 2 ** (attempt - 1) * (1 + rand() * 0.2))


def l2_normalize(rows: np.ndarray) -> np.ndarray:
    """OpenClaw's ``sanitizeAndNormalizeEmbedding`` per row: non-finite values become 0, then
    each row is divided by its L2 norm unless that norm is below 1e-10.

    >>> l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32)).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    arr = np.nan_to_num(np.asarray(rows, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    if arr.ndim == 1:
        return l2_normalize(arr[None, :])[0]
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    out = np.where(norms < 1e-10, arr, arr / np.where(norms < 1e-10, 1.0, norms))
    return out.astype(np.float32)


def read_vector(value: Any, allow_non_finite: bool = False) -> list[float]:
    """A JSON embedding (a list of numbers) or :class:`RequestFailed` (malformed response)."""
    if not isinstance(value, list) or not value:
        raise RequestFailed("malformed JSON response (an embedding is not a non-empty list "
                            "of numbers)", retryable=False)
    for x in value:
        if isinstance(x, bool) or not isinstance(x, int | float):
            raise RequestFailed("malformed JSON response (an embedding holds a non-number)",
                                retryable=False)
        if not allow_non_finite and (x != x or x in (float("inf"), float("-inf"))):
            raise RequestFailed("malformed JSON response (an embedding holds NaN/inf)",
                                retryable=False)
    return value


def malformed(detail: str) -> RequestFailed:
    return RequestFailed(f"malformed JSON response ({detail})", retryable=False)


class RemoteEmbedder(EmbeddingProvider):
    """Base class of HTTP embedding providers: batching, retries, timeouts, failing closed.

    Subclasses set ``id``, call :meth:`_init_http` and implement :meth:`_embed_request`,
    :attr:`endpoint` and :meth:`key_settings`. ``normalize`` makes every vector unit-length
    (OpenClaw does it for gemini, ollama, bedrock and github-copilot).
    """

    #: L2-normalise returned vectors (non-finite values zeroed first).
    normalize: ClassVar[bool] = False
    #: How to fix an authentication failure (401/403), e.g. which env var holds the key.
    auth_fix: ClassVar[str] = "check remote.apiKey"
    #: A :class:`memlab.embed.batch.BatchClient` when ``remote.batch.enabled`` (openai,
    #: gemini, voyage): documents go through the provider's batch API first.
    batch_jobs: Any = None

    # -- setup ------------------------------------------------------------------------------

    def _init_http(self, *, query_timeout: float = REMOTE_QUERY_TIMEOUT_S,
                   batch_timeout: float = REMOTE_BATCH_TIMEOUT_S,
                   max_attempts: int = MAX_ATTEMPTS, base_delay: float = BASE_DELAY_S,
                   max_delay: float = MAX_DELAY_S, max_batch_bytes: int = MAX_BATCH_BYTES,
                   sleep: Callable[[float], None] | None = None,
                   secrets: Iterable[str | None] = (),
                   max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
                   query_budget: float | None = None) -> None:
        """Set up retries, deadlines and secrets. Besides ``secrets``, everything the
        provider was configured with that may be a credential is registered for scrubbing by
        value: ``_api_key``, the values of ``_extra_headers`` whose name looks like a credential
        (``Authorization``, ``X-Api-Key``, ...) or whose value does
        (:func:`memlab.secrets.looks_like_credential`: a plain label such as ``X-Team: memlab``
        is not masked),
        and the credentials in ``base_url``/``server``."""
        self.query_timeout = float(query_timeout)
        self.query_budget = float(query_budget) if query_budget is not None else \
            default_query_budget()
        self.batch_timeout = float(batch_timeout)
        self.max_attempts = max(1, int(max_attempts))
        self.base_delay = float(base_delay)
        self.max_delay = float(max_delay)
        self.max_batch_bytes = int(max_batch_bytes)
        self._sleep = sleep
        self.max_response_bytes = int(max_response_bytes)
        headers = getattr(self, "_extra_headers", None) or {}
        configured = [*secrets, getattr(self, "_api_key", None),
                      *(v for k, v in headers.items()
                        if _secrets.is_sensitive_name(k) or _secrets.looks_like_credential(v))]
        self._secrets = _secrets.Scrubber(configured)
        _secrets.register(*configured)
        for url in (getattr(self, "base_url", None), getattr(self, "server", None)):
            _secrets.register_url(url)
            self._secrets.add(*_secrets.url_secrets(url))
        self._client: Any = None
        self._dims: int | None = getattr(self, "_dims", None)
        #: Requests sent (attempts included), texts embedded and retry waits, for tests/reports.
        self.requests = 0
        self.texts_embedded = 0
        self.waits: list[float] = []

    def _add_secret(self, value: str | None) -> None:
        self._secrets.add(value)
        _secrets.register(value)

    # -- hooks ------------------------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        """The URL named in error messages (credentials masked)."""
        return _secrets.redact_url(getattr(self, "base_url", "") or "")

    def _embed_request(self, texts: list[str], kind: str, timeout: float) -> Any:
        """One HTTP exchange embedding ``texts`` (``kind`` is "query" or "document").

        Returns one vector (list of numbers) per text; raises :class:`RequestFailed`.
        """
        raise NotImplementedError

    def _prepare_query(self, text: str) -> str:
        """The text sent for a query (ollama adds instruction prefixes)."""
        return text

    def public_settings(self) -> dict[str, Any]:
        """``base_url`` and ``model``, plus ``output_dimensionality`` when one is set."""
        out: dict[str, Any] = {"base_url": self.base_url, "model": self.model}
        if getattr(self, "output_dimensionality", None) is not None:
            out["output_dimensionality"] = self.output_dimensionality
        return out

    # -- HTTP -------------------------------------------------------------------------------

    def _http(self) -> Any:
        if self._client is None:
            try:
                import httpx
            except ImportError as exc:  # pragma: no cover - httpx is a dependency
                raise ProviderUnavailable(
                    f"the {self.id} embedding provider needs the Python package 'httpx' "
                    "(pip install httpx)") from exc
            self._client = httpx.Client(follow_redirects=False, trust_env=False)
        return self._client

    def scrub(self, text: str) -> str:
        """``text`` without any secret: this provider's, then every registered one."""
        return _secrets.scrub(self._secrets.scrub(str(text)))

    def _excerpt(self, text: str) -> str:
        """A scrubbed, whitespace-collapsed excerpt: scrubbed *first*, then cut."""
        return " ".join(self.scrub(text).split())[:ERROR_BODY_CHARS]

    def send(self, method: str, url: str, *, content: bytes | None = None,
             headers: Mapping[str, str] | None = None, timeout: float) -> Any:
        """One bounded HTTP exchange (total deadline ``timeout``, body capped at
        :attr:`max_response_bytes`): a :class:`memlab.embed.fetch.Reply` with a status below
        300; redirects, HTTP errors and transport failures raise :class:`RequestFailed`."""
        self.requests += 1
        try:
            reply = bounded_request(self._http(), method, url, content=content,
                                    headers=headers, deadline_s=timeout,
                                    max_bytes=self.max_response_bytes)
        except FetchFailed as exc:
            if exc.kind == "timeout":
                raise RequestFailed(self._excerpt(str(exc)), retryable=True) from None
            if exc.kind == "connection":
                raise RequestFailed(self._excerpt(str(exc)), retryable=True,
                                    splittable=True) from None
            raise RequestFailed(f"unusable response ({self._excerpt(str(exc))})",
                                retryable=False) from None
        status = reply.status
        if 300 <= status < 400:
            target = _secrets.redact_url(reply.headers.get("location", "")) or "nowhere"
            raise RequestFailed(
                f"HTTP {status} redirect to {self.scrub(target)}; memlab does not follow "
                "redirects (the API key must not be sent to another URL): set "
                "remote.baseUrl to the final URL", retryable=False, status=status)
        if status >= 400:
            excerpt = self._excerpt(reply.text)
            wait = parse_retry_after(reply.headers.get("retry-after")) \
                if status in (429, 503) else None
            raise RequestFailed(f"HTTP {status}" + (f": {excerpt}" if excerpt else ""),
                                retryable=status == 429 or status >= 500, status=status,
                                retry_after=wait)
        return reply

    def _request_json(self, method: str, url: str, *, body: Any = None,
                      content: bytes | None = None, headers: Mapping[str, str] | None = None,
                      timeout: float) -> Any:
        """Send one request, return its JSON; failures become :class:`RequestFailed`."""
        if body is not None and content is None:
            content = json.dumps(body).encode("utf-8")
        reply = self.send(method, url, content=content, headers=headers, timeout=timeout)
        try:
            return json.loads(reply.body)
        except (ValueError, RecursionError):
            raise malformed("the body is not JSON") from None

    # -- the loop ---------------------------------------------------------------------------

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` with the ``sleep`` this provider was given (tests pass a fake),
        else :func:`time.sleep`; unlike a retry wait, not recorded in ``waits``."""
        (self._sleep or time.sleep)(seconds)

    def _wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.sleep(seconds)

    def _with_retries(self, texts: list[str], kind: str) -> np.ndarray:
        """Attempts with backoff (or the server's ``Retry-After``). A query attempt gets
        ``query_timeout`` and all of a query's attempts and waits ``query_budget``; a batch
        attempt ``batch_timeout``."""
        budget_end = time.monotonic() + self.query_budget if kind == "query" else None
        for attempt in range(1, self.max_attempts + 1):
            timeout = self.batch_timeout if budget_end is None else \
                min(self.query_timeout, budget_end - time.monotonic())
            try:
                if timeout <= 0:
                    raise RequestFailed(f"timed out: the {self.query_budget:g}s query "
                                        f"budget ({QUERY_BUDGET_ENV}) is spent",
                                        retryable=False)
                return self._vectors(self._embed_request(texts, kind, timeout), len(texts))
            except RequestFailed as exc:
                if not exc.retryable or attempt >= self.max_attempts:
                    raise
                delay = retry_delay(attempt, self.base_delay, self.max_delay)
                if exc.retry_after is not None:
                    if exc.retry_after > MAX_RETRY_AFTER_S:
                        raise RequestFailed(f"{exc}; the server asks to retry after "
                                            f"{exc.retry_after:g}s (more than "
                                            f"{MAX_RETRY_AFTER_S:g}s)", retryable=False,
                                            status=exc.status) from None
                    delay = max(exc.retry_after, self.base_delay)
                if budget_end is not None and time.monotonic() + delay >= budget_end:
                    raise RequestFailed(f"{exc}; no time left in the {self.query_budget:g}s "
                                        f"query budget ({QUERY_BUDGET_ENV}) to retry after "
                                        f"{delay:.2f}s",
                                        retryable=False, status=exc.status) from None
                log.warning("%s embeddings: attempt %d/%d failed (%s); retrying in %.2fs",
                            self.id, attempt, self.max_attempts, self.scrub(str(exc)), delay)
                self._wait(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _vectors(self, rows: Any, n: int) -> np.ndarray:
        if isinstance(rows, np.ndarray):
            arr = rows.astype(np.float32)
        else:
            if not isinstance(rows, list) or len(rows) != n:
                raise malformed(f"expected {n} embedding(s)")
            rows = [read_vector(r, allow_non_finite=self.normalize) for r in rows]
            if len({len(r) for r in rows}) > 1:
                raise malformed("embeddings of different lengths")
            arr = np.asarray(rows, dtype=np.float64)
        if self.normalize:
            arr = l2_normalize(arr)
        return np.ascontiguousarray(arr, dtype=np.float32)

    def _splitting(self, texts: list[str]) -> np.ndarray:
        try:
            return self._with_retries(texts, "document")
        except RequestFailed as exc:
            if len(texts) <= 1 or not exc.splittable:
                raise
            half = (len(texts) + 1) // 2
            return np.concatenate([self._splitting(texts[:half]),
                                   self._splitting(texts[half:])])

    def _fix_for(self, exc: RequestFailed) -> str:
        if exc.status in (401, 403):
            return f"fix: {self.auth_fix}"
        if exc.status == 404:
            return "fix: check remote.baseUrl and the model id"
        if exc.status == 429:
            return "fix: wait for the rate limit / quota to reset or lower the request rate"
        if exc.status is not None and exc.status >= 500:
            return "fix: the provider is failing; retry later or choose another provider"
        if exc.splittable or "timed out" in str(exc):
            return (f"fix: check that {self.endpoint or 'the server'} is reachable (remote."
                    "baseUrl) or raise sync.embeddingBatchTimeoutSeconds")
        return "fix: check the provider configuration (model, remote.baseUrl, dimensions)"

    def _fail(self, exc: RequestFailed, kind: str, n: int) -> ProviderUnavailable:
        what = "a query" if kind == "query" else f"a batch of {n} text(s)"
        return ProviderUnavailable(self.scrub(
            f"{self.id} embeddings failed for {what} at {self.endpoint} (model "
            f"{self.model!r}) after up to {self.max_attempts} attempt(s): {exc}; "
            f"{self._fix_for(exc)}"))

    def checked_vectors(self, rows: Any, n: int) -> np.ndarray:
        """The vectors of ``n`` texts this provider returned some other way (a batch job's
        output), checked as an inline reply's are: ``n`` vectors of numbers of one length (else
        :class:`RequestFailed`), L2-normalised when :attr:`normalize` is set, of the
        provider's dimension (else :class:`~memlab.embed.base.ProviderUnavailable`)."""
        return self._remember_dims(self._vectors(rows, n))

    def _remember_dims(self, vectors: np.ndarray) -> np.ndarray:
        if vectors.shape[0]:
            dims = int(vectors.shape[1])
            if self._dims is not None and dims != self._dims:
                raise ProviderUnavailable(
                    f"{self.id} embeddings at {self.endpoint} returned {dims}-dimensional "
                    f"vectors, expected {self._dims} (model {self.model!r}); fix: check "
                    "outputDimensionality and the model")
            self._dims = dims
        return vectors

    # -- the provider interface -------------------------------------------------------------

    @property
    def dims(self) -> int:
        if self._dims is None:
            self._dims = int(self.embed_query("dimension probe").shape[0])
        return self._dims

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, self._dims or 0), dtype=np.float32)
        if self.batch_jobs is not None:  # remote.batch.*: provider batch API, else inline
            done = self.batch_jobs.embed_documents(texts)
            if done is not None:
                return done
        return self._embed_batches(texts, batch_by_bytes(texts, self.max_batch_bytes))

    def embed_inputs(self, inputs: Sequence[str | EmbeddingInput]) -> np.ndarray:
        """Structured document inputs, batched by their text bytes, through
        :meth:`_embed_request` (which receives :class:`EmbeddingInput` items). Providers
        without :meth:`supports_multimodal` accept text-only inputs only."""
        items = [as_input(i) for i in inputs]
        if not self.supports_multimodal() or not any(i.structured for i in items):
            return super().embed_inputs(items)
        if not items:
            return np.zeros((0, self._dims or 0), dtype=np.float32)
        sizes = [i.estimated_bytes() for i in items]
        return self._embed_batches(
            items, batch_by_bytes([i.text for i in items], self.max_batch_bytes, sizes))

    def _embed_batches(self, items: Sequence[Any], batches: Sequence[Sequence[int]]
                       ) -> np.ndarray:
        """Embed ``items`` (texts or :class:`EmbeddingInput`) one inline batch of indices at
        a time (split on connection resets); a batch that still fails raises
        :class:`~memlab.embed.base.ProviderUnavailable`."""
        parts = []
        for batch in batches:
            chunk: list[Any] = [items[i] for i in batch]
            try:
                parts.append(self._remember_dims(self._splitting(chunk)))
            except RequestFailed as exc:
                raise self._fail(exc, "document", len(chunk)) from None
            self.texts_embedded += len(chunk)
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        try:
            vectors = self._remember_dims(
                self._with_retries([self._prepare_query(str(text))], "query"))
        except RequestFailed as exc:
            raise self._fail(exc, "query", 1) from None
        self.texts_embedded += 1
        return vectors[0]

    def close(self) -> None:
        """Close the HTTP connection pool."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_client"] = None  # re-created lazily after unpickling / deepcopy
        state["_sleep"] = None
        return state


class OpenAIShapedEmbedder(RemoteEmbedder):
    """``POST {base_url}/embeddings`` with ``{"model", "input": [...]}`` and bearer auth.

    The shared shape of openai, openai-compatible, mistral, deepinfra, lmstudio and voyage.
    Subclasses may override :meth:`_body` and :meth:`request_headers`.
    """

    base_url: str = ""
    _api_key: str | None = None
    _extra_headers: dict[str, str]

    @property
    def url(self) -> str:
        return f"{self.base_url}/embeddings"

    @property
    def endpoint(self) -> str:
        return self.url

    @property
    def headers(self) -> dict[str, str]:
        """Extra headers with sensitive values masked (for display)."""
        return {k: ("***" if is_sensitive_header(k) else v)
                for k, v in self._extra_headers.items()}

    def _body(self, texts: list[str], kind: str) -> dict[str, Any]:
        return {"model": self.model, "input": texts}

    def request_headers(self) -> dict[str, str]:
        """The headers of every request, auth included (never log them)."""
        headers = {"accept": "application/json", "content-type": "application/json"}
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        headers.update(self._extra_headers)
        return headers

    def _embed_request(self, texts: list[str], kind: str, timeout: float) -> Any:
        payload = self._request_json("POST", self.url, body=self._body(texts, kind),
                                     headers=self.request_headers(), timeout=timeout)
        if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
            raise malformed("no data[]")
        data = payload["data"]
        if len(data) != len(texts) or not all(isinstance(d, dict) for d in data):
            raise malformed("wrong number of vectors")
        # OpenAI may return items out of order; they carry their index.
        if all(isinstance(d.get("index"), int) for d in data):
            data = sorted(data, key=lambda d: d["index"])
        return [d.get("embedding") for d in data]

    def safe_headers(self) -> dict[str, str]:
        """Non-sensitive extra headers, sorted (what cache keys may hold)."""
        return {k: v for k, v in sorted(self._extra_headers.items())
                if not is_sensitive_header(k)}

    def key_settings(self) -> dict[str, Any]:
        """OpenClaw's usual cache key data: the base URL and the non-auth headers."""
        data: dict[str, Any] = {"base_url": self.base_url}
        if self.safe_headers():
            data["headers"] = self.safe_headers()
        return data

    def public_settings(self) -> dict[str, Any]:
        """``base_url``, ``model`` and the extra headers (sensitive values masked)."""
        out: dict[str, Any] = {"base_url": self.base_url, "model": self.model}
        if self._extra_headers:
            out["headers"] = self.headers
        return out


def strip_prefixes(model: str | None, default: str, prefixes: Sequence[str]) -> str:
    """OpenClaw's ``normalizeEmbeddingModelWithPrefixes``: trimmed, default when empty, one
    known provider prefix dropped.

    >>> strip_prefixes(" mistral/mistral-embed ", "x", ["mistral/"]), strip_prefixes("", "x", [])
    ('mistral-embed', 'x')
    """
    trimmed = (model or "").strip()
    if not trimmed:
        return default
    for prefix in prefixes:
        if trimmed.startswith(prefix):
            return trimmed[len(prefix):]
    return trimmed


class BearerEmbedder(OpenAIShapedEmbedder):
    """An OpenAI-shaped hosted API with a required bearer API key (OpenClaw's
    ``resolveRemoteEmbeddingBearerClient``): ``remote.baseUrl`` or the default base URL,
    ``Authorization: Bearer <key>`` then the configured headers (which may override it).
    """

    default_base_url: ClassVar[str] = ""
    default_model: ClassVar[str] = ""
    model_prefixes: ClassVar[tuple[str, ...]] = ()
    #: Environment variables OpenClaw reads the key from (named in error messages).
    env_vars: ClassVar[tuple[str, ...]] = ()
    secret_settings = frozenset({"api_key"})
    max_tokens_by_model: ClassVar[dict[str, int]] = {}

    def __init__(self, api_key: str | None = None, model: str | None = None,
                 base_url: str | None = None, headers: Mapping[str, str] | None = None,
                 query_timeout: float = REMOTE_QUERY_TIMEOUT_S,
                 batch_timeout: float = REMOTE_BATCH_TIMEOUT_S,
                 max_attempts: int = MAX_ATTEMPTS, base_delay: float = BASE_DELAY_S,
                 max_delay: float = MAX_DELAY_S, max_batch_bytes: int = MAX_BATCH_BYTES,
                 sleep: Callable[[float], None] | None = None):
        key = api_key.strip() if isinstance(api_key, str) else ""
        if not key:
            envs = " or ".join(self.env_vars) or "the provider's API key variable"
            raise ProviderUnavailable(
                f'No API key found for provider "{self.id}": set memorySearch.remote.apiKey or '
                f"the environment variable {envs}, or choose another memorySearch.provider.")
        self._api_key = key
        self.base_url = ((base_url or "").strip() or self.default_base_url).rstrip("/")
        self.model = strip_prefixes(model, self.default_model, self.model_prefixes)
        self._extra_headers = clean_headers(headers)
        if self.model in self.max_tokens_by_model:
            self.max_input_tokens = self.max_tokens_by_model[self.model]
        self._init_http(query_timeout=query_timeout, batch_timeout=batch_timeout,
                        max_attempts=max_attempts, base_delay=base_delay, max_delay=max_delay,
                        max_batch_bytes=max_batch_bytes, sleep=sleep)
        env_hint = f" (or {', '.join(self.env_vars)})" if self.env_vars else ""
        self.auth_fix = f"check memorySearch.remote.apiKey{env_hint}"
