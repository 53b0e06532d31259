"""``memlab search/index/status --profile 2026.9``: the verbs on the 2026.9 profile.

The profile is ``--profile``, else ``memlab.profile`` of the config, else inferred from its
layout (:func:`memlab.profiles.resolve_profile`). :func:`dispatch` returns ``None`` for the
2026.7 profile (the caller goes on with memlab's 2026.7 path) and the exit code otherwise.
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
from memlab.config.json5io import read_source
from memlab.profiles import PROFILES, check_profile, resolve_profile

__all__ = ["add_profile_argument", "add_projects_argument", "dispatch", "parse_projects",
           "refuse_profile", "sweep_2026_9_command"]


def add_profile_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--profile 2026.7|2026.9`` to a verb's parser."""
    parser.add_argument("--profile", choices=PROFILES, help="OpenClaw release line to "
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
    """Exit code 2 with a message naming the verb, the profile and ``why`` when ``--profile
    2026.9`` asks a verb for what it cannot do on the 2026.9 profile; ``None`` otherwise."""
    if getattr(args, "profile", None) == "2026.9":
        print(f"memlab: error: memlab {verb} --profile 2026.9 is not supported: {why}",
              file=sys.stderr)
        return 2
    return None


def sweep_2026_9_command(args: argparse.Namespace, dataset: Any, grid: dict[str, Any],
                         base: Any, metric: str, metrics: list[str]) -> int:
    """``memlab sweep --profile 2026.9``: the grid (or ``--optuna N`` trials) on the 2026.9
    profile (:mod:`memlab.tune.sweep_2026_9`); ``base`` is a 2026.9 config file or None."""
    from memlab.config.export_2026_9 import is_importance_axis
    from memlab.eval.upgrade import config_2026_9
    from memlab.tune.sweep_2026_9 import Ranker2026_9, sweep_2026_9, tune_2026_9

    if args.cv:
        print("memlab: error: memlab sweep --profile 2026.9 has no --cv (the 2026.9 sweep and "
              "--optuna are in-sample); drop --cv", file=sys.stderr)
        return 2
    if getattr(dataset, "workspace", None) is None:
        print("memlab: error: memlab sweep --profile 2026.9 ranks a memory dataset (a "
              "workspace), not a BEIR collection", file=sys.stderr)
        return 2
    config = config_2026_9(base)[1] if base else {"memory": {"search": {"provider": "local"}}}
    ranker = Ranker2026_9(dataset, config)
    if args.optuna is not None:
        table = tune_2026_9(dataset, grid, config, n_trials=args.optuna, metric=metric,
                            seed=args.seed, metrics=metrics, ranker=ranker)
        print(f"Optuna TPE on the 2026.9 profile: {args.optuna} trials, in-sample")
    else:
        table = sweep_2026_9(dataset, grid, config, metrics=metrics, ranker=ranker)
        table = table.sort_values(metric, ascending=False, kind="stable")
        print(f"{len(table)} configurations on the 2026.9 profile")
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


def _index_path(args: argparse.Namespace, raw: dict[str, Any]) -> Path:
    from memlab.index.store import default_index_path

    chosen = getattr(args, "index", None) or (raw.get("memlab") or {}).get("indexPath")
    if chosen:
        return Path(chosen).expanduser()
    base = default_index_path(args.workspace)
    return base.with_name(base.stem + ".2026.9" + base.suffix)  # never the 2026.7 file


def dispatch(verb: str, args: argparse.Namespace) -> int | None:
    """Run ``verb`` on the 2026.9 profile when it applies; ``None`` otherwise."""
    raw = _raw_config(args)
    profile = (check_profile(args.profile, "--profile") if getattr(args, "profile", None)
               else resolve_profile(raw))
    if profile != "2026.9":
        if getattr(args, "projects", None):
            print(f"memlab: error: --projects needs the 2026.9 profile (this is {profile}, "
                  "which has no project ranking): pass --profile 2026.9", file=sys.stderr)
            return 2
        return None
    from memlab.profiles.openclaw_2026_9 import Search2026_9

    agent = _agent(args, raw)
    path = _index_path(args, raw)
    path.parent.mkdir(parents=True, exist_ok=True)
    ms = Search2026_9(args.workspace, raw, agent_id=agent, index_path=path, sync=False)
    try:
        if verb == "index":
            ms.sync(force=bool(getattr(args, "force", False)))
            files = ms.meta.get("files", 0)
            print(f"Memory index updated ({agent}): {files} file(s) indexed."
                  if files else f"No memory files found in {args.workspace}; nothing indexed "
                  f"({agent}).")
            return 0
        ms.sync()
        if verb == "status":  # the shape of `openclaw memory status [--json]` of 2026.9.6
            from memlab.profiles.status_2026_9 import format_status, status_2026_9

            entry = status_2026_9(ms, agent, path)
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
