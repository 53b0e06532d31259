"""JavaScript string semantics in Python: what OpenClaw's TypeScript sees, reproduced exactly.

JavaScript strings are sequences of UTF-16 code units and Python strings of code points, so
lengths, slices, ``trim()``, regexes, ``String(number)``, ``JSON.parse``, ``Date.parse`` and
``decodeURIComponent`` all differ at the edges. Every such helper of memlab lives here, once;
they are hand-written because no maintained Python library reproduces V8's behaviour (the
``js_regex`` translation targets Python's ``re``, which the rest of memlab uses).

Two representations of a text are used: normal Python strings (code points), and *UTF-16 unit
strings* (:func:`to_utf16_units`: one Python character per UTF-16 unit, astral characters
split into surrogate pairs) on which ``len``, slicing and index arithmetic equal JavaScript's.

>>> utf16_length("a😀"), len(to_utf16_units("a😀")), truncate_utf16("ab\\U0001F600cd", 3)
(3, 3, 'ab')
>>> js_number_string(1e21), js_number_string(0.1), js_trim("\\ufeff x \\u3000")
('1e+21', '0.1', 'x')
"""

from __future__ import annotations

import datetime as _dt
import email.utils
import functools
import json
import re
import unicodedata
from typing import Any

__all__ = [
    "JS_WHITESPACE",
    "JS_WHITESPACE_CLASS",
    "MAX_DATE_MS",
    "date_parse",
    "decode_uri_component",
    "from_utf16_units",
    "is_high_surrogate",
    "is_js_number",
    "is_low_surrogate",
    "js_float",
    "js_number_string",
    "js_regex",
    "js_trim",
    "json_parse",
    "node_utf8",
    "regex_groups",
    "to_utf16_units",
    "truncate_utf16",
    "unicode_major_categories",
    "utf16_length",
]

#: Characters removed by JavaScript's ``String.prototype.trim()`` (WhiteSpace + LineTerminator).
#: Python's ``str.strip()`` differs: it also strips U+001C..U+001F and U+0085 but not U+FEFF.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: :data:`JS_WHITESPACE` as the body of a regex character class (JavaScript's ``\\s``).
JS_WHITESPACE_CLASS = "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE)
#: Largest absolute time value of a JavaScript ``Date`` (ms).
MAX_DATE_MS = 8.64e15
_SURROGATE = re.compile("[\ud800-\udfff]")


# --------------------------------------------------------------------------- strings


def utf16_length(text: str) -> int:
    """JavaScript ``text.length``: the number of UTF-16 code units.

    >>> utf16_length("a😀"), len("a😀")
    (3, 2)
    """
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) >> 1


def truncate_utf16(text: str, max_units: int) -> str:
    """Cut ``text`` to at most ``max_units`` UTF-16 units without splitting a surrogate pair
    (OpenClaw's ``truncateUtf16Safe``).

    >>> truncate_utf16("ab\\U0001F600cd", 3), truncate_utf16("ab\\U0001F600cd", 4)
    ('ab', 'ab😀')
    """
    limit = max(0, int(max_units))
    if len(text) <= limit // 2 or utf16_length(text) <= limit:
        return text
    units = 0
    for i, ch in enumerate(text):
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > limit:
            return text[:i]
    return text


def node_utf8(text: str) -> bytes:
    """UTF-8 bytes as Node encodes a JS string (a lone surrogate becomes U+FFFD).

    >>> node_utf8("a\\ud800")
    b'a\\xef\\xbf\\xbd'
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text).encode("utf-8")




def js_trim(value: str) -> str:
    """JavaScript ``value.trim()``.

    >>> js_trim("\\u3000 a \\ufeff"), js_trim("\\x1c a")
    ('a', '\\x1c a')
    """
    return value.strip(JS_WHITESPACE)


def to_utf16_units(text: str) -> str:
    """``text`` as JavaScript sees it: one Python character per UTF-16 code unit."""
    if text.isascii() or not _ASTRAL.search(text):
        return text
    return _ASTRAL.sub(_split_pair, text)


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _split_pair(match: re.Match[str]) -> str:
    cp = ord(match.group(0)) - 0x10000
    return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))


def from_utf16_units(text: str) -> str:
    """Inverse of :func:`to_utf16_units`: adjacent surrogate pairs joined into code points."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def js_number_string(value: float) -> str:
    """``String(number)`` of ECMAScript (shortest round-trip digits, JS exponent rules)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    if value < 0:
        return "-" + js_number_string(-value)
    mantissa, _, exp = repr(float(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    point = len(whole) + int(exp or 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{sign}{abs(e)}"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON constant {name}")


def json_parse(text: str) -> tuple[bool, Any]:
    """``JSON.parse``: ``(ok, value)``; NaN/Infinity literals are rejected as in JS."""
    try:
        return True, json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return False, None


def is_js_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def js_float(value: int | float) -> float:
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


# ``Date.parse``: V8's ISO 8601 parser (plus RFC 2822 strings, as its legacy parser reads them).
_ISO_DATE = re.compile(
    r"([+-][0-9]{6}|[0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?"
    r"(?:[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:[.,]([0-9]+))?)?"
    r"([Zz]|[+-][0-9]{2}:?[0-9]{2})?)?\Z"
)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (``MakeDay``: ``day`` may overflow
    the month, as in JavaScript)."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468 + (day - 1)


def _local_offset_minutes(utc_ms: float) -> float:
    try:
        stamp = _dt.datetime.fromtimestamp(utc_ms / 1000, _dt.UTC).astimezone()
    except (OverflowError, OSError, ValueError):
        return 0.0
    offset = stamp.utcoffset()
    return offset.total_seconds() / 60 if offset else 0.0


def date_parse(value: str) -> float:
    """JavaScript ``Date.parse(value)`` in milliseconds, ``nan`` when it cannot be parsed.

    ISO 8601 forms as V8 reads them (date-only = UTC, date-time without offset = local time,
    days 1-31 in any month overflowing like ``Date.UTC``); other strings are tried as RFC 2822.
    V8's other lenient legacy formats (``Jan 2, 2026``, ``2026/01/02``...) give ``nan`` here.
    """
    text = js_trim(value)
    match = _ISO_DATE.match(value)
    legacy = match is None
    if legacy:  # V8's legacy parser reads ISO-like text with surrounding spaces as local time
        match = _ISO_DATE.match(text)
    if match:
        year_s, mon, day, hh, mm, ss, frac, zone = match.groups()
        if year_s == "-000000":
            return float("nan")
        year, month, dom = int(year_s), int(mon or 1), int(day or 1)
        hour, minute, second = int(hh or 0), int(mm or 0), int(ss or 0)
        ms = int((frac or "0")[:3].ljust(3, "0"))
        if not (1 <= month <= 12 and 1 <= dom <= 31 and minute <= 59 and second <= 59):
            return float("nan")
        if hour > 24 or (hour == 24 and (minute or second or ms)):
            return float("nan")
        offset = 0
        if zone and zone not in "Zz":
            digits = zone[1:].replace(":", "")
            zh, zm = int(digits[:2]), int(digits[2:])
            if zh > 23 or zm > 59:
                return float("nan")
            offset = (zh * 60 + zm) * (1 if zone[0] == "+" else -1)
        total = (_days_from_civil(year, month, dom) * 86_400_000
                 + ((hour * 60 + minute) * 60 + second) * 1000 + ms)
        if zone is None and (hh is not None or legacy):
            offset = _local_offset_minutes(total)
            offset = _local_offset_minutes(total - offset * 60_000)
        result = float(total - offset * 60_000)
        return result if abs(result) <= MAX_DATE_MS else float("nan")
    try:
        parsed = email.utils.parsedate_tz(text)
    except (TypeError, ValueError, IndexError):
        parsed = None
    if parsed is None:
        return float("nan")
    try:
        return float(email.utils.mktime_tz(parsed) * 1000)
    except (OverflowError, ValueError):
        return float("nan")


# --------------------------------------------------------------------------- regexes


@functools.cache
def unicode_major_categories() -> str:
    """The general-category major class (``L``, ``C``...) of every code point, as a string.

    Only planes 0-3 and the first block of plane 14 hold anything but unassigned (``Cn``)
    and private-use (``Co``) code points, so the rest is filled with ``C`` without asking.
    """
    scanned = [unicodedata.category(chr(cp))[0] for cp in range(0x40000)]
    tags = [unicodedata.category(chr(cp))[0] for cp in range(0xE0000, 0xE1000)]
    return "".join(scanned) + "C" * (0xE0000 - 0x40000) + "".join(tags) + "C" * (
        0x110000 - 0xE1000)


@functools.cache
def _category_class(majors: str) -> str:
    """Character-class body for ``\\p{X}`` (general-category majors such as ``"C"``)."""
    runs = re.finditer(f"[{majors}]+", unicode_major_categories())
    return "".join(_class_range(m.start(), m.end() - 1) for m in runs)


def _class_range(lo: int, hi: int) -> str:
    return f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}"


_PROPERTY_MAJORS = {"C": "C", "Z": "Z", "P": "P", "L": "L", "N": "N", "Letter": "L",
                    "Number": "N"}


def js_regex(source: str, flags: str = "") -> re.Pattern[str]:
    """Compile a JavaScript regex source with JavaScript semantics in Python's ``re``.

    Without ``u`` the pattern is matched (by the callers) against UTF-16 code units and runs
    in ``re.ASCII`` mode like JavaScript's ASCII ``\\w``/``\\b``/``\\d``; with ``u`` it runs on
    code points. ``\\s`` becomes JavaScript's whitespace set, ``.`` excludes JavaScript's line
    terminators, ``$`` is end of input, ``\\p{..}`` classes come from ``unicodedata``.
    """
    unicode_mode = "u" in flags
    ignore = "i" in flags
    word = "A-Za-z0-9_" + ("\\u017f\\u212a" if unicode_mode and ignore else "")
    out: list[str] = []
    in_class = False
    i = 0
    n = len(source)
    while i < n:
        ch = source[i]
        if source.startswith("[\\s\\S]", i):
            out.append("(?s:.)")
            i += 6
            continue
        if ch == "\\":
            nxt = source[i + 1]
            if nxt == "s":
                out.append(JS_WHITESPACE_CLASS if in_class else f"[{JS_WHITESPACE_CLASS}]")
            elif nxt == "S" and not in_class:
                out.append(f"[^{JS_WHITESPACE_CLASS}]")
            elif nxt == "d":
                out.append("0-9" if in_class else "[0-9]")
            elif nxt == "b" and not in_class and unicode_mode:
                out.append(f"(?:(?<=[{word}])(?![{word}])|(?<![{word}])(?=[{word}]))")
            elif nxt in "pP" and unicode_mode and source[i + 2 : i + 3] == "{":
                end = source.index("}", i)
                body = _category_class(_PROPERTY_MAJORS[source[i + 3 : end]])
                if nxt == "P":
                    out.append(f"[^{body}]")
                else:
                    out.append(body if in_class else f"[{body}]")
                i = end + 1
                continue
            elif nxt == "/":
                out.append("/")
            else:
                out.append(ch + nxt)
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
            if source[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
        elif ch == ".":
            out.append("[^\\n\\r\\u2028\\u2029]")
        elif ch == "$":
            out.append("\\Z")
        else:
            out.append(ch)
        i += 1
    py_flags = 0 if unicode_mode else re.ASCII
    if ignore:
        py_flags |= re.IGNORECASE
    return re.compile("".join(out), py_flags)


def regex_groups(match: re.Match[str]) -> list[str]:
    return [g if g is not None else "" for g in match.groups()]


def decode_uri_component(value: str) -> str:
    """``decodeURIComponent``; raises ``ValueError`` on malformed escapes (``URIError``)."""
    if "%" not in value:
        return value
    out: list[str] = []
    i = 0
    n = len(value)
    while i < n:
        if value[i] != "%":
            out.append(value[i])
            i += 1
            continue
        raw = bytearray()
        while i < n and value[i] == "%":
            hex_pair = value[i + 1 : i + 3]
            if len(hex_pair) != 2 or not all(c in "0123456789abcdefABCDEF" for c in hex_pair):
                raise ValueError("URI malformed")
            raw.append(int(hex_pair, 16))
            i += 3
        out.append(raw.decode("utf-8"))  # UnicodeDecodeError is a ValueError
    return "".join(out)


def is_high_surrogate(ch: str) -> bool:
    return "\ud800" <= ch <= "\udbff"


def is_low_surrogate(ch: str) -> bool:
    return "\udc00" <= ch <= "\udfff"
