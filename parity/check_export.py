"""Check that the real OpenClaw 2026.7.35 accepts a config file written by ``memlab export``.

    .venv/bin/python parity/check_export.py EXPORTED.json5 [--cache DIR] [--install]

In a scratch HOME it writes the file as ``$HOME/.openclaw/openclaw.json`` and runs, with the
Node 24 and OpenClaw install of the parity harness (``parity/run.py``; by default only an
existing install in ``~/.cache/memlab/parity`` is used, ``--install`` installs it):

* ``openclaw config validate``: must exit 0 (a schema error prints "config is invalid");
* ``openclaw memory status``: must exit 0 and print the "Memory Search" block (with an invalid
  config OpenClaw does not load the memory plugin and "does not know the command memory").

Exit code 0 accepted, 1 rejected, 2 could not run. Only 2026.7-schema files can be accepted
by 2026.7.35 (a 2026.8 ``memory.search`` file is rejected by design).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _load_run() -> Any:
    name = "memlab_parity_run"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


run = _load_run()


@dataclass
class Step:
    args: list[str]
    returncode: int
    output: str


@dataclass
class CheckResult:
    accepted: bool
    steps: list[Step] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def describe(self) -> str:
        lines = ["ACCEPTED" if self.accepted else "REJECTED"]
        for step in self.steps:
            lines.append(f"$ openclaw {' '.join(step.args)}  -> exit {step.returncode}")
            tail = step.output.strip().splitlines()[-12:]
            lines += [f"    {t}" for t in tail]
        lines += [f"problem: {p}" for p in self.problems]
        return "\n".join(lines)


def find_install(cache: Path | None = None, install: bool = False) -> Any | None:
    """The parity harness's Node + OpenClaw install, or ``None`` when absent (and not
    ``install``)."""
    cache = Path(cache or run.DEFAULT_CACHE)
    node = cache / f"node-v{run.NODE_VERSION}" / "bin" / "node"
    entry = cache / f"openclaw-{run.OPENCLAW_VERSION}" / "node_modules" / "openclaw" / \
        "openclaw.mjs"
    if node.is_file() and entry.is_file():
        return run.Install(node, entry.parent.parent.parent, 0.0, False)
    if install:
        return run.ensure_install(cache, log=lambda m: print(m, file=sys.stderr))
    return None


def check_export(text: str, install: Any, timeout: float = 180,
                 env: dict[str, str] | None = None) -> CheckResult:
    """Load ``text`` (an exported OpenClaw config) into the real OpenClaw; see the module
    docstring. ``env``: extra environment (e.g. variables that env secret references name)."""
    result = CheckResult(accepted=True)
    with tempfile.TemporaryDirectory(prefix="memlab-export-check-") as tmp:
        home = Path(tmp)
        (home / ".openclaw").mkdir()
        (home / ".openclaw" / "openclaw.json").write_text(text, encoding="utf-8")
        env = {**run.openclaw_env(install, home, run.DEFAULT_NOW), **(env or {})}
        for args in (["config", "validate"], ["memory", "status"]):
            proc = subprocess.run([str(install.node), str(install.openclaw_entry), *args],
                                  env=env, cwd=home, capture_output=True, text=True,
                                  timeout=timeout)
            output = (proc.stdout or "") + (proc.stderr or "")
            result.steps.append(Step(args, proc.returncode, output))
            low = output.lower()
            if proc.returncode != 0:
                result.problems.append(f"openclaw {' '.join(args)} exited {proc.returncode}")
            if "config is invalid" in low or "config invalid" in low:
                result.problems.append(f"openclaw {' '.join(args)} reports an invalid config")
            if args[0] == "memory" and "memory search" not in low:
                result.problems.append("openclaw memory status printed no Memory Search block")
    result.accepted = not result.problems
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="the exported config (JSON5)")
    parser.add_argument("--cache", type=Path, default=None,
                        help=f"parity install folder (default {run.DEFAULT_CACHE})")
    parser.add_argument("--install", action="store_true",
                        help="install Node 24 + OpenClaw there if missing (needs npm)")
    args = parser.parse_args(argv)
    try:
        install = find_install(args.cache, args.install)
    except run.SetupError as exc:
        print(f"check_export: {exc}", file=sys.stderr)
        return 2
    if install is None:
        print("check_export: no OpenClaw install; run `make parity` once or pass --install",
              file=sys.stderr)
        return 2
    text = Path(args.file).read_text(encoding="utf-8")
    result = check_export(text, install)
    print(result.describe())
    return 0 if result.accepted else 1


if __name__ == "__main__":
    sys.exit(main())
