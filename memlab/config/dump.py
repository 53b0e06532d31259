"""Writing configs as OpenClaw JSON5 text (:func:`dump_config`); plain-string secrets are never
written, a comment marks their place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import (
    BaseModel,
    SecretStr,
)

from memlab.config.errors import JS_IDENTIFIER
from memlab.config.options import MemlabConfig
from memlab.config.schema import MemorySearchConfig
from memlab.config.types import OPENCLAW_VERSION, SECRET_PLACEHOLDER, SENSITIVE_HEADER
from memlab.lines import detected_line
from memlab.secrets import redact_url, url_secrets

#: The line whose layout (``agents.defaults.memorySearch``) :func:`dump_config` writes.
_AGENTS = detected_line("memorySearch")


@dataclass(frozen=True)
class Json5Comment:
    """A key written as a JSON5 comment (secrets, unset-but-meaningful defaults)."""

    text: str


def dump_tree(model: BaseModel, full: bool, path: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        if info.exclude:
            continue
        key = info.alias or name
        explicit = name in model.model_fields_set
        value = getattr(model, name)
        if value is None or not (explicit or full):
            continue
        here = (*path, key)
        if isinstance(model, MemorySearchConfig) and key == "provider" and not explicit:
            out[key] = Json5Comment(f'provider: {json.dumps(value)}  (built-in default; left unset '
                                'so OpenClaw treats the provider as optional)')
        elif isinstance(value, SecretStr):
            out[key] = Json5Comment(f"{key}: {SECRET_PLACEHOLDER}")
        elif isinstance(value, BaseModel):
            out[key] = dump_tree(value, full, here)
        elif isinstance(value, list):
            out[key] = [dump_tree(v, full, here) if isinstance(v, BaseModel) else v
                        for v in value]
        elif key == "baseUrl" and isinstance(value, str) and url_secrets(value):
            out[key] = Json5Comment(f"{key}: {json.dumps(redact_url(value))}  (holds credentials: "
                                    f"{SECRET_PLACEHOLDER})")
        elif isinstance(value, dict) and here == ("remote", "headers"):
            out[key] = {h: (Json5Comment(f"{json.dumps(h)}: {SECRET_PLACEHOLDER}")
                            if SENSITIVE_HEADER.search(h) else v) for h, v in value.items()}
        else:
            out[key] = value
    return out


def emit_json5(value: Any, indent: int, style: str) -> str:
    pad = "  " * (indent + 1)
    end = "  " * indent
    if isinstance(value, dict):
        lines = []
        items = [(k, v) for k, v in value.items() if style == "json5" or
                 not isinstance(v, Json5Comment)]
        for n, (k, v) in enumerate(items):
            if isinstance(v, Json5Comment):
                lines.append(f"{pad}// {v.text}")
                continue
            comma = "," if any(not isinstance(w, Json5Comment) for _, w in items[n + 1:]) else ""
            bare = style == "json5" and JS_IDENTIFIER.match(k)
            key = k if bare else json.dumps(k, ensure_ascii=False)
            lines.append(f"{pad}{key}: {emit_json5(v, indent + 1, style)}{comma}")
        return "{\n" + "\n".join(lines) + f"\n{end}}}" if lines else "{}"
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(not isinstance(v, dict | list) for v in value):
            return "[" + ", ".join(emit_json5(v, indent, style) for v in value) + "]"
        inner = [f"{pad}{emit_json5(v, indent + 1, style)}" for v in value]
        return "[\n" + ",\n".join(inner) + f"\n{end}]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int | str):
        return json.dumps(value, ensure_ascii=False)
    raise TypeError(f"cannot dump {type(value).__name__}")


def dump_config(cfg: MemlabConfig | MemorySearchConfig, schema: str = _AGENTS.name, *,
                full: bool = False, style: Literal["json5", "json"] = "json5") -> str:
    """Write ``cfg`` as the text of a whole OpenClaw config (``agents.defaults.memorySearch``).

    Only keys that were explicitly configured are written unless ``full=True`` (every key with
    its effective default). memlab options go under a top-level ``memlab`` key, written only
    when set (OpenClaw would reject that key). Plain-string secrets (``remote.apiKey``,
    authorization-like ``remote.headers``) are never written: ``style="json5"`` leaves a
    comment in their place, ``style="json"`` omits them; secret references
    (``{source: "env", ...}``) are written. The text round-trips through :func:`load_config`
    (minus those secrets). A per-agent config is written as the merged defaults.
    """
    if schema not in (_AGENTS.name, OPENCLAW_VERSION):
        raise ValueError(f"schema {schema!r} is not supported; only {_AGENTS.name!r} (the "
                         "agents.defaults.memorySearch layout) can be written")
    if style not in ("json5", "json"):
        raise ValueError(f"style must be 'json5' or 'json', not {style!r}")
    if isinstance(cfg, MemorySearchConfig):
        cfg = MemlabConfig(memory_search=cfg)
    doc: dict[str, Any] = {}
    if style == "json5":
        doc["#"] = Json5Comment(f"OpenClaw {schema} memory search config written by memlab")
    doc["agents"] = {"defaults": {"memorySearch": dump_tree(cfg.memory_search, full)}}
    memlab = dump_tree(cfg.memlab, full)
    if memlab:
        doc["memlab"] = memlab
    return emit_json5(doc, 0, style) + "\n"
