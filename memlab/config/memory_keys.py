"""OpenClaw 2026.8's ``memory.search``: the keys it still configures and the constants it fixed
(reference section 15).
"""

from __future__ import annotations

from typing import Any

from memlab.lines import DEFAULT_LINE, detected_line, export_schema, export_schemas

#: An export schema's name (``--schema``, :func:`memlab.lines.export_schemas`).
Schema = str


def _reports_losses(schema: str) -> bool:
    """Whether an export to ``schema`` writes memlab's model of the config and reports what it
    cannot express (every schema but a ``memory.search`` line's own strict one)."""
    name, line = export_schema(schema)
    return line.layout == "memorySearch" or name != line.name


#: The export schemas written from memlab's config model, lost values reported (the lines'
#: schemas but the strict ``memory.search`` one of :mod:`memlab.config.memory_export`).
SCHEMAS: tuple[str, ...] = tuple(s for s in export_schemas() if _reports_losses(s))
#: The schema of an export that names none: the default line's own.
DEFAULT_SCHEMA: str = DEFAULT_LINE.name
#: The strict ``memory.search`` schema (:mod:`memlab.config.memory_export`, importance
#: annotations): the own schema of the ``memory.search`` line.
STRICT_SCHEMA: str = detected_line("memory.search").name
#: The keys of ``memory.search`` still configurable in OpenClaw 2026.8+ (reference section 15):
#: ``True`` = the whole subtree, a dict = only those sub-keys.
CONFIGURABLE_KEYS: dict[str, Any] = {
    "enabled": True,
    "sources": True,
    "extraPaths": True,
    "multimodal": True,
    "provider": True,
    "remote": {"baseUrl": True, "apiKey": True, "headers": True, "batch": {"enabled": True}},
    "fallback": True,
    "model": True,
    "inputType": True,
    "queryInputType": True,
    "documentInputType": True,
    "outputDimensionality": True,
    "local": {"modelPath": True},
    "store": {"fts": True, "vector": True},
    "query": {"maxResults": True, "minScore": True},
    "cache": {"enabled": True},
}
#: 2026.8-only keys memlab has no model for (read on import, reported, not kept).
MEMORY_SEARCH_ONLY = ("rememberAcrossConversations", "experimental")
#: Constants OpenClaw 2026.8+ fixes (reference section 15), as 2026.7 key paths.
MEMORY_SEARCH_CONSTANTS: dict[str, Any] = dict(detected_line("memory.search").fixed)
