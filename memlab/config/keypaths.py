"""Config key paths (``query.hybrid.vectorWeight``, ``memlab.fusion.method``) as sweep columns
name them, and walking nested config trees by them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memlab.config.errors import field_named, inner_model
from memlab.config.options import MemlabOptions
from memlab.config.schema import MemorySearchConfig

_ALIASES = {
    "fusion": "memlab.fusion.method",
    "fusion.method": "memlab.fusion.method",
    "fusion.rrfK": "memlab.fusion.rrfK",
    "rrfK": "memlab.fusion.rrfK",
    "rrf_k": "memlab.fusion.rrfK",
    "keyword": "memlab.keyword",
}


def canonical_key_path(column: str) -> str | None:
    """``column`` as a config key path (``memlab.`` prefixed for memlab options), or ``None``.

    Accepts ``query.hybrid.vectorWeight``, ``memorySearch.query.hybrid.vectorWeight``,
    ``memlab.fusion.method`` and a few short aliases (``fusion``, ``rrfK``, ``keyword``).
    """
    name = _ALIASES.get(column.strip(), column.strip())
    parts = name.split(".")
    if parts[0] == "memorySearch":
        parts = parts[1:]
    if not parts or not all(parts):
        return None
    cls: Any = MemorySearchConfig
    prefix = ""
    if parts[0] == "memlab":
        cls, parts, prefix = MemlabOptions, parts[1:], "memlab."
        if not parts:
            return None
    for i, part in enumerate(parts):
        if cls is None:
            return None
        found = field_named(cls, part)
        if found is None or (found[1].alias and found[1].alias != part):
            return None
        if i < len(parts) - 1:
            cls = inner_model(found[1].annotation)
    return prefix + ".".join(parts)


def get_path(tree: Mapping[str, Any], path: str, default: Any = None) -> Any:
    node: Any = tree
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return default
        node = node[part]
    return node


def leaf_paths(tree: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for key, value in tree.items():
        here = f"{prefix}.{key}" if prefix else key
        if isinstance(value, Mapping) and value:
            out.extend(leaf_paths(value, here))
        else:
            out.append((here, value))
    return out
