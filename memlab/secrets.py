"""Secrets scrubbed by value before any text leaves the process.

Every credential memlab is configured with -- API keys, the values of ``remote.headers``,
the user name and password of a ``remote.baseUrl`` (``https://user:pass@host``) and
credential-like query parameters (``?key=...``) -- is registered here when a provider is
built. :func:`scrub` replaces each registered value (and its percent-encoded, JSON-escaped and
HTTP Basic forms) by ``***`` in any text; callers scrub *before* truncating, so no prefix of a
secret survives a cut. :func:`is_sensitive_name` is the one list of credential-like names
(headers, query parameters, config keys) used by the providers and the config dumper alike.

>>> register("sk-test-1234567890")
>>> scrub('HTTP 401: {"error": "bad key sk-test-1234567890"}')
'HTTP 401: {"error": "bad key ***"}'
>>> redact_url("https://bob:hunter22@api.example.com/v1?key=abcd1234&x=1")
'https://***@api.example.com/v1?key=***&x=1'
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import threading
from collections.abc import Iterable, Iterator
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

__all__ = ["MIN_SECRET_CHARS", "SENSITIVE_NAME", "Scrubber", "is_sensitive_name",
           "looks_like_credential", "redact_url", "register", "register_url", "scoped", "scrub",
           "url_secrets"]

#: Shorter values are not scrubbed (they would mask ordinary words everywhere).
MIN_SECRET_CHARS = 4

#: The one pattern of credential-like names (headers, query parameters, config keys).
SENSITIVE_NAME = re.compile(
    r"auth|key|token|secret|cookie|passw|pwd|signature|sig$|session|credential|subscription|"
    r"private|bearer|jwt", re.I)


def is_sensitive_name(name: str) -> bool:
    """Whether a header, query-parameter or config name looks like it carries a credential.

    >>> [is_sensitive_name(n) for n in ("Ocp-Apim-Subscription-Key", "X-Goog-Api-Key",
    ...                                 "Authorization", "X-Team", "content-type")]
    [True, True, True, False, False]
    """
    return bool(SENSITIVE_NAME.search(str(name)))


#: A value of a header whose name says nothing (``X-Team``) is treated as a credential when it
#: is this long, or shorter but holding a digit: ``hdr-3c9e1f7a`` is masked, ``memlab`` is not
#: (masking a plain label would garble every later message that happens to contain the word).
LABEL_MAX_CHARS = 16


def looks_like_credential(value: str | None) -> bool:
    """Whether a value of a header with a non-credential name should still be scrubbed.

    >>> [looks_like_credential(v) for v in ("memlab", "team blue", "hdr-3c9e1f7a", "x" * 20)]
    [False, False, True, True]
    """
    if not isinstance(value, str):
        return False
    value = value.strip()
    if len(value) < MIN_SECRET_CHARS or " " in value:
        return len(value) >= LABEL_MAX_CHARS
    return len(value) >= LABEL_MAX_CHARS or any(c.isdigit() for c in value)


def _variants(value: str) -> set[str]:
    out = {value, quote(value, safe=""), quote(value, safe="/:@"), json.dumps(value)[1:-1],
           json.dumps(value, ensure_ascii=False)[1:-1]}
    return {v for v in out if len(v) >= MIN_SECRET_CHARS}


class Scrubber:
    """A set of secret values; :meth:`scrub` masks every occurrence of each (longest first,
    so a secret containing another leaves no fragment)."""

    def __init__(self, values: Iterable[str | None] = ()) -> None:
        self._values: set[str] = set()
        self._order: list[str] = []
        self._guard = threading.Lock()
        self.add(*values)

    def add(self, *values: str | None) -> None:
        with self._guard:
            changed = False
            for value in values:
                if not isinstance(value, str) or len(value.strip()) < MIN_SECRET_CHARS:
                    continue
                for v in _variants(value) | _variants(value.strip()):
                    if v not in self._values:
                        self._values.add(v)
                        changed = True
            if changed:
                self._order = sorted(self._values, key=len, reverse=True)

    def add_basic_auth(self, user: str, password: str) -> None:
        """The ``Authorization: Basic`` token httpx derives from URL credentials."""
        token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        self.add(token)

    def scrub(self, text: str) -> str:
        text = str(text)
        for value in self._order:
            if value in text:
                text = text.replace(value, "***")
        return text

    def __len__(self) -> int:
        return len(self._values)

    def values(self) -> frozenset[str]:
        """The registered values (every variant), for :func:`scoped`."""
        with self._guard:
            return frozenset(self._values)

    def replace(self, values: Iterable[str]) -> None:
        """Forget everything and hold exactly ``values``."""
        with self._guard:
            self._values = set(values)
            self._order = sorted(self._values, key=len, reverse=True)

    def __getstate__(self) -> dict:
        return {"values": sorted(self._values)}

    def __setstate__(self, state: dict) -> None:  # a copy in another process scrubs too
        self.__init__(state["values"])  # type: ignore[misc]
        register(*state["values"])


#: The process-wide registry: everything any provider was configured with.
_REGISTRY = Scrubber()


def register(*values: str | None) -> None:
    """Add secret values to the process-wide registry (see :func:`scrub`)."""
    _REGISTRY.add(*values)


@contextlib.contextmanager
def scoped() -> Iterator[None]:
    """Undo, on exit, every :func:`register` made inside the block (the registry is
    process-wide; a test suite or a notebook trying several providers scopes it).

    >>> with scoped():
    ...     register("tmp-secret-42")
    ...     scrub("x tmp-secret-42")
    'x ***'
    >>> scrub("x tmp-secret-42")
    'x tmp-secret-42'
    """
    before = _REGISTRY.values()
    try:
        yield
    finally:
        _REGISTRY.replace(before)


def url_secrets(url: str | None) -> list[str]:
    """The credentials in a URL: user name, password (raw and decoded) and the values of
    credential-like query parameters.

    >>> url_secrets("http://user1:p%40ss@h:8080/v1?api_key=xyz123&model=m")
    ['user1', 'p%40ss', 'p@ss', 'xyz123']
    """
    if not url:
        return []
    try:
        parts = urlsplit(str(url))
    except ValueError:
        return []
    out: list[str] = []
    netloc = parts.netloc
    if "@" in netloc:
        userinfo = netloc.rsplit("@", 1)[0]
        user, _, password = userinfo.partition(":")
        for v in (user, password):
            if v:
                out.append(v)
                if unquote(v) != v:
                    out.append(unquote(v))
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if is_sensitive_name(name) and value:
            out.append(value)
    return out


def register_url(url: str | None) -> None:
    """Register a URL's credentials (:func:`url_secrets`), Basic-auth form included."""
    secrets = url_secrets(url)
    register(*secrets)
    try:
        parts = urlsplit(str(url or ""))
    except ValueError:
        return
    if "@" in parts.netloc:
        user, _, password = parts.netloc.rsplit("@", 1)[0].partition(":")
        _REGISTRY.add_basic_auth(unquote(user), unquote(password))


def redact_url(url: str | None) -> str:
    """``url`` with its user name, password and credential-like query values replaced by
    ``***`` (what error messages and exported configs show)."""
    if not url:
        return str(url or "")
    try:
        parts = urlsplit(str(url))
    except ValueError:
        return scrub(str(url))
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pieces = []
        for piece in query.split("&"):
            name, eq, value = piece.partition("=")
            pieces.append(f"{name}=***" if eq and value and is_sensitive_name(unquote(name))
                          else piece)
        query = "&".join(pieces)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def scrub(text: str) -> str:
    """``text`` with every registered secret (:func:`register`) replaced by ``***``, and
    every URL credential (``scheme://user:pass@``) masked even when never registered."""
    text = _REGISTRY.scrub(text)
    return _URL_USERINFO.sub(lambda m: m.group(1) + "***@", text)


_URL_USERINFO = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^\s/@'\"<>]+@")
