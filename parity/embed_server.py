"""A tiny deterministic OpenAI-compatible ``/v1/embeddings`` server for the parity harness.

Both sides of the parity run embed through it: OpenClaw with ``provider:
"openai-compatible"`` and ``remote.baseUrl`` pointing here, memlab with its own
``openai-compatible`` provider pointed at the same URL. So both get bit-identical vectors and
the comparison tests the search, not the model.

The vectors are a hashed bag of words: lower-cased ``\\w+`` runs (and, inside a run, every CJK
character and every pair of adjacent CJK characters), each hashed (blake2b) to one of
:data:`DIMS` dimensions with a sign, counts summed, plus a constant bias feature (so no text is
the zero vector), L2-normalised in float64 and rounded to float32. JSON carries each float32
value exactly (as the float64 of the same value).

    python parity/embed_server.py --port 8765        # serve until Ctrl-C
    python -c "from parity.embed_server import embed_text; print(embed_text('hi')[:4])"
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

DIMS = 64
MODEL = "memlab-parity-hash64"
_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")


def features(text: str) -> list[str]:
    """The hashed features of a text (see the module docstring).

    >>> features("Deploy 部署账单")
    ['deploy', '部署账单', '部', '署', '账', '单', '部署', '署账', '账单', '\\x00bias']
    """
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        out.append(word)
        cjk = [ch if _CJK.match(ch) else None for ch in word]
        out.extend(ch for ch in cjk if ch)
        out.extend(a + b for a, b in zip(cjk, cjk[1:], strict=False) if a and b)
    out.append("\x00bias")
    return out


def embed_text(text: str, dims: int = DIMS) -> np.ndarray:
    """The server's vector for ``text``: float32, unit length."""
    vec = np.zeros(dims, dtype=np.float64)
    for feat in features(text):
        h = int.from_bytes(hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest(), "big")
        vec[h % dims] += 1.0 if (h >> 63) & 1 else -1.0
    norm = float(np.linalg.norm(vec))
    if norm > 0:
        vec /= norm
    return vec.astype(np.float32)


class EmbedServer:
    """The server in a background thread; ``base_url`` ends in ``/v1``.

    >>> with EmbedServer() as srv:  # doctest: +SKIP
    ...     srv.base_url
    'http://127.0.0.1:41234/v1'
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, dims: int = DIMS):
        self.dims = dims
        self.requests = 0
        self.texts = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/") in ("/v1/models", "/models"):
                    self._send(200, {"object": "list", "data": [
                        {"id": MODEL, "object": "model", "owned_by": "memlab"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                if self.path.rstrip("/") not in ("/v1/embeddings", "/embeddings"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    length = int(self.headers.get("content-length", "0"))
                    body = json.loads(self.rfile.read(length) or b"{}")
                    inputs = body["input"]
                    if isinstance(inputs, str):
                        inputs = [inputs]
                    if not isinstance(inputs, list) or not all(isinstance(t, str) for t in inputs):
                        raise ValueError("input must be a string or a list of strings")
                    dims = body.get("dimensions") or server.dims
                    if dims != server.dims:
                        raise ValueError(f"this server only makes {server.dims}-dim vectors")
                except (ValueError, KeyError, TypeError) as exc:
                    self._send(400, {"error": {"message": str(exc)}})
                    return
                with server._lock:
                    server.requests += 1
                    server.texts += len(inputs)
                data = [{"object": "embedding", "index": i,
                         "embedding": [float(x) for x in embed_text(t, server.dims)]}
                        for i, t in enumerate(inputs)]
                self._send(200, {"object": "list", "model": body.get("model", MODEL),
                                 "data": data,
                                 "usage": {"prompt_tokens": 0, "total_tokens": 0}})

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> EmbedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> EmbedServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args(argv)
    srv = EmbedServer(args.host, args.port)
    print(f"serving {MODEL} ({srv.dims} dims) at {srv.base_url}/embeddings", flush=True)
    try:
        srv.httpd.serve_forever(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        srv.httpd.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
