"""``memlab search/index/status --profile 2026.9``: the verbs on the 2026.9 profile.

The profile is ``--profile``, else ``memlab.profile`` of the config, else inferred from its
layout (:func:`memlab.profiles.resolve_profile`). :func:`dispatch` returns ``None`` for the
2026.7 profile (the caller goes on with memlab's 2026.7 path) and the exit code otherwise.
Output is that of ``openclaw memory search --json`` / ``memory index`` of 2026.9.6
(docs/openclaw-2026.9.md section 11).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from memlab.config.json5io import read_source
from memlab.profiles import PROFILES, check_profile, resolve_profile

__all__ = ["add_profile_argument", "dispatch"]


def add_profile_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--profile 2026.7|2026.9`` to a verb's parser."""
    parser.add_argument("--profile", choices=PROFILES, help="OpenClaw release line to "
                        "reproduce (default: memlab.profile, else the config layout: "
                        "memory.search means 2026.9, agents.defaults.memorySearch 2026.7)")


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
        if verb == "status":
            status = {"agent": agent, "profile": "2026.9", "indexPath": str(path),
                      **{k: ms.meta.get(k) for k in ("provider", "model", "files", "chunks",
                                                     "ftsTokenizer", "sources",
                                                     "chunkingVersion", "vectorDims")}}
            print(json.dumps(status, ensure_ascii=False, indent=2) if args.json else
                  "\n".join(f"{k}: {v}" for k, v in status.items()))
            return 0
        payload = ms.search(args.query, max_results=args.max_results,
                            min_score=args.min_score, now=args.now)
    finally:
        ms.close()
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    elif not payload["results"]:
        print("No matches.")
    else:
        for r in payload["results"]:
            print(f"{r['score']:.3f} {r['path']}:{r['startLine']}-{r['endLine']}")
            print(r["snippet"])
            print()
    return 0
