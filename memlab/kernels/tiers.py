"""Exact-path tiers of OpenClaw 2026.9 (``prepareExactPathMatcher``, ``hybrid.ts``).

A query that names a file ranks that file's chunks first, by how precisely it names it:

* tier 3: the normalised query equals the normalised path;
* tier 2: it equals the basename (only when the query has no ``/``);
* tier 1: it equals the stem, the basename before its last ``.`` (a dot at index 0 is not an
  extension);
* 0 otherwise, and always for an empty query or ``"."``.

Normalisation (``normalizePathIdentifier``): JavaScript ``trim()``, ``\\`` → ``/``, a leading
``./`` removed, NFC, lower case.

Under temporal decay (always on in 2026.9) an exact hit ranks by
``(1 + clamp(content, 0, 1)) / 2`` (:func:`exact_tie_score`), and reports the project
multiplier (1 without active projects) as its score.

>>> [exact_path_tier("billing", p) for p in ("memory/team/billing.md", "docs/billing", "x.md")]
[1, 2, 0]
>>> exact_path_tier("Memory/Team/Billing.md", "memory/team/billing.md")
3
>>> exact_tie_score(0.4)
0.7
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

import numpy as np

_JS_WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                  "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")


def normalize_path_identifier(value: str) -> str:
    """``normalizePathIdentifier``: trimmed, ``/`` separators, no leading ``./``, NFC, lower.

    >>> normalize_path_identifier("  .\\\\Memory\\\\A.md ")
    'memory/a.md'
    """
    out = value.strip(_JS_WHITESPACE).replace("\\", "/")
    if out.startswith("./"):
        out = out[2:]
    return unicodedata.normalize("NFC", out).lower()


def exact_path_matcher(query: str) -> Callable[[str], int]:
    """The tier function of one query (``prepareExactPathMatcher``)."""
    q = normalize_path_identifier(query)
    if not q or q == ".":
        return lambda _path: 0
    has_dir = "/" in q

    def match(path: str) -> int:
        p = normalize_path_identifier(path)
        if q == p:
            return 3
        if has_dir:
            return 0
        base = p.split("/")[-1]
        if q == base:
            return 2
        dot = base.rfind(".")
        stem = base[:dot] if dot > 0 else base
        return 1 if q == stem else 0

    return match


def exact_path_tier(query: str, path: str) -> int:
    """The exact-path tier (0..3) of ``path`` for ``query`` (module docstring)."""
    return exact_path_matcher(query)(path)


def exact_tie_score(content_score: Any) -> Any:
    """``scoreExactPathTieForTemporalDecay``: ``(1 + clamp(c, 0, 1)) / 2``."""
    out = (1.0 + np.clip(np.asarray(content_score, dtype=np.float64), 0.0, 1.0)) / 2.0
    return float(out) if out.ndim == 0 else out
