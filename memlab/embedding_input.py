"""What an embedding provider is asked to embed: a text, or a text label plus inline parts.

:class:`EmbeddingInput` is a data contract shared by the workspace (which builds the input of
a multimodal memory file, :func:`memlab.workspace.load_multimodal_input`) and the providers
(:mod:`memlab.embed`), so it sits below both.

>>> EmbeddingInput("hello").hash == text_hash("hello"), as_input("hi").structured
(True, False)
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["EmbeddingInput", "as_input", "text_hash"]


def text_hash(text: str) -> str:
    """sha256 hex of a text (OpenClaw's chunk hash, used as the embedding-cache key)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingInput:
    """One structured embedding input: a text label plus inline parts (multimodal memory).

    OpenClaw's ``EmbeddingInput`` (``{text, parts}``): ``parts`` are ``{"type": "text",
    "text": ...}`` and ``{"type": "inline-data", "mimeType": ..., "data": <base64>}`` dicts.
    ``hash`` is the embedding-cache key: for a multimodal file OpenClaw's chunk hash (sha256 of
    ``{path, contentText, mimeType, dataHash}``), never the raw bytes.
    """

    __slots__ = ("hash", "parts", "text")

    def __init__(self, text: str, parts: Sequence[Mapping[str, Any]] = (),
                 hash: str | None = None):  # noqa: A002 - OpenClaw's field name
        self.text = str(text)
        self.parts = tuple(dict(p) for p in parts)
        self.hash = hash or text_hash(self.text)

    @property
    def structured(self) -> bool:
        """Whether any part is not text (OpenClaw's ``hasNonTextEmbeddingParts``)."""
        return any(p.get("type") != "text" for p in self.parts)

    def estimated_bytes(self) -> int:
        """UTF-8 bytes counted against the 8,000-byte inline batch cap.

        OpenClaw's embedding loop (``manager-embedding-policy.ts``) counts only the text parts
        of a structured input (the inline data is not counted).
        """
        if not self.parts:
            return len(self.text.encode("utf-8"))
        return sum(len(str(p.get("text", "")).encode("utf-8")) for p in self.parts
                   if p.get("type") == "text")

    def __repr__(self) -> str:  # never the (possibly 10 MB) inline data
        kinds = [p.get("mimeType") or p.get("type") for p in self.parts]
        return f"EmbeddingInput(text={self.text!r}, parts={kinds})"


def as_input(item: str | EmbeddingInput) -> EmbeddingInput:
    """``item`` as an :class:`EmbeddingInput` (a plain text becomes a text-only input)."""
    return item if isinstance(item, EmbeddingInput) else EmbeddingInput(str(item))
