"""Provider batch APIs for document embedding (reference §7.4, ``remote.batch.*``).

OpenClaw 2026.7.35 (``packages/memory-host-sdk/src/host/batch-*.ts``,
``extensions/{openai,voyage,google}/embedding-batch.ts``, ``manager-embedding-ops.ts``)
embeds the missing (uncached) chunks of a file through the provider's asynchronous batch API
when ``remote.batch.enabled`` is true and the provider has one (openai, gemini, voyage):

* **openai / voyage**: the requests go as JSONL (one ``{"custom_id": "<index>", ...}`` line per
  chunk) to ``POST {base}/files`` (multipart form, ``purpose=batch``), then
  ``POST {base}/batches`` with ``input_file_id``, ``endpoint: "/v1/embeddings"`` and
  ``completion_window`` (``24h`` openai, ``12h`` voyage; voyage adds ``request_params:
  {model, input_type: "document"}``). ``GET {base}/batches/{id}`` is polled until
  ``status`` is ``completed`` (``failed``/``expired``/``cancelled`` raise, quoting the error
  file), then ``GET {base}/files/{output_file_id}/content`` is read line by line and each
  ``response.body.data[0].embedding`` is mapped back to its input by ``custom_id``.
  OpenAI doubles its poll delay (up to 5 min), retries 408/409/425/429/5xx/network poll
  errors while waiting, and halves a group whose upload is too large (413).
* **gemini**: the JSONL (``{"key", "request"}`` lines) is uploaded as ``multipart/related``
  to ``{upload base}/files?uploadType=multipart``, the job is created with
  ``POST {base}/models/{model}:asyncBatchEmbedContent``, ``GET {base}/batches/{name}`` is
  polled until ``state`` is ``SUCCEEDED``/``COMPLETED``/``DONE`` and the output is read from
  ``GET {base}/files/{id}:download``. A 404 on create disables batch mode at once.
* Requests are split into groups of at most 50,000 (openai also at most 190 MB of JSONL);
  groups run ``concurrency`` at a time. Batch creation is retried 3 times on 429/5xx
  (300 ms x 2^n, +-20 % jitter, 300..2000 ms).
* ``wait: false``: a job not completed at creation fails ("enable remote.batch.wait").
  Waiting past ``timeoutMinutes`` fails with "timed out"; the poll interval is
  ``min(pollIntervalMs, timeout)``.
* **Failure policy** (``runBatchWithFallback``): a timed-out run is retried once; any failure
  falls back to inline embedding of the same chunks and counts 1 (2 for a retried timeout,
  2 for gemini's "asyncBatchEmbedContent not available"); at 2 failures batch mode is
  disabled for the provider's lifetime ("Batch: disabled (failures n/2)"); a success resets
  the count.

:class:`BatchClient` is attached to a provider as ``provider.batch_jobs`` by
:func:`attach_batch`; :meth:`memlab.embed.http.RemoteEmbedder.embed_documents` asks it first.
Providers supply the wire shapes: ``batch_api`` (``"openai"``/``"voyage"``/``"gemini"``),
``batch_line(custom_id, text)`` and ``batch_create_body(file_id, agent_id)`` (openai/voyage);
requests carry the provider's own headers (``request_headers()``, auth included; the content
type is dropped for uploads). Every message is scrubbed of the provider's secrets.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from memlab.embed.http import RequestFailed

log = logging.getLogger(__name__)

__all__ = ["BatchClient", "BatchFailed", "BatchSettings", "attach_batch", "split_groups"]

#: The endpoint named in openai/voyage batch request lines and batch creation.
EMBEDDING_BATCH_ENDPOINT = "/v1/embeddings"
#: Requests per batch job (openai, gemini, voyage).
MAX_REQUESTS = 50_000
#: JSONL bytes per openai batch file.
OPENAI_MAX_JSONL_BYTES = 190 * 1024 * 1024
#: Cap of openai's doubling poll delay.
OPENAI_MAX_POLL_BACKOFF_MS = 5 * 60_000
#: Failures after which batch mode is disabled.
FAILURE_LIMIT = 2
COMPLETION_WINDOWS = {"openai": "24h", "voyage": "12h"}
METADATA_SOURCES = {"openai": "openclaw-memory", "voyage": "clawdbot-memory"}
TERMINAL_FAILURE_STATES = frozenset({"failed", "expired", "cancelled", "canceled"})
GEMINI_DONE = frozenset({"SUCCEEDED", "COMPLETED", "DONE"})
GEMINI_FAILED = frozenset({"FAILED", "CANCELLED", "CANCELED", "EXPIRED"})
_MAX_SAFE_DELAY_MS = 2_147_483_647
_MAX_TIMER_MS = 2_147_000_000
_CREATE_ATTEMPTS, _CREATE_MIN_MS, _CREATE_MAX_MS, _CREATE_JITTER = 3, 300, 2000, 0.2
_POLL_RETRY = re.compile(r"openai batch status failed: (408|409|425|429|5\d\d)\b|network error",
                         re.IGNORECASE)
_TOO_LARGE = re.compile(r"\b413\b|payload too large|request body too large|file too large|"
                        r"maximum allowed|max(?:imum)? (?:body|payload|file) (?:size )?"
                        r"(?:exceeded|limit)", re.IGNORECASE)


class BatchFailed(RuntimeError):
    """A batch job (upload, create, poll or download) failed; ``attempts`` counts toward the
    failure limit (2 after a retried timeout)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status
        self.attempts = 1


@dataclass(frozen=True)
class BatchSettings:
    """``remote.batch.*`` as OpenClaw resolves it (``mergeConfig`` + ``resolveBatchConfig``).

    >>> s = BatchSettings.from_config({"enabled": True, "pollIntervalMs": 0})
    >>> s.enabled, s.wait, s.concurrency, s.poll_interval_ms, s.timeout_ms
    (True, True, 2, 2000, 3600000)
    """

    enabled: bool = False
    wait: bool = True
    concurrency: int = 2
    poll_interval_ms: int = 2000
    timeout_minutes: int = 60
    agent_id: str = "main"

    @classmethod
    def from_config(cls, value: Any, agent_id: str = "main") -> BatchSettings:
        """From a :class:`BatchSettings`, a ``RemoteBatchConfig``, a camelCase/snake_case
        mapping, or ``None`` (defaults). Poll intervals <= 0 mean 2000 ms; the timeout is
        clamped to 1 minute .. Node's timer range; concurrency to >= 1."""
        if isinstance(value, BatchSettings):
            return value
        if value is None:
            return cls(agent_id=agent_id)
        if isinstance(value, Mapping):
            def get(camel: str, snake: str, default: Any) -> Any:
                got = value.get(camel, value.get(snake))
                return default if got is None else got
            raw = {"enabled": get("enabled", "enabled", False), "wait": get("wait", "wait", True),
                   "concurrency": get("concurrency", "concurrency", 2),
                   "poll": get("pollIntervalMs", "poll_interval_ms", 2000),
                   "timeout": get("timeoutMinutes", "timeout_minutes", 60)}
        else:
            raw = {"enabled": value.enabled, "wait": value.wait,
                   "concurrency": value.concurrency, "poll": value.poll_interval_ms,
                   "timeout": value.timeout_minutes}
        poll = int(raw["poll"]) if raw["poll"] and int(raw["poll"]) > 0 else 2000
        timeout = int(raw["timeout"]) if raw["timeout"] and int(raw["timeout"]) > 0 else 60
        return cls(enabled=bool(raw["enabled"]), wait=bool(raw["wait"]),
                   concurrency=max(1, int(raw["concurrency"])),
                   poll_interval_ms=min(poll, _MAX_TIMER_MS),
                   timeout_minutes=max(1, min(timeout, _MAX_TIMER_MS // 60_000)),
                   agent_id=agent_id)

    @property
    def timeout_ms(self) -> int:
        """``timeoutMinutes`` in ms (``resolveTimerTimeoutMs``)."""
        return min(max(int(self.timeout_minutes) * 60_000, 1), _MAX_TIMER_MS)

    @property
    def effective_poll_ms(self) -> int:
        """``resolveEmbeddingBatchPollIntervalMs``: ``min(pollIntervalMs, timeout)``."""
        return min(max(1, min(self.poll_interval_ms, _MAX_SAFE_DELAY_MS)),
                   max(1, min(self.timeout_ms, _MAX_SAFE_DELAY_MS)))


def _jsonl_line(obj: Any) -> str:
    """``JSON.stringify``: compact, non-ASCII kept."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def split_groups(requests: Sequence[Any], max_requests: int = MAX_REQUESTS,
                 max_jsonl_bytes: int | None = None) -> list[list[Any]]:
    """OpenClaw's ``splitBatchRequestsByLimits``: consecutive groups of at most
    ``max_requests`` requests and (when set) ``max_jsonl_bytes`` JSONL bytes (newlines
    counted); a single oversized request goes alone.

    >>> [len(g) for g in split_groups([{"a": 1}] * 5, max_requests=2)]
    [2, 2, 1]
    >>> [len(g) for g in split_groups([{"a": 1}] * 3, max_jsonl_bytes=15)]
    [2, 1]
    """
    groups: list[list[Any]] = []
    current: list[Any] = []
    size = 0
    for request in requests:
        n = len(_jsonl_line(request).encode("utf-8"))
        sep = 1 if current else 0
        if current and (len(current) >= max_requests or (
                max_jsonl_bytes is not None and size + sep + n > max_jsonl_bytes)):
            groups.append(current)
            current, size = [], 0
        size += (1 if current else 0) + n
        current.append(request)
    if current:
        groups.append(current)
    return groups


def apply_output_line(line: Any, remaining: set[str], errors: list[str],
                      by_id: dict[str, Any]) -> None:
    """OpenClaw's ``applyEmbeddingBatchOutputLine`` (openai/voyage output JSONL)."""
    if not isinstance(line, dict) or not line.get("custom_id"):
        return
    cid = str(line["custom_id"])
    remaining.discard(cid)
    err = line.get("error")
    if isinstance(err, dict) and err.get("message"):
        errors.append(f"{cid}: {err['message']}")
        return
    response = line.get("response") if isinstance(line.get("response"), dict) else {}
    body = response.get("body")
    if (response.get("status_code") or 0) >= 400:
        msg = (body.get("error") or {}).get("message") if isinstance(body, dict) else (
            body if isinstance(body, str) else None)
        errors.append(f"{cid}: {msg or 'unknown error'}")
        return
    data = body.get("data") if isinstance(body, dict) else None
    first = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else {}
    embedding = first.get("embedding") or []
    if not embedding:
        errors.append(f"{cid}: empty embedding")
        return
    by_id[cid] = embedding


def check_outputs(api: str, batch_id: str, errors: Sequence[str], remaining: set[str]
                  ) -> None:
    """Fail a finished batch whose output lines reported ``errors`` or left requests
    ``remaining`` unanswered (OpenClaw's checks after reading the output file).

    >>> check_outputs("openai", "b1", [], set())
    >>> check_outputs("voyage", "b2", [], {"c1"})
    Traceback (most recent call last):
    ...
    memlab.embed.batch.BatchFailed: voyage batch b2 missing 1 embedding responses
    """
    if errors:
        raise BatchFailed(f"{api} batch {batch_id} failed: {'; '.join(errors)}")
    if remaining:
        raise BatchFailed(f"{api} batch {batch_id} missing {len(remaining)} embedding "
                          "responses")


def extract_error_message(lines: Sequence[Any]) -> str | None:
    """The first useful message of an error file (``extractBatchErrorMessage``)."""
    for line in lines:
        if not isinstance(line, dict):
            continue
        err = line.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        body = (line.get("response") or {}).get("body") if isinstance(
            line.get("response"), dict) else None
        if isinstance(body, str) and body:
            return body
        if isinstance(body, dict) and isinstance((body.get("error") or {}).get("message"), str):
            return body["error"]["message"]
    return None


class BatchClient:
    """The batch-job client of one provider, with OpenClaw's failure counter.

    ``sleep`` (seconds) and ``now`` (milliseconds) may be replaced (tests); ``polls`` records
    each poll delay in ms and ``jobs`` the ids of the batches created.
    """

    def __init__(self, provider: Any, settings: BatchSettings,
                 sleep: Callable[[float], None] | None = None,
                 now: Callable[[], float] | None = None,
                 rand: Callable[[], float] = random.random):
        self.provider = provider
        self.settings = settings
        self.sleep = sleep
        self.now = now
        self.rand = rand
        self.enabled = settings.enabled
        self.failures = 0
        self.last_error: str | None = None
        self.last_provider: str | None = None
        self.polls: list[int] = []
        self.jobs: list[str] = []
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.update(_lock=None, sleep=None, now=None, rand=random.random)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # -- status and the failure policy ------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """OpenClaw's ``status().batch``."""
        s = self.settings
        return {"enabled": self.enabled, "failures": self.failures, "limit": FAILURE_LIMIT,
                "wait": s.wait, "concurrency": s.concurrency,
                "pollIntervalMs": s.poll_interval_ms, "timeoutMs": s.timeout_ms,
                "lastError": self.last_error, "lastProvider": self.last_provider}

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray | None:
        """Vectors of ``texts`` from batch job(s), or ``None`` when batch mode is disabled or
        the job failed (the failure is counted and logged; the caller embeds inline)."""
        if not self.enabled or not texts:
            return None
        try:
            try:
                out = self._run(list(texts))
            except BatchFailed as exc:
                if not re.search(r"timed out|timeout", str(exc), re.IGNORECASE):
                    raise
                log.warning("memory embeddings: %s batch timed out; retrying once",
                            self.provider.id)
                try:
                    out = self._run(list(texts))
                except BatchFailed as again:
                    again.attempts = 2
                    raise
        except BatchFailed as exc:
            message = self.provider.scrub(str(exc))
            force = bool(re.search(r"asyncBatchEmbedContent not available", message, re.I))
            with self._lock:
                if self.enabled:
                    self.failures += FAILURE_LIMIT if force else max(1, exc.attempts)
                    self.enabled = not (force or self.failures >= FAILURE_LIMIT)
                    self.last_error, self.last_provider = message, self.provider.id
                count, disabled = self.failures, not self.enabled
            log.warning("memory embeddings: %s batch failed (%d/%d); %s; falling back to "
                        "non-batch embeddings: %s", self.provider.id, count, FAILURE_LIMIT,
                        "disabling batch" if disabled else "keeping batch enabled", message)
            return None
        with self._lock:
            if self.failures:
                log.debug("memory embeddings: batch recovered; resetting failure count")
            self.failures, self.last_error, self.last_provider = 0, None, None
        return out

    # -- running groups ---------------------------------------------------------------------

    def _run(self, texts: list[str]) -> np.ndarray:
        p = self.provider
        api = p.batch_api
        requests = [p.batch_line(str(i), t) for i, t in enumerate(texts)]
        groups = split_groups(requests, MAX_REQUESTS,
                              OPENAI_MAX_JSONL_BYTES if api == "openai" else None)
        by_id: dict[str, Any] = {}
        run = self._gemini_group if api == "gemini" else self._openai_group
        log.debug("memory embeddings: %s batch submit (requests=%d groups=%d)", api,
                  len(requests), len(groups))

        def run_group(group: list[Any]) -> None:
            try:
                run(group, by_id)
            except BatchFailed as exc:
                if api != "openai" or len(group) <= 1 or not (
                        "batch file upload failed" in str(exc) and _TOO_LARGE.search(str(exc))):
                    raise
                half = (len(group) + 1) // 2
                log.debug("memory embeddings: openai batch upload too large; splitting group "
                          "of %d", len(group))
                run_group(group[:half])
                run_group(group[half:])

        if len(groups) == 1:
            run_group(groups[0])
        else:
            workers = min(self.settings.concurrency, len(groups))
            with ThreadPoolExecutor(max_workers=workers) as pool:
                for future in [pool.submit(run_group, g) for g in groups]:
                    future.result()
        rows = [by_id.get(str(i), []) for i in range(len(texts))]
        try:
            vectors = p.checked_vectors(rows, len(texts))
        except RequestFailed as exc:
            raise BatchFailed(f"{api} batch output: {exc}") from None
        p.texts_embedded += len(texts)
        return vectors

    # -- HTTP -------------------------------------------------------------------------------

    def _ms(self) -> float:
        return self.now() if self.now is not None else time.monotonic() * 1000.0

    def _pause(self, ms: int) -> None:
        self.polls.append(int(ms))
        (self.sleep or self.provider.sleep)(ms / 1000.0)

    def _headers(self, as_json: bool) -> dict[str, str]:
        """``buildBatchHeaders``: the provider's headers; JSON content type, or none."""
        headers = {k: v for k, v in self.provider.request_headers().items()
                   if as_json or k.lower() != "content-type"}
        if as_json and not any(k.lower() == "content-type" for k in headers):
            headers["content-type"] = "application/json"
        return headers

    def _exchange(self, method: str, url: str, prefix: str, *, content: bytes | None = None,
                  headers: Mapping[str, str] | None = None, text: bool = False) -> Any:
        """One request; JSON (or text) back; failures raise :class:`BatchFailed`
        ``"<prefix>: <status> <scrubbed body excerpt>"``."""
        p = self.provider
        try:  # the providers' bounded exchange: total deadline, size cap, no redirects
            reply = p.send(method, url, content=content, headers=headers,
                           timeout=p.batch_timeout)
        except RequestFailed as exc:
            status = exc.status
            detail = str(exc).removeprefix(f"HTTP {status}: ") if status else str(exc)
            if status is None and exc.splittable:  # a transport failure
                detail = f"network error ({detail})"
            elif status is None:
                detail = f"request {detail}"
            raise BatchFailed(f"{prefix}: {status or ''} {detail}".replace("  ", " ").rstrip(),
                              status=status) from None
        if text:
            return reply.text
        try:
            return json.loads(reply.body)
        except (ValueError, RecursionError):
            raise BatchFailed(f"{prefix}: malformed JSON response") from None

    def _post_with_retry(self, url: str, body: Any, prefix: str) -> Any:
        """``postJsonWithRetry``: 3 attempts on 429/5xx."""
        for attempt in range(1, _CREATE_ATTEMPTS + 1):
            try:
                return self._exchange("POST", url, prefix, content=_jsonl_line(body).encode(),
                                      headers=self._headers(True))
            except BatchFailed as exc:
                status = exc.status or 0
                if attempt >= _CREATE_ATTEMPTS or not (status == 429 or status >= 500):
                    raise
                delay = min(_CREATE_MIN_MS * 2 ** (attempt - 1), _CREATE_MAX_MS)
                delay = round(delay * (1 + (self.rand() * 2 - 1) * _CREATE_JITTER))
                self._pause(min(max(delay, _CREATE_MIN_MS), _CREATE_MAX_MS))
        raise AssertionError("unreachable")  # pragma: no cover

    # -- openai / voyage --------------------------------------------------------------------

    def _upload_form(self, group: list[Any], prefix: str) -> str:
        """``uploadBatchJsonlFile``: multipart form ``purpose=batch`` + the JSONL file."""
        jsonl = "\n".join(_jsonl_line(r) for r in group).encode("utf-8")
        stamp = hashlib.sha256(str(int(time.time() * 1000)).encode()).hexdigest()
        boundary = f"----memlab{uuid.uuid4().hex}"
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\n'
                f'batch\r\n--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                f'filename="memory-embeddings.{stamp}.jsonl"\r\nContent-Type: '
                f"application/jsonl\r\n\r\n").encode() + jsonl + \
            f"\r\n--{boundary}--\r\n".encode()
        headers = {**self._headers(False),
                   "content-type": f"multipart/form-data; boundary={boundary}"}
        payload = self._exchange("POST", f"{self.provider.base_url}/files", prefix,
                                 content=body, headers=headers)
        file_id = payload.get("id") if isinstance(payload, dict) else None
        if not file_id:
            raise BatchFailed(f"{prefix}: missing file id")
        return str(file_id)

    def _openai_group(self, group: list[Any], by_id: dict[str, Any]) -> None:
        p, api, s = self.provider, self.provider.batch_api, self.settings
        base = p.base_url
        file_id = self._upload_form(group, f"{api} batch file upload failed")
        info = self._post_with_retry(f"{base}/batches",
                                     p.batch_create_body(file_id, s.agent_id),
                                     f"{api} batch create failed")
        batch_id = info.get("id") if isinstance(info, dict) else None
        if not batch_id:
            raise BatchFailed(f"{api} batch create failed: missing batch id")
        self.jobs.append(str(batch_id))
        log.debug("memory embeddings: %s batch created (id=%s status=%s requests=%d)", api,
                  batch_id, info.get("status"), len(group))
        if not s.wait and info.get("status") != "completed":
            raise BatchFailed(f"{api} batch {batch_id} submitted; enable remote.batch.wait "
                              "to await completion")
        output_id = self._wait_openai(str(batch_id), info)
        text = self._exchange("GET", f"{base}/files/{output_id}/content",
                              f"{api} batch file content failed", text=True,
                              headers=self._headers(True))
        remaining = {str(r["custom_id"]) for r in group}
        errors: list[str] = []
        lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
        if api == "openai" and len(lines) > len(group):
            raise BatchFailed(f"openai.batch-file-content: JSONL output exceeds {len(group)} "
                              "records")
        for raw in lines:
            try:
                line = json.loads(raw)
            except ValueError:
                raise BatchFailed(f"{api} embedding batch output contained malformed "
                                  "JSONL") from None
            apply_output_line(line, remaining, errors, by_id)
            if api == "openai" and not remaining:
                break
        check_outputs(api, str(batch_id), errors, remaining)

    def _wait_openai(self, batch_id: str, initial: dict[str, Any]) -> str:
        """Poll until ``completed`` (``waitForOpenAiBatch`` / ``waitForVoyageBatch``)."""
        p, api, s = self.provider, self.provider.batch_api, self.settings
        start, current = self._ms(), initial
        delay = poll = s.effective_poll_ms
        max_delay = max(poll, min(s.timeout_ms, OPENAI_MAX_POLL_BACKOFF_MS))
        while True:
            if current is None:
                try:
                    current = self._exchange("GET", f"{p.base_url}/batches/{batch_id}",
                                             f"{api} batch status failed",
                                             headers=self._headers(True))
                except BatchFailed as exc:
                    if api != "openai" or not s.wait or not _POLL_RETRY.search(str(exc)):
                        raise
                    if self._ms() - start > s.timeout_ms:
                        raise BatchFailed(f"openai batch {batch_id} timed out after "
                                          f"{s.timeout_ms}ms") from None
                    self._pause(delay)
                    delay = min(max_delay, delay * 2)
                    continue
            state = current.get("status") or "unknown"
            if state == "completed":
                if not current.get("output_file_id"):
                    raise BatchFailed(f"{api} batch {batch_id} completed without output file")
                return str(current["output_file_id"])
            if state in TERMINAL_FAILURE_STATES:
                detail = (self._read_error_file(str(current["error_file_id"]))
                          if current.get("error_file_id") else None)
                raise BatchFailed(f"{api} batch {batch_id} {state}"
                                  + (f": {detail}" if detail else ""))
            if not s.wait:
                raise BatchFailed(f"{api} batch {batch_id} still {state}; wait disabled")
            if self._ms() - start > s.timeout_ms:
                raise BatchFailed(f"{api} batch {batch_id} timed out after {s.timeout_ms}ms")
            log.debug("%s batch %s %s; waiting %dms", api, batch_id, state, delay)
            self._pause(delay)
            if api == "openai":
                delay = min(max_delay, delay * 2)
            current = None

    def _read_error_file(self, file_id: str) -> str | None:
        p = self.provider
        try:
            text = self._exchange("GET", f"{p.base_url}/files/{file_id}/content",
                                  f"{p.batch_api} batch error file content failed", text=True,
                                  headers=self._headers(True))
            if not text.strip():
                return None
            return extract_error_message([json.loads(ln) for ln in text.split("\n")
                                          if ln.strip()])
        except (BatchFailed, ValueError) as exc:
            return f"error file unavailable: {p.scrub(str(exc))}"

    # -- gemini -----------------------------------------------------------------------------

    def _gemini_group(self, group: list[Any], by_id: dict[str, Any]) -> None:
        p, s = self.provider, self.settings
        base = p.base_url
        jsonl = "\n".join(_jsonl_line({"key": r["custom_id"], "request": r["request"]})
                          for r in group)
        stamp = hashlib.sha256(str(int(time.time() * 1000)).encode()).hexdigest()
        name = f"memory-embeddings-{stamp}"
        boundary = f"openclaw-{hashlib.sha256(name.encode()).hexdigest()}"
        meta = _jsonl_line({"file": {"displayName": name, "mimeType": "application/jsonl"}})
        body = (f"--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n"
                f"{meta}\r\n--{boundary}\r\nContent-Type: application/jsonl; charset=UTF-8"
                f"\r\n\r\n{jsonl}\r\n--{boundary}--\r\n").encode()
        upload_base = (re.sub(r"/v1beta/?$", "/upload/v1beta", base) if "/v1beta" in base
                       else f"{base}/upload")
        headers = {**self._headers(False),
                   "content-type": f"multipart/related; boundary={boundary}"}
        payload = self._exchange("POST", f"{upload_base}/files?uploadType=multipart",
                                 "gemini batch file upload failed", content=body,
                                 headers=headers)
        file_id = (payload.get("name") or (payload.get("file") or {}).get("name")
                   if isinstance(payload, dict) else None)
        if not file_id:
            raise BatchFailed("gemini batch file upload failed: missing file id")
        create = {"batch": {"displayName": f"memory-embeddings-{s.agent_id}",
                            "inputConfig": {"file_name": file_id}}}
        try:
            info = self._exchange("POST", f"{base}/{p.model_path}:asyncBatchEmbedContent",
                                  "gemini batch create failed",
                                  content=_jsonl_line(create).encode(),
                                  headers=self._headers(True))
        except BatchFailed as exc:
            if exc.status == 404:
                raise BatchFailed("gemini batch create failed: 404 (asyncBatchEmbedContent "
                                  "not available for this model/baseUrl). Disable remote."
                                  "batch.enabled or switch providers.", status=404) from None
            raise
        batch_name = (info.get("name") if isinstance(info, dict) else None) or ""
        if not batch_name:
            raise BatchFailed("gemini batch create failed: missing batch name")
        self.jobs.append(batch_name)
        state = info.get("state")
        if not s.wait and state and state not in GEMINI_DONE:
            raise BatchFailed(f"gemini batch {batch_name} submitted; enable remote.batch.wait "
                              "to await completion")
        output_id = (_gemini_output(info) if state in GEMINI_DONE
                     else self._wait_gemini(batch_name, info))
        if not output_id:
            raise BatchFailed(f"gemini batch {batch_name} completed without output file")
        path = output_id if output_id.startswith("files/") else f"files/{output_id}"
        text = self._exchange("GET", f"{base}/{path}:download",
                              "gemini batch file content failed", text=True,
                              headers=self._headers(True))
        remaining = {str(r["custom_id"]) for r in group}
        errors: list[str] = []
        for raw in text.split("\n"):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except ValueError:
                raise BatchFailed("gemini batch output contained malformed JSONL") from None
            cid = line.get("key") or line.get("custom_id") or line.get("request_id")
            if not cid:
                continue
            cid = str(cid)
            remaining.discard(cid)
            response = line.get("response") if isinstance(line.get("response"), dict) else {}
            err = line.get("error") or response.get("error")
            if isinstance(err, dict) and err.get("message"):
                errors.append(f"{cid}: {err['message']}")
                continue
            values = ((line.get("embedding") or {}).get("values")
                      or (response.get("embedding") or {}).get("values") or [])
            if not values:
                errors.append(f"{cid}: empty embedding")
                continue
            by_id[cid] = values
        check_outputs("gemini", batch_name, errors, remaining)

    def _wait_gemini(self, batch_name: str, initial: dict[str, Any]) -> str:
        """``waitForGeminiBatch``: poll ``state`` every ``pollIntervalMs``."""
        p, s = self.provider, self.settings
        path = batch_name if batch_name.startswith("batches/") else f"batches/{batch_name}"
        start, current = self._ms(), initial
        while True:
            if current is None:
                current = self._exchange("GET", f"{p.base_url}/{path}",
                                         "gemini batch status failed",
                                         headers=self._headers(True))
            state = current.get("state") or "UNKNOWN"
            if state in GEMINI_DONE:
                output = _gemini_output(current)
                if not output:
                    raise BatchFailed(f"gemini batch {batch_name} completed without output "
                                      "file")
                return output
            if state in GEMINI_FAILED:
                msg = (current.get("error") or {}).get("message") or "unknown error"
                raise BatchFailed(f"gemini batch {batch_name} {state}: {p.scrub(msg)}")
            if not s.wait:
                raise BatchFailed(f"gemini batch {batch_name} still {state}; wait disabled")
            if self._ms() - start > s.timeout_ms:
                raise BatchFailed(f"gemini batch {batch_name} timed out after "
                                  f"{s.timeout_ms}ms")
            self._pause(s.effective_poll_ms)
            current = None


def _gemini_output(status: Mapping[str, Any]) -> str:
    out = status.get("outputConfig") or {}
    meta = (status.get("metadata") or {}).get("output") or {}
    return str(out.get("file") or out.get("fileId") or meta.get("responsesFile") or "")


def attach_batch(provider: Any, batch: Any, agent_id: str = "main") -> None:
    """Give ``provider`` a :class:`BatchClient` when ``batch`` (``remote.batch`` as a
    :class:`BatchSettings`, ``RemoteBatchConfig`` or mapping) is enabled; else none."""
    settings = BatchSettings.from_config(batch, agent_id=agent_id)
    provider.batch_jobs = BatchClient(provider, settings) if settings.enabled else None
