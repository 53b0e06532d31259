#!/usr/bin/env python3
"""What OpenClaw 2026.9.6 itself says about memory-search configs: ``openclaw config validate
--json`` and ``openclaw doctor --fix --non-interactive`` on a copy, per case.

    .venv/bin/python parity/check_config_memory_search.py \
        --out tests/data/openclaw-2026.9/config_cases.json

Each case is a whole ``openclaw.json`` (parity/config_cases_memory_search.json); the output records,
per case, validate's exit code and JSON, doctor's exit code and output, and the config file as
doctor left it. memlab's ``memlab.config.memory_layout`` is unit-tested against these records
(tests/config/test_memory_layout.py), so the tests need no Node. Every CLI start costs ~20-40 s.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import run  # noqa: E402 - parity/ is on sys.path only from here on


def openclaw(install: run.Install, home: Path, *args: str, timeout: float = 300
             ) -> tuple[int, str, str]:
    """``openclaw ARGS`` with HOME = ``home`` (nothing outside it is read or written)."""
    env = run.openclaw_env(install, home, run.DEFAULT_NOW)
    try:
        proc = subprocess.run([str(install.node), str(install.openclaw_entry), *args], env=env,
                              capture_output=True, text=True, timeout=timeout, cwd=home)
    except subprocess.TimeoutExpired as exc:
        def text(x: bytes | str | None) -> str:
            return x.decode("utf-8", "replace") if isinstance(x, bytes) else (x or "")
        return -1, text(exc.stdout), text(exc.stderr) + f"\n[timed out after {timeout} s]"
    return proc.returncode, proc.stdout, proc.stderr


def check_case(install: run.Install, scratch: Path, name: str, config: dict[str, Any]
               ) -> dict[str, Any]:
    home = scratch / name
    (home / ".openclaw").mkdir(parents=True)
    (home / "workspace").mkdir()
    text = json.dumps(config, indent=2).replace("$WORKSPACE", str(home / "workspace"))
    path = home / ".openclaw" / "openclaw.json"
    path.write_text(text, encoding="utf-8")
    code, out, err = openclaw(install, home, "config", "validate", "--json")
    try:
        validate = json.loads(out)
    except json.JSONDecodeError:
        validate = None
    record: dict[str, Any] = {"name": name, "config": json.loads(text),
                              "validate": {"exitCode": code, "json": validate,
                                           "stderr": err[-2000:]}}
    code, out, err = openclaw(install, home, "doctor", "--fix", "--non-interactive", "--yes",
                              timeout=240)
    try:
        after = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        after = {"unreadable": str(exc)}
    record["doctor"] = {"exitCode": code, "stdout": out[-6000:], "stderr": err[-2000:],
                        "configAfter": after}
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=HERE / "config_cases_memory_search.json")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", help="comma-separated case names")
    parser.add_argument("--cache", type=Path, default=run.DEFAULT_CACHE)
    args = parser.parse_args(argv)
    install = run.ensure_install(args.cache.expanduser(), openclaw_version="2026.9.6")
    cases = json.loads(args.cases.read_text(encoding="utf-8"))
    only = set(args.only.split(",")) if args.only else None
    # resume: cases already in --out are kept (each case costs ~1-5 min)
    records = (json.loads(args.out.read_text(encoding="utf-8"))["cases"]
               if args.out.is_file() else [])
    done = {r["name"] for r in records}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="memlab-config-2026-9-") as tmp:
        for name, config in cases.items():
            if (only and name not in only) or name in done:
                continue
            rec = check_case(install, Path(tmp), name, config)
            rec = json.loads(json.dumps(rec).replace(str(Path(tmp) / name), "$HOME"))
            records.append(rec)
            print(f"{name}: validate exit {rec['validate']['exitCode']}, doctor exit "
                  f"{rec['doctor']['exitCode']}", flush=True)
            args.out.write_text(json.dumps({"openclaw": "2026.9.6", "cases": records},
                                           indent=1, ensure_ascii=False) + "\n",
                                encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
