"""The OpenClaw line of a verb (``--profile``) and ``memlab search/index/status`` on a line of
the tiered engine (OpenClaw 2026.9).

The line is ``--profile``, else ``memlab.profile`` of the config, else its layout
(:func:`memlab.lines.detect_line`). :func:`dispatch` returns ``None`` for a line of the stage
pipeline (the caller goes on with :mod:`memlab.indexed_search`) and the exit code otherwise.
Output is that of ``openclaw memory search [--json]`` / ``memory index`` of 2026.9.6
(docs/openclaw-2026.9.md section 11); the plain search text is 2026.7.35's, printed by the same
:func:`memlab.cli.output.format_results` as ``memlab search``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from memlab.cli.output import format_results
from memlab.config.errors import ConfigError
from memlab.config.json5io import read_source
from memlab.lines import Line, detect_line, line_names

__all__ = ["add_profile_argument", "add_projects_argument", "config_file_line", "dispatch",
           "parse_projects", "refuse_profile", "sweep_line_command"]


def config_file_line(spec: Any) -> Line | None:
    """The OpenClaw line of a config file named on the command line (``--config``,
    ``--base``): ``None`` for a built-in system name, or a file the verb will report on itself
    (unreadable, not an object, an unknown ``memlab.profile``)."""
    if not isinstance(spec, str | Path) or not Path(spec).is_file():
        return None
    try:
        raw = read_source(Path(spec))[0]
        return detect_line(raw) if isinstance(raw, dict) else None
    except (ConfigError, ValueError):
        return None


def add_profile_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--profile LINE`` (a registered :mod:`memlab.lines` name) to a verb's parser."""
    parser.add_argument("--profile", choices=line_names(), help="OpenClaw release line to "
                        "reproduce (default: memlab.profile, else the config layout: "
                        "memory.search means 2026.9, agents.defaults.memorySearch 2026.7)")


def add_projects_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--projects KEY,KEY`` (the session's active projects, 2026.9 only)."""
    parser.add_argument("--projects", metavar="KEY,KEY", help="2026.9 profile: the session's "
                        "active project keys, as the memory_search tool gets them (entries "
                        "annotated with one x1.15, other project entries x0.9)")


def parse_projects(text: str | None) -> list[str] | None:
    """``--projects`` as a list of keys (``None`` when not given).

    >>> parse_projects("acme/aurora, acme/billing")
    ['acme/aurora', 'acme/billing']
    """
    keys = [k.strip() for k in (text or "").split(",") if k.strip()]
    return keys or None


def refuse_profile(args: argparse.Namespace, verb: str, why: str) -> int | None:
    """Exit code 2 with a message naming the verb, the line and ``why`` when ``--profile``
    names a line of the tiered engine for a verb that cannot run it; ``None`` otherwise."""
    name = getattr(args, "profile", None)
    if name is not None and detect_line(None, name).engine == "tiered":
        print(f"memlab: error: memlab {verb} --profile {name} is not supported: {why}",
              file=sys.stderr)
        return 2
    return None


def sweep_line_command(args: argparse.Namespace, dataset: Any, grid: dict[str, Any],
                         base: Any, metric: str, metrics: list[str]) -> int:
    """``memlab sweep --profile 2026.9``: the grid (or ``--optuna N`` trials) on the 2026.9
    profile (:mod:`memlab.tune.sweep_tiered`); ``base`` is a 2026.9 config file or None."""
    from memlab.config.memory_export import is_importance_axis
    from memlab.eval.upgrade import upgraded_config
    from memlab.tune.sweep_tiered import TieredRanker, sweep_tiered, tune_tiered

    if args.cv:
        print("memlab: error: memlab sweep --profile 2026.9 has no --cv (the 2026.9 sweep and "
              "--optuna are in-sample); drop --cv", file=sys.stderr)
        return 2
    if getattr(dataset, "workspace", None) is None:
        print("memlab: error: memlab sweep --profile 2026.9 ranks a memory dataset (a "
              "workspace), not a BEIR collection", file=sys.stderr)
        return 2
    config = upgraded_config(base)[1] if base else {"memory": {"search": {"provider": "local"}}}
    line = detect_line(config, args.profile)
    ranker = TieredRanker(dataset, config, line=line)
    if args.optuna is not None:
        table = tune_tiered(dataset, grid, config, n_trials=args.optuna, metric=metric,
                            seed=args.seed, metrics=metrics, ranker=ranker)
        print(f"Optuna TPE on the {line.name} profile: {args.optuna} trials, in-sample")
    else:
        table = sweep_tiered(dataset, grid, config, metrics=metrics, ranker=ranker)
        table = table.sort_values(metric, ascending=False, kind="stable")
        print(f"{len(table)} configurations on the {line.name} profile")
    print(f"({ranker.searches} searches, {ranker.selections} selections); top {args.top} by "
          f"{metric}:")
    embedded = ranker.embedding_stats()
    if any(embedded.values()):
        print(f"(documents of {ranker.groups} indexed workspaces: {embedded['texts_embedded']} "
              f"embedded, {embedded['cache_hits']} from the embedding cache)")
    print(table.drop(columns=["dataset"]).head(args.top).to_string(index=False))
    if any(is_importance_axis(c) for c in table.columns):
        print("(importance.FILE:LINE: <!-- importance: N --> on that entry; <NA>: the file as "
              "written)")
    if args.out:
        out = Path(args.out)
        (table.to_parquet if out.suffix.lower() == ".parquet" else table.to_csv)(
            out, index=False)
        print(f"wrote {len(table)} rows to {out}", file=sys.stderr)
    return 0


def _raw_config(args: argparse.Namespace) -> dict[str, Any]:
    if getattr(args, "config", None) is None:
        return {}
    raw, _name = read_source(args.config)
    return dict(raw) if isinstance(raw, dict) else {}


def _agent(args: argparse.Namespace, raw: dict[str, Any]) -> str:
    if getattr(args, "agent", None):
        return args.agent
    entries = ((raw.get("agents") or {}).get("entries") or {})
    ws = os.path.realpath(Path(args.workspace).expanduser())
    for agent_id, entry in entries.items():
        where = (entry or {}).get("workspace")
        if where and os.path.realpath(Path(where).expanduser()) == ws:
            return agent_id
    return "main"


def _sync_or_read(ms: Any) -> None:
    """Sync before a search or status; while another ``memlab index`` holds the index's lock,
    search the index as it is with a warning, as the 2026.7 index does (``IndexLocked``, exit
    code 5, only when there is no index yet)."""
    from memlab.index.errors import IndexLocked

    try:
        ms.sync()
    except IndexLocked as exc:
        if not ms.reload():
            raise
        print(f"memlab: {exc}; searching the index as it is", file=sys.stderr)


def dispatch(verb: str, args: argparse.Namespace) -> int | None:
    """Run ``verb`` on the 2026.9 profile when it applies; ``None`` otherwise."""
    raw = _raw_config(args)
    line = detect_line(raw, getattr(args, "profile", None))
    if line.engine != "tiered":
        if getattr(args, "projects", None):
            tiered = "|".join(n for n in line_names()
                              if detect_line(None, n).step("projects") is not None)
            print(f"memlab: error: --projects needs the {tiered} profile (this is {line.name}, "
                  f"which has no project ranking): pass --profile {tiered}", file=sys.stderr)
            return 2
        return None
    from memlab.tiered.search import TieredSearch

    agent = _agent(args, raw)
    from memlab.tiered.index import index_file

    path = index_file(args.workspace, raw, line.index_suffix, getattr(args, "index", None))
    ms = TieredSearch(args.workspace, raw, agent_id=agent, index_path=path, sync=False,
                      line=line)
    try:
        if verb == "index":  # another indexer holding the lock: IndexLocked, exit 5
            ms.sync(force=bool(getattr(args, "force", False)))
            files = ms.meta.get("files", 0)  # 2026.9.6 counts the indexed files, not the
            print(f"Memory index updated ({agent}): {files} "  # ones this run rewrote
                  f"{'file' if files == 1 else 'files'} indexed."
                  if files else f"No memory files found in {args.workspace}; nothing indexed "
                  f"({agent}).")
            return 0
        _sync_or_read(ms)
        if verb == "status":  # the shape of `openclaw memory status [--json]` of 2026.9.6
            from memlab.tiered.status import format_status, index_status

            entry = index_status(ms, agent, path)
            print(json.dumps([entry], ensure_ascii=False, indent=2) if args.json else
                  format_status(entry))
            return 0
        payload = ms.search(args.query, max_results=args.max_results,
                            min_score=args.min_score, now=args.now,
                            active_projects=parse_projects(getattr(args, "projects", None)))
    finally:
        ms.close()
    print(json.dumps(payload, ensure_ascii=False, indent=2) if args.json
          else format_results(payload["results"]))
    return 0
