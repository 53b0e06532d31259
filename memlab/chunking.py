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

``version=5`` selects OpenClaw 2026.9's chunker (``MEMORY_CHUNKING_VERSION = 5``,
packages/memory-host-sdk/src/host/markdown-chunks.ts; docs/openclaw-2026.9.md section 2.2): its
weighted length (:func:`weighted_length_v5`), a bounded overlap that may carry the tail of a
line, over-long CJK segments re-cut greedily by weight, and with ``per_entry=True`` (MEMORY.md
and USER.md) a new chunk at every ``- `` entry and heading, without overlap across entries.
:func:`chunk_memory_file` is the indexer's entry point (annotation comments stripped first).
The default, ``version=0``, is 2026.7.35's chunker (it writes no ``chunkingVersion``, which
2026.9 reads as 0).

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

from memlab.annotations import strip_annotations
from memlab.text.js import JS_WHITESPACE, node_utf8, truncate_utf16, utf16_length

__all__ = [
    "CHUNKING_VERSIONS",
    "Chunk",
    "PER_ENTRY_PATHS",
    "chunk_memory_file",
    "curated_entry_kind",
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
    "weighted_length_v5",
]

#: ``chunkingVersion`` values: 0 = 2026.7.35 (no version in its index meta), 5 = 2026.9.6.
CHUNKING_VERSIONS = (0, 5)
#: Files 2026.9 chunks per entry (``prepareMemoryIndexChunks``: exact relative paths).
PER_ENTRY_PATHS = ("MEMORY.md", "USER.md")

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
    """One chunk of a file: 1-based inclusive line span, text and ``sha256(text)`` hex.

    ``entry_start_line``/``entry_end_line``: the ``- `` entry the chunk belongs to (chunking
    version 5 per entry only; ``None`` otherwise), the span OpenClaw reads annotations from.
    """

    start_line: int
    end_line: int
    text: str
    hash: str
    entry_start_line: int | None = None
    entry_end_line: int | None = None


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


# ``WEIGHTED_CJK_RANGES`` of packages/normalization-core/src/cjk-chars.ts (2026.9): extra weight
# on top of the UTF-16 length per class, i.e. ``estimateStringChars`` with minimumRawWeight 1.
_V5_CLASSES = (
    (3, "\u00b7\u3000-\u319f\u4e00-\u9fa5\uac00-\ud7af\uff01-\uff60"),
    (11, "\u1100-\u11ff\u2e80-\u2fff\u31a0-\u4dff\u9fa6-\u9fff\ua000-\ua4ff\ua700-\ua707"
         "\ua960-\ua97f\ud7b0-\ud7ff\uf900-\ufaff"),
    (7, "\u02c7\u02c9-\u02cb\u02d9\u02ea-\u02eb\u0305\u0323\ufe10-\ufe4f\uff61-\uffdc"
        "\uffe0-\uffe6"),
    (10, "\U0001d360-\U0001d371"),
    (14, "\U00016fe0-\U00016fff\U0001aff0-\U0001b16f\U0001f200-\U0001f2ff"
         "\U00020000-\U0002fa1f\U00030000-\U0003347f"),
)
_V5_CLASS_RES = tuple((extra, re.compile(f"[{chars}]")) for extra, chars in _V5_CLASSES)
_V5_ANY_RE = re.compile("[" + "".join(chars for _, chars in _V5_CLASSES) + "]")


def weighted_length_v5(text: str) -> int:
    """OpenClaw 2026.9's ``estimateStringChars``: UTF-16 length plus a per-class extra.

    Common CJK/kana/Hangul syllables/fullwidth forms (and U+00B7) weigh 4, rare BMP CJK and
    Hangul Jamo 12, some modifier/halfwidth forms 8, CJK Extension B+ and other supplementary
    ideographs 16 (2026.7: every CJK character 4, see :func:`weighted_length`).

    >>> [weighted_length_v5(s) for s in ("abc", "记忆", "😀", "𠀀", "·")]
    [3, 8, 2, 16, 4]
    """
    units = utf16_length(text)
    if text.isascii() or not _V5_ANY_RE.search(text):
        return units
    return units + sum(extra * len(rx.findall(text)) for extra, rx in _V5_CLASS_RES)


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
    version: int = 0,
    per_entry: bool = False,
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
        version: ``0`` for 2026.7.35's chunker, ``5`` for 2026.9's (module docstring).
        per_entry: (version 5 only) start a chunk at every ``- `` entry and heading, as
            2026.9 does for MEMORY.md and USER.md.

    Returns:
        Chunks in order; lines are 1-based and inclusive. A line longer than ``maxChars``
        may be spread over several chunks that all carry its line number.

    >>> chunks = chunk_markdown("alpha\\nbeta\\ngamma", tokens=2, overlap=1)  # maxChars 32
    >>> [(c.start_line, c.end_line) for c in chunks]
    [(1, 3)]
    >>> chunk_markdown("") == [] and len(chunk_markdown("", drop_blank=False)) == 1
    True
    >>> [(c.start_line, c.end_line) for c in chunk_markdown("# M\\n- a\\n  b\\n- c", version=5,
    ...                                                      per_entry=True)]
    [(1, 1), (2, 3), (4, 4)]
    """
    if version not in CHUNKING_VERSIONS:
        raise ValueError(f"chunking version {version!r} is not one of {CHUNKING_VERSIONS}")
    if per_entry and version != 5:
        raise ValueError("per_entry chunking exists only in chunking version 5 (OpenClaw 2026.9)")
    if clamp:
        tokens, overlap = resolve_chunking(tokens, overlap)
    if version == 5:
        chunks = _chunk_markdown_v5(text, tokens, overlap, per_entry)
        return [c for c in chunks if not is_blank(c.text)] if drop_blank else chunks
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


def _segments_v5(line: str, max_chars: int) -> list[tuple[str, int]]:
    """The segments of one line in ``chunkMarkdown`` v5: cuts of at most ``max_chars`` UTF-16
    units; a cut heavier than ``max_chars`` is re-cut greedily, code point by code point."""
    if not line:
        return [("", 0)]
    out: list[tuple[str, int]] = []
    rest = line
    while rest:
        coarse = truncate_utf16(rest, max_chars)
        rest = rest[len(coarse):]
        weight = weighted_length_v5(coarse)
        if weight <= max_chars:
            out.append((coarse, weight))
            continue
        part_start, part_chars = 0, 0
        for i, ch in enumerate(coarse):
            chars = weighted_length_v5(ch)
            if part_chars + chars > max_chars:
                out.append((coarse[part_start:i], part_chars))
                part_start, part_chars = i, 0
            part_chars += chars
        out.append((coarse[part_start:], part_chars))
    return out


def _tail_within(text: str, budget: int) -> str:
    """``takeTailByEstimatedChars``: the longest suffix (whole code points) of weighted length
    at most ``budget``."""
    acc, start = 0, len(text)
    while start > 0:
        acc += weighted_length_v5(text[start - 1])
        if acc > budget:
            break
        start -= 1
    return text[start:]


def curated_entry_kind(line: str) -> str | None:
    """``curatedMarkdownEntryKind``: ``"entry"`` for a ``- `` line, ``"section"`` for a
    Markdown heading (``#`` to ``######`` then a space or the end), else ``None``.

    >>> curated_entry_kind("- a"), curated_entry_kind("## b"), curated_entry_kind("* c")
    ('entry', 'section', None)
    """
    if line.startswith("- "):
        return "entry"
    return "section" if _HEADING_RE.match(line) else None


_HEADING_RE = re.compile(r"#{1,6}(?:\s|$)")


def _chunk_markdown_v5(text: str, tokens: int, overlap: int, per_entry: bool) -> list[Chunk]:
    """``chunkMarkdown`` of OpenClaw 2026.9 (markdown-chunks.ts), line for line."""
    max_chars = max(32, tokens * 4)
    overlap_chars = max(0, overlap * 4)
    raw: list[list] = []  # [start, end, text, entry_start, entry_end]
    current: list[tuple[str, int]] = []  # (segment, line_no)
    current_chars = 0
    entry_start: int | None = None
    entry_first = 0

    def flush() -> None:
        if current:
            raw.append([current[0][1], current[-1][1], "\n".join(x[0] for x in current),
                        None, None])

    def carry_overlap(window: int) -> None:
        nonlocal current, current_chars
        kept: list[tuple[str, int]] = []
        acc = 0
        for segment, line_no in reversed(current if window > 0 else []):
            size = weighted_length_v5(segment) + 1
            remaining = window - acc
            if size > remaining:
                tail = _tail_within(segment, remaining - 1) if not kept else ""
                if tail:
                    kept.insert(0, (tail, line_no))
                    acc += weighted_length_v5(tail) + 1
                break
            acc += size
            kept.insert(0, (segment, line_no))
            if acc >= window:
                break
        current, current_chars = kept, acc

    def finish_entry(end_line: int) -> None:
        if entry_start is not None:
            for chunk in raw[entry_first:]:
                chunk[3], chunk[4] = entry_start, end_line

    lines = text.split("\n")
    for index, line in enumerate(lines):
        line_no = index + 1
        kind = (curated_entry_kind(line) or ("section" if index == 0 else None)
                if per_entry else None)
        if kind:
            flush()
            finish_entry(line_no - 1)
            current, current_chars = [], 0
            entry_start = line_no if kind == "entry" else None
            entry_first = len(raw)
        for segment, chars in _segments_v5(line, max_chars):
            size = chars + 1
            if current_chars + size > max_chars and current:
                flush()
                carry_overlap(min(overlap_chars, max(0, max_chars - size)))
            current.append((segment, line_no))
            current_chars += size
    flush()
    finish_entry(len(lines))
    return [Chunk(a, b, body, sha256_hex(body), es, ee) for a, b, body, es, ee in raw]


def chunk_memory_file(path: str, content: str, tokens: int = 400, overlap: int = 80, *,
                      source: str = "memory", version: int = 0) -> list[Chunk]:
    """The chunks OpenClaw indexes for one file (before the provider's byte cap).

    Version 0 (2026.7.35): :func:`chunk_markdown` of the content. Version 5 (2026.9,
    ``prepareMemoryIndexChunks``): for ``source == "memory"`` the curated annotation comments
    are stripped first (:func:`memlab.annotations.strip_annotations`; line numbers kept) and
    ``MEMORY.md``/``USER.md`` are chunked per entry; transcripts are chunked as they are.

    >>> [c.text for c in chunk_memory_file("MEMORY.md", "- a <!-- importance: 9 -->\\n- b",
    ...                                    version=5)]
    ['- a', '- b']
    """
    if version == 5 and source == "memory":
        per_entry = path.replace("\\", "/") in PER_ENTRY_PATHS
        return chunk_markdown(strip_annotations(content), tokens, overlap, version=5,
                              per_entry=per_entry)
    return chunk_markdown(content, tokens, overlap, version=version)


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
