"""The CLI's error reports: an exception to its one-line message on stderr and its exit code.

One mapping for every verb (:func:`memlab.cli.main.main`) and for each query of ``memlab
shell``, so a failed query there prints and returns what ``memlab search`` would have.

>>> report_error(FileNotFoundError("memory workspace not found: /nowhere"))
2
>>> report_error(KeyError("not a CLI error")) is None
True
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Sequence
from typing import Any

from memlab.config import ConfigError
from memlab.embed.base import ProviderUnavailable
from memlab.index.errors import IndexLocked, IndexPaused, IndexUnavailable
from memlab.secrets import scrub

__all__ = ["report_error", "say"]


def say(text: str) -> None:
    """An error line on stderr, scrubbed of every registered secret (memlab.secrets)."""
    print(scrub(text), file=sys.stderr)


def report_error(exc: BaseException, overrides: Sequence[Any] | None = None) -> int | None:
    """Print ``exc`` as the CLI reports it and return its exit code (0 ok, 2 usage, config,
    workspace or I/O error, 3 embedding provider unavailable, 4 search paused, 5 index held
    by another ``memlab index``); ``None`` when ``exc`` is not an error the CLI reports (the
    caller re-raises it). ``overrides``: the verb's ``--set`` values, named in a config
    error's hints."""
    if isinstance(exc, ConfigError):
        if overrides:
            from memlab.config.overrides import explain_error

            exc = explain_error(exc, overrides)  # the same error, with hints
        say(f"memlab: config error: {exc}")
        return 2
    if isinstance(exc, ProviderUnavailable):
        say(f"memlab: embedding provider unavailable: {exc}")
        return 3
    if isinstance(exc, IndexPaused):
        say(f"memlab: {exc}")
        return 4
    if isinstance(exc, IndexLocked):
        say(f"memlab: error: {exc}")
        return 5
    if isinstance(exc, IndexUnavailable | OSError | ValueError | NotImplementedError):
        say(f"memlab: error: {exc}")  # missing or unreadable paths too
        return 2
    if isinstance(exc, sqlite3.DatabaseError):  # disk full, I/O errors, damage mid-query
        hint = "free some disk space and run the command again" if "full" in str(exc) else \
            "if the index file is damaged, rebuild it with `memlab index --force`"
        say(f"memlab: error: SQLite: {exc}; {hint}")
        return 2
    return None
