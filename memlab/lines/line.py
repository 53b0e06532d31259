"""What an OpenClaw release line is, as data: :class:`Line` and the :class:`Step` of its recipe.

A line declares only what differs between OpenClaw releases: where its config lives, the knobs
a user may set and their defaults, the knobs it fixes, its chunker and dated-path rule, its index
layout and its *recipe*, the ordered stages of one search with their parameters. Everything
else (index, legs, stages, kernels, sweep, export, CLI, widgets) is shared and asks the line.

>>> step = Step("decay", {"half_life_days": 30.0})
>>> step.get("half_life_days"), step.get("missing", 1)
(30.0, 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

__all__ = ["DateRule", "Layout", "Line", "Step"]

#: Where a config keeps its memory search: ``agents.defaults.memorySearch`` (per agent
#: ``agents.list[].memorySearch``) or ``memory.search`` (per agent
#: ``agents.entries.<id>.memory.search``).
Layout = Literal["memorySearch", "memory.search"]


@dataclass(frozen=True)
class DateRule:
    """A dated/evergreen path rule of temporal decay (``memlab.decayRule: NAME``).

    ``dated`` is the regular expression of a dated memory path (three groups: year, month,
    day), searched in the normalised path; ``evergreen`` the root files decay never applies
    to (:func:`memlab.workspace.dated_path_date`, :func:`memlab.workspace.is_evergreen`).
    """

    name: str
    dated: str
    evergreen: frozenset[str]


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Step:
    """One stage of a recipe: the shared stage's name and its parameters for this line."""

    stage: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", _frozen(self.params))

    def get(self, key: str, default: Any = None) -> Any:
        """The parameter ``key`` (``default`` when the step does not set it)."""
        return self.params.get(key, default)


@dataclass(frozen=True)
class Line:
    """An OpenClaw release line (module docstring).

    Parameters
    ----------
    name
        What users write: ``memlab.profile: NAME``, ``--profile NAME``, ``--schema NAME``.
    release
        The npm release memlab is exact against (``openclaw@RELEASE``).
    layout
        Where the config keeps the memory search (:data:`Layout`).
    engine
        Which shared search runs the recipe: ``"stages"`` (the stage pipeline of
        :mod:`memlab.openclaw`) or ``"tiered"`` (:mod:`memlab.tiered`: one index with a path
        table, exact-path tiers and the hybrid selection rule).
    recipe
        The ordered steps of one search (:class:`Step`).
    tunable
        The config keys (relative to the layout) a user of this line may set and a sweep offers.
    fixed
        The knobs the line fixes, with their values (relative dotted keys, as ``tunable``).
    defaults
        The defaults of knobs a user may set, where the line's own config reader takes them
        from here (the ``memory.search`` layout); the ``memorySearch`` layout's defaults are its
        schema's (:mod:`memlab.config.schema`).
    chunking_version
        The chunker's version (part of the index identity).
    date_rule
        The dated/evergreen path rule of temporal decay (:func:`memlab.workspace.dated_path_date`).
    index_suffix
        Inserted before the default index file's suffix, so lines never share an index file.
    detected
        Whether a config in ``layout`` without ``memlab.profile`` is this line (one per layout).
    schemas
        The export schemas (``--schema NAME``) that write this line's layout: the line's own
        name is its exact schema (checked with the line's own rules); another name is a looser
        schema of the same layout (an older release's, whose fixed values are reported).
    """

    name: str
    release: str
    layout: Layout
    engine: Literal["stages", "tiered"]
    recipe: tuple[Step, ...]
    tunable: tuple[str, ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    chunking_version: int = 0
    date_rule: str = "memory-dir"
    index_suffix: str = ""
    detected: bool = False
    schemas: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "fixed", _frozen(self.fixed))
        object.__setattr__(self, "defaults", _frozen(self.defaults))
        object.__setattr__(self, "recipe", tuple(self.recipe))
        names = [s.stage for s in self.recipe]
        if len(set(names)) != len(names):
            raise ValueError(f"line {self.name!r}: a recipe names each stage once, got {names}")

    @property
    def config_key(self) -> str:
        """The dotted key of the memory search block (``agents.defaults.memorySearch``...)."""
        return "agents.defaults.memorySearch" if self.layout == "memorySearch" else "memory.search"

    def step(self, stage: str) -> Step | None:
        """The recipe's step for ``stage`` (``None`` when the line has no such stage)."""
        for s in self.recipe:
            if s.stage == stage:
                return s
        return None

    def param(self, stage: str, key: str, default: Any = None) -> Any:
        """``step(stage).get(key, default)``; ``default`` when the stage is absent."""
        s = self.step(stage)
        return default if s is None else s.get(key, default)

    def stages(self) -> tuple[str, ...]:
        """The stage names of the recipe, in order."""
        return tuple(s.stage for s in self.recipe)

    def derive(self, name: str, *, release: str | None = None, detected: bool = False,
               steps: Mapping[str, Mapping[str, Any]] | None = None,
               drop: tuple[str, ...] = (), **changes: Any) -> Line:
        """A new line from this one: ``steps`` updates the named steps' parameters, ``drop``
        removes steps (an engine skips a step its line lacks), other keyword arguments replace
        fields.

        >>> base = Line("x", "1.0", "memory.search", "tiered", (Step("decay", {"h": 30}),
        ...                                                      Step("mmr")))
        >>> base.derive("y", steps={"decay": {"h": 60}}).param("decay", "h")
        60
        >>> base.derive("z", drop=("mmr",)).stages()
        ('decay',)
        """
        updates = dict(steps or {})
        unknown = sorted((set(updates) | set(drop)) - set(self.stages()))
        if unknown:
            raise ValueError(f"line {self.name!r} has no step {unknown}; its steps: "
                             + ", ".join(self.stages()))
        recipe = tuple(Step(s.stage, {**s.params, **updates.get(s.stage, {})})
                       for s in self.recipe if s.stage not in drop)
        changes.setdefault("schemas", ())
        return replace(self, name=name, release=release or self.release, detected=detected,
                       recipe=recipe, **changes)
