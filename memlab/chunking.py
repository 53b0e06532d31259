"""Line-packing chunker identical to OpenClaw's ``chunkMarkdown`` (2026.7.35).

OpenClaw does not parse Markdown: the text is split on ``\\n`` and the lines are packed
greedily into chunks of at most ``maxChars = max(32, tokens * 4)`` *weighted* characters,
each line costing ``weighted_length(line) + 1``. When a line does not fit, the current
chunk is flushed and its trailing whole lines (at least ``overlap * 4`` weighted chars)
are carried into the next chunk. Over-long lines are first cut into segments of at most
``maxChars`` UTF-16 code units (never splitting a surrogate pair); a segment whose weighted
length still exceeds ``maxChars`` (CJK-heavy text) is re-cut into pieces of ``tokens``
code units.

Lengths follow JavaScript string semantics (UTF-16 code units), not Python code points:
an astral character such as an emoji counts 2, except CJK Extension B+ ideographs, which
count 4 like every other CJK character (see :func:`weighted_length`).

Two steps OpenClaw performs around ``chunkMarkdown`` are reproduced too:

* config resolution clamps ``tokens >= 1`` and ``overlap`` to ``[0, tokens - 1]``
  (``resolveMemorySearchConfig``) -- ``chunk_markdown(..., clamp=True)``;
* the indexer drops chunks whose text is empty after JavaScript ``trim()``
  (``filterNonEmptyMemoryChunks``) -- ``chunk_markdown(..., drop_blank=True)``.

With ``clamp=False, drop_blank=False`` the output is exactly ``chunkMarkdown``'s.

>>> [(c.start_line, c.end_line, c.text) for c in chunk_markdown("a\\nb\\n\\nc", tokens=8)]
[(1, 4, 'a\\nb\\n\\nc')]
>>> weighted_length("memory 记忆")
15
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from memlab.text.js import JS_WHITESPACE, node_utf8

__all__ = [
    "Chunk",
    "EMBEDDING_BATCH_MAX_TOKENS",
    "chunk_id",
    "chunk_markdown",
    "is_blank",
    "provider_input_cap",
    "resolve_chunking",
    "sha256_hex",
    "split_for_provider",
    "split_text_to_utf8_byte_limit",
    "weighted_length",
]

#: ``EMBEDDING_BATCH_MAX_TOKENS`` in OpenClaw's memory manager: the hard cap applied on top
#: of the provider's own ``maxInputTokens`` when splitting chunks for embedding.
EMBEDDING_BATCH_MAX_TOKENS = 8000
DEFAULT_EMBEDDING_MAX_INPUT_TOKENS = 8192
DEFAULT_LOCAL_EMBEDDING_MAX_INPUT_TOKENS = 2048

# ``NON_LATIN_RE`` of src/utils/cjk-chars.ts (a /u regex, so astral ranges are code points).
_NON_LATIN_RE = re.compile(
    "[\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\uff01-\uff60\uffe0-\uffe6"
    "\U00020000-\U0002fa1f]"
)
# Code points whose UTF-16 high surrogate is D840..D87E (``CJK_SURROGATE_HIGH_RE``).
# This is U+20000..U+2FBFF -- slightly wider than the NON_LATIN range, as in OpenClaw.
_CJK_ASTRAL_RE = re.compile("[\U00020000-\U0002fbff]")
_NOT_PLAIN_BMP_RE = re.compile("[\ud800-\udfff\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class Chunk:
    """One chunk of a file: 1-based inclusive line span, text and ``sha256(text)`` hex."""

    start_line: int
    end_line: int
    text: str
    hash: str


def sha256_hex(text: str) -> str:
    """``hashText``: sha256 hex digest of the UTF-8 encoding of ``text``.

    >>> sha256_hex("")[:16]
    'e3b0c44298fc1c14'
    """
    return hashlib.sha256(node_utf8(text)).hexdigest()


def weighted_length(text: str) -> int:
    """OpenClaw's ``estimateStringChars``: CJK-aware length, ~4 per token.

    Every character in the non-Latin set (CJK ideographs, kana, Hangul syllables,
    fullwidth forms, CJK Extension B+) counts 4; everything else counts its UTF-16 length
    (so an emoji counts 2). Pure ASCII text returns ``len(text)``.

    >>> [weighted_length(s) for s in ("abc", "记忆", "😀", "𠀀")]
    [3, 8, 2, 4]
    """
    if text.isascii():
        return len(text)
    return _weighted(text, len(text.encode("utf-16-le", "surrogatepass")) >> 1)


def _weighted(text: str, units: int) -> int:
    """:func:`weighted_length` given the UTF-16 length ``units`` of non-ASCII ``text``."""
    if max(text) < "\u2e80":  # nothing from the non-Latin set (e.g. accented Latin)
        return units
    non_latin = len(_NON_LATIN_RE.findall(text))
    if non_latin == 0:
        return units
    if units != len(text):
        # countCodePoints(): each U+20000..U+2FBFF surrogate pair counted once, not twice.
        units -= len(_CJK_ASTRAL_RE.findall(text))
    return units + non_latin * 3


def is_blank(text: str) -> bool:
    """True when JavaScript ``text.trim()`` would be empty (OpenClaw's blank-chunk test).

    >>> is_blank(" \\n\\u3000"), is_blank("\\x1c")
    (True, False)
    """
    return not text.strip(JS_WHITESPACE)


def resolve_chunking(tokens: int, overlap: int) -> tuple[int, int]:
    """Config-time normalisation (``resolveMemorySearchConfig``).

    ``overlap`` is clamped to ``[0, max(0, tokens - 1)]`` and ``tokens`` raised to at least 1.

    >>> resolve_chunking(400, 80), resolve_chunking(8, 50), resolve_chunking(0, 3)
    ((400, 80), (8, 7), (1, 0))
    """
    clamped_overlap = max(0, min(max(0, tokens - 1), overlap))
    return max(1, tokens), clamped_overlap


def _is_high(unit: int) -> bool:
    return 0xD800 <= unit <= 0xDBFF


def _is_low(unit: int) -> bool:
    return 0xDC00 <= unit <= 0xDFFF


def _line_segments(line: str, max_chars: int, tokens: int) -> list[tuple[str, int]]:
    """Cut one line into ``(segment, weighted_length(segment))`` pairs exactly like the
    inner loop of ``chunkMarkdown``."""
    if line.isascii():
        # Weighted length == UTF-16 length == len(): only the coarse cut can apply.
        if len(line) <= max_chars:
            return [(line, len(line))]
        return [
            (line[i : i + max_chars], min(max_chars, len(line) - i))
            for i in range(0, len(line), max_chars)
        ]
    data = line.encode("utf-16-le", "surrogatepass")
    n_units = len(data) >> 1
    if n_units <= max_chars:
        weight = _weighted(line, n_units)
        if weight <= max_chars:
            return [(line, weight)]
    fine_step = max(1, tokens)
    if n_units == len(line) and not _NOT_PLAIN_BMP_RE.search(line):
        # BMP only: code point index == UTF-16 index and no surrogates to protect.
        segments: list[tuple[str, int]] = []
        for start in range(0, len(line), max_chars):
            coarse = line[start : start + max_chars]
            weight = weighted_length(coarse)
            if weight > max_chars:
                for j in range(0, len(coarse), fine_step):
                    piece = coarse[j : j + fine_step]
                    segments.append((piece, weighted_length(piece)))
            else:
                segments.append((coarse, weight))
        return segments
    return _line_segments_utf16(data, max_chars, fine_step)


def _line_segments_utf16(data: bytes, max_chars: int, fine_step: int) -> list[tuple[str, int]]:
    """Segmenting on the UTF-16-LE code units ``data`` of a line (astral chars/surrogates)."""
    n = len(data) >> 1
    units = memoryview(data).cast("H") if sys.byteorder == "little" else None

    def unit(i: int) -> int:
        if units is not None:
            return units[i]
        return data[2 * i] | (data[2 * i + 1] << 8)

    def text(a: int, b: int) -> str:
        return data[2 * a : 2 * b].decode("utf-16-le", "surrogatepass")

    segments: list[tuple[str, int]] = []
    start = 0
    while start < n:
        # truncateUtf16Safe(line.slice(start), maxChars)
        end = min(n, start + max_chars)
        if end < n and _is_high(unit(end - 1)) and _is_low(unit(end)):
            end -= 1
        coarse = text(start, end)
        weight = weighted_length(coarse)
        if weight > max_chars:
            j = start
            while j < end:
                stop = min(j + fine_step, end)
                if _is_high(unit(stop - 1)) and stop < end:
                    stop += 1
                piece = text(j, stop)
                segments.append((piece, weighted_length(piece)))
                j = stop
        else:
            segments.append((coarse, weight))
        start = end
    return segments


def chunk_markdown(
    text: str,
    tokens: int = 400,
    overlap: int = 80,
    *,
    drop_blank: bool = True,
    clamp: bool = True,
) -> list[Chunk]:
    """Chunk ``text`` exactly as OpenClaw indexes a memory file.

    Args:
        text: the file content (lines are split on ``\\n`` only; a ``\\r`` stays in the line).
        tokens: ``chunking.tokens``; ``maxChars = max(32, tokens * 4)``.
        overlap: ``chunking.overlap``; ``overlapChars = max(0, overlap * 4)``.
        drop_blank: drop chunks whose text is blank after JS ``trim()``, as the indexer
            does (``filterNonEmptyMemoryChunks``); ``chunkMarkdown`` itself keeps them.
        clamp: apply the config-time clamp of :func:`resolve_chunking` first;
            ``chunkMarkdown`` itself does not clamp.

    Returns:
        Chunks in order; lines are 1-based and inclusive. A line longer than ``maxChars``
        may be spread over several chunks that all carry its line number.

    >>> chunks = chunk_markdown("alpha\\nbeta\\ngamma", tokens=2, overlap=1)  # maxChars 32
    >>> [(c.start_line, c.end_line) for c in chunks]
    [(1, 3)]
    >>> chunk_markdown("") == [] and len(chunk_markdown("", drop_blank=False)) == 1
    True
    """
    if clamp:
        tokens, overlap = resolve_chunking(tokens, overlap)
    max_chars = max(32, tokens * 4)
    overlap_chars = max(0, overlap * 4)

    chunks: list[Chunk] = []
    # Entries are (segment, line_no, weighted_length(segment) + 1).
    current: list[tuple[str, int, int]] = []
    current_chars = 0

    def flush() -> None:
        if not current:
            return
        body = "\n".join(entry[0] for entry in current)
        chunks.append(Chunk(current[0][1], current[-1][1], body, sha256_hex(body)))

    def carry_overlap() -> None:
        nonlocal current, current_chars
        if overlap_chars <= 0 or not current:
            current = []
            current_chars = 0
            return
        acc = 0
        first = len(current)
        for i in range(len(current) - 1, -1, -1):
            acc += current[i][2]
            first = i
            if acc >= overlap_chars:
                break
        current = current[first:]
        current_chars = acc

    for index, line in enumerate(text.split("\n")):
        line_no = index + 1
        for segment, weight in _line_segments(line, max_chars, tokens):
            size = weight + 1
            if current_chars + size > max_chars and current:
                flush()
                carry_overlap()
            current.append((segment, line_no, size))
            current_chars += size
    flush()

    if drop_blank:
        return [c for c in chunks if not is_blank(c.text)]
    return chunks


def chunk_id(
    source: str, path: str, start_line: int, end_line: int, chunk_hash: str, model: str
) -> str:
    """Row id of a chunk (``writeChunks``): sha256 of ``source:path:start:end:hash:model``.

    ``model`` is the embedding model id, or ``"fts-only"`` when no provider is active.

    >>> chunk_id("memory", "MEMORY.md", 1, 3, "ab", "fts-only") == sha256_hex(
    ...     "memory:MEMORY.md:1:3:ab:fts-only")
    True
    """
    return sha256_hex(f"{source}:{path}:{start_line}:{end_line}:{chunk_hash}:{model}")


def provider_input_cap(
    max_input_tokens: int | None = None,
    provider_id: str | None = None,
    hard_max: int | None = EMBEDDING_BATCH_MAX_TOKENS,
) -> int:
    """The UTF-8 byte cap OpenClaw applies to chunk texts before embedding.

    ``resolveEmbeddingMaxInputTokens`` (provider's ``maxInputTokens``, else 2048 for
    ``local``, else 8192), then ``min`` with the hard cap of 8000 when that is positive.

    >>> provider_input_cap(), provider_input_cap(provider_id="local"), provider_input_cap(32000)
    (8000, 2048, 8000)
    """
    if max_input_tokens is not None:
        cap = max_input_tokens
    elif provider_id == "local":
        cap = DEFAULT_LOCAL_EMBEDDING_MAX_INPUT_TOKENS
    else:
        cap = DEFAULT_EMBEDDING_MAX_INPUT_TOKENS
    if hard_max is not None and hard_max > 0:
        cap = min(cap, hard_max)
    return cap


def _utf8_char_len(lead: int) -> int:
    if lead < 0x80:
        return 1
    if lead >= 0xF0:
        return 4
    if lead >= 0xE0:
        return 3
    return 2


def split_text_to_utf8_byte_limit(text: str, max_bytes: int) -> list[str]:
    """``splitTextToUtf8ByteLimit``: cut ``text`` into pieces of at most ``max_bytes`` UTF-8
    bytes, never inside a character.

    OpenClaw binary-searches the longest UTF-16 prefix that fits; because byte length only
    grows with the prefix this is the longest whole-character prefix. As in OpenClaw, a
    single BMP character wider than the cap becomes its own piece, while an astral character
    wider than the cap ends the split (the rest of the text is dropped).

    >>> split_text_to_utf8_byte_limit("ab€cd", 4)
    ['ab', '€c', 'd']
    """
    if max_bytes <= 0:
        return [text]
    data = text.encode("utf-8", "surrogatepass")  # lone surrogate: 3 bytes, as in Node
    if len(data) <= max_bytes:
        return [text]
    parts: list[str] = []
    pos = 0
    n = len(data)
    while pos < n:
        end = pos + max_bytes
        if end >= n:
            end = n
        else:
            while end > pos and 0x80 <= data[end] <= 0xBF:
                end -= 1
            if end == pos:
                width = _utf8_char_len(data[pos])
                if width == 4:
                    break
                end = pos + width
        parts.append(data[pos:end].decode("utf-8", "surrogatepass"))
        pos = end
    return parts


def split_for_provider(chunks: Iterable[Chunk], max_input_bytes: int) -> list[Chunk]:
    """``enforceEmbeddingMaxInputTokens`` for text chunks.

    Any chunk whose text exceeds ``max_input_bytes`` UTF-8 bytes is replaced by several
    chunks with the same ``start_line``/``end_line`` and re-hashed texts. OpenClaw does this
    only when an embedding provider is active; use :func:`provider_input_cap` for the cap.

    >>> [c.text for c in split_for_provider(chunk_markdown("x" * 10), 4)]
    ['xxxx', 'xxxx', 'xx']
    """
    out: list[Chunk] = []
    for chunk in chunks:
        if len(node_utf8(chunk.text)) <= max_input_bytes:
            out.append(chunk)
            continue
        for piece in split_text_to_utf8_byte_limit(chunk.text, max_input_bytes):
            out.append(Chunk(chunk.start_line, chunk.end_line, piece, sha256_hex(piece)))
    return out
