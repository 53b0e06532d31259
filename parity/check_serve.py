"""Check, for every packaged local model, that a config tuned with it and exported by
``memlab export`` makes the real OpenClaw 2026.7.35 rank exactly as memlab does.

    .venv/bin/python parity/check_serve.py [--models minilm,e5-small-multilingual,...]
                                           [--workspace NAME] [--cache DIR] [--install]
                                           [--tol 1e-6] [--json FILE]

Per model (default: every installed one of ``memlab.embed.models.PACKAGED_MODELS``, each on a
small parity workspace, :data:`WORKSPACES`):

1. the "tuned" config: the parity workspace as one agent, ``memorySearch: {provider: "local",
   local: {modelPath: MODEL}, extraPaths: ["extra"]}`` (memlab's packaged model, hybrid
   defaults), memlab's keyword leg ``fts5``;
2. ``memlab export CONFIG --base CONFIG --serve-port P --out $HOME/.openclaw/openclaw.json``:
   the file OpenClaw loads, an ``openai-compatible`` provider at ``127.0.0.1:P`` with the input
   types the server needs; its header must name the command started in 3;
3. ``memlab serve-embeddings --model MODEL --host 127.0.0.1 --port P`` (a subprocess; must
   answer ``GET /health``);
4. OpenClaw: ``memory index --force`` and ``memory search --json --max-results 50 --min-score
   -1`` for every query of the workspace (clock frozen, ``parity/run.py``'s batch runner);
5. memlab: ``memlab index --force`` and ``memlab search`` with the *tuned* config (the local
   provider in-process, no server), same flags;
6. per query, ``parity/run.py``'s :func:`compare_results`: the same hits in the same order
   (ties as sets) and ``score``/``vectorScore``/``textScore`` within ``--tol``.

It prints one line per model (queries agreeing, hits, max |Δ|, seconds). Exit code 0 when every
model agrees, 1 on a mismatch, 2 when it could not run. The servers are stopped (SIGTERM to
the processes this script started) in every case.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import json5

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_export import find_install, run  # noqa: E402 - the harness module, loaded by path

#: The parity workspace each model runs on: small, and in the model's languages.
WORKSPACES = {"minilm": "notes", "minilm-int8-onnx": "notes", "e5-small-enpt": "notes",
              "e5-small-multilingual": "cjk", "use-multilingual": "cjk"}


@dataclass
class ModelResult:
    """One model's check."""

    model: str
    workspace: str
    queries: int = 0
    agree: int = 0  # memlab's tuned config (local provider) vs OpenClaw's exported config
    agree_exported: int = 0  # memlab's exported config (same server) vs OpenClaw's
    hits: int = 0
    max_diff: float = 0.0
    max_vector_diff: float = 0.0
    seconds: float = 0.0
    serve_command: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (not self.problems and self.queries > 0
                and self.agree == self.agree_exported == self.queries)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the server binds it right after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(model: str, port: int, timeout: float = 1200) -> subprocess.Popen:
    """``memlab serve-embeddings --model MODEL`` on ``127.0.0.1:port``, healthy. Its output is
    drained by a thread for as long as it runs (kept in ``proc.log_tail``): a full pipe would
    block the server on its next warning."""
    cmd = [sys.executable, "-m", "memlab.cli", "serve-embeddings", "--model", model,
           "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "HF_HUB_OFFLINE": "1",
                                 "TRANSFORMERS_OFFLINE": "1"})
    tail: collections.deque[str] = collections.deque(maxlen=20)
    started = threading.Event()

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            tail.append(line.rstrip())
            if re.search(rf"on http://127\.0\.0\.1:{port}/v1", line):
                started.set()

    threading.Thread(target=drain, daemon=True).start()
    proc.log_tail = tail  # type: ignore[attr-defined]
    deadline = time.monotonic() + timeout
    try:
        while not started.wait(0.5):
            if proc.poll() is not None:
                raise RuntimeError(f"memlab serve-embeddings --model {model} exited "
                                   f"{proc.returncode}: " + " | ".join(tail))
            if time.monotonic() > deadline:
                raise RuntimeError(f"memlab serve-embeddings --model {model} did not start "
                                   "in time")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=30) as resp:
            health = json.load(resp)
        if health.get("status") != "ok":
            raise RuntimeError(f"unhealthy server: {health}")
        return proc
    except BaseException:
        stop_server(proc)
        raise


def stop_server(proc: subprocess.Popen) -> None:
    """SIGTERM the server this script started (clean shutdown), then wait."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _search_all(result: ModelResult, batch: dict[str, Any], agent: str, ws_path: Path,
                config: Path, index_file: Path, now: str, tol: float, label: str
                ) -> list[tuple[str, list[dict[str, Any]]]]:
    """``memlab index`` + ``memlab search`` per query with ``config``, compared with OpenClaw's
    results; returns OpenClaw's ``(query, results)`` pairs."""
    code, _, err = run.memlab_index(ws_path, config, index_file)
    if code != 0:
        result.problems.append(f"{label}: memlab index failed (exit {code}): "
                               f"{err.strip()[-500:]}")
        return []
    pairs = []
    agree = 0
    for entry in batch["agents"][agent]["queries"]:
        q = entry["query"]
        if entry["exitCode"] != 0 or entry["json"] is None:
            result.problems.append(f"openclaw memory search {q!r} failed: "
                                   + (entry["stderr"] or entry["stdout"]).strip()[-300:])
            continue
        theirs = entry["json"]["results"]
        if theirs and "vectorScore" not in theirs[0]:
            result.problems.append(f"{q!r}: OpenClaw searched without vectors (mode "
                                   f"{entry['json'].get('mode')})")
            continue
        pairs.append((q, theirs))
        code, out, err = run.memlab_search(ws_path, q, config, now, index=index_file)
        if code != 0:
            result.problems.append(f"{label}: memlab search {q!r} failed: {err.strip()[-300:]}")
            continue
        cmp = run.compare_results(theirs, json.loads(out)["results"], tol, agent, q,
                                  limit=run.MAX_RESULTS)
        result.max_diff = max(result.max_diff, cmp.max_score_diff, cmp.max_component_diff)
        if cmp.status == "agree":
            agree += 1
        else:
            result.problems.append(f"{label}: {cmp.describe()}")
    if label == "tuned":
        result.agree = agree
    else:
        result.agree_exported = agree
    return pairs


def _vector_check(result: ModelResult, pairs: list[tuple[str, list[dict[str, Any]]]],
                  texts: dict[tuple[str, int, int], str], model: str, tol: float) -> None:
    """Every hit's OpenClaw ``vectorScore`` against the cosine (float32, as sqlite-vec) of
    memlab's in-process local vectors of the query and of OpenClaw's stored chunk text."""
    import numpy as np

    from memlab.embed import get_provider

    local = get_provider("local", model_path=model)
    for q, theirs in pairs:
        qvec = np.asarray(local.embed_query(q), np.float32)
        keys = [(r["path"], int(r["startLine"]), int(r["endLine"])) for r in theirs]
        docs = np.asarray(local.embed_documents([texts[k] for k in keys]), np.float32)
        for r, key, dvec in zip(theirs, keys, docs, strict=True):
            mine = float(np.dot(qvec, dvec)) / float(np.linalg.norm(qvec) * np.linalg.norm(dvec))
            diff = abs(float(r["vectorScore"]) - mine)
            result.max_vector_diff = max(result.max_vector_diff, diff)
            result.hits += 1
            if diff > tol:
                result.problems.append(f"vectors: {q!r} {key}: OpenClaw {r['vectorScore']:.7f} "
                                       f"vs memlab local {mine:.7f}")


#: The cross-check of each vectorScore re-embeds the hit texts in batches of their own, so a
#: transformer's padded batches and float32 sums differ from the server's by up to ~1e-6
#: (e5: 1.2e-6 measured); the pipelines' own scores are compared at --tol.
VECTOR_TOL = 1e-5


def check_model(model: str, workspace: str, install: Any, tol: float, now: str,
                max_queries: int | None = None, vector_tol: float = VECTOR_TOL) -> ModelResult:
    """Steps 1-6 of the module docstring for one model."""
    result = ModelResult(model, workspace)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"memlab-serve-{model}-") as tmp:
        scratch = Path(tmp)
        workspaces = run.stage_workspaces([workspace], scratch / "ws", run.iso_to_ms(now))
        agent, ws_path = next(iter(workspaces.items()))
        home = scratch / "home"
        (home / ".openclaw").mkdir(parents=True)
        tuned = run.openclaw_config({"provider": "local", "local": {"modelPath": model},
                                     "extraPaths": ["extra"]}, workspaces)
        tuned = run.memlab_config(tuned, "fts5", scratch / "embeddings.sqlite")
        tuned_path = scratch / "tuned.json"
        tuned_path.write_text(json.dumps(tuned, indent=2), encoding="utf-8")
        port = free_port()
        exported = home / ".openclaw" / "openclaw.json"
        code, out, err = run.memlab_cli(["export", str(tuned_path), "--base", str(tuned_path),
                                         "--schema", "2026.7", "--serve-port", str(port),
                                         "--out", str(exported)])
        if code != 0:
            result.problems.append(f"memlab export failed (exit {code}): {err.strip()[-500:]}")
            return result
        text = exported.read_text(encoding="utf-8")
        expected = (f"memlab serve-embeddings --model {model} --host 127.0.0.1 "
                    f"--port {port}")
        if f"//   {expected}" not in text:
            result.problems.append(f"the export's header does not name `{expected}`")
        result.serve_command = expected
        # memlab reads the exported file too (plus its own key: keyword leg, cache)
        served_cfg = json5.loads(text)
        served_cfg["memlab"] = tuned["memlab"]
        served_path = scratch / "exported-memlab.json"
        served_path.write_text(json.dumps(served_cfg, indent=2), encoding="utf-8")
        queries = run.read_queries(run.workspace_source(workspace)[2])[:max_queries]
        result.queries = len(queries)
        proc = start_server(model, port)
        try:
            batch = run.run_openclaw_batch(install, home, now, {agent: queries})
            index = batch["agents"][agent]["index"]
            if index["exitCode"] != 0:
                result.problems.append("openclaw memory index --force failed: "
                                       + (index["stderr"] or index["stdout"]).strip()[-800:])
                return result
            # production config on both sides, through the same server
            _search_all(result, batch, agent, ws_path, served_path,
                        scratch / "memlab-exported.sqlite", now, tol, "exported")
        finally:
            stop_server(proc)
        # the tuned config, memlab's local provider in-process: what the user measured
        pairs = _search_all(result, batch, agent, ws_path, tuned_path,
                            scratch / "memlab-tuned.sqlite", now, tol, "tuned")
        _vector_check(result, pairs, chunk_texts(home, agent), model, vector_tol)
        index = run.compare_index(agent, run.openclaw_chunks(home, agent),
                                  run.memlab_chunks(ws_path, tuned_path))
        if not index.agree:  # the usual cause of a "tuned" hits mismatch: chunking
            result.problems.insert(0, "chunks of memlab's tuned config vs OpenClaw's: "
                                   + index.describe())
        if result.hits == 0:
            result.problems.append("OpenClaw returned no hits at all")
    result.seconds = time.monotonic() - t0
    return result


def chunk_texts(home: Path, agent: str) -> dict[tuple[str, int, int], str]:
    """``(path, start, end) -> text`` of OpenClaw's stored chunks."""
    import sqlite3

    db = home / ".openclaw" / "agents" / agent / "agent" / "openclaw-agent.sqlite"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT path, start_line, end_line, text FROM memory_index_chunks"
                           ).fetchall()
    finally:
        con.close()
    return {(str(p), int(s), int(e)): str(t) for p, s, e, t in rows}


def installed_models() -> list[str]:
    """The packaged models whose packages are installed."""
    from memlab.embed.models import PACKAGED_MODELS

    return [alias for alias, spec in PACKAGED_MODELS.items() if spec.installed()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=None,
                        help="comma-separated packaged model aliases (default: every installed "
                        "one)")
    parser.add_argument("--workspace", default=None,
                        help="one parity workspace for every model (default: per model, "
                        f"{WORKSPACES})")
    parser.add_argument("--cache", type=Path, default=None,
                        help=f"parity install folder (default {run.DEFAULT_CACHE})")
    parser.add_argument("--install", action="store_true",
                        help="install Node 24 + OpenClaw there if missing (needs npm)")
    parser.add_argument("--vector-tol", type=float, default=VECTOR_TOL,
                        help="max |vectorScore - memlab's re-embedded cosine| "
                        "(default %(default)g)")
    parser.add_argument("--tol", type=float, default=run.DEFAULT_TOL,
                        help=f"max |score difference| (default {run.DEFAULT_TOL:g})")
    parser.add_argument("--now", default=run.DEFAULT_NOW, help="frozen clock")
    parser.add_argument("--queries", type=int, default=8,
                        help="first N queries of each workspace (default 8; 0 = all)")
    parser.add_argument("--json", type=Path, default=None, help="write the results as JSON")
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
    args.queries = args.queries or None
    models = args.models.split(",") if args.models else installed_models()
    if not models:
        print("check_serve: no packaged model is installed", file=sys.stderr)
        return 2
    results: list[ModelResult] = []
    for model in models:
        workspace = args.workspace or WORKSPACES.get(model, "notes")
        try:
            res = check_model(model, workspace, install, args.tol, args.now, args.queries,
                              args.vector_tol)
        except (RuntimeError, OSError, run.SetupError, subprocess.SubprocessError) as exc:
            print(f"check_serve: {model}: could not run: {exc}", file=sys.stderr)
            return 2
        results.append(res)
        status = "OK" if res.ok else "MISMATCH"
        print(f"{status}: {model} on {workspace!r}: OpenClaw {run.OPENCLAW_VERSION} with the "
              f"exported config through `{res.serve_command}`: memlab's tuned config "
              f"{res.agree}/{res.queries} queries agree, memlab's exported config "
              f"{res.agree_exported}/{res.queries}; {res.hits} hits, max |Δscore| "
              f"{res.max_diff:.3g}, max |ΔvectorScore| vs memlab local "
              f"{res.max_vector_diff:.3g} (tol {args.vector_tol:g}), {res.seconds:.0f} s",
              flush=True)
        for problem in res.problems[:10]:
            print(f"  {problem}", flush=True)
    if args.json:
        args.json.write_text(json.dumps([{**asdict(r), "ok": r.ok} for r in results],
                                        indent=2, ensure_ascii=False), encoding="utf-8")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
