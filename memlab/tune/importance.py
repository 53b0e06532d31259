"""Importance annotations as a what-if: the content lever OpenClaw 2026.9 leaves a user.

2026.9.6 multiplies the score of a curated entry (a ``- `` line of ``MEMORY.md``/``USER.md``)
by ``0.75 + 0.05·N`` for ``<!-- importance: N -->`` (:func:`memlab.annotations
.importance_multiplier`). :func:`annotate_importance` writes such annotations on chosen entries
of a *copy* of a workspace; :func:`importance_whatif` runs the 2026.9 profile on the dataset as
it is and with the annotations (:func:`memlab.eval.upgrade.run_tiered`; annotations are
stripped before indexing with line numbers kept, so the line-span judgments still apply) and
compares the two with paired tests (:func:`memlab.eval.judged.compare_runs`).

The same lever is a sweep axis of the 2026.9 profile (:mod:`memlab.tune.sweep_tiered`):
``importance.FILE:LINE`` (:func:`memlab.config.memory_export.parse_importance_axis`) names
one entry; :func:`check_entry` says whether a workspace has it, :func:`annotated_line` is the
line a user writes into the file.

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
from memlab.chunking import curated_entry_kind
from memlab.config.memory_export import IMPORTANCE_FILES, parse_importance_axis

__all__ = ["annotate_importance", "annotated_line", "check_entry", "entry_lines",
           "importance_whatif"]

_IMPORTANCE = re.compile(r"\s*<!--\s*importance\s*:[^\n]*?-->", re.IGNORECASE)


def annotated_line(line: str, value: int) -> str:
    """``line`` with its importance set to ``value``: an existing ``<!-- importance: … -->``
    removed, trailing blanks dropped, `` <!-- importance: N -->`` appended (2026.9 reads the
    comment on a line that ends with ``-->``).

    >>> annotated_line("- NAS <!-- importance: 3 --> <!-- trigger: nas -->  ", 8)
    '- NAS <!-- trigger: nas --> <!-- importance: 8 -->'
    """
    bare = _IMPORTANCE.sub("", line).rstrip()
    return f"{bare} <!-- importance: {value} -->"


def entry_lines(workspace: str | Path, path: str) -> list[int]:
    """The 1-based lines of ``path`` (workspace-relative) that start a curated entry (a
    ``- `` line, :func:`memlab.chunking.curated_entry_kind`).

    >>> import pathlib, tempfile
    >>> ws = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (ws / "USER.md").write_text("# Sam\\n- likes tea\\n  (green)\\n- cycles\\n")
    >>> entry_lines(ws, "USER.md")
    [2, 4]
    """
    text = (Path(workspace) / path).read_text(encoding="utf-8").replace("\r\n", "\n")
    return [i for i, line in enumerate(text.split("\n"), 1)
            if curated_entry_kind(line) == "entry"]


def check_entry(workspace: str | Path, key: str) -> tuple[str, int, str]:
    """``(path, line, text)`` of the entry the importance axis ``key`` names in
    ``workspace``; ``ValueError`` naming ``key`` and what is allowed when the key is
    malformed, the file is not ``MEMORY.md``/``USER.md`` or missing, or the line is not the
    first line of a ``- `` entry.

    >>> import pathlib, tempfile
    >>> ws = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (ws / "MEMORY.md").write_text("# Notes\\n- deploy Tuesday\\n")
    >>> check_entry(ws, "importance.MEMORY.md:2")
    ('MEMORY.md', 2, '- deploy Tuesday')
    >>> check_entry(ws, "importance.MEMORY.md:1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: importance axis 'importance.MEMORY.md:1': line 1 of MEMORY.md is not an ent...
    """
    path, line = parse_importance_axis(key)
    target = Path(workspace) / path
    if not target.is_file():
        raise ValueError(f"importance axis {key!r}: the workspace {workspace} has no {path} "
                         f"(importance axes name entries of {' or '.join(IMPORTANCE_FILES)})")
    lines = target.read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")
    count = len(lines) - (lines[-1] == "")  # a final newline ends the last line
    if line > count:
        raise ValueError(f"importance axis {key!r}: {path} has {count} lines")
    entries = entry_lines(workspace, path)
    if line not in entries:
        shown = ", ".join(map(str, entries[:20])) + (", ..." if len(entries) > 20 else "")
        raise ValueError(f"importance axis {key!r}: line {line} of {path} is not an entry "
                         f"({lines[line - 1][:60]!r}); an importance axis names the first line "
                         f"of a '- ' entry: " + (f"{path} has entries on lines {shown}"
                                                 if entries else f"{path} has no entries"))
    return path, line, lines[line - 1]


def annotate_importance(workspace: str | Path, entries: Mapping[tuple[str, int], int],
                        out: str | Path) -> Path:
    """Copy ``workspace`` to ``out`` and set ``<!-- importance: N -->`` on each
    ``(path, line) -> N`` of ``entries`` (1-based line of a curated entry; an existing
    importance comment on that line is replaced, :func:`annotated_line`; the file keeps its
    modification time, so decay by mtime is unchanged). Raises ``ValueError`` naming the
    entry when the path is not a curated root, the line does not exist or N is outside
    1..10."""
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
            cr = "\r" if text[line - 1].endswith("\r") else ""  # a CRLF file stays CRLF
            text[line - 1] = annotated_line(text[line - 1], value) + cr
        target.write_text("\n".join(text), encoding="utf-8")
        shutil.copystat(Path(workspace) / path, target)  # the original mtime
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
    from memlab.eval.upgrade import run_tiered

    config = dict(config or {"memory": {"search": {"provider": "none"}}})
    base = run_tiered(dataset, config, depth=depth)
    with tempfile.TemporaryDirectory(prefix="memlab-importance-") as tmp:
        annotate_importance(dataset.workspace, entries, Path(tmp) / "workspace")
        annotated = run_tiered(replace(dataset, root=Path(tmp)), config, depth=depth)
    return compare_runs({"as is": base, "annotated": annotated}, dataset, metrics,
                        n_resamples=n_resamples)
