"""The OpenClaw 2026.9 line in the parity harness (``parity/run.py --openclaw-version 2026.9.6``).

What differs from the 2026.7.35 runs (docs/openclaw-2026.9.md):

* the config layout: ``memory.search`` at the top level and agents in ``agents.entries.<id>``
  (:func:`openclaw_config`); the ranking is fixed, so the suites vary only what 2026.9 still
  configures: the provider (``none`` = keyword only), the sources (session transcripts) and
  the FTS tokenizer (:data:`SUITES`);
* every query also runs with ``--max-results 1`` and ``10`` (:data:`ALSO_MAX_RESULTS`); since
  2026.9 selects from a 200-candidate universe and cuts last, those answers must be prefixes of
  the ``--max-results 50`` answer (:func:`max_results_prefix_issues`);
* OpenClaw's index is read with its recall metadata (importance, triggers, project key) and
  checked against memlab's chunking version 5 directly (:func:`chunker_issues`), before memlab
  has a 2026.9 search profile;
* OpenClaw's outputs can be saved (``--save-openclaw DIR``) and replayed later without Node
  (``--openclaw-from DIR``; :func:`save_outputs`, :func:`load_outputs`).
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

VERSION = "2026.9.6"
#: memlab's CLI arguments for this line (used once ``memlab search --profile`` exists).
MEMLAB_ARGS = ("--profile", "2026.9")
ALSO_MAX_RESULTS = (1, 10)

#: ``extraPaths`` of the ``extra-patterns`` suite (workspaces/patterns): two patterns on one
#: folder (a globstar below ``api/`` that skips hidden files, a negated class at the top level),
#: a name prefix that does not cross folders, ``**/*.md`` past a hidden folder, a brace list, a
#: file entry whose pattern does not apply, and a blank pattern (the whole folder).
EXTRA_PATTERNS: list[Any] = [
    {"path": "docs", "pattern": "api/**"},
    {"path": "docs", "pattern": "[!d]*.md"},
    {"path": "journal", "pattern": "2026-*.md"},
    {"path": "projects", "pattern": "**/*.md"},
    {"path": "topics", "pattern": "{alpha,beta}.md"},
    {"path": "refs/single.md", "pattern": "nomatch"},
    {"path": "misc", "pattern": "  "},
]

#: Suites: name -> (description, overrides of the base ``memory.search``).
SUITES: dict[str, tuple[str, dict[str, Any]]] = {
    "fts": ("provider none (keyword only: body + path FTS, fallback, decay, importance)",
            {"provider": "none"}),
    "hybrid": ("defaults (200-candidate legs, boosted fusion, path tiers, decay, importance, "
               "MMR, selection)", {}),
    "sessions": ("defaults + session transcripts searched (sources memory+sessions; decay by "
                 "transcript mtime)", {"sources": ["memory", "sessions"],
                                       "experimental": {"sessionMemory": True}}),
    "sessions-fts": ("provider none + session transcripts", {
        "provider": "none", "sources": ["memory", "sessions"],
        "experimental": {"sessionMemory": True}}),
    "trigram": ("store.fts.tokenizer trigram (trigram body and path FTS)",
                {"store": {"fts": {"tokenizer": "trigram"}}}),
    "extra-patterns": ("defaults, extraPaths in the {path, pattern} form (globs filter an extra "
                       "folder's files; a file entry ignores its pattern; a blank pattern is "
                       "none), on workspaces/patterns only", {"extraPaths": EXTRA_PATTERNS}),
    "live-sessions": ("defaults + live session transcripts from 2026.9's SQLite session store "
                      "(written by `openclaw doctor --session-sqlite import`) and a reset "
                      "archive, on workspaces/live only", {
                          "sources": ["memory", "sessions"],
                          "experimental": {"sessionMemory": True}}),
    "live-sessions-fts": ("provider none + live session transcripts from the SQLite session "
                          "store, on workspaces/live only", {
                              "provider": "none", "sources": ["memory", "sessions"],
                              "experimental": {"sessionMemory": True}}),
    "sample": ("defaults on the bundled labelled sample (datasets/sample-memory): memlab's CLI "
               "and the dataset wrapper memlab.eval.upgrade.run_tiered", {}),
}
DEFAULT_SUITES = ("fts", "hybrid", "sessions", "sessions-fts", "live-sessions",
                  "live-sessions-fts", "trigram", "extra-patterns", "sample")
KEYWORD_SUITES = set(SUITES)
#: Suites that run on their own workspaces (memory dataset folders) instead of the run's.
#: A parity workspace named here (``patterns``) is left out of the other suites' default run.
SUITE_WORKSPACES: dict[str, tuple[str, ...]] = {
    "sample": (str(Path(__file__).resolve().parent.parent / "datasets" / "sample-memory"),),
    "extra-patterns": ("patterns",), "live-sessions": ("live",), "live-sessions-fts": ("live",)}
#: Suites whose transcripts OpenClaw reads from its SQLite session store: the harness imports
#: ``sessions/<agent>/*.jsonl`` + ``sessions.json`` with ``openclaw doctor --session-sqlite
#: import`` and gives memlab a copy of the store (``parity/run.py::import_live_sessions``).
LIVE_SESSION_SUITES = frozenset({"live-sessions", "live-sessions-fts"})
#: The agent database / session store file (memlab.sessions.live_store.STORE_FILE).
STORE_FILE = "openclaw-agent.sqlite"
#: Suites whose workspaces are memory datasets whose wrapper
#: (:func:`memlab.eval.upgrade.run_tiered`) is also compared, at this depth.
WRAPPER_DEPTH = {"sample": 10}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(base))
    for key, value in over.items():
        out[key] = (_merge(out[key], value) if isinstance(value, dict)
                    and isinstance(out.get(key), dict) else json.loads(json.dumps(value)))
    return out


def suite_memory_search(suite: str, base_url: str, model: str) -> dict[str, Any]:
    """The ``memory.search`` object of a suite (embeddings from the parity server)."""
    base: dict[str, Any] = {"provider": "openai-compatible", "model": model,
                            "remote": {"baseUrl": base_url}, "extraPaths": ["extra"]}
    ms = _merge(base, SUITES[suite][1])
    if ms["provider"] == "none":
        ms.pop("model", None)
        ms.pop("remote", None)
    return ms


def openclaw_config(memory_search: dict[str, Any], workspaces: dict[str, Path]
                    ) -> dict[str, Any]:
    """A whole 2026.9 config: ``memory.search`` and one ``agents.entries`` entry per
    workspace (agent id = workspace name). 2026.9 refuses a roster of several agents without
    ``agents.ownership: "explicit"`` (or one ``default: true`` entry)."""
    return {"memory": {"search": memory_search},
            "agents": {"ownership": "explicit",
                       "entries": {name: {"workspace": str(path)}
                                   for name, path in workspaces.items()}}}


def openclaw_index_rows(db: Path) -> list[dict[str, Any]]:
    """OpenClaw 2026.9's indexed chunks with their recall metadata."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT c.path, c.source, c.start_line, c.end_line, c.hash, m.importance, "
            "m.triggers, m.project_key FROM memory_index_chunks c "
            "LEFT JOIN memory_index_chunk_recall_metadata m ON m.chunk_id = c.id "
            "ORDER BY c.source, c.path, c.start_line, c.end_line, c.hash").fetchall()
        meta = con.execute("SELECT value FROM memory_index_meta WHERE key = "
                           "'memory_index_meta_v1'").fetchone()
    finally:
        con.close()
    keys = ("path", "source", "startLine", "endLine", "hash", "importance", "triggers",
            "projectKey")
    out = [dict(zip(keys, row, strict=True)) for row in rows]
    if meta:
        out.append({"meta": json.loads(meta[0])})
    return out


def _range(result: dict[str, Any]) -> tuple[str, str, int, int]:
    return (result.get("source", ""), result["path"], int(result["startLine"]),
            int(result["endLine"]))


def max_results_prefix_issues(entry: dict[str, Any]) -> list[str]:
    """For one query of the batch output: where the ``--max-results 1``/``10`` answers are not
    the first 1/10 results of the full answer (same ranges, same scores)."""
    full = (entry.get("json") or {}).get("results") or []
    issues = []
    for n, other in (entry.get("alsoMaxResults") or {}).items():
        got = (other or {}).get("results")
        if got is None:
            issues.append(f"max-results {n}: no JSON")
            continue
        want = full[:int(n)]
        if [(_range(r), r["score"]) for r in got] != [(_range(r), r["score"]) for r in want]:
            top = _range(got[0]) if got else None
            issues.append(f"max-results {n}: top-1 {top} vs {_range(want[0]) if want else None}")
    return issues


def chunker_issues(workspace: Path, rows: Sequence[dict[str, Any]], max_input_bytes: int | None
                   ) -> list[str]:
    """memlab's chunking version 5 and annotations against OpenClaw's index of ``workspace``
    (memory files): the same chunks (lines, hash) and recall metadata per file."""
    from memlab.annotations import chunk_metadata
    from memlab.chunking import chunk_memory_file, split_for_provider

    issues = []
    by_path: dict[str, list[tuple]] = {}
    for row in rows:
        if row.get("source") == "memory":
            by_path.setdefault(row["path"], []).append(
                (row["startLine"], row["endLine"], row["hash"], row["importance"],
                 row["triggers"], row["projectKey"]))
    for path, theirs in sorted(by_path.items()):
        file = (workspace / path)
        if not file.is_file():
            issues.append(f"{path}: indexed by OpenClaw, not found in the workspace")
            continue
        content = file.read_bytes().decode("utf-8", "replace")
        chunks = chunk_memory_file(path, content, version=5)
        meta = chunk_metadata(path, content, chunks)
        pairs = list(zip(chunks, meta, strict=True))
        if max_input_bytes:
            pairs = [(piece, m) for c, m in pairs for piece in
                     split_for_provider([c], max_input_bytes)]
        mine = sorted((c.start_line, c.end_line, c.hash, m.importance, m.triggers,
                       m.project_key) for c, m in pairs)
        if mine != sorted(theirs):
            only_o = sorted(set(theirs) - set(mine))[:3]
            only_m = sorted(set(mine) - set(theirs))[:3]
            issues.append(f"{path}: chunks differ; only OpenClaw {only_o}; only memlab {only_m}")
    return issues


def indexed_files_issues(workspace: Path, agent: str, rows: Sequence[dict[str, Any]],
                         memory_search: dict[str, Any], max_input_bytes: int | None
                         ) -> list[str]:
    """memlab's file selection (:func:`memlab.tiered.index.collect_files`: ``MEMORY.md``,
    ``USER.md``, ``memory/**``, ``extraPaths`` strings and ``{path, pattern}`` entries) against
    the memory files OpenClaw indexed for ``workspace``: the same paths (a file that gives no
    chunk, such as an empty one, is not in OpenClaw's index and is left out of memlab's)."""
    from memlab.config.memory_layout import read_config
    from memlab.tiered.index import collect_files, file_chunks

    settings = read_config({"memory": {"search": memory_search}}).resolve(agent)
    mine = {f.path for f in collect_files(workspace, ["memory"], settings.extra_paths, agent)
            if file_chunks(f, max_input_bytes)}
    theirs = {r["path"] for r in rows if r.get("source") == "memory"}
    issues = []
    if theirs - mine:
        issues.append(f"indexed by OpenClaw only: {sorted(theirs - mine)}")
    if mine - theirs:
        issues.append(f"indexed by memlab only: {sorted(mine - theirs)}")
    return issues


def session_files_issues(workspace: Path, agent: str, rows: Sequence[dict[str, Any]],
                         max_input_bytes: int | None) -> list[str]:
    """memlab's session sources (:func:`memlab.tiered.index.collect_files`: live
    sessions from the store copy, then ``.jsonl.reset.<ts>`` archives) against the session
    chunks OpenClaw indexed: the same paths, and per path the same chunks (lines, hash)."""
    from memlab.tiered.index import collect_files, file_chunks

    mine: dict[str, list[tuple[int, int, str]]] = {}
    for f in collect_files(workspace, ["sessions"], [], agent):
        chunks = file_chunks(f, max_input_bytes) if f.source == "sessions" else []
        if chunks:
            mine[f.path] = sorted((c.start_line, c.end_line, c.hash) for c in chunks)
    theirs: dict[str, list[tuple[int, int, str]]] = {}
    for r in rows:
        if r.get("source") == "sessions":
            theirs.setdefault(r["path"], []).append((r["startLine"], r["endLine"], r["hash"]))
    issues = []
    if set(theirs) - set(mine):
        issues.append(f"indexed by OpenClaw only: {sorted(set(theirs) - set(mine))}")
    if set(mine) - set(theirs):
        issues.append(f"indexed by memlab only: {sorted(set(mine) - set(theirs))}")
    for path in sorted(set(mine) & set(theirs)):
        if mine[path] != sorted(theirs[path]):
            only_o = sorted(set(theirs[path]) - set(mine[path]))[:3]
            only_m = sorted(set(mine[path]) - set(theirs[path]))[:3]
            issues.append(f"{path}: chunks differ; only OpenClaw {only_o}; only memlab {only_m}")
    return issues


def save_outputs(folder: Path, suite: str, record: dict[str, Any]) -> Path:
    """Write one suite's OpenClaw outputs (config, batch answers, index rows) as gzip JSON."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{suite.replace('+', '-')}.json.gz"
    data = json.dumps(record, ensure_ascii=False, sort_keys=True, indent=0).encode("utf-8")
    with gzip.GzipFile(path, "wb", mtime=0) as fh:  # mtime 0: identical bytes for equal runs
        fh.write(data)
    return path


def _store_name(suite: str, workspace: str) -> str:
    return f"{suite.replace('+', '-')}.{workspace}.{STORE_FILE}.gz"


def save_store(folder: Path, suite: str, workspace: str, store: Path) -> Path:
    """Keep the session store copy of a :data:`LIVE_SESSION_SUITES` suite next to its
    outputs (gzip), so ``--openclaw-from`` can give memlab the same store."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / _store_name(suite, workspace)
    with gzip.GzipFile(path, "wb", mtime=0) as fh:
        fh.write(store.read_bytes())
    return path


def load_store(folder: Path, suite: str, workspace: str, store: Path) -> None:
    """Write the session store saved by :func:`save_store` to ``store``."""
    with gzip.open(folder / _store_name(suite, workspace), "rb") as fh:
        data = fh.read()
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_bytes(data)


def load_outputs(folder: Path, suite: str) -> dict[str, Any]:
    """A suite saved by :func:`save_outputs`."""
    path = folder / f"{suite.replace('+', '-')}.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)
