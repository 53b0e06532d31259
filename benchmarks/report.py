"""Render the benchmark tables of benchmarks/README.md from the scripts' JSON results.

    .venv/bin/python benchmarks/report.py [--results DIR] [--readme benchmarks/README.md]
                                          [--check]

Every JSON file in ``--results`` (default ``benchmarks/results/``, git-ignored) that carries a
``table`` (``{"headers": [...], "rows": [[...], ...]}``, written by the script) is rendered as
a Markdown table with its machine line (load average, CPUs, Python) under it. With
``--readme`` the text between ``<!-- report:NAME -->`` and ``<!-- /report:NAME -->`` in that
file is replaced by the table of ``NAME.json`` (other text is left alone); without it the
tables are printed. ``--check`` exits 1 when the README differs from what it would write.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, markdown  # noqa: E402


def render(payload: dict) -> str:
    """One result file's table and machine line, as Markdown."""
    t = payload["table"]
    m = payload.get("machine", {})
    load = m.get("loadavg")
    load_s = ", ".join(f"{x:.1f}" for x in load) if load else "n/a"
    return (markdown(t["headers"], t["rows"]) + "\n\n"
            + f"_{payload.get('benchmark', '?')}: {m.get('cpus', '?')} CPUs, Python "
              f"{m.get('python', '?')}, load average (1/5/15 min) at the end {load_s}._")


def tables(results: Path) -> dict[str, str]:
    out = {}
    for path in sorted(results.glob("*.json")):
        payload = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(payload, dict) and "table" in payload:
            out[path.stem] = render(payload)
    return out


def update(text: str, rendered: dict[str, str]) -> str:
    def sub(match: re.Match) -> str:
        name = match.group(1)
        if name not in rendered:
            return match.group(0)
        return f"<!-- report:{name} -->\n{rendered[name]}\n<!-- /report:{name} -->"

    return re.sub(r"<!-- report:([\w.-]+) -->.*?<!-- /report:\1 -->", sub, text,
                  flags=re.DOTALL)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument("--readme", type=Path, default=None)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    rendered = tables(args.results)
    if args.readme is None:
        for name, text in rendered.items():
            print(f"### {name}\n\n{text}\n")
        return 0
    old = args.readme.read_text(encoding="utf-8")
    new = update(old, rendered)
    if args.check:
        return int(new != old)
    args.readme.write_text(new, encoding="utf-8")
    print(f"updated {args.readme}: {', '.join(rendered) or 'no tables'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
