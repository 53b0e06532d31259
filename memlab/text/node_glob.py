"""Node's ``path.posix.matchesGlob(path, pattern)`` (minimatch) for relative POSIX paths.

OpenClaw 2026.9 filters the files found under an ``extraPaths`` directory with the entry's
``pattern`` through ``path.posix.matchesGlob`` (``matchesExtraMemoryPathEntry``,
``packages/memory-host-sdk/src/host/internal.ts``). Node calls minimatch with
``windowsPathsNoEscape`` (a backslash is a separator, never an escape), ``nonegate`` (a leading
``!`` is literal), ``nocomment`` and, on Linux, case-sensitive matching, without ``dot``.
What this module reproduces:

* brace expansion first: ``{a,b}``, nested braces, sequences ``{1..3}``, ``{a..c}``,
  ``{01..10..2}`` (zero padded as written); ``{a}`` (one item) is literal;
* ``/`` separates segments; repeated slashes collapse; a pattern ending in ``/`` names
  directories only, so it matches no file;
* a segment that is exactly ``**`` matches zero or more whole segments, none of them starting
  with ``.``; a trailing ``**`` needs at least one segment (``x/**`` does not match ``x``);
* ``*`` (any run within a segment), ``?`` (one character) and ``[...]`` classes (``!``/``^``
  negation, ranges, ``]`` first is literal, an unclosed ``[`` is literal); a segment that
  starts with one of them does not match a name starting with ``.``;
* anything else is literal.

Why by hand: OpenClaw's file set is defined by minimatch, and no maintained Python package
implements minimatch's grammar. ``fnmatch`` and ``glob`` have no braces or ``**`` segments and
their own dot-file and bracket rules; bash-style matchers (``pathlib.PurePath.full_match``,
``wcmatch``) follow other grammars, whose corner cases (sequences, dot segments, trailing
``**``) would each have to be checked against Node anyway. The rules below are the ones the
Node comparison test pins.

Extglobs (``@(a|b)``, ``!(a)``, ``+(..)``, ``?(..)``, ``*(..)``) and POSIX classes
(``[[:alpha:]]``) are not reproduced: :func:`compile_glob` raises :class:`ValueError` naming
the pattern rather than match differently from Node. ``tests/tiered/
test_extra_path_patterns.py`` checks every rule against Node 24's ``path.posix.matchesGlob``.

>>> matches_glob("api/v1/users.md", "api/**")
True
>>> matches_glob("notes/.draft.md", "**/*.md")
False
>>> [p for p in ["a1.md", "a2.md", "a3.md"] if matches_glob(p, "a{1..2}.md")]
['a1.md', 'a2.md']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["CompiledGlob", "compile_glob", "expand_braces", "matches_glob"]

_EXTGLOB = re.compile(r"[@!+?*]\(")
_SEQUENCE = re.compile(r"(-?\d+|[^\d])\.\.(-?\d+|[^\d])(?:\.\.(-?\d+))?\Z")
#: A stand-in for a ``**`` segment.
_GLOBSTAR = None


def _matching_brace(text: str, start: int) -> int:
    """Index of the ``}`` closing the ``{`` at ``start``, or -1."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split_top(body: str) -> list[str]:
    """``body`` split at its top-level commas."""
    parts, depth, cur = [], 0, []
    for ch in body:
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def _sequence(body: str) -> list[str] | None:
    m = _SEQUENCE.match(body)
    if m is None:
        return None
    a, b, step_text = m.group(1), m.group(2), m.group(3)
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    numeric = a.lstrip("-").isdigit() and b.lstrip("-").isdigit()
    if not numeric and (a.lstrip("-").isdigit() or b.lstrip("-").isdigit()):
        return None
    if numeric:
        x, y = int(a), int(b)
        pad = any(len(s.lstrip("-")) > 1 and s.lstrip("-").startswith("0") for s in (a, b))
        width = max(len(a), len(b)) if pad else 0
        seq = range(x, y + 1, step) if x <= y else range(x, y - 1, -step)
        out = []
        for n in seq:
            s = str(abs(n)).zfill(width - (n < 0) if width else 0)
            out.append(("-" if n < 0 else "") + s)
        return out
    x, y = ord(a), ord(b)
    seq = range(x, y + 1, step) if x <= y else range(x, y - 1, -step)
    return [chr(c) for c in seq]


def expand_braces(pattern: str) -> list[str]:
    """Brace expansion as minimatch does it (``brace-expansion``), left to right.

    >>> expand_braces("{a,b}/{x,y}.md")
    ['a/x.md', 'a/y.md', 'b/x.md', 'b/y.md']
    >>> expand_braces("{a}.md"), expand_braces("{,x}a.md")
    (['{a}.md'], ['a.md', 'xa.md'])
    """
    start = 0
    while True:
        i = pattern.find("{", start)
        if i < 0:
            return [pattern]
        j = _matching_brace(pattern, i)
        if j < 0:  # an unclosed "{" is literal; a later group still expands
            start = i + 1
            continue
        body, pre, post = pattern[i + 1:j], pattern[:i], pattern[j + 1:]
        seq = _sequence(body)
        items = seq if seq is not None else (_split_top(body) if "," in _top_level(body)
                                             else None)
        if items is None:  # {a}: literal braces; look for a later group
            inner = expand_braces(body)
            if len(inner) > 1:
                return [x for v in inner for x in expand_braces(pre + "{" + v + "}" + post)]
            start = i + 1
            continue
        return [x for item in items for v in expand_braces(item)
                for x in expand_braces(pre + v + post)]


def _top_level(body: str) -> str:
    """``body`` with its nested brace groups removed (to look for top-level commas)."""
    out, depth = [], 0
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _class(segment: str, i: int, pattern: str) -> tuple[str, int] | None:
    """The regex of the ``[...]`` class starting at ``segment[i]`` and the index after it,
    or ``None`` when the ``[`` is not closed (then it is literal)."""
    j = i + 1
    negate = j < len(segment) and segment[j] in "!^"
    if negate:
        j += 1
    body_start = j
    if j < len(segment) and segment[j] == "]":
        j += 1
    while j < len(segment) and segment[j] != "]":
        if segment.startswith("[:", j):
            raise ValueError(f"glob pattern {pattern!r}: POSIX character classes ([:name:]) "
                             "are not supported by memlab's extraPaths pattern matching")
        j += 1
    if j >= len(segment):
        return None
    body = segment[body_start:j]
    if not negate and len(body) == 1:  # [.]: minimatch reads a one-character class as
        return body, j + 1             # that character, literal (so [.]h.md matches .h.md)
    parts = []
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            lo, hi = body[k], body[k + 2]
            if lo <= hi:
                parts.append(f"{re.escape(lo)}-{re.escape(hi)}")
            k += 3
        else:
            parts.append(re.escape(body[k]))
            k += 1
    if not parts:
        return ("(?!)" if not negate else "[^/]"), j + 1
    return f"[{'^/' if negate else ''}{''.join(parts)}]", j + 1


def _segment_regex(segment: str, pattern: str) -> re.Pattern[str] | str:
    """A non-``**`` segment: its literal text, or a compiled regex when it has magic."""
    out: list[str] = []
    literal: list[str] = []  # the segment as minimatch reads it, when it has no magic
    magic = False
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "*":
            while i + 1 < len(segment) and segment[i + 1] == "*":
                i += 1
            out.append("[^/]*")
            magic = True
            i += 1
        elif ch == "?":
            out.append("[^/]")
            magic = True
            i += 1
        elif ch == "[":
            cls = _class(segment, i, pattern)
            if cls is None:
                out.append(re.escape(ch))
                literal.append(ch)
                i += 1
            elif cls[0].startswith(("[", "(")):
                out.append(cls[0])
                magic = True
                i = cls[1]
            else:  # a one-character class: that character
                out.append(re.escape(cls[0]))
                literal.append(cls[0])
                i = cls[1]
        else:
            out.append(re.escape(ch))
            literal.append(ch)
            i += 1
    if not magic:
        return "".join(literal)
    starts_with_dot = bool(out) and out[0] in (re.escape("."), ".")
    dot_guard = "" if starts_with_dot else r"(?!\.)"
    return re.compile(dot_guard + "".join(out) + r"\Z")


@dataclass(frozen=True)
class CompiledGlob:
    """One pattern after brace expansion: per alternative, its segments (``None`` for
    ``**``, a literal string or a compiled regex)."""

    pattern: str
    alternatives: tuple[tuple[re.Pattern[str] | str | None, ...] | None, ...]

    def matches(self, path: str) -> bool:
        """Whether the relative POSIX ``path`` matches (as ``path.posix.matchesGlob``)."""
        names = [p for p in path.split("/") if p] if path else []
        if path.endswith("/"):
            return False  # a file path never ends in "/": keep it from matching "x/**"
        return any(alt is not None and _match(alt, 0, names, 0) for alt in self.alternatives)


def _match(segs: tuple[re.Pattern[str] | str | None, ...], pi: int, names: list[str],
           fi: int) -> bool:
    while pi < len(segs) and fi < len(names):
        seg = segs[pi]
        if seg is _GLOBSTAR:
            if pi == len(segs) - 1:  # trailing **: the rest, none hidden
                return all(not n.startswith(".") for n in names[fi:])
            for k in range(fi, len(names) + 1):
                if _match(segs, pi + 1, names, k):
                    return True
                if k < len(names) and names[k].startswith("."):
                    return False  # ** never swallows a hidden segment
            return False
        name = names[fi]
        if isinstance(seg, str):
            if seg != name:
                return False
        elif name in (".", "..") or not seg.match(name):
            return False  # a magic segment never matches "." or ".."
        pi += 1
        fi += 1
    return pi == len(segs) and fi == len(names)


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> CompiledGlob:
    """``pattern`` compiled for :meth:`CompiledGlob.matches`; raises :class:`ValueError` for
    the features it does not reproduce (module docstring)."""
    pattern = pattern.replace("\\", "/")  # windowsPathsNoEscape
    if _EXTGLOB.search(pattern):
        raise ValueError(f"glob pattern {pattern!r}: extglobs (@(...), !(...), +(...), "
                         "?(...), *(...)) are not supported by memlab's extraPaths pattern "
                         "matching; write the alternatives with braces ({a,b})")
    alternatives: list[tuple[re.Pattern[str] | str | None, ...] | None] = []
    for alt in expand_braces(pattern):
        if alt.endswith("/") or alt.startswith("/"):
            alternatives.append(None)  # directories only / absolute: never a relative file
            continue
        segs: list[re.Pattern[str] | str | None] = []
        for part in alt.split("/"):
            if not part:
                continue  # a//b: repeated slashes collapse
            if part == "**":
                if segs and segs[-1] is _GLOBSTAR:
                    continue  # **/** is one globstar
                segs.append(_GLOBSTAR)
            else:
                segs.append(_segment_regex(part, pattern))
        alternatives.append(tuple(segs))
    return CompiledGlob(pattern, tuple(alternatives))


def matches_glob(path: str, pattern: str) -> bool:
    """``path.posix.matchesGlob(path, pattern)`` for a relative POSIX ``path`` (module
    docstring)."""
    return compile_glob(pattern).matches(path)
