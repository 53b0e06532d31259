"""OpenClaw release lines: one small declarative module per line, and the one function that
tells which line a config is for.

* :mod:`memlab.lines.v2026_7`: OpenClaw 2026.7.35, ``agents.defaults.memorySearch``;
* :mod:`memlab.lines.v2026_9`: OpenClaw 2026.9.6, ``memory.search``.

:func:`detect_line` is what every entry point calls (``MemorySearch``, the CLI verbs, the
sweep, export, the widgets): an explicit ``memlab.profile``, else the config's layout. A new
line is one module holding a :class:`Line` (often ``LINE = v2026_9.LINE.derive(...)``) and a
:func:`register` call.

Code outside this package names no version: it asks a line (``layout``, ``engine``,
``release``, ``date_rule``, ``schemas``) or these helpers: :data:`DATE_RULES` (the
``memlab.decayRule`` rules), :func:`export_schemas` / :func:`export_schema` (``--schema``),
:func:`upgrade_lines` (the lines of the upgrade report).

>>> detect_line({"memory": {"search": {"provider": "none"}}}).name
'2026.9'
>>> detect_line({"agents": {"defaults": {"memorySearch": {}}},
...              "memlab": {"profile": "2026.9"}}).name
'2026.9'
>>> detect_line({}).name, get_line("2026.7").release
('2026.7', '2026.7.35')
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from memlab.lines import v2026_7, v2026_9
from memlab.lines.line import DateRule, Layout, Line, Step

__all__ = ["DATE_RULES", "DEFAULT_DATE_RULE", "DEFAULT_LINE", "DateRule", "Layout", "Line",
           "Step", "detect_line", "detected_line", "export_schema",
           "export_schemas", "get_line", "layout_of", "line_names", "register", "registered",
           "upgrade_lines"]

_LINES: dict[str, Line] = {}


def register(line: Line) -> Line:
    """Make ``line`` known by its name (``memlab.profile``, ``--profile``, ``--schema``).

    A line marked ``detected`` becomes the line of configs in its layout that name none; the
    one registered before it in that layout stops being detected.
    """
    if line.detected:
        for name, other in list(_LINES.items()):
            if other.layout == line.layout and other.detected and name != line.name:
                raise ValueError(f"lines {name!r} and {line.name!r} both claim the "
                                 f"{line.layout} layout; register one with detected=False")
    _LINES[line.name] = line
    return line


@contextmanager
def registered(line: Line) -> Iterator[Line]:
    """``line`` registered inside the block only (a made-up line in a test or a notebook)."""
    if line.name in _LINES:
        raise ValueError(f"a line named {line.name!r} is already registered")
    register(line)
    try:
        yield line
    finally:
        del _LINES[line.name]


def line_names() -> tuple[str, ...]:
    """The registered lines' names, in registration order."""
    return tuple(_LINES)


def get_line(name: str | Line, where: str = "memlab.profile") -> Line:
    """The line called ``name`` (a :class:`Line` is returned as is); a ValueError naming
    ``where`` and the registered names otherwise.

    >>> get_line("2026.8")
    Traceback (most recent call last):
    ...
    ValueError: memlab.profile: unknown OpenClaw line '2026.8'; allowed: '2026.7', '2026.9'
    """
    if isinstance(name, Line):
        return name
    line = _LINES.get(name) if isinstance(name, str) else None
    if line is None:
        raise ValueError(f"{where}: unknown OpenClaw line {name!r}; allowed: "
                         + ", ".join(repr(n) for n in _LINES))
    return line


def layout_of(config: Mapping[str, Any] | None) -> Layout:
    """``"memory.search"`` when the config has a ``memory.search`` object, else
    ``"memorySearch"`` (``agents.defaults.memorySearch``, a bare ``memorySearch`` or nothing)."""
    memory = (config or {}).get("memory")
    if isinstance(memory, Mapping) and isinstance(memory.get("search"), Mapping):
        return "memory.search"
    return "memorySearch"


def detect_line(config: Mapping[str, Any] | None, explicit: str | Line | None = None) -> Line:
    """The line a raw config is for: ``explicit`` (``--profile``, ``profile=``) when given,
    else its ``memlab.profile``, else the detected line of its layout (:func:`layout_of`)."""
    if explicit is not None:
        return get_line(explicit, "--profile" if isinstance(explicit, str) else "profile")
    config = config or {}
    memlab = config.get("memlab")
    if isinstance(memlab, Mapping) and memlab.get("profile") is not None:
        return get_line(memlab["profile"])
    return detected_line(layout_of(config))


def detected_line(layout: Layout) -> Line:
    """The line of a config in ``layout`` that names none.

    >>> detected_line("memory.search").config_key
    'memory.search'
    """
    for line in _LINES.values():
        if line.layout == layout and line.detected:
            return line
    raise ValueError(f"no registered OpenClaw line reads the {layout} layout")


def upgrade_lines() -> tuple[Line, Line]:
    """``(old, new)``: the lines OpenClaw's upgrade (``doctor --fix``) moves a config between,
    the detected line of ``agents.defaults.memorySearch`` and that of ``memory.search``.

    >>> [line.layout for line in upgrade_lines()]
    ['memorySearch', 'memory.search']
    """
    return detected_line("memorySearch"), detected_line("memory.search")


def export_schemas() -> tuple[str, ...]:
    """The export schemas (``--schema``) of the registered lines (:attr:`Line.schemas`).

    >>> export_schemas()
    ('2026.7', '2026.8', '2026.9')
    """
    return tuple(dict.fromkeys(name for line in _LINES.values() for name in line.schemas))


def export_schema(name: str) -> tuple[str, Line]:
    """``(schema, line)``: the export schema called ``name`` (a line's release, e.g.
    ``openclaw@RELEASE``'s, names the line's own schema) and the line whose layout it writes;
    a ValueError listing :func:`export_schemas` otherwise.

    >>> export_schema("2026.9.6")[0], export_schema("2026.8")[1].layout
    ('2026.9', 'memory.search')
    """
    for line in _LINES.values():
        if name == line.release and line.name in line.schemas:
            name = line.name
        if name in line.schemas:
            return name, line
    raise ValueError(f"schema must be one of {', '.join(export_schemas())} (2026.8 covers "
                     f"2026.8 and later), not {name!r}")


register(v2026_7.LINE)
register(v2026_9.LINE)

#: The line of a config that names none and has no ``memory.search``.
DEFAULT_LINE = v2026_7.LINE
#: The dated/evergreen path rules of temporal decay by name (``memlab.decayRule``).
DATE_RULES: Mapping[str, DateRule] = {r.name: r for r in (v2026_7.DATE_RULE, v2026_9.DATE_RULE)}
#: The rule of a config that names none: the default line's.
DEFAULT_DATE_RULE = DEFAULT_LINE.date_rule
