"""Importance annotations as a what-if: the content lever OpenClaw 2026.9 leaves a user.

2026.9.6 multiplies the score of a curated entry (a ``- `` line of ``MEMORY.md``/``USER.md``)
by ``0.75 + 0.05·N`` for ``<!-- importance: N -->`` (:func:`memlab.annotations
.importance_multiplier`). :func:`annotate_importance` writes such annotations on chosen entries
of a *copy* of a workspace; :func:`importance_whatif` runs the 2026.9 profile on the dataset as
it is and with the annotations (:func:`memlab.eval.upgrade.run_profile_2026_9`; annotations are
stripped before indexing with line numbers kept, so the line-span judgments still apply) and
compares the two with paired tests (:func:`memlab.eval.judged.compare_runs`).

>>> import pathlib, tempfile
>>> ws = pathlib.Path(tempfile.mkdtemp())
>>> _ = (ws / "MEMORY.md").write_text("- deploy Tuesday <!-- importance: 3 -->\\n- NAS\\n")
>>> out = annotate_importance(ws, {("MEMORY.md", 1): 9, ("MEMORY.md", 2): 2},
...                           pathlib.Path(tempfile.mkdtemp()) / "ws")
>>> print((out / "MEMORY.md").read_text(), end="")
- deploy Tuesday <!-- importance: 9 -->
- NAS <!-- importance: 2 -->
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from memlab.annotations import is_curated_root

__all__ = ["annotate_importance", "importance_whatif"]

_IMPORTANCE = re.compile(r"\s*<!--\s*importance\s*:[^\n]*?-->", re.IGNORECASE)


def annotate_importance(workspace: str | Path, entries: Mapping[tuple[str, int], int],
                        out: str | Path) -> Path:
    """Copy ``workspace`` to ``out`` and set ``<!-- importance: N -->`` on each
    ``(path, line) -> N`` of ``entries`` (1-based line of a curated entry; an existing
    importance comment on that line is replaced). Raises ``ValueError`` naming the entry when
    the path is not a curated root, the line does not exist or N is outside 1..10."""
    out = Path(out)
    shutil.copytree(workspace, out)
    by_file: dict[str, dict[int, int]] = {}
    for (path, line), value in entries.items():
        if not is_curated_root(path):
            raise ValueError(f"{path}:{line}: importance counts only in MEMORY.md or USER.md")
        if not (isinstance(value, int) and 1 <= value <= 10):
            raise ValueError(f"{path}:{line}: importance must be an integer 1..10, not "
                             f"{value!r}")
        by_file.setdefault(path, {})[int(line)] = value
    for path, lines in by_file.items():
        target = out / path
        text = target.read_text(encoding="utf-8").split("\n")
        for line, value in lines.items():
            if not 1 <= line <= len(text):
                raise ValueError(f"{path}:{line}: no such line ({len(text)} lines)")
            bare = _IMPORTANCE.sub("", text[line - 1]).rstrip()
            text[line - 1] = f"{bare} <!-- importance: {value} -->"
        target.write_text("\n".join(text), encoding="utf-8")
    return out


def importance_whatif(dataset: Any, entries: Mapping[tuple[str, int], int],
                      config: Mapping[str, Any] | None = None, *,
                      metrics: Sequence[str] = ("ndcg@10", "mrr@10"), depth: int = 10,
                      n_resamples: int = 10_000) -> Any:
    """The effect of annotating ``entries`` (see :func:`annotate_importance`) on a memory
    dataset under the 2026.9 profile with ``config`` (a whole 2026.9 config; default keyword
    only): a :class:`~memlab.eval.experiment.Comparison` of ``"as is"`` (baseline) and
    ``"annotated"``."""
    from memlab.eval.judged import compare_runs
    from memlab.eval.upgrade import run_profile_2026_9

    config = dict(config or {"memory": {"search": {"provider": "none"}}})
    base = run_profile_2026_9(dataset, config, depth=depth)
    with tempfile.TemporaryDirectory(prefix="memlab-importance-") as tmp:
        annotate_importance(dataset.workspace, entries, Path(tmp) / "workspace")
        annotated = run_profile_2026_9(replace(dataset, root=Path(tmp)), config, depth=depth)
    return compare_runs({"as is": base, "annotated": annotated}, dataset, metrics,
                        n_resamples=n_resamples)
