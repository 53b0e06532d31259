"""Issue 18, ``memlab serve-embeddings`` (items 10 and 18): Content-Length validated before
any read, malformed requests answered 400/411/413 (never 500), 200 concurrent clients all
served, SIGTERM stops it, and it says when it runs without an API key. Loopback only; every
loop is bounded and the servers stop when the test ends."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator

import pytest
from memlab_reliability import ROOT, subprocess_env

from memlab.cli.serve_embeddings import EmbeddingServer
from memlab.embed.hashing import HashingProvider


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    srv = EmbeddingServer(HashingProvider(dims=8), "127.0.0.1", 0, client_timeout=3)
    thread = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _raw(srv: EmbeddingServer, data: bytes, timeout: float = 10.0) -> tuple[int, dict]:
    """Send raw bytes, return (status, JSON body) of the answer."""
    with socket.create_connection(srv.server_address[:2], timeout=timeout) as sock:
        sock.sendall(data)
        buf = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            head, sep, body = buf.partition(b"\r\n\r\n")
            if sep:
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                if len(body) >= length:
                    return int(head.split()[1]), json.loads(body[:length] or b"null")
            chunk = sock.recv(65536)
            if not chunk:
                break
            buf += chunk
    raise AssertionError(f"no complete answer: {buf[:200]!r}")


def _post(body: bytes, length: str | None = None, extra: str = "") -> bytes:
    cl = f"Content-Length: {len(body) if length is None else length}\r\n" if length != "" else ""
    return (f"POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"{cl}{extra}\r\n").encode() + body


GOOD = json.dumps({"model": "m", "input": ["hello", "world"]}).encode()


@pytest.mark.parametrize("request_bytes, status", [
    (_post(b"", "-1"), 400),
    (_post(GOOD, "abc"), 400),
    (_post(GOOD, "1e3"), 400),
    (_post(GOOD, "99999999999999"), 413),
    (_post(b"5\r\nhello\r\n0\r\n\r\n", "", "Transfer-Encoding: chunked\r\n"), 411),
    (_post(b'{"input": "\\ud800"}'), 400),
    (_post(b'{"input": ["ok", "\\udfff x"]}'), 400),
    (_post(b"[" * 50_000 + b"]" * 50_000), 400),
    (_post(b'{"input": "caf\xe9"}'), 400),
    (_post(b'{"input": '), 400),
])
def test_malformed_requests_get_4xx_and_the_server_keeps_serving(server, request_bytes,
                                                                  status):
    got, body = _raw(server, request_bytes)
    assert got == status, body
    assert body["error"]["message"]
    ok, answer = _raw(server, _post(GOOD))
    assert ok == 200 and len(answer["data"]) == 2


def test_two_hundred_concurrent_clients_are_all_served(server):
    n = 200
    socks = [socket.create_connection(server.server_address[:2], timeout=30) for _ in range(n)]
    try:
        for s in socks:
            s.sendall(_post(GOOD))
        statuses = []
        for s in socks:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            statuses.append(data.split(b" ", 2)[1] if data else b"reset")
    finally:
        for s in socks:
            s.close()
    assert statuses == [b"200"] * n
    assert server.request_queue_size >= n


def test_a_stalled_client_is_dropped(server):
    with socket.create_connection(server.server_address[:2], timeout=10) as sock:
        sock.sendall(_post(GOOD, str(len(GOOD) + 100)))  # promises more than it sends
        start = time.monotonic()
        assert sock.recv(100) == b""  # the server hangs up after client_timeout (3 s)
        assert time.monotonic() - start < 8


_SERVE = textwrap.dedent("""
    import sys, time
    from memlab.embed.hashing import HashingProvider
    from memlab.cli.serve_embeddings import EmbeddingServer, serve

    class Slow(HashingProvider):
        def embed_documents(self, texts):
            if texts and texts[0] == "slow":
                time.sleep(60)
            return super().embed_documents(texts)

    srv = EmbeddingServer(Slow(dims=8), "127.0.0.1", 0)
    print(srv.server_address[1], flush=True)
    serve(srv, grace_s=1.0)
""")


def test_sigterm_stops_the_server_even_with_requests_in_flight():
    proc = subprocess.Popen([sys.executable, "-c", _SERVE], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=subprocess_env(),
                            cwd=str(ROOT))
    try:
        port = int(proc.stdout.readline())
        holders = []
        for body in (b"", b'{"input": "slow"}'):  # a bogus length, and a stuck embedding
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(_post(body, "-1" if not body else None))
            holders.append(sock)
        assert holders[0].recv(12).startswith(b"HTTP/1.1 400")
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        start = time.monotonic()
        proc.wait(timeout=10)
        assert time.monotonic() - start < 5
        err = proc.stderr.read()
        assert "SIGTERM, shutting down" in err
        assert "no --api-key-env: any process" in err  # the trust model, said at start-up
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
