"""``--set KEY=VALUE`` overrides: parsed once, applied to a raw config tree in its own layout,
then validated by :func:`memlab.config.load_config` like any config.

Keys are dotted paths (``[N]`` indexes an existing list entry):

- ``memlab.fusion.method``: memlab's research options (the top-level ``memlab`` key);
- ``agents.defaults.memorySearch.query.maxResults`` or ``memorySearch.query.maxResults``: the
  2026.7 search block (either spelling, whichever shape the config has: whole config,
  ``{memorySearch: ...}`` wrapper or bare block);
- ``memory.search.query.maxResults``: the 2026.9 search block;
- ``query.maxResults`` (short form, relative to the search block): the search block of the
  config's own layout. No key of a search block is also a top-level OpenClaw key, so the
  short form is never ambiguous;
- any other OpenClaw key path (``agents.list[0].memorySearch.provider``,
  ``models.providers.my-llm.baseUrl``) is set literally in a whole config.

In a whole 2026.7 config the short form sets ``agents.defaults.memorySearch``: an agent's own
``agents.list[].memorySearch`` value still wins, as in OpenClaw (set that entry's key instead).

Values are JSON5 (``0.6``, ``true``, ``null``, ``[1, 2]``, ``{enabled: true}``, ``"007"``). A
value that is not JSON5 is taken as a plain string (``provider=local``,
``local.modelPath=./models/e5``), except one starting with ``{``, ``[``, ``"`` or ``'``: a
broken object, list or quoted string is a typo and an error, not a string.

>>> ov = parse_override("query.hybrid.vectorWeight=0.6")
>>> ov.key, ov.value
('query.hybrid.vectorWeight', 0.6)
>>> apply_overrides({"memorySearch": {"provider": "local"}}, [ov])
{'memorySearch': {'provider': 'local', 'query': {'hybrid': {'vectorWeight': 0.6}}}}
>>> apply_overrides({"memory": {"search": {}}}, [parse_override("provider=none")])
{'memory': {'search': {'provider': 'none'}}}

:func:`active_overrides` makes :func:`memlab.config.load_config` apply overrides to every
config it loads inside a ``with`` block (the CLI wraps a verb in it, so built-in system names,
config files and the defaults all get them); outside one, nothing changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from memlab.config.errors import ConfigError, ConfigIssue, join_path, show_value
from memlab.config.json5io import plain_copy
from memlab.lines import detected_line

__all__ = ["OPENCLAW_ROOT_KEYS", "Override", "active_overrides", "apply_active_overrides",
           "apply_overrides", "block_key", "config_layout", "current_overrides",
           "explain_error", "override_profiles", "parse_override", "wants_memory_search"]

#: Top-level keys of OpenClaw's root config schema (openclaw@2026.7.35 ``OpenClawSchema``): a
#: config with any of them is a whole OpenClaw config.
OPENCLAW_ROOT_KEYS = frozenset({
    "$schema", "meta", "env", "wizard", "diagnostics", "audit", "logging", "cli", "crestodian",
    "update", "browser", "ui", "tui", "secrets", "marketplaces", "auth", "accessGroups", "acp",
    "models", "nodeHost", "agents", "tools", "security", "bindings", "broadcast", "audio",
    "media", "messages", "commands", "approvals", "session", "cron", "transcripts",
    "commitments", "hooks", "web", "channels", "discovery", "talk", "gateway", "memory", "mcp",
    "skills", "plugins", "canvasHost", "surfaces", "proxy",
})

#: The lines a config without ``memlab.profile`` is for: ``memory.search`` and
#: ``agents.defaults.memorySearch`` (:func:`config_layout` names those layouts by them).
_MEMORY_SEARCH = detected_line("memory.search").name
_AGENTS = detected_line("memorySearch").name
#: Where each layout keeps its search block.
_BLOCK: dict[str, tuple[str, ...]] = {
    _MEMORY_SEARCH: ("memory", "search"),
    _AGENTS: ("agents", "defaults", "memorySearch"),
    "wrapper": ("memorySearch",),
    "bare": (),
}
#: Spelled-out search-block prefixes and the release line whose layout they name.
_PREFIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("agents", "defaults", "memorySearch"), _AGENTS),
    (("memory", "search"), _MEMORY_SEARCH),
    (("memorySearch",), _AGENTS),
)
_SEGMENT = re.compile(r"([^.\[\]]+)((?:\[\d+\])*)")
_STRUCTURED = ("{", "[", '"', "'")

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Override:
    """One ``KEY=VALUE``: the key as written, its parsed path and the parsed value."""

    key: str
    path: Path
    value: Any
    #: The value as written (for the hint that a number or ``true`` was read as JSON5).
    text: str = ""

    def __str__(self) -> str:
        return f"--set {self.key}"


def _parse_path(key: str, text: str) -> Path:
    path: list[str | int] = []
    for part in key.split("."):
        m = _SEGMENT.fullmatch(part)
        if m is None:
            raise ConfigError(f"--set {text!r}: {key!r} is not a dotted key path (write "
                              "e.g. query.hybrid.vectorWeight or agents.list[0].memorySearch"
                              ".provider)")
        path.append(m.group(1))
        path.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return tuple(path)


def parse_override(text: str) -> Override:
    """``KEY=VALUE`` as an :class:`Override` (see the module docstring for keys and values).

    Raises :class:`ConfigError` for a missing ``=``/key or a broken JSON5 object, list or
    quoted string.

    >>> parse_override("memlab.fusion.method=rrf").value
    'rrf'
    >>> parse_override("agents.list[1].memorySearch.enabled=false").path
    ('agents', 'list', 1, 'memorySearch', 'enabled')
    """
    import json5

    key, sep, raw = str(text).partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"--set {text!r}: write KEY=VALUE, e.g. "
                          "--set query.hybrid.vectorWeight=0.6")
    path = _parse_path(key, text)
    try:
        value = json5.loads(raw)
    except ValueError as exc:
        if raw.strip().startswith(_STRUCTURED):
            raise ConfigError(f"--set {key}: {raw!r} is not valid JSON5 ({exc}); quote a "
                              "string value, e.g. --set 'model=\"text-embedding-3-small\"'"
                              ) from None
        value = raw  # not JSON5 at all: a plain string (provider=local)
    return Override(key, path, value, raw)


def _block_relative(path: Path) -> Path:
    """``path`` without a spelled-out search-block prefix (``memorySearch.``, ...)."""
    for prefix, _family in _PREFIXES:
        if path[:len(prefix)] == prefix:
            return path[len(prefix):]
    return path


def explain_error(error: ConfigError, overrides: Iterable[Override]) -> ConfigError:
    """``error`` with a hint on each issue about an override whose value JSON5 read as a
    number, boolean or null (``--set memlab.profile=2026.9`` is the number 2026.9): how to
    pass it as a string instead. ``error`` itself when no issue is about one.

    >>> ov = parse_override("memlab.profile=2026.9")
    >>> err = ConfigError([ConfigIssue("memlab.profile", "must be '2026.7' or '2026.9'")])
    >>> print(explain_error(err, [ov]))
    memlab.profile: must be '2026.7' or '2026.9' (--set read 2026.9 as a JSON5 number; for \
the string write --set 'memlab.profile="2026.9"')
    """
    if str(error.source or "").startswith("--set"):  # where the key goes, not its type
        return error
    typed = [o for o in overrides if o.value is None or isinstance(o.value, (bool, int, float))]
    issues, changed = [], False
    for issue in error.issues:
        for o in typed:
            tail = join_path("", list(_block_relative(o.path)))
            if issue.path == tail or issue.path.endswith(("." + tail, "]" + tail)):
                kind = ("null" if o.value is None else "boolean"
                        if isinstance(o.value, bool) else "number")
                issue = ConfigIssue(issue.path, (
                    f"{issue.message} (--set read {o.text.strip()} as a JSON5 {kind}; for "
                    f"the string write --set '{o.key}=\"{o.text.strip()}\"')"))
                changed = True
                break
        issues.append(issue)
    if not changed:
        return error
    return ConfigError(issues, source=error.source, line=error.line, column=error.column)


def config_layout(raw: Mapping[str, Any]) -> str:
    """The layout of a raw config: ``"2026.9"`` (``memory.search``), ``"2026.7"`` (a whole
    OpenClaw config: ``agents.defaults.memorySearch``), ``"wrapper"`` (``{memorySearch,
    memlab}``) or ``"bare"`` (a bare ``memorySearch`` block), as :func:`load_config` reads it.

    >>> config_layout({"agents": {}}), config_layout({}), config_layout({"memorySearch": {}})
    ('2026.7', 'bare', 'wrapper')
    """
    memory = raw.get("memory")
    if isinstance(memory, Mapping) and isinstance(memory.get("search"), Mapping):
        return _MEMORY_SEARCH
    if set(raw) & (OPENCLAW_ROOT_KEYS - {"$schema"}):
        return _AGENTS
    return "wrapper" if "memorySearch" in raw else "bare"


def wants_memory_search(overrides: Iterable[Override]) -> bool:
    """Whether any override spells out the 2026.9 search block (``memory.search.*``)."""
    return any(o.path[:2] == ("memory", "search") for o in overrides)


def override_profiles(override: Override) -> tuple[str, ...]:
    """The profiles (release lines) an override is meant for: ``("2026.9",)`` for a
    spelled-out ``memory.search.*`` key, ``("2026.7",)`` for ``agents.defaults.memorySearch.*``
    or ``memorySearch.*``, both for the short form, ``memlab.*`` and other OpenClaw keys
    (whether a profile's layout accepts it is for its schema to say).

    >>> [override_profiles(parse_override(t)) for t in
    ...  ("memory.search.query.maxResults=3", "memorySearch.provider=none", "query.minScore=0")]
    [('2026.9',), ('2026.7',), ('2026.7', '2026.9')]
    """
    for prefix, family in _PREFIXES:
        if override.path[:len(prefix)] == prefix:
            return (family,)
    return (_AGENTS, _MEMORY_SEARCH)


def block_key(override: Override) -> str:
    """The override's key relative to the search block (``query.maxResults`` for
    ``memory.search.query.maxResults``); other keys as written.

    >>> block_key(parse_override("agents.defaults.memorySearch.query.minScore=0.2"))
    'query.minScore'
    """
    for prefix, _family in _PREFIXES:
        if override.path[:len(prefix)] == prefix:
            return join_path("", list(override.path[len(prefix):]))
    return override.key


def _family(layout: str) -> str:
    return _MEMORY_SEARCH if layout == _MEMORY_SEARCH else _AGENTS


def _target(override: Override, layout: str) -> Path:
    """Where ``override`` lands in a config of ``layout``."""
    path = override.path
    if path[0] == "memlab":
        return path
    for prefix, family in _PREFIXES:
        if path[:len(prefix)] == prefix:
            if family != _family(layout):
                have = {_MEMORY_SEARCH: f"{_MEMORY_SEARCH} layout (memory.search)",
                        _AGENTS: f"{_AGENTS} layout (agents.defaults.memorySearch)",
                        "wrapper": f"{_AGENTS} layout ({{memorySearch: ...}})",
                        "bare": f"{_AGENTS} layout (a bare memorySearch block)"}[layout]
                raise ConfigError([ConfigIssue(override.key, (
                    f"names the {family} search block, but the config uses the {have}; "
                    f"write the key relative to the search block ("
                    f"{join_path('', list(path[len(prefix):])) or 'KEY'}) or give a "
                    f"{family} config"))], source="--set")
            return _BLOCK[layout] + path[len(prefix):]
    if path[0] in OPENCLAW_ROOT_KEYS:
        if layout in ("wrapper", "bare"):
            raise ConfigError([ConfigIssue(override.key, (
                f"{path[0]!r} is a key of a whole OpenClaw config, but the config is a "
                "memorySearch block; give a whole config with --config, or set a search "
                "key (e.g. query.maxResults)"))], source="--set")
        return path
    return _BLOCK[layout] + path


def _assign(tree: dict[str, Any], path: Path, override: Override) -> None:
    node: Any = tree
    for i, part in enumerate(path):
        last = i == len(path) - 1
        here = join_path("", list(path[:i + 1]))
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                size = f"has {len(node)} entries" if isinstance(node, list) else \
                    f"is {show_value(node)}, not a list"
                raise ConfigError([ConfigIssue(here, f"no entry {part}: the list {size}")],
                                  source="--set")
        elif not isinstance(node, dict):
            raise ConfigError([ConfigIssue(join_path("", list(path[:i])), (
                f"is {show_value(node)}, not an object, so {part!r} cannot be set in it"))],
                source="--set")
        if last:
            node[part] = plain_copy(override.value)
            return
        child = node[part] if isinstance(part, int) else node.get(part)
        if child is None and isinstance(part, str):
            child = node[part] = {}
        node = child


def apply_overrides(raw: Mapping[str, Any], overrides: Iterable[Override]) -> dict[str, Any]:
    """A copy of the raw config ``raw`` with ``overrides`` set, in order, in its layout
    (:func:`config_layout`; an empty config takes the 2026.9 layout when an override names
    ``memory.search``). Not validated: :func:`load_config` the result.

    Raises :class:`ConfigError` naming the key for a key of the other release's layout, a
    whole-config key on a bare block, or a path through a value that is not an object/list.
    """
    tree = plain_copy(dict(raw))
    overrides = list(overrides)
    layout = config_layout(tree)
    if layout == "bare" and not set(tree) - {"memlab", "$schema"} \
            and wants_memory_search(overrides):
        layout = _MEMORY_SEARCH
        tree.setdefault("memory", {}).setdefault("search", {})
    for override in overrides:
        _assign(tree, _target(override, layout), override)
    return tree


_ACTIVE: ContextVar[tuple[Override, ...]] = ContextVar("memlab_config_overrides", default=())


@contextmanager
def active_overrides(overrides: Iterable[Override]) -> Iterator[None]:
    """Apply ``overrides`` to every config :func:`load_config` loads in this block (scoped to
    the current context: other threads and later code are unaffected).

    >>> from memlab.config import load_config
    >>> with active_overrides([parse_override("query.maxResults=3")]):
    ...     load_config({"memorySearch": {"provider": "none"}}).memory_search.query.max_results
    3
    """
    token = _ACTIVE.set(tuple(overrides))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def current_overrides() -> tuple[Override, ...]:
    """The overrides of the enclosing :func:`active_overrides` block (``()`` outside one)."""
    return _ACTIVE.get()


def apply_active_overrides(raw: Any, name: str) -> tuple[Any, str]:
    """``(raw, name)`` with the active overrides applied, and named in ``name`` so a schema
    error says the value came from ``--set``; unchanged outside :func:`active_overrides`."""
    overrides = _ACTIVE.get()
    if not overrides or not isinstance(raw, Mapping):
        return raw, name
    keys = ", ".join(o.key for o in overrides)  # keys only: a value may be a secret
    return apply_overrides(raw, overrides), f"{name} with --set {keys}"
