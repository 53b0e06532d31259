"""Snippets and citations as OpenClaw shows them (reference, section 4 step 11 and section 12).

JavaScript strings count UTF-16 code units, so a 700-"character" snippet is 700 UTF-16 units,
cut so that no surrogate pair is split (OpenClaw's ``truncateUtf16Safe``). Python strings
count code points; the cut is :func:`memlab.text.js.truncate_utf16`.

>>> snippet("ab\\U0001F600cd", 3)
'ab'
>>> citation("memory/2026-05-01.md", 3, 3), citation("MEMORY.md", 1, 9)
('memory/2026-05-01.md#L3', 'MEMORY.md#L1-L9')
"""

from __future__ import annotations

from memlab.text.js import truncate_utf16

SNIPPET_MAX_CHARS = 700


def snippet(text: str, max_chars: int = SNIPPET_MAX_CHARS) -> str:
    """The hit snippet: the chunk text cut to ``max_chars`` UTF-16 units."""
    return truncate_utf16(text, max_chars)


def citation(path: str, start_line: int, end_line: int) -> str:
    """``path#Lstart`` or ``path#Lstart-Lend``, as OpenClaw cites a hit."""
    if start_line == end_line:
        return f"{path}#L{start_line}"
    return f"{path}#L{start_line}-L{end_line}"
