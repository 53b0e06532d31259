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
#: Largest config accepted (real OpenClaw configs are a few KB; json5 parses ~0.1-1 MB/s)
#: and the deepest nesting of objects/arrays (json5 recurses; OpenClaw's schema is < 10 deep).
MAX_CONFIG_BYTES = 256 * 1024
MAX_CONFIG_DEPTH = 32


def _nesting(text: str) -> int:
    """The deepest ``{``/``[`` nesting of JSON5 text (strings and comments skipped), stopping
    once past :data:`MAX_CONFIG_DEPTH`.

    >>> _nesting("{a: [1, {b: '}}}'}], /* [[[ */ c: 2}")
    3
    """
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if ch == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if ch in "{[":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_CONFIG_DEPTH:
                    return deepest
        elif ch in "}]":
            depth -= 1
        i += 1
    return deepest


def _parse_text(text: str, source: str) -> Any:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(f"the config is {size} bytes, more than the {MAX_CONFIG_BYTES} "
                          "memlab reads (real configs are a few KB)", source=source)
    if _nesting(text) > MAX_CONFIG_DEPTH:
        raise ConfigError(f"the config nests objects/arrays more than {MAX_CONFIG_DEPTH} "
                          "levels deep", source=source)
    try:
        return json5.loads(text)
    except RecursionError:
        raise ConfigError(f"the config nests too deeply to read (limit {MAX_CONFIG_DEPTH})",
                          source=source) from None
    except ValueError as exc:
        msg = str(exc)
        m = _SYNTAX.match(msg)
        if m:
            col = int(m.group(3)) if m.group(3) else None
            raise ConfigError(f"JSON5 syntax error: {m.group(2)}", source=source,
                              line=int(m.group(1)), column=col) from None
        raise ConfigError(f"JSON5 syntax error: {msg}", source=source) from None


class ConfigTree(dict):
    """A config already read from ``source`` (its file name, or ``<string>``): given to
    :func:`read_source` (so to ``load_config`` and every reader), it is a copy named after where
    it came from, so a command reads its ``--config`` once and every error still names the
    file.

    >>> tree = ConfigTree({"memorySearch": {"provider": "none"}}, "my.json5")
    >>> read_source(tree)
    ({'memorySearch': {'provider': 'none'}}, 'my.json5')
    """

    def __init__(self, tree: Mapping[str, Any], source: str) -> None:
        super().__init__(tree)
        self.source = source


def read_source(source: str | Path | Mapping[str, Any]) -> tuple[Any, str]:
    if isinstance(source, ConfigTree):
        return plain_copy(source), source.source
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
        with path.open("rb") as fh:  # never more than the cap (a 50 MB file is refused)
            data = fh.read(MAX_CONFIG_BYTES + 4)
        if len(data) > MAX_CONFIG_BYTES + 3:
            raise ConfigError(f"the config file is larger than the {MAX_CONFIG_BYTES} bytes "
                              "memlab reads (real configs are a few KB)", source=str(path))
        text = data.decode("utf-8-sig")
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
