"""Shared helpers of the benchmark scripts: timing, machine info, Markdown and JSON output."""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memlab.embed.hashing import HashingProvider

ROOT = Path(__file__).resolve().parent
DATASETS = ROOT.parents[1] / "shared" / "datasets"
RESULTS = ROOT / "results"


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, list[float], Any]:
    """Median wall seconds over ``repeat`` runs, all the times, and the last result."""
    times, result = [], None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, result


def cpu_timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median process CPU seconds (less sensitive than wall time to a busy shared machine)."""
    times, result = [], None
    for _ in range(max(1, repeat)):
        t0 = time.process_time()
        result = fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), result


def machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"python": sys.version.split()[0], "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(), "loadavg": load}


def versions(*names: str) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in ("memlab", "numpy", "scipy", "pandas", *names):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    return out


def markdown(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def write_json(name: str, payload: dict[str, Any], out: Path | None) -> Path:
    path = out or RESULTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"benchmark": name, "machine": machine(), **payload}
    path.write_text(json.dumps(payload, indent=2, default=float) + "\n", encoding="utf-8")
    return path


#: The ``--tiny`` runs' provider: hashed bag-of-words vectors, no model to load.
HashedBow = HashingProvider
