"""A fake HTTP server on 127.0.0.1 for the remote embedding providers' wire-format tests."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest


def vector_for(text: str, dims: int = 4) -> list[float]:
    """A deterministic vector per text."""
    rng = np.random.default_rng(sum(str(text).encode("utf-8")) + len(str(text)))
    return [float(x) for x in rng.standard_normal(dims).astype(np.float32)]


RESET = "reset"  # a route answering this closes the connection without a response


class FakeServer:
    """Records every request; ``route(request, n)`` answers ``(status, json)``, bytes, or
    :data:`RESET`. ``delay`` seconds are slept before answering (for timeouts)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.route: Callable[[dict[str, Any], int], Any] = lambda req, n: (404, {})
        self.delay = 0.0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length", "0") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                req = {"method": self.command, "path": self.path,
                       "headers": {k.lower(): v for k, v in self.headers.items()},
                       "body": body, "raw": raw}
                n = len(server.requests)
                server.requests.append(req)
                answer = server.route(req, n)
                if server.delay:
                    time.sleep(server.delay)
                if answer == RESET:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               struct.pack("ii", 1, 0))
                    self.close_connection = True
                    return
                status, payload = answer
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_POST = _handle  # noqa: N815
            do_GET = _handle  # noqa: N815

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    srv = FakeServer()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


@pytest.fixture
def no_sleep() -> list[float]:
    """A list that records the retry waits; pass ``sleep=no_sleep.append``."""
    return []
