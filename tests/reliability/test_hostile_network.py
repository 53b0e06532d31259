"""Issue 18, provider items: secrets scrubbed by value before any cut (3, 4, 5), total
deadlines and size caps on every network read (8, 9, 21), Retry-After and redirects (19).

The hostile servers are raw loopback sockets (a thread per connection, bounded loops) so
they can drip bytes, stall or send bombs; they stop by themselves when the test ends."""

from __future__ import annotations

import base64
import gzip
import json
import logging
import socket
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator

import pytest
from memlab_reliability import embeddings_route

from memlab import secrets
from memlab.embed.base import ProviderUnavailable
from memlab.embed.openai_compatible import OpenAICompatibleProvider

SECRET = "sk-live-7f3a9c1e5b2d4f6a8c0e1b3d5f7a9c1e"  # 40 characters


class RawServer:
    """A loopback TCP server whose ``handler(conn, request_bytes)`` writes whatever it likes."""

    def __init__(self, handler: Callable[[socket.socket, bytes], None]):
        self.handler = handler
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.stop = threading.Event()
        self.requests = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    need = int(line.split(b":")[1])
                    while len(body) < need:
                        body += conn.recv(65536)
            self.requests += 1
            self.handler(conn, head + b"\r\n\r\n" + body, self.stop)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        self.sock.close()


@pytest.fixture
def raw() -> Iterator[Callable[[Callable], RawServer]]:
    servers: list[RawServer] = []

    def make(handler):
        servers.append(RawServer(handler))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def _provider(url: str, **kw) -> OpenAICompatibleProvider:
    kw.setdefault("sleep", lambda s: None)
    return OpenAICompatibleProvider(base_url=url, model="m", api_key=kw.pop("api_key", SECRET),
                                    **kw)


def _fragments(secret: str, n: int = 8) -> list[str]:
    """Every ``n``-character piece of ``secret``: none may appear anywhere."""
    return [secret[i:i + n] for i in range(len(secret) - n + 1)]


def _assert_clean(text: str, *secrets: str) -> None:
    for secret in secrets:
        for piece in _fragments(secret):
            assert piece not in text, (piece, text)


# -- 3: scrub before truncation ------------------------------------------------------------------


def test_error_excerpt_is_scrubbed_before_it_is_cut(fake, caplog):
    # the key straddles the 300-character excerpt limit
    body = {"error": "x" * 262 + f" invalid key {SECRET} for this project"}
    fake.route = lambda req, n: (500, body)
    p = _provider(fake.url + "/v1", max_attempts=2)
    with caplog.at_level(logging.WARNING), pytest.raises(ProviderUnavailable) as info:
        p.embed_query("q")
    _assert_clean(str(info.value), SECRET)
    _assert_clean(caplog.text, SECRET)
    assert "retrying" in caplog.text  # the warning was emitted, and scrubbed


# -- 4: every credential-shaped header value is a secret, whatever its name -----------------


@pytest.mark.parametrize("name", ["Ocp-Apim-Subscription-Key", "X-Tenant-Routing"])
def test_configured_header_values_are_scrubbed_by_value(fake, name):
    value = "hdr-3c9e1f7a2b8d4e6f0a1c"
    fake.route = lambda req, n: (403, {"error": f"echo: {json.dumps(req['headers'])}"})
    p = _provider(fake.url + "/v1", headers={name: value})
    with pytest.raises(ProviderUnavailable) as info:
        p.embed_query("q")
    assert fake.requests[0]["headers"][name.lower()] == value  # it was sent
    _assert_clean(str(info.value), value, SECRET)


def test_a_plain_label_header_never_masks_ordinary_words(fake):
    """``X-Team: memlab`` is a label: registering it would turn every later "memlab" in the
    process's messages into ``***`` (CI failed on exactly that)."""
    fake.route = lambda req, n: (403, {"error": "denied for memlab team"})
    p = _provider(fake.url + "/v1", headers={"X-Team": "memlab", "X-Key-Id": "k-77aa99bb"})
    with pytest.raises(ProviderUnavailable) as info:
        p.embed_query("q")
    assert "denied for memlab team" in str(info.value)
    assert secrets.scrub("memlab index k-77aa99bb") == "memlab index ***"


# -- 5: credentials in remote.baseUrl -------------------------------------------------------------


def test_base_url_credentials_never_reach_messages(fake):
    fake.route = lambda req, n: (500, {"error": f"echo {req['headers'].get('authorization')}"})
    host = fake.url.removeprefix("http://")
    p = _provider(f"http://alice:pa55-w0rd-9931@{host}/v1", api_key=None, max_attempts=1)
    with pytest.raises(ProviderUnavailable) as info:
        p.embed_query("q")
    text = str(info.value)
    basic = base64.b64encode(b"alice:pa55-w0rd-9931").decode()
    assert "pa55-w0rd-9931" not in text and basic[4:20] not in text, text
    assert "alice" not in text and "***@" in text


# -- 8 and 21: total deadlines ------------------------------------------------------------------


def _drip_body(conn, _request, stop):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 100000\r\n\r\n")
    for _ in range(400):  # 200 s of dripping at most; the test's server stops it first
        if stop.is_set():
            return
        conn.sendall(b" ")
        time.sleep(0.1)


def _drip_headers(conn, _request, stop):
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    for i in range(400):
        if stop.is_set():
            return
        conn.sendall(f"X-{i}: y\r\n".encode())
        time.sleep(0.1)


@pytest.mark.parametrize("drip", [_drip_body, _drip_headers])
def test_dripping_provider_is_stopped_by_the_batch_timeout(raw, drip):
    srv = raw(drip)
    p = _provider(srv.url, batch_timeout=1.0, max_attempts=2)
    start = time.monotonic()
    with pytest.raises(ProviderUnavailable, match="timed out"):
        p.embed_documents(["a", "b"])
    assert time.monotonic() - start < 2 * 1.0 + 1.0  # two attempts of 1 s, plus slack


def _silent(conn, _request, stop):
    stop.wait(30)


def test_never_answering_provider_costs_one_query_budget(raw, monkeypatch):
    monkeypatch.setenv("MEMLAB_QUERY_TIMEOUT_SECONDS", "1.5")
    srv = raw(_silent)
    p = _provider(srv.url)  # default per-attempt query timeout (60 s), three attempts
    start = time.monotonic()
    with pytest.raises(ProviderUnavailable, match="timed out"):
        p.embed_query("q")
    assert time.monotonic() - start < 1.5 + 1.0


def test_query_budget_setting_is_validated(monkeypatch):
    monkeypatch.setenv("MEMLAB_QUERY_TIMEOUT_SECONDS", "soon")
    with pytest.raises(ValueError, match="MEMLAB_QUERY_TIMEOUT_SECONDS='soon'"):
        _provider("http://127.0.0.1:9/v1")


# -- 9: size caps ---------------------------------------------------------------------------------


_BOMB: list[bytes] = []


def _bomb_payload() -> bytes:
    if not _BOMB:  # 64 MB of JSON whitespace in 64 KB of gzip
        _BOMB.append(gzip.compress(b"[" + b" " * (64 * 1024 * 1024), compresslevel=9))
    return _BOMB[0]


def _bomb(conn, _request, stop):
    payload = _bomb_payload()
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip"
                 + f"\r\nContent-Length: {len(payload)}\r\n\r\n".encode() + payload)


def _huge(conn, _request, stop):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 1073741824\r\n\r\n")
    chunk = b" " * 65536
    for _ in range(16384):  # 1 GB, unless the client hangs up first
        if stop.is_set():
            return
        conn.sendall(chunk)


@pytest.mark.parametrize("serve", [_bomb, _huge])
def test_response_bodies_are_capped(raw, serve):
    _bomb_payload()  # built before memory is traced (the server runs in this process)
    srv = raw(serve)
    p = _provider(srv.url, max_attempts=1)
    p.max_response_bytes = 4 * 1024 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(ProviderUnavailable, match="exceeds 4194304 bytes"):
            p.embed_documents(["a"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 24 * 1024 * 1024, peak


def test_deeply_nested_json_answer_is_malformed_not_a_crash(fake):
    fake.route = lambda req, n: (200, b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(ProviderUnavailable, match="not JSON"):
        _provider(fake.url + "/v1").embed_query("q")


# -- 19: Retry-After and redirects --------------------------------------------------------------


@pytest.mark.parametrize("header, expected", [("3", 3.0), ("date", 2.6)])
def test_retry_after_is_honoured(raw, header, expected):
    answers = iter(["429", "ok"])
    route = embeddings_route(dims=4)

    def handler(conn, request, stop):
        if next(answers) == "429":
            value = header
            if header == "date":
                import email.utils

                value = email.utils.formatdate(time.time() + 2.6, usegmt=True)
            # RawServer answers one request per connection, so say so: without
            # "Connection: close" the client may reuse the socket the server is closing
            # and lose an attempt to a disconnect (a race the mocked sleep makes likely)
            conn.sendall(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: " + value.encode()
                         + b"\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}")
            return
        body = json.loads(request.partition(b"\r\n\r\n")[2] or b"{}")
        payload = json.dumps(route({"body": body}, 0)[1]).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                     + str(len(payload)).encode() + b"\r\n\r\n" + payload)

    srv = raw(handler)
    waits: list[float] = []
    p = _provider(srv.url, sleep=waits.append)
    assert p.embed_query("hello").shape == (4,)
    assert len(waits) == 1 and expected - 1.0 <= waits[0] <= expected, waits


def test_retry_after_beyond_the_cap_fails_at_once(raw):
    def handler(conn, request, stop):
        conn.sendall(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3600\r\n"
                     b"Content-Length: 2\r\n\r\n{}")

    srv = raw(handler)
    waits: list[float] = []
    with pytest.raises(ProviderUnavailable, match="retry after 3600s"):
        _provider(srv.url, sleep=waits.append).embed_query("q")
    assert srv.requests == 1 and waits == []


def test_redirect_is_reported_as_a_redirect(raw):
    def handler(conn, request, stop):
        conn.sendall(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: "
                     b"https://elsewhere.example/v1/embeddings?key=abcd1234\r\n"
                     b"Content-Length: 0\r\n\r\n")

    srv = raw(handler)
    with pytest.raises(ProviderUnavailable) as info:
        _provider(srv.url).embed_query("q")
    text = str(info.value)
    assert "HTTP 307 redirect to https://elsewhere.example" in text, text
    assert "malformed" not in text and "abcd1234" not in text
    assert srv.requests == 1  # not retried, not followed
