"""Agent ids and session keys as OpenClaw normalises them (``src/routing/session-key.ts``)."""

from __future__ import annotations

import re
from typing import Any

from memlab.config.load import normalize_agent_id
from memlab.config.types import DEFAULT_AGENT_ID
from memlab.text.js import (
    js_trim,
)


def parse_agent_key(key: str | None) -> tuple[str, str] | None:
    """``parseAgentSessionKey`` (``agent:<agentId>:<rest>``, compared case-insensitively)."""
    if not isinstance(key, str):
        return None
    raw = js_trim(key).lower()
    parts = raw.split(":")
    if len(parts) < 3 or not parts[1] or not parts[2] or parts[0] != "agent":
        return None
    agent = js_trim(parts[1])
    rest = ":".join(parts[2:])
    if not agent or not rest:
        return None
    return agent, rest


def agent_of_key(key: str, default: str = DEFAULT_AGENT_ID) -> str:
    parsed = parse_agent_key(key)
    return normalize_agent_id(parsed[0] if parsed else default)


def is_cron_run_key(key: Any) -> bool:
    parsed = parse_agent_key(key) if isinstance(key, str) else None
    return bool(parsed) and bool(re.match(r"cron:[^:]+:run:[^:]+(?::|\Z)", parsed[1]))


def is_dreaming_key(key: Any) -> bool:
    """``isDreamingNarrativeSessionStoreKey``."""
    if not isinstance(key, str):
        return False
    trimmed = js_trim(key)
    if not trimmed:
        return False
    first = trimmed.find(":")
    if first < 0:
        return trimmed.startswith("dreaming-narrative-")
    second = trimmed.find(":", first + 1)
    return (trimmed if second < 0 else trimmed[second + 1:]).startswith("dreaming-narrative-")


def trimmed_or_none(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    trimmed = js_trim(value)
    return trimmed or None
