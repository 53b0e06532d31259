"""``String.prototype.localeCompare`` as OpenClaw's tie-breaks use it, approximated.

Node compares with ICU's root collation. memlab has no ICU binding (PyICU is not a dependency),
so this compares by a key that agrees with ICU on what the tie-breaks meet in practice (ASCII
paths and hex ids): punctuation and symbols before digits before letters, letters
case-insensitively first, lower case before upper case on a tie, then code points. It is only
ever a tie-break after equal scores, where the parity harness compares ties as sets.

>>> sorted(["b.md", "A.md", "a_b.md", "a-b.md", "a.md", "a1.md"], key=locale_key)
['a_b.md', 'a-b.md', 'a.md', 'A.md', 'a1.md', 'b.md']
>>> locale_compare("memory/a.md", "MEMORY.md")
1
"""

from __future__ import annotations

# ICU root order of the ASCII punctuation and symbols (CLDR root collation).
_PUNCT = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def _primary(ch: str) -> tuple[int, int]:
    if ch.isspace():
        return (0, ord(ch))
    if ch in _PUNCT:
        return (1, _PUNCT.index(ch))
    if ch.isdigit():
        return (3, ord(ch))
    if ch.isalpha():
        return (4, ord(ch.lower()))
    return (2, ord(ch))


def locale_key(text: str) -> tuple:
    """A sort key approximating ICU root collation (module docstring)."""
    return (tuple(_primary(c) for c in text), tuple(not c.islower() for c in text), text)


def locale_compare(a: str, b: str) -> int:
    """-1, 0 or 1 as ``a.localeCompare(b)`` (approximately, see the module docstring)."""
    ka, kb = locale_key(a), locale_key(b)
    return (ka > kb) - (ka < kb)
