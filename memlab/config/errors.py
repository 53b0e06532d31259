""":class:`ConfigError`: every config problem, naming the key path, the bad value and what is
allowed; pydantic's errors translated into that form.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import (
    BaseModel,
    ValidationError,
)

from memlab.config.types import UNION_TAGS


@dataclass(frozen=True)
class ConfigIssue:
    """One problem: the full dotted key path and what is wrong with it."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ConfigError(ValueError):
    """An invalid config: syntax error, wrong shape or schema violation(s).

    ``issues`` lists every problem found; ``source`` is the file name (or ``<string>``,
    ``<dict>``), ``line``/``column`` locate a syntax error when the parser reports it.
    """

    MAX_SHOWN = 12

    def __init__(self, issues: list[ConfigIssue] | str, source: str | None = None,
                 line: int | None = None, column: int | None = None):
        if isinstance(issues, str):
            issues = [ConfigIssue("", issues)]
        self.issues = list(issues)
        self.source = source
        self.line = line
        self.column = column
        super().__init__(self._format())

    def _format(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where += f" line {self.line}" + (f", column {self.column}" if self.column else "")
        head = f"{where}: " if where else ""
        if len(self.issues) == 1:
            return f"{head}{self.issues[0]}"
        shown = self.issues[: self.MAX_SHOWN]
        lines = [f"{head}{len(self.issues)} config errors:"]
        lines += [f"  - {issue}" for issue in shown]
        if len(self.issues) > len(shown):
            lines.append(f"  ... and {len(self.issues) - len(shown)} more")
        return "\n".join(lines)


JS_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_LEGACY_HINTS = {
    ("store", "path"): (
        "legacy key (<= 2026.6), rejected by 2026.7: memory indexes now live in each agent "
        "database (~/.openclaw/agents/<agentId>/agent/openclaw-agent.sqlite); remove the key "
        "(openclaw doctor --fix does)"),
}


def join_path(prefix: str, loc: tuple[Any, ...] | list[Any]) -> str:
    out = prefix
    for seg in loc:
        if isinstance(seg, int):
            out += f"[{seg}]"
        elif JS_IDENTIFIER.match(str(seg)):
            out += f".{seg}" if out else str(seg)
        else:
            out += f"[{json.dumps(str(seg))}]"
    return out


def show_value(value: Any, sensitive: bool = False) -> str:
    """A short, safe rendering of a bad value for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if sensitive:
        kind = {str: "a string", int: "a number", float: "a number", list: "a list",
                dict: "an object"}.get(type(value), type(value).__name__)
        return f"{kind} (value hidden)"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        try:
            text = json.dumps(value)
        except (TypeError, ValueError):
            text = ""
        if text and len(text) <= 60 and all(not isinstance(v, dict | list) for v in value):
            return text
        return f"a list of {len(value)} items"
    return type(value).__name__


def inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = inner_model(arg)
        if found is not None:
            return found
    return None


def field_named(cls: type[BaseModel], key: Any) -> tuple[str, Any] | None:
    for name, info in cls.model_fields.items():
        if key in (info.alias, name):
            return name, info
    return None


def _model_at(cls: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    cur: type[BaseModel] | None = cls
    for seg in loc:
        if cur is None:
            return None
        if isinstance(seg, int):
            continue
        found = field_named(cur, seg)
        if found is None:
            return None
        cur = inner_model(found[1].annotation)
    return cur


def _bounds(cls: type[BaseModel], loc: tuple[Any, ...]) -> tuple[Any, Any, Any, Any]:
    """(gt, ge, lt, le) of the field at ``loc`` (``None`` where absent)."""
    parent = _model_at(cls, loc[:-1]) if loc else None
    found = field_named(parent, loc[-1]) if parent is not None and loc else None
    gt = ge = lt = le = None
    if found is not None:
        for meta in found[1].metadata:
            gt = getattr(meta, "gt", gt)
            ge = getattr(meta, "ge", ge)
            lt = getattr(meta, "lt", lt)
            le = getattr(meta, "le", le)
    return gt, ge, lt, le


def _allowed_keys(cls: type[BaseModel]) -> list[str]:
    return sorted(info.alias or name for name, info in cls.model_fields.items()
                  if not info.exclude)


def _translate(error: Mapping[str, Any], cls: type[BaseModel], prefix: str) -> ConfigIssue:
    loc = tuple(seg for seg in error["loc"] if seg not in UNION_TAGS)
    path = join_path(prefix, loc)
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    sensitive = any(seg in ("apiKey", "headers") for seg in loc)
    got = show_value(value, sensitive)
    null_hint = " (omit the key to use the default)" if value is None else ""
    if kind == "extra_forbidden":
        key = loc[-1] if loc else ""
        hint = _LEGACY_HINTS.get(tuple(loc[-2:]))
        if hint:
            return ConfigIssue(path, hint)
        parent = _model_at(cls, loc[:-1])
        allowed = _allowed_keys(parent) if parent is not None else []
        msg = f"unknown key {str(key)!r}"
        by_name = field_named(parent, key) if parent is not None else None
        suggestion = (by_name[1].alias if by_name and by_name[1].alias else None) or next(
            iter(difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.75)), None)
        if suggestion and suggestion != key:
            msg += f" (did you mean {suggestion!r}?)"
        if allowed:
            msg += "; allowed keys here: " + ", ".join(allowed)
        return ConfigIssue(path, msg)
    if kind == "missing":
        return ConfigIssue(path, "required key is missing")
    if kind == "bool_type":
        return ConfigIssue(path, f"expected a boolean (true or false), got {got}{null_hint}")
    if kind in ("int_type", "int_from_float", "int_parsing"):
        return ConfigIssue(path, f"expected an integer, got {got}{null_hint}")
    if kind in ("float_type", "float_parsing"):
        return ConfigIssue(path, f"expected a number, got {got}{null_hint}")
    if kind == "finite_number":
        return ConfigIssue(path, f"must be a finite number, got {got}")
    if kind == "string_type":
        return ConfigIssue(path, f"expected a string, got {got}{null_hint}")
    if kind == "list_type":
        return ConfigIssue(path, f"expected a list, got {got}{null_hint}")
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return ConfigIssue(path, f"expected an object, got {got}{null_hint}")
    if kind == "literal_error":
        return ConfigIssue(path, f"must be {ctx.get('expected', 'one of the allowed values')}, "
                                 f"got {got}{null_hint}")
    if kind in ("string_too_short", "too_short"):
        return ConfigIssue(path, "must not be empty")
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        gt, ge, lt, le = _bounds(cls, loc)
        is_int = isinstance(value, int) and not isinstance(value, bool)
        if ge is not None and le is not None:
            return ConfigIssue(path, f"must be between {ge} and {le}, got {got}")
        if gt == 0 and is_int:
            return ConfigIssue(path, f"must be a positive integer (> 0), got {got}")
        if ge == 0 and is_int:
            return ConfigIssue(path, f"must be a non-negative integer (>= 0), got {got}")
        bound = ", ".join(f"{op} {b}" for op, b in ((">", gt), (">=", ge), ("<", lt), ("<=", le))
                          if b is not None)
        return ConfigIssue(path, f"must be {bound}, got {got}")
    if kind in ("null", "secret_input", "safe_int", "secret_ref", "stemmer"):
        return ConfigIssue(path, f"{error['msg']}, got {got}" if kind in (
            "secret_input", "safe_int") else error["msg"])
    if kind == "context_size":
        return ConfigIssue(path, f"{error['msg']}, got {got}{null_hint}")
    return ConfigIssue(path, str(error.get("msg", kind)))


_M = typing.TypeVar("_M", bound=BaseModel)


def validate_block(cls: type[_M], raw: Any, prefix: str, issues: list[ConfigIssue]) -> _M | None:
    """Validate camelCase ``raw`` (config-file semantics: aliases only); collect issues."""
    try:
        return cls.model_validate(raw, by_alias=True, by_name=False)
    except ValidationError as exc:
        issues.extend(_translate(e, cls, prefix) for e in exc.errors())
        return None


class ExportError(ConfigError):
    """The configuration cannot be exported (memlab-only choices without ``allow_lossy``)."""


class ExportWarning(UserWarning):
    """Tuned values the target schema cannot express (they are dropped from the file)."""
