"""Start-up: ``memlab index`` with nothing to do and ``memlab status``, each a fresh process.

    .venv/bin/python benchmarks/bench_startup.py [--repeat 5] [--tiny] [--out FILE]

A copy of ``datasets/sample-memory/workspace`` in a scratch folder is indexed once (the local
model, a scratch embedding cache), then ``memlab index`` (incremental, nothing changed) and
``memlab status`` run ``--repeat`` times each, alternated, as ``python -m memlab.cli``
subprocesses. Each run records wall seconds, CPU seconds (user + system of the child, from
``getrusage``) and the 1-minute load average before it; the table shows medians. CPU time is
the figure to compare on a shared machine: wall time grows with the load, CPU time much less.

Target (issue 16 item 4): <= 0.6 s wall each on an idle machine. Every no-op index must report
``0 texts embedded`` (the run fails otherwise).

``--tiny`` (smoke test): ``provider: "none"`` (keyword-only), so the first index needs no
model.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import markdown, versions, write_json  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "sample-memory" / "workspace"
#: Wall seconds each verb should take on an idle machine (issue 16 item 4).
TARGET_WALL = 0.6


def run(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    """``python -m memlab.cli ARGV`` once: wall and CPU seconds, load before, its output."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memlab.cli", *argv], capture_output=True,
                          text=True, env=env, timeout=1800)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"memlab {' '.join(argv)} failed ({done.returncode}): "
                         f"{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "load": load, "stdout": done.stdout}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each verb (default 5)")
    ap.add_argument("--tiny", action="store_true", help="keyword-only: no model (smoke test)")
    ap.add_argument("--out", type=Path, help="JSON output (default benchmarks/results/)")
    args = ap.parse_args(argv)

    scratch = Path(tempfile.mkdtemp(prefix="memlab-bench-startup-"))
    try:
        ws = scratch / "workspace"
        shutil.copytree(SAMPLE, ws)
        index = scratch / "index.sqlite"
        env = os.environ | {"MEMLAB_PROGRESS": "0", "HF_HUB_OFFLINE": "1",
                            "MEMLAB_CACHE_DIR": str(scratch / "cache")}
        common = [str(ws), "--index", str(index)]
        if args.tiny:
            common += ["--set", "provider=none"]
        first = run(["index", *common], env)
        print(f"first index: {first['cpu']:.2f} s CPU, {first['wall']:.2f} s wall, "
              f"load {first['load']:.2f}", file=sys.stderr)
        runs: dict[str, list[dict[str, Any]]] = {"index": [], "status": []}
        for _ in range(max(1, args.repeat)):
            for verb in runs:
                result = run([verb, *common], env)
                if verb == "index" and " 0 texts embedded" not in result["stdout"]:
                    raise SystemExit(f"the no-op index embedded something: {result['stdout']}")
                runs[verb].append(result)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    rows, summary = [], {}
    for verb, results in runs.items():
        cpu = statistics.median(r["cpu"] for r in results)
        wall = statistics.median(r["wall"] for r in results)
        loads = [r["load"] for r in results]
        label = "memlab index (nothing to do)" if verb == "index" else "memlab status"
        verdict = "met" if wall <= TARGET_WALL else "not met at this load"
        rows.append([label, round(cpu, 3), round(wall, 3),
                     f"{min(loads):.2f}-{max(loads):.2f}", f"<= {TARGET_WALL} s wall: {verdict}"])
        summary[verb] = {"cpu_median": cpu, "wall_median": wall, "loads": loads,
                         "cpu": [r["cpu"] for r in results],
                         "wall": [r["wall"] for r in results]}
    headers = ["command", "CPU s (median)", "wall s (median)", "load (1 min)", "target"]
    print(markdown(headers, rows))
    path = write_json("bench_startup", {
        "repeat": args.repeat, "tiny": args.tiny,
        "first_index": {k: first[k] for k in ("cpu", "wall", "load")}, "runs": summary,
        "table": {"headers": headers, "rows": rows}, "versions": versions()}, args.out)
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
