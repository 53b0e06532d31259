"""Reading config sources: JSON5 text or files (syntax errors with line and column) or dicts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import json5

from memlab.config.errors import ConfigError

_SYNTAX = re.compile(r"^<string>:(\d+)\s+(.*?)(?:\s+at column (\d+))?$", re.S)


def _parse_text(text: str, source: str) -> Any:
    try:
        return json5.loads(text)
    except ValueError as exc:
        msg = str(exc)
        m = _SYNTAX.match(msg)
        if m:
            col = int(m.group(3)) if m.group(3) else None
            raise ConfigError(f"JSON5 syntax error: {m.group(2)}", source=source,
                              line=int(m.group(1)), column=col) from None
        raise ConfigError(f"JSON5 syntax error: {msg}", source=source) from None


def read_source(source: str | Path | Mapping[str, Any]) -> tuple[Any, str]:
    if isinstance(source, Mapping):
        return plain_copy(source), "<dict>"
    if isinstance(source, Path):
        return _read_file(source), str(source)
    if not isinstance(source, str):
        raise TypeError(f"load_config() takes a path, JSON5 text, a dict or None, not "
                        f"{type(source).__name__}")
    head = re.sub(r"^(\s+|//[^\n]*\n?|/\*.*?\*/)*", "", source, flags=re.S)
    stripped = source.strip()
    if not stripped or head.startswith(("{", "[")) or head != source.lstrip() or "\n" in stripped:
        return _parse_text(source, "<string>"), "<string>"
    return _read_file(Path(source)), source


def _read_file(path: Path) -> Any:
    path = path.expanduser()
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError("config file not found", source=str(path)) from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file: {exc}", source=str(path)) from None
    return _parse_text(text, str(path))


def plain_copy(value: Any) -> Any:
    """A deep copy of dict/list structure (so callers' dicts are never mutated)."""
    if isinstance(value, Mapping):
        return {k: plain_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_copy(v) for v in value]
    return value
