"""Ranking profiles: which OpenClaw release line memlab reproduces.

* ``"2026.7"``: OpenClaw 2026.7.35 (memlab's pipeline, :mod:`memlab.openclaw`), config layout
  ``agents.defaults.memorySearch``;
* ``"2026.9"``: OpenClaw 2026.9.6 (:mod:`memlab.profiles.openclaw_2026_9`), config layout
  ``memory.search``.

:func:`resolve_profile` picks one: an explicit ``memlab.profile``, else the layout.

>>> resolve_profile({"memory": {"search": {"provider": "none"}}})
'2026.9'
>>> resolve_profile({"agents": {"defaults": {"memorySearch": {}}}, "memlab": {"profile": "2026.9"}})
'2026.9'
>>> resolve_profile({})
'2026.7'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PROFILES = ("2026.7", "2026.9")
DEFAULT_PROFILE = "2026.7"


def check_profile(value: Any, where: str = "memlab.profile") -> str:
    """``value`` if it names a profile, else a ValueError naming ``where`` and the choices."""
    if value not in PROFILES:
        raise ValueError(f"{where}: unknown profile {value!r}; allowed: "
                         + ", ".join(repr(p) for p in PROFILES))
    return value


def resolve_profile(config: Mapping[str, Any] | None) -> str:
    """The profile of a raw config: ``memlab.profile`` when set, else ``"2026.9"`` for the
    ``memory.search`` layout, else ``"2026.7"`` (``agents.defaults.memorySearch``, a bare
    ``memorySearch`` object, or nothing)."""
    config = config or {}
    memlab = config.get("memlab")
    if isinstance(memlab, Mapping) and memlab.get("profile") is not None:
        return check_profile(memlab["profile"])
    memory = config.get("memory")
    if isinstance(memory, Mapping) and isinstance(memory.get("search"), Mapping):
        return "2026.9"
    return DEFAULT_PROFILE
