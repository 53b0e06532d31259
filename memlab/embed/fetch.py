"""One HTTP exchange with a total deadline and a size cap (every network read memlab makes).

httpx's timeouts bound each socket operation, not the exchange: a server that drips a byte
every half second, or sends a 1 GB body, or a 1 MB gzip bomb, is never stopped by them.
:func:`bounded_request` runs the exchange (httpx's streaming API) in a worker thread and
waits at most ``deadline_s`` for all of it -- connecting, headers and body -- then gives up;
the body is read chunk by chunk and decompressed here (``zlib`` with ``max_length``), so no
more than ``max_bytes`` decoded bytes are ever held. Redirects are never followed (the
caller decides what a 3xx means).

>>> import httpx
>>> def app(request):
...     return httpx.Response(200, stream=httpx.ByteStream(b"x" * 100))
>>> client = httpx.Client(transport=httpx.MockTransport(app))
>>> bounded_request(client, "GET", "http://test/", deadline_s=5, max_bytes=1000).body[:3]
b'xxx'
>>> bounded_request(client, "GET", "http://test/", deadline_s=5, max_bytes=10)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
memlab.embed.fetch.FetchFailed: the response body exceeds 10 bytes
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "FetchFailed", "Reply", "bounded_request"]

#: Largest decoded response body accepted by default (an embeddings answer for a full
#: 8000-byte batch of 3072-dim vectors is a few MB).
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
#: Encodings decoded here; anything else is refused (``Accept-Encoding`` asks for these).
ACCEPT_ENCODING = "gzip, deflate"


class FetchFailed(Exception):
    """The exchange failed: ``kind`` is ``"timeout"``, ``"connection"``, ``"too_large"`` or
    ``"encoding"``."""

    def __init__(self, message: str, kind: Literal["timeout", "connection", "too_large",
                                                   "encoding"]):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Reply:
    """A complete response: status, headers (lower-cased names) and the decoded body."""

    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class _Decoder:
    """Content-Encoding decoding that never produces more than it is allowed to."""

    def __init__(self, encoding: str | None):
        enc = (encoding or "identity").strip().lower()
        if enc in ("", "identity"):
            self._z = None
        elif enc in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif enc == "deflate":
            self._z = zlib.decompressobj(zlib.MAX_WBITS)
            self._raw_fallback = True
        else:
            raise FetchFailed(f"unsupported Content-Encoding {encoding!r} (memlab accepts "
                              f"{ACCEPT_ENCODING})", "encoding")
        self._first = True

    def feed(self, data: bytes, room: int) -> bytes:
        """Decoded bytes of ``data``; at most ``room + 1`` (one more means: too large)."""
        if self._z is None:
            return data[: room + 1]
        try:
            if self._first and getattr(self, "_raw_fallback", False):
                self._first = False
                try:  # "deflate" is zlib-wrapped per the RFC, raw in many servers
                    probe = zlib.decompressobj(zlib.MAX_WBITS)
                    out = probe.decompress(data, room + 1)
                    self._z = probe
                    return out
                except zlib.error:
                    self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            return self._z.decompress(data, room + 1)
        except zlib.error as exc:
            raise FetchFailed(f"the response body is not valid compressed data ({exc})",
                              "encoding") from None

    def flush(self, room: int) -> bytes:
        if self._z is None:
            return b""
        out = self._z.decompress(self._z.unconsumed_tail, room + 1) if \
            self._z.unconsumed_tail else b""
        return out + (self._z.flush() if len(out) <= room else b"")


def _exchange(client: Any, method: str, url: str, content: bytes | None,
              headers: Mapping[str, str], deadline_s: float, max_bytes: int,
              cancelled: threading.Event) -> Reply:
    import httpx

    sent = {k: v for k, v in headers.items() if k.lower() != "accept-encoding"}
    sent["accept-encoding"] = ACCEPT_ENCODING
    with client.stream(method, url, content=content, headers=sent,
                       timeout=httpx.Timeout(deadline_s)) as response:
        decoder = _Decoder(response.headers.get("content-encoding"))
        parts: list[bytes] = []
        total = 0
        for raw in response.iter_raw():
            if cancelled.is_set():
                raise FetchFailed("cancelled at the deadline", "timeout")
            data = decoder.feed(raw, max_bytes - total)
            total += len(data)
            if total > max_bytes:
                raise FetchFailed(f"the response body exceeds {max_bytes} bytes", "too_large")
            parts.append(data)
        tail = decoder.flush(max_bytes - total)
        total += len(tail)
        if total > max_bytes:
            raise FetchFailed(f"the response body exceeds {max_bytes} bytes", "too_large")
        parts.append(tail)
        return Reply(response.status_code,
                     {k.lower(): v for k, v in response.headers.items()}, b"".join(parts))


def bounded_request(client: Any, method: str, url: str, *, content: bytes | None = None,
                    headers: Mapping[str, str] | None = None, deadline_s: float,
                    max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> Reply:
    """Send one request with ``client`` (an ``httpx.Client``) and read the whole response
    within ``deadline_s`` seconds in total, keeping at most ``max_bytes`` decoded body bytes.

    Raises :class:`FetchFailed` (``timeout`` when the deadline passes, whatever the server
    does meanwhile; ``connection`` for transport errors; ``too_large``; ``encoding``). The
    worker thread of an abandoned exchange stops at its next read (each read is bounded by
    ``deadline_s`` too) and keeps nothing.
    """
    import httpx

    deadline_s = max(0.001, float(deadline_s))
    done = threading.Event()
    cancelled = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["reply"] = _exchange(client, method, url, content, dict(headers or {}),
                                     deadline_s, int(max_bytes), cancelled)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="memlab-fetch", daemon=True)
    worker.start()
    if not done.wait(deadline_s):
        cancelled.set()
        raise FetchFailed(f"timed out after {deadline_s:g}s (total deadline for the whole "
                          "exchange)", "timeout")
    if "reply" in box:
        return box["reply"]
    exc = box["error"]
    if isinstance(exc, FetchFailed):
        raise exc
    if isinstance(exc, httpx.TimeoutException):
        raise FetchFailed(f"timed out after {deadline_s:g}s ({type(exc).__name__})",
                          "timeout") from None
    if isinstance(exc, httpx.TransportError | httpx.StreamError):
        raise FetchFailed(f"connection error ({type(exc).__name__}: {exc})",
                          "connection") from None
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol | ValueError):
        raise FetchFailed(f"invalid request ({type(exc).__name__}: {exc})",
                          "connection") from None
    raise exc
