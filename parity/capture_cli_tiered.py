#!/usr/bin/env python3
"""Capture what the real ``openclaw memory index/search/status`` of 2026.9.6 print (text and
``--json``) on the ``curated`` parity workspace, for memlab's CLI to be compared with.

    .venv/bin/python parity/capture_cli_tiered.py --out tests/data/openclaw-2026.9/cli

One file per command (``<name>.stdout`` / ``<name>.stderr`` / ``<name>.exit``); the scratch
paths, the embedding server's port and the clock are replaced by ``$HOME``, ``$WORKSPACE``,
``$PORT``. Embeddings come from the parity server, the clock is frozen at ``--now``. Each CLI
start costs 25-45 s.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import run  # noqa: E402
import tiered_line  # noqa: E402

COMMANDS: dict[str, list[str]] = {
    "index-force": ["memory", "index", "--force", "--agent", "curated"],
    "search-text": ["memory", "search", "deploy window", "--agent", "curated",
                    "--max-results", "3"],
    "search-json": ["memory", "search", "deploy window", "--agent", "curated", "--json",
                    "--max-results", "3"],
    "search-no-matches": ["memory", "search", "zebra unicorn quantum", "--agent", "curated",
                          "--min-score", "0.99"],
    "search-json-no-matches": ["memory", "search", "zebra unicorn quantum", "--agent",
                               "curated", "--json", "--min-score", "0.99"],
    "status": ["memory", "status", "--agent", "curated"],
    "status-json": ["memory", "status", "--agent", "curated", "--json"],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--now", default=run.DEFAULT_NOW)
    parser.add_argument("--only", help="comma-separated command names")
    args = parser.parse_args(argv)
    install = run.ensure_install(run.DEFAULT_CACHE, openclaw_version=tiered_line.VERSION)
    from embed_server import MODEL, EmbedServer

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="memlab-cli-2026-9-") as tmp, EmbedServer() as srv:
        scratch = Path(tmp)
        ws = run.stage_workspaces(["curated"], scratch / "ws", run.iso_to_ms(args.now))
        home = scratch / "home"
        (home / ".openclaw").mkdir(parents=True)
        ms = tiered_line.suite_memory_search("hybrid", srv.base_url, MODEL)
        cfg = tiered_line.openclaw_config(ms, ws)
        (home / ".openclaw" / "openclaw.json").write_text(json.dumps(cfg, indent=2))
        env = run.openclaw_env(install, home, args.now)
        env["NODE_OPTIONS"] = f"--import={(HERE / 'freeze_clock.mjs').as_uri()}"
        port = srv.base_url.split(":")[-1].split("/")[0]
        for name, cmd in COMMANDS.items():
            if args.only and name not in args.only.split(","):
                continue
            proc = subprocess.run([str(install.node), str(install.openclaw_entry), *cmd],
                                  env=env, capture_output=True, text=True, cwd=home,
                                  timeout=600)

            def clean(text: str) -> str:
                return (text.replace(str(ws["curated"]), "$WORKSPACE")
                        .replace(str(home), "$HOME").replace(f":{port}/", ":$PORT/"))

            (args.out / f"{name}.stdout").write_text(clean(proc.stdout), encoding="utf-8")
            (args.out / f"{name}.stderr").write_text(clean(proc.stderr), encoding="utf-8")
            (args.out / f"{name}.exit").write_text(f"{proc.returncode}\n", encoding="utf-8")
            print(f"{name}: exit {proc.returncode}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
