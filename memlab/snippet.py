"""Snippets and citations as OpenClaw shows them (reference, section 4 step 11 and section 12).

JavaScript strings count UTF-16 code units, so a 700-"character" snippet is 700 UTF-16 units,
cut so that no surrogate pair is split (OpenClaw's ``truncateUtf16Safe``). Python strings
count code points, hence the hand-written helper below.

>>> truncate_utf16("ab\\U0001F600cd", 3)
'ab'
>>> citation("memory/2026-05-01.md", 3, 3), citation("MEMORY.md", 1, 9)
('memory/2026-05-01.md#L3', 'MEMORY.md#L1-L9')
"""

from __future__ import annotations

SNIPPET_MAX_CHARS = 700


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (what JavaScript's ``.length`` returns)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def truncate_utf16(text: str, max_units: int) -> str:
    """Cut ``text`` to at most ``max_units`` UTF-16 units without splitting a surrogate pair."""
    limit = max(0, int(max_units))
    if len(text) <= limit // 2 or utf16_len(text) <= limit:
        return text
    units = 0
    for i, ch in enumerate(text):
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > limit:
            return text[:i]
    return text


def snippet(text: str, max_chars: int = SNIPPET_MAX_CHARS) -> str:
    """The hit snippet: the chunk text cut to ``max_chars`` UTF-16 units."""
    return truncate_utf16(text, max_chars)


def citation(path: str, start_line: int, end_line: int) -> str:
    """``path#Lstart`` or ``path#Lstart-Lend``, as OpenClaw cites a hit."""
    if start_line == end_line:
        return f"{path}#L{start_line}"
    return f"{path}#L{start_line}-L{end_line}"
