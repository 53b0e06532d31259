"""Check that the real OpenClaw 2026.7.35 indexes and searches through ``memlab serve-embeddings``
and gets the same vector scores as memlab's local provider.

    .venv/bin/python parity/check_serve.py [--model minilm] [--workspace notes]
                                           [--cache DIR] [--install] [--tol 1e-5]

1. starts ``memlab serve-embeddings --model MODEL --host 127.0.0.1 --port 0`` (a subprocess;
   the URL is read from its start-up line, ``GET /health`` must answer);
2. in a scratch HOME (the parity harness's Node 24 + OpenClaw install, ``parity/run.py``)
   writes a config whose ``memorySearch`` is ``{provider: "openai-compatible", model: MODEL,
   remote: {baseUrl: <server>/v1}}`` over the parity workspace, and runs
   ``openclaw memory index --force`` and ``openclaw memory search`` for every query of
   ``parity/queries/<workspace>.txt`` (hybrid, ``maxResults`` 50, ``minScore`` -1);
3. for every hit, re-computes the vector score with memlab's ``local`` provider (same model,
   in-process, no server): cosine of the query vector and the chunk text's vector (OpenClaw's
   stored chunk text), in float32 as sqlite-vec computes it; and requires
   ``|OpenClaw vectorScore - memlab score| <= tol``.

Exit code 0 when every score matches, 1 on a mismatch, 2 when it could not run. The server is
stopped (SIGTERM to the process this script started) in every case.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_export import find_install, run  # noqa: E402 - the harness module, loaded by path


def start_server(model: str, timeout: float = 180) -> tuple[subprocess.Popen, str]:
    """``memlab serve-embeddings`` on a free loopback port: ``(process, base URL)``."""
    cmd = [sys.executable, "-m", "memlab.cli", "serve-embeddings", "--model", model,
           "--host", "127.0.0.1", "--port", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            if proc.poll() is not None:
                raise RuntimeError(f"memlab serve-embeddings exited {proc.returncode}")
            continue
        found = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
        if found:
            url = found.group(1)
            with urllib.request.urlopen(f"{url}/health", timeout=30) as resp:
                health = json.load(resp)
            if health.get("status") != "ok":
                raise RuntimeError(f"unhealthy server: {health}")
            return proc, url
    stop_server(proc)
    raise RuntimeError("memlab serve-embeddings did not start in time")


def stop_server(proc: subprocess.Popen) -> None:
    """SIGTERM the server this script started (clean shutdown), then wait."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def chunk_texts(home: Path, agent: str) -> dict[tuple[str, int, int], str]:
    """``(path, start, end) -> text`` of OpenClaw's stored chunks."""
    db = home / ".openclaw" / "agents" / agent / "agent" / "openclaw-agent.sqlite"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT path, start_line, end_line, text FROM memory_index_chunks"
                           ).fetchall()
    finally:
        con.close()
    return {(str(p), int(s), int(e)): str(t) for p, s, e, t in rows}


def cosine32(a: np.ndarray, b: np.ndarray) -> float:
    """sqlite-vec's ``1 - vec_distance_cosine`` on float32 vectors."""
    a32, b32 = np.asarray(a, np.float32), np.asarray(b, np.float32)
    denom = float(np.sqrt(np.dot(a32, a32)) * np.sqrt(np.dot(b32, b32)))
    return 0.0 if denom == 0 else float(np.dot(a32, b32)) / denom


def check(model: str, workspace: str, install: Any, tol: float, now: str) -> dict[str, Any]:
    """Run the check; returns ``{"ok", "queries", "hits", "max_diff", "problems"}``."""
    from memlab.embed import get_provider

    problems: list[str] = []
    proc, url = start_server(model)
    try:
        with tempfile.TemporaryDirectory(prefix="memlab-serve-check-") as tmp:
            scratch = Path(tmp)
            workspaces = run.stage_workspaces([workspace], scratch / "ws", run.iso_to_ms(now))
            agent = next(iter(workspaces))
            home = scratch / "home"
            (home / ".openclaw").mkdir(parents=True)
            ms = {"provider": "openai-compatible", "model": model,
                  "remote": {"baseUrl": f"{url}/v1"}, "extraPaths": ["extra"]}
            cfg = run.openclaw_config(ms, workspaces)
            (home / ".openclaw" / "openclaw.json").write_text(json.dumps(cfg, indent=2),
                                                             encoding="utf-8")
            queries = run.read_queries(run.workspace_source(workspace)[2])
            batch = run.run_openclaw_batch(install, home, now, {agent: queries})
            index = batch["agents"][agent]["index"]
            if index["exitCode"] != 0:
                raise RuntimeError("openclaw memory index --force failed: "
                                   + (index["stderr"] or index["stdout"]).strip()[-800:])
            texts = chunk_texts(home, agent)
            local = get_provider("local", model_path=model)
            max_diff, hits = 0.0, 0
            for entry in batch["agents"][agent]["queries"]:
                q = entry["query"]
                if entry["exitCode"] != 0 or entry["json"] is None:
                    problems.append(f"openclaw memory search {q!r} failed")
                    continue
                results = entry["json"]["results"]
                if not results:
                    continue
                qvec = local.embed_query(q)
                keys = [(r["path"], int(r["startLine"]), int(r["endLine"])) for r in results]
                docs = local.embed_documents([texts[k] for k in keys])
                for r, key, dvec in zip(results, keys, docs, strict=True):
                    if "vectorScore" not in r:
                        problems.append(f"{q!r}: OpenClaw reported no vectorScore (mode "
                                        f"{entry['json'].get('mode')})")
                        break
                    diff = abs(float(r["vectorScore"]) - cosine32(qvec, dvec))
                    max_diff = max(max_diff, diff)
                    hits += 1
                    if diff > tol:
                        problems.append(f"{q!r} {key}: OpenClaw {r['vectorScore']:.7f} vs "
                                        f"memlab {cosine32(qvec, dvec):.7f}")
            if hits == 0:
                problems.append("OpenClaw returned no hits at all")
    finally:
        stop_server(proc)
    return {"ok": not problems, "queries": len(queries), "hits": hits, "max_diff": max_diff,
            "problems": problems, "server": url}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="minilm", help="memlab local model (default minilm)")
    parser.add_argument("--workspace", default="notes", help="parity workspace (default notes)")
    parser.add_argument("--cache", type=Path, default=None,
                        help=f"parity install folder (default {run.DEFAULT_CACHE})")
    parser.add_argument("--install", action="store_true",
                        help="install Node 24 + OpenClaw there if missing (needs npm)")
    parser.add_argument("--tol", type=float, default=1e-5,
                        help="max |vectorScore difference| (float32; default 1e-5)")
    parser.add_argument("--now", default=run.DEFAULT_NOW, help="frozen clock")
    args = parser.parse_args(argv)
    try:
        install = find_install(args.cache, args.install)
    except run.SetupError as exc:
        print(f"check_serve: {exc}", file=sys.stderr)
        return 2
    if install is None:
        print("check_serve: no OpenClaw install; run `make parity` once or pass --install",
              file=sys.stderr)
        return 2
    try:
        result = check(args.model, args.workspace, install, args.tol, args.now)
    except (RuntimeError, OSError, run.SetupError, subprocess.SubprocessError) as exc:
        print(f"check_serve: could not run: {exc}", file=sys.stderr)
        return 2
    status = "OK" if result["ok"] else "MISMATCH"
    print(f"{status}: OpenClaw {run.OPENCLAW_VERSION} indexed and searched "
          f"{args.workspace!r} through memlab serve-embeddings ({args.model}, "
          f"{result['server']}); {result['queries']} queries, {result['hits']} hits, max "
          f"|vectorScore - memlab local| = {result['max_diff']:.3g} (tol {args.tol:g})")
    for problem in result["problems"][:20]:
        print(f"  {problem}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
