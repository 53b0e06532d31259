"""``memlab serve-embeddings``: an OpenAI-compatible embeddings server for a local model.

Point OpenClaw's (or memlab's) ``openai-compatible`` provider at it, and production embeds with
the very model memlab evaluated (``memlab export`` writes this block, and the command, for a
config measured with memlab's ``local`` provider; ``parity/check_serve.py`` checks every
packaged model against the real OpenClaw)::

    memlab serve-embeddings --model minilm-int8-onnx --port 8080

    # OpenClaw / memlab config
    {"memorySearch": {"provider": "openai-compatible", "model": "minilm-int8-onnx",
                      "remote": {"baseUrl": "http://127.0.0.1:8080/v1"},
                      "queryInputType": "query", "documentInputType": "document"}}

Endpoints (stdlib ``ThreadingHTTPServer``, JSON in and out):

``POST /v1/embeddings`` (also ``/embeddings``)
    ``{"model", "input": str | [str, ...], "dimensions"?, "encoding_format"?: "float"|"base64",
    "input_type"?}`` -> ``{"object": "list", "data": [{"object": "embedding", "index",
    "embedding"}], "model", "usage": {"prompt_tokens", "total_tokens"}}``. Inputs are embedded
    in batches of ``batch_size`` by the local provider (requests run one at a time on the
    model). ``input_type`` ``"query"`` (or ``search_query``) embeds queries, anything else
    (or none) documents, exactly as memlab's local provider embeds them: for symmetric models
    (MiniLM, USE) the two are the same, E5 adds its ``query: `` / ``passage: `` prefix. OpenClaw
    sends ``queryInputType`` with queries and ``documentInputType`` with chunks, so an export
    sets both (``"query"`` / ``"document"``). ``dimensions`` smaller than
    the model's truncates and re-normalises the vectors (as OpenAI's ``dimensions`` does);
    larger is an error. The ``model`` field is reported back but not checked, unless the
    server runs with ``strict_model``.
``GET /v1/models``
    The served model.
``GET /health``
    ``{"status": "ok", "model", "dims"}``.

Errors are OpenAI-shaped: ``{"error": {"message", "type", "param", "code"}}`` with 400 (bad
request: malformed or missing ``Content-Length``, a body that is not UTF-8 JSON, JSON nested
deeper than :data:`MAX_JSON_DEPTH`, inputs with lone surrogates), 401 (``api_key`` set and a
wrong bearer token), 404, 405, 411 (a chunked body: send ``Content-Length``), 413 (too many
inputs or too large a body) or 500 (the model failed). SIGINT/SIGTERM stop the server: the
first signal stops accepting and lets in-flight requests finish for up to
:data:`SHUTDOWN_GRACE_S`, a second one exits at once.

Capacity and trust model: at most ``max_concurrency`` requests are handled at once (the
model itself runs one batch at a time), further connections wait in a listen backlog of
:data:`LISTEN_BACKLOG`; a client that stalls mid-request is dropped after
:data:`CLIENT_TIMEOUT_S`. The server binds 127.0.0.1 by default. Without ``api_key``
(``--api-key-env``) **any process on the machine** can embed texts with it (it never reads
files, and answers only embeddings and the model's name); with it, requests need
``Authorization: Bearer <key>``. Binding another address exposes it to the network: always
pair that with ``--api-key-env``.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from memlab.embed.base import EmbeddingProvider

__all__ = ["EmbeddingServer", "make_server", "serve"]

#: OpenAI's limits: inputs per request, and a generous body cap.
MAX_INPUTS = 2048
MAX_BODY_BYTES = 64 * 1024 * 1024
#: Requests handled at once (more wait in the backlog), the listen backlog, the socket
#: timeout for a client that stops sending, the JSON nesting accepted, the shutdown grace.
MAX_CONCURRENCY = 32
LISTEN_BACKLOG = 512
CLIENT_TIMEOUT_S = 30.0
MAX_JSON_DEPTH = 64
SHUTDOWN_GRACE_S = 10.0
_QUERY_TYPES = {"query", "search_query", "retrieval.query", "retrieval_query", "question"}


class ApiError(Exception):
    def __init__(self, status: int, message: str, type_: str = "invalid_request_error",
                 param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.status, self.message, self.type, self.param, self.code = (
            status, message, type_, param, code)

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param,
                          "code": self.code}}


class EmbeddingServer(ThreadingHTTPServer):
    """A threading HTTP server holding one embedding provider.

    ``provider`` is any :class:`~memlab.embed.base.EmbeddingProvider` (usually a
    :class:`~memlab.embed.local.LocalProvider`); ``model_name`` is the id the API reports.
    """

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, provider: EmbeddingProvider, host: str = "127.0.0.1", port: int = 8080,
                 *, model_name: str | None = None, api_key: str | None = None,
                 strict_model: bool = False, max_inputs: int = MAX_INPUTS, quiet: bool = True,
                 max_concurrency: int = MAX_CONCURRENCY,
                 client_timeout: float = CLIENT_TIMEOUT_S):
        self.provider = provider
        self.model_name = model_name or provider.model
        self.api_key = api_key or None
        self.strict_model = strict_model
        self.max_inputs = int(max_inputs)
        self.quiet = quiet
        self.model_lock = threading.Lock()
        self.client_timeout = float(client_timeout)
        #: Bounds the handler threads: accepted connections wait for a slot (and unaccepted
        #: ones in the listen backlog) instead of piling up threads and memory.
        self.slots = threading.BoundedSemaphore(max(1, int(max_concurrency)))
        self.started = time.time()
        self.requests_served = 0
        super().__init__((host, int(port)), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/v1"

    def process_request(self, request: Any, client_address: Any) -> None:
        """Start a handler thread once a slot is free (at most ``max_concurrency``)."""
        self.slots.acquire()
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            request.settimeout(self.client_timeout)
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    # -- embedding ---------------------------------------------------------------------------

    def count_tokens(self, texts: Sequence[str]) -> int:
        """Tokens the model sees (its tokenizer when it has one, else whitespace words)."""
        model = getattr(self.provider, "_model", None)
        try:
            if model is not None and hasattr(model, "count_tokens"):
                return int(model.count_tokens(texts))
            tok = getattr(model, "tokenizer", None)
            if tok is not None:
                return int(sum(len(ids) for ids in tok(list(texts))["input_ids"]))
        except Exception:  # noqa: BLE001 - usage is informative only
            pass
        return sum(len(t.split()) for t in texts)

    def embed(self, texts: list[str], kind: str) -> np.ndarray:
        with self.model_lock:
            if kind == "query":
                return np.asarray(self.provider.embed_queries(texts), dtype=np.float32)
            return np.asarray(self.provider.embed_documents(texts), dtype=np.float32)

    def handle_embeddings(self, req: Any) -> dict[str, Any]:
        if not isinstance(req, dict):
            raise ApiError(400, "the request body must be a JSON object")
        model = req.get("model")
        if model is not None and not isinstance(model, str):
            raise ApiError(400, "'model' must be a string", param="model")
        if self.strict_model and model not in (None, "", self.model_name):
            raise ApiError(404, f"The model {model!r} does not exist; this server serves "
                           f"{self.model_name!r}", param="model", code="model_not_found")
        raw = req.get("input")
        if isinstance(raw, str):
            texts = [raw]
        elif isinstance(raw, list) and raw and all(isinstance(t, str) for t in raw):
            texts = list(raw)
        elif isinstance(raw, list) and raw:
            raise ApiError(400, "'input' must be a string or an array of strings (token "
                           "arrays are not supported by this server)", param="input")
        else:
            raise ApiError(400, "'input' is required: a non-empty string or array of strings",
                           param="input")
        if len(texts) > self.max_inputs:
            raise ApiError(413, f"too many inputs: {len(texts)} > {self.max_inputs} per "
                           "request", param="input")
        if any(t == "" for t in texts):
            raise ApiError(400, "'input' cannot contain empty strings", param="input")
        for i, t in enumerate(texts):
            try:
                t.encode("utf-8")
            except UnicodeEncodeError:
                raise ApiError(400, f"'input'[{i}] is not valid Unicode text (a lone "
                               "surrogate escape such as \\ud800)", param="input") from None
        fmt = req.get("encoding_format") or "float"
        if fmt not in ("float", "base64"):
            raise ApiError(400, f"'encoding_format' must be 'float' or 'base64', got {fmt!r}",
                           param="encoding_format")
        dims = req.get("dimensions")
        if dims is not None and (isinstance(dims, bool) or not isinstance(dims, int)
                                 or dims <= 0):
            raise ApiError(400, "'dimensions' must be a positive integer", param="dimensions")
        input_type = req.get("input_type")
        kind = "query" if isinstance(input_type, str) and input_type.strip().lower() in (
            _QUERY_TYPES) else "document"
        vectors = self.embed(texts, kind)
        if dims is not None:
            if dims > vectors.shape[1]:
                raise ApiError(400, f"'dimensions' {dims} exceeds the model's "
                               f"{vectors.shape[1]} dimensions", param="dimensions")
            if dims < vectors.shape[1]:
                vectors = vectors[:, :dims]
                vectors = vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True),
                                            1e-12, None)
        vectors = np.ascontiguousarray(vectors, dtype="<f4")
        data = []
        for i, vec in enumerate(vectors):
            emb: Any = (base64.b64encode(vec.tobytes()).decode("ascii") if fmt == "base64"
                        else [float(x) for x in vec])
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = self.count_tokens(texts)
        self.requests_served += 1
        return {"object": "list", "data": data, "model": self.model_name,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "model": self.model_name, "dims": int(self.provider.dims),
                "uptime_s": round(time.time() - self.started, 3),
                "requests_served": self.requests_served}

    def models(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": self.model_name, "object": "model",
                                            "created": int(self.started),
                                            "owned_by": "memlab"}]}


class _Handler(BaseHTTPRequestHandler):
    server: EmbeddingServer
    protocol_version = "HTTP/1.1"
    server_version = "memlab-embeddings/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if not self.server.quiet:
            super().log_message(format, *args)

    def _send(self, status: int, body: dict[str, Any]) -> None:
        payload = json.dumps(body, separators=(",", ":")).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _path(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/") or "/"

    def _check_auth(self) -> None:
        key = self.server.api_key
        if key is None:
            return
        got = self.headers.get("authorization", "")
        if got != f"Bearer {key}":
            raise ApiError(401, "Incorrect API key provided.", "invalid_request_error",
                           code="invalid_api_key")

    def _body(self) -> Any:
        """The request's JSON body, with ``Content-Length`` validated before anything is
        read (a negative, non-numeric or oversized length never reaches ``rfile.read``)."""
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            raise ApiError(411, "chunked request bodies are not supported: send the body "
                           "with a Content-Length header", code="length_required")
        values = self.headers.get_all("content-length") or []
        if not values:
            raise ApiError(411, "a Content-Length header is required", code="length_required")
        text = values[0].strip()
        if len(set(v.strip() for v in values)) > 1 or not text.isdigit() or not text.isascii():
            raise ApiError(400, f"invalid Content-Length {', '.join(values)!r}: expected one "
                           "non-negative integer")
        length = int(text)
        if length > MAX_BODY_BYTES:
            raise ApiError(413, f"request body too large ({length} bytes > {MAX_BODY_BYTES})")
        raw = self.rfile.read(length) if length else b""
        if len(raw) != length:
            raise ApiError(400, f"the body ended after {len(raw)} of {length} bytes")
        try:
            text_body = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ApiError(400, f"the request body is not UTF-8 (byte {exc.start})") from None
        if _nesting(text_body) > MAX_JSON_DEPTH:
            raise ApiError(400, f"the request body nests JSON deeper than {MAX_JSON_DEPTH} "
                           "levels")
        try:
            return json.loads(text_body or "null")
        except (json.JSONDecodeError, RecursionError) as exc:
            raise ApiError(400, f"the request body is not valid JSON: {exc}") from None

    def _dispatch(self, method: str) -> None:
        try:
            path = self._path()
            if method == "GET" and path == "/health":
                return self._send(200, self.server.health())
            if path in ("/v1/models", "/models"):
                if method != "GET":
                    raise ApiError(405, f"{method} is not allowed on {path}")
                self._check_auth()
                return self._send(200, self.server.models())
            if path in ("/v1/embeddings", "/embeddings"):
                if method != "POST":
                    raise ApiError(405, f"{method} is not allowed on {path}; use POST")
                self._check_auth()
                req = self._body()
                return self._send(200, self.server.handle_embeddings(req))
            raise ApiError(404, f"no such endpoint: {method} {path} (try POST /v1/embeddings, "
                           "GET /v1/models, GET /health)", code="not_found")
        except ApiError as err:
            if err.status in (400, 405, 411, 413) and method in ("POST", "PUT"):
                self.close_connection = True  # the body may be unread
            self._send(err.status, err.body())
        except (ConnectionError, TimeoutError):  # the client went away or stalled
            self.close_connection = True
        except Exception as exc:  # noqa: BLE001 - one failing request must not kill the server
            self._send(500, ApiError(500, f"embedding failed: {type(exc).__name__}: {exc}",
                                     "server_error").body())

    def do_GET(self) -> None:  # noqa: N802
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._dispatch("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch("DELETE")


def _nesting(text: str) -> int:
    """The deepest ``[``/``{`` nesting of a JSON text (strings skipped), without parsing.

    >>> _nesting('{"a": [[1], "[[["]}')
    3
    """
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def make_server(model: str | None = None, host: str = "127.0.0.1", port: int = 8080, *,
                batch_size: int = 32, device: str = "cpu", model_name: str | None = None,
                api_key: str | None = None, strict_model: bool = False,
                provider: EmbeddingProvider | None = None, quiet: bool = True,
                warm: bool = True) -> EmbeddingServer:
    """An :class:`EmbeddingServer` for a local model (alias, folder or cached name).

    ``port=0`` picks a free port (see :attr:`EmbeddingServer.url`). ``warm`` loads the model
    before the server accepts requests, so a missing model fails here, not on first use.
    """
    if provider is None:
        from memlab.embed.local import LocalProvider
        from memlab.embed.models import find_packaged

        provider = LocalProvider(model, batch_size=batch_size, device=device,
                                 show_progress=False)
        if model_name is None:
            packaged = find_packaged(model) if model else None
            model_name = packaged.alias if packaged else (model or "minilm")
    if warm:
        _ = provider.dims
    return EmbeddingServer(provider, host, port, model_name=model_name, api_key=api_key,
                           strict_model=strict_model, quiet=quiet)


def serve(server: EmbeddingServer, *, install_signals: bool = True, out: Any = None,
          grace_s: float = SHUTDOWN_GRACE_S) -> None:
    """Run ``server`` until SIGINT/SIGTERM (or ``server.shutdown()``), then close it; after a
    signal, requests still running after ``grace_s`` seconds are abandoned (the process
    exits)."""
    out = out if out is not None else sys.stderr
    previous: dict[int, Any] = {}
    stopping: list[float] = []
    finished = threading.Event()

    def stop(signum: int, _frame: Any) -> None:
        name = signal.Signals(signum).name
        if stopping:  # a second signal: leave now
            print(f"memlab serve-embeddings: {name} again, exiting", file=out, flush=True)
            os._exit(128 + signum)
        stopping.append(time.monotonic())
        print(f"memlab serve-embeddings: {name}, shutting down", file=out, flush=True)
        # shutdown() waits for serve_forever() to return: call it from another thread
        threading.Thread(target=server.shutdown, daemon=True).start()

        def deadline() -> None:  # in-flight requests get grace_s, not forever
            if finished.wait(grace_s):
                return
            print("memlab serve-embeddings: requests still running after "
                  f"{grace_s:g}s, exiting", file=out, flush=True)
            os._exit(128 + signum)

        threading.Thread(target=deadline, daemon=True).start()

    if install_signals and threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, stop)
    print(f"memlab serve-embeddings: model {server.model_name!r} "
          f"({int(server.provider.dims)} dims) on {server.url} "
          "(POST /embeddings, GET /models, GET /health)", file=out, flush=True)
    if server.api_key is None:
        print("memlab serve-embeddings: no --api-key-env: any process that can reach "
              f"{server.url} can use this server", file=out, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        finished.set()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        print("memlab serve-embeddings: stopped", file=out, flush=True)


def add_serve_parser(sub: Any) -> None:
    """Register ``memlab serve-embeddings`` on the CLI's subparsers."""
    p = sub.add_parser("serve-embeddings",
                       help="serve a local embedding model over OpenAI's /v1/embeddings API")
    p.add_argument("--model", default=None, metavar="PATH_OR_ALIAS",
                   help="a packaged model alias (minilm, minilm-int8-onnx, "
                   "e5-small-multilingual, e5-small-enpt, use-multilingual), a "
                   "sentence-transformers folder, or a "
                   "model name in the Hugging Face cache (default: the bundled minilm)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 = any free)")
    p.add_argument("--batch-size", type=int, default=32, help="texts per forward pass")
    p.add_argument("--device", default="cpu", help="torch device for sentence-transformers")
    p.add_argument("--served-name", default=None,
                   help="model id the API reports (default: the alias or path)")
    p.add_argument("--api-key-env", default=None, metavar="VAR",
                   help="require `Authorization: Bearer $VAR` on API requests")
    p.add_argument("--strict-model", action="store_true",
                   help="reject requests whose `model` is not the served name")
    p.add_argument("--verbose", action="store_true", help="log every request")
    p.set_defaults(func=_serve_cmd)


def _serve_cmd(args: Any) -> int:
    import os

    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise ValueError(f"--api-key-env {args.api_key_env}: the variable is not set")
    server = make_server(args.model, args.host, args.port, batch_size=args.batch_size,
                         device=args.device, model_name=args.served_name, api_key=api_key,
                         strict_model=args.strict_model, quiet=not args.verbose)
    serve(server)
    return 0
