"""Start-up: ``memlab index`` with nothing to do, ``memlab status``, a cold ``memlab search`` and
one search in a warm ``memlab shell``, each verb a fresh process.

    .venv/bin/python benchmarks/bench_startup.py [--repeat 5] [--shell-queries 20] [--tiny]
        [--no-bytecode-cache] [--out FILE]

A copy of ``datasets/sample-memory/workspace`` in a scratch folder is indexed once (the local
model, a scratch embedding cache), then ``memlab index`` (incremental, nothing changed),
``memlab status``, ``memlab search`` (the first query of ``datasets/sample-memory/
queries.jsonl``: a fresh process loads the model to embed it) and ``memlab shell`` (with that
query, then with it and ``--shell-queries`` more) run ``--repeat`` times each, alternated, as
``python -m memlab.cli`` subprocesses. Each run records wall seconds, CPU seconds (user + system
of the child, from ``getrusage``) and the 1-minute load average before it; the table shows
medians. One search in the warm shell is ``(shell with 1 + N queries - shell with 1) / N``, the
same for CPU. CPU time is the figure to compare on a shared machine: wall time grows with the
load, CPU time much less.

Bytecode: the children run with ``PYTHONDONTWRITEBYTECODE`` removed and ``PYTHONPYCACHEPREFIX``
in the scratch folder (the first index writes it), as an installed memlab runs (pip compiles
the package when it installs it), whatever the calling environment sets; without bytecode
each process compiles memlab's ~60 imported modules from source (~0.1 s CPU).
``--no-bytecode-cache`` keeps the caller's setting instead.

Target (issue 16 item 4): <= 0.6 s wall for the no-op index and status on an idle machine.
Every no-op index must report ``0 texts embedded`` (the run fails otherwise).

``--tiny`` (smoke test): ``provider: "none"`` (keyword-only), so no run needs a model.
"""

from __future__ import annotations

import argparse
import json
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

DATASET = Path(__file__).resolve().parents[1] / "datasets" / "sample-memory"
SAMPLE = DATASET / "workspace"
#: Wall seconds the no-op index and status should take on an idle machine (issue 16 item 4).
TARGET_WALL = 0.6
LABELS = {"index": "memlab index (nothing to do)", "status": "memlab status",
          "search": "memlab search (cold: loads the model)",
          "shell": "one search in a warm memlab shell"}


def run(argv: list[str], env: dict[str, str], stdin: str | None = None) -> dict[str, Any]:
    """``python -m memlab.cli ARGV`` once (``stdin`` on its standard input): wall and CPU
    seconds, load before, its output."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memlab.cli", *argv], capture_output=True,
                          text=True, env=env, timeout=1800, input=stdin)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"memlab {' '.join(argv)} failed ({done.returncode}): "
                         f"{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "load": load, "stdout": done.stdout}


def queries(n: int) -> list[str]:
    """The first ``n`` query texts of the sample dataset."""
    with (DATASET / "queries.jsonl").open(encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    return texts[:n]


def child_env(scratch: Path, bytecode_cache: bool) -> dict[str, str]:
    """The children's environment: quiet, offline, a scratch cache and (``bytecode_cache``)
    bytecode written once to the scratch folder and read by every later run."""
    env = os.environ | {"MEMLAB_PROGRESS": "0", "HF_HUB_OFFLINE": "1",
                        "MEMLAB_CACHE_DIR": str(scratch / "cache")}
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    return env


def median_of(results: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in results)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each verb (default 5)")
    ap.add_argument("--shell-queries", type=int, default=20,
                    help="queries after the first one in the warm shell (default 20)")
    ap.add_argument("--tiny", action="store_true", help="keyword-only: no model (smoke test)")
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="keep the caller's PYTHONDONTWRITEBYTECODE / PYTHONPYCACHEPREFIX")
    ap.add_argument("--out", type=Path, help="JSON output (default benchmarks/results/)")
    args = ap.parse_args(argv)
    texts = queries(1 + max(1, args.shell_queries))
    n_more = len(texts) - 1

    scratch = Path(tempfile.mkdtemp(prefix="memlab-bench-startup-"))
    try:
        ws = scratch / "workspace"
        shutil.copytree(SAMPLE, ws)
        index = scratch / "index.sqlite"
        env = child_env(scratch, not args.no_bytecode_cache)
        common = [str(ws), "--index", str(index)]
        answer = ["--json", "--now", "2026-10-01T09:00:00Z"]  # the same bits in each run
        if args.tiny:
            common += ["--set", "provider=none"]
        first = run(["index", *common], env)
        print(f"first index: {first['cpu']:.2f} s CPU, {first['wall']:.2f} s wall, "
              f"load {first['load']:.2f}", file=sys.stderr)
        runs: dict[str, list[dict[str, Any]]] = {"index": [], "status": [], "search": []}
        shell_one: list[dict[str, Any]] = []
        shell_many: list[dict[str, Any]] = []
        for _ in range(max(1, args.repeat)):
            for verb in runs:
                argv_ = (["search", str(ws), texts[0], *common[1:], *answer] if verb == "search"
                         else [verb, *common])
                result = run(argv_, env)
                if verb == "index" and " 0 texts embedded" not in result["stdout"]:
                    raise SystemExit(f"the no-op index embedded something: {result['stdout']}")
                runs[verb].append(result)
            shell = ["shell", *common, *answer]
            shell_one.append(run(shell, env, texts[0] + "\n"))
            shell_many.append(run(shell, env, "".join(t + "\n" for t in texts)))
            if shell_one[-1]["stdout"] != runs["search"][-1]["stdout"]:
                raise SystemExit("the shell's answer differs from memlab search's")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    runs["shell"] = [{"cpu": (many["cpu"] - one["cpu"]) / n_more,
                      "wall": (many["wall"] - one["wall"]) / n_more,
                      "load": max(one["load"], many["load"])}
                     for one, many in zip(shell_one, shell_many, strict=True)]
    rows, summary = [], {}
    for verb, results in runs.items():
        cpu, wall = median_of(results, "cpu"), median_of(results, "wall")
        loads = [r["load"] for r in results]
        if verb in ("index", "status"):
            verdict = "met" if wall <= TARGET_WALL else "not met at this load"
            target = f"<= {TARGET_WALL} s wall: {verdict}"
        elif verb == "shell":
            cold = median_of(runs["search"], "wall")
            target = f"{cold / wall:.0f}x faster than a cold search (wall)" if wall > 0 else "-"
        else:
            target = "-"
        rows.append([LABELS[verb], round(cpu, 3), round(wall, 3),
                     f"{min(loads):.2f}-{max(loads):.2f}", target])
        summary[verb] = {"cpu_median": cpu, "wall_median": wall, "loads": loads,
                         "cpu": [r["cpu"] for r in results],
                         "wall": [r["wall"] for r in results]}
    summary["shell"]["queries_after_first"] = n_more
    headers = ["command", "CPU s (median)", "wall s (median)", "load (1 min)", "target"]
    print(markdown(headers, rows))
    path = write_json("bench_startup", {
        "repeat": args.repeat, "tiny": args.tiny, "bytecode_cache": not args.no_bytecode_cache,
        "shell_queries": n_more,
        "first_index": {k: first[k] for k in ("cpu", "wall", "load")}, "runs": summary,
        "table": {"headers": headers, "rows": rows}, "versions": versions()}, args.out)
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
