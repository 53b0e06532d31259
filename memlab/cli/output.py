"""The plain text memlab prints for search results, as ``openclaw memory search`` prints them."""

from __future__ import annotations

__all__ = ["format_results", "printable"]


def printable(path: str) -> str:
    """``path`` with control characters escaped: a file name holding a newline or a terminal
    escape sequence cannot break (or forge) the ``path:start-end`` line."""
    return "".join(c if c.isprintable() or c == " " else
                   c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in path)


def format_results(results: list[dict]) -> str:
    """The plain output of ``openclaw memory search``: score, ``path:start-end``, snippet."""
    if not results:
        return "No matches."
    lines = []
    for r in results:
        lines.append(f"{r['score']:.3f} {printable(r['path'])}:{r['startLine']}-{r['endLine']}")
        lines.append(r["snippet"])
        lines.append("")
    return "\n".join(lines).strip()
