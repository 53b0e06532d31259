#!/usr/bin/env python3
"""Check that the real OpenClaw 2026.9.6 accepts ``memlab export --schema 2026.9`` files and
that its ``doctor --fix`` changes nothing in them.

    .venv/bin/python parity/check_export_memory_search.py [--cache DIR] [--json OUT]

For each case (a tuned configuration exported with :func:`memlab.config.export_config`, schema
2026.9: every key 2026.9 still lets a user set; a lossy sweep row exported with
``allow_lossy``; ``full=True``; a merge into a whole config with an agent entry), in a scratch
HOME holding the file as ``$HOME/.openclaw/openclaw.json``:

* ``openclaw config validate --json`` must exit 0 with ``"valid": true``;
* ``openclaw doctor --fix --non-interactive --yes`` must exit 0 and leave ``memory`` and every
  ``agents.entries.<id>`` memlab wrote as they were (doctor adds its own ``meta``/``skills``
  keys and a default ``agents.entries.main`` and drops the comments; those are not compared).

Exit code 0 all accepted and unchanged, 1 otherwise, 2 no install (run ``make parity`` once).
Each OpenClaw start costs 25-45 s on a busy 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import json5

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import run  # noqa: E402 - parity/ is on sys.path only from here on
from check_config_memory_search import openclaw  # noqa: E402

VERSION = "2026.9.6"
#: Every key 2026.9 still lets a user tune (issue 14 item 3), as sweep/override key paths.
TUNED = {
    "provider": "openai", "model": "text-embedding-3-small",
    "outputDimensionality": 512, "queryInputType": "search_query",
    "documentInputType": "search_document", "store.fts.tokenizer": "trigram",
    "query.minScore": 0.25, "query.maxResults": 8, "sources": ["memory", "sessions"],
    "experimental.sessionMemory": True,
}
#: A 2026.7 sweep row with retired knobs and a memlab-only fusion (exported with allow_lossy).
LOSSY = {"provider": "none", "query.minScore": 0.1, "query.hybrid.vectorWeight": 0.5,
         "chunking.tokens": 256, "query.hybrid.mmr.lambda": 0.5,
         "memlab.fusion.method": "rrf"}
BASE = {"agents": {"entries": {"main": {"workspace": "$HOME/workspace",
                                        "memory": {"search": {"query": {"maxResults": 4}}}}}}}


def cases(scratch: Path) -> dict[str, str]:
    """The exported files, by case name (``$HOME`` left for the per-case home)."""
    from memlab.config import export_config

    base = scratch / "base.json5"
    base.write_text(json.dumps(BASE), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the base's per-agent override is reported; expected
        return {
            "tuned": export_config(TUNED, "2026.9", header={"dataset": "sample-memory"}),
            "lossy": export_config(LOSSY, "2026.9", allow_lossy=True,
                                   effects={"query.hybrid.vectorWeight": 0.01},
                                   header={"metric": "ndcg@10"}),
            "full": export_config({"query.minScore": 0.3}, "2026.9", full=True),
            "base": export_config({"provider": "none", "query.minScore": 0.2}, "2026.9",
                                  base=base),
        }


def check(install: run.Install, scratch: Path, name: str, text: str) -> dict[str, Any]:
    """Validate then doctor one exported file; the record says what differs."""
    home = scratch / name
    (home / ".openclaw").mkdir(parents=True)
    (home / "workspace").mkdir()
    text = text.replace("$HOME", str(home))
    path = home / ".openclaw" / "openclaw.json"
    path.write_text(text, encoding="utf-8")
    written = json5.loads(text)
    problems: list[str] = []
    code, out, err = openclaw(install, home, "config", "validate", "--json")
    try:
        answer = json.loads(out)
    except json.JSONDecodeError:
        answer = None
    if code != 0 or not (isinstance(answer, dict) and answer.get("valid") is True):
        problems.append(f"config validate exit {code}: {out.strip()[-800:]} {err[-400:]}")
    dcode, dout, derr = openclaw(install, home, "doctor", "--fix", "--non-interactive", "--yes",
                                 timeout=300)
    if dcode != 0:
        problems.append(f"doctor --fix exit {dcode}: {derr[-400:]}")
    after = json5.loads(path.read_text(encoding="utf-8"))
    if after.get("memory") != written.get("memory"):
        problems.append(f"doctor --fix changed memory: {json.dumps(written.get('memory'))} -> "
                        f"{json.dumps(after.get('memory'))}")
    entries_after = (after.get("agents") or {}).get("entries") or {}
    for aid, entry in ((written.get("agents") or {}).get("entries") or {}).items():
        if entries_after.get(aid) != entry:
            problems.append(f"doctor --fix changed agents.entries.{aid}: {json.dumps(entry)} -> "
                            f"{json.dumps(entries_after.get(aid))}")
    added = sorted(set(after) - set(written))
    return {"name": name, "accepted": not problems, "validate": {"exitCode": code,
            "json": answer}, "doctor": {"exitCode": dcode, "tail": dout.strip()[-200:]},
            "memory": written.get("memory"), "doctorAdded": added, "problems": problems}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=run.DEFAULT_CACHE)
    parser.add_argument("--only", help="comma-separated case names")
    parser.add_argument("--json", type=Path, help="write the records here")
    args = parser.parse_args(argv)
    entry = (args.cache.expanduser() / f"openclaw-{VERSION}" / "node_modules" / "openclaw"
             / "openclaw.mjs")
    if not entry.is_file():
        print(f"check_export_memory_search: no OpenClaw {VERSION} in {args.cache}; run "
              "`make parity` once", file=sys.stderr)
        return 2
    install = run.ensure_install(args.cache.expanduser(), openclaw_version=VERSION)
    only = set(args.only.split(",")) if args.only else None
    records = []
    with tempfile.TemporaryDirectory(prefix="memlab-export-2026-9-") as tmp:
        for name, text in cases(Path(tmp)).items():
            if only and name not in only:
                continue
            rec = check(install, Path(tmp), name, text)
            records.append(rec)
            status = "ACCEPTED, unchanged by doctor --fix" if rec["accepted"] else "REJECTED"
            print(f"{name}: {status}; memory = {json.dumps(rec['memory'])}", flush=True)
            for p in rec["problems"]:
                print(f"  problem: {p}", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"openclaw": VERSION, "cases": records}, indent=1)
                             + "\n", encoding="utf-8")
    return 0 if all(r["accepted"] for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
