"""The Assessor widget: label queries on any workspace by pooling several systems' top hits.

For each query the top ``k`` hits of every system (keyword, vector, hybrid, other providers
or configs) are pooled, de-duplicated by line span (path, start, end), shuffled with a seed,
and shown one chunk at a time with its line numbers and without the names of the systems
that found it (so the assessor cannot favour one). On each chunk the assessor

- marks lines with a grade (``mark("12-14", 2)``; 2 = answers the query, 1 = partial or
  older state, 0 = explicitly not relevant; an empty line field marks the whole chunk);
- finishes the chunk (``next()``): the chunk's span counts as *judged*, so its unmarked lines
  are judged non-relevant;
- or skips it (``skip()``: left unjudged), or undoes the last action (``undo()``).

Every action is appended to a log and autosaved in ``out`` in the memory dataset format:
``queries.jsonl``, ``qrels.jsonl`` (the marked lines with grade >= 1, merged into spans),
``judged.jsonl`` (the finished chunks' spans and 0-marks: what
:mod:`memlab.eval.judged` uses for the unjudged share and condensed lists) and
``assessor.json`` (queries, pools, seed, the action log). Opening an ``Assessor`` on the same
``out`` replays the log: the position, the marks and the pools are exactly those saved
(pools are stored, not recomputed). ``out/workspace`` links to the workspace, so ``memlab
eval OUT`` evaluates the labels directly.

>>> a = Assessor("datasets/sample-memory/workspace", ["keyword"], "labels/",
...              queries=["where is the NAS?"])  # doctest: +SKIP
>>> a.mark("3", 2); a.next()  # doctest: +SKIP
"""

from __future__ import annotations

import html
import json
import os
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from memlab.eval.judged import JUDGED_FILE
from memlab.widgets.common import ipywidgets_module

__all__ = ["Assessor", "parse_lines"]

STATE_FILE = "assessor.json"
GRADES = (0, 1, 2)


def parse_lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Line ranges typed by the assessor (``"12-14, 16"``) inside ``start..end``; an empty
    text is the whole range.

    >>> parse_lines("3-4, 7", 1, 9), parse_lines("", 5, 6)
    ([(3, 4), (7, 7)], [(5, 6)])
    """
    text = (text or "").strip()
    if not text:
        return [(start, end)]
    out = []
    for part in text.replace(";", ",").split(","):
        part = part.strip().replace("L", "").replace("l", "")
        if not part:
            continue
        lo, _, hi = part.partition("-")
        try:
            a, b = int(lo), int(hi or lo)
        except ValueError:
            raise ValueError(f"line range {part!r} is not N or N-M") from None
        if a > b or a < start or b > end:
            raise ValueError(f"lines {a}-{b} are outside this chunk ({start}-{end})")
        out.append((a, b))
    return out


def _spans(lines: Mapping[tuple[str, str, int], int]) -> list[dict[str, Any]]:
    """Per-line grades → contiguous spans of one grade (sorted by query, path, line)."""
    rows: list[dict[str, Any]] = []
    for (qid, path, line), grade in sorted(lines.items()):
        last = rows[-1] if rows else None
        if (last and last["query_id"] == qid and last["path"] == path
                and last["end_line"] == line - 1 and last["grade"] == grade):
            last["end_line"] = line
        else:
            rows.append({"query_id": qid, "path": path, "start_line": line,
                         "end_line": line, "grade": grade})
    return rows


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)  # atomic: a crash never leaves half a file


def _jsonl(rows: Sequence[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


class Assessor:
    """Pooled relevance labelling with autosave and exact resume (see the module docstring).

    Parameters
    ----------
    workspace:
        An agent workspace folder, or a memory dataset folder (its ``workspace/``; its queries
        are loaded unless ``queries`` is given).
    systems:
        The pooled systems: built-in names or config files/dicts (as ``memlab eval
        --config``), a mapping of names to those, to ``(config, embedder)`` pairs, or to
        ready pipelines (anything with ``transform(queries) -> hits``).
    out:
        The folder labels are saved to (and resumed from).
    queries:
        Query texts, a queries frame (``qid``, ``query``), or a ``queries.jsonl`` path.
    k:
        Hits per system pooled for each query.
    seed:
        Seed of the pool shuffle (per query: the seed and the query id).
    """

    def __init__(self, workspace: str | Path, systems: Any = ("keyword",),
                 out: str | Path = "labels", *, queries: Any = None, k: int = 5,
                 seed: int = 0):
        root = Path(workspace)
        if (root / "workspace").is_dir():
            if queries is None and (root / "queries.jsonl").is_file():
                queries = root / "queries.jsonl"
            root = root / "workspace"
        if not root.is_dir():
            raise FileNotFoundError(f"{workspace}: workspace folder not found")
        self.workspace = root.resolve()
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.systems_spec = systems
        self._pipelines: dict[int, dict[str, Any]] = {}
        self._embedders: dict[str, Any] = {}
        self._corpora: dict[str, Any] = {}
        self.queries: list[dict[str, Any]] = []
        self.pools: dict[str, list[dict[str, Any]]] = {}
        self.log: list[dict[str, Any]] = []
        self.k, self.seed = int(k), int(seed)
        state = self.out / STATE_FILE
        if state.is_file():
            saved = json.loads(state.read_text(encoding="utf-8"))
            self.k, self.seed = int(saved["k"]), int(saved["seed"])
            self.queries, self.pools, self.log = saved["queries"], saved["pools"], saved["log"]
        if queries is not None:
            self.add_queries(queries)
        self._link_workspace()
        self._widget: Any = None
        self.save()

    # -- queries and pools ---------------------------------------------------------------

    def add_query(self, text: str, qid: str | None = None, *, tags: Sequence[str] = (),
                  now: str | None = None) -> str:
        """Add a query (a new id ``a001``, ... unless given); a text already queued is not
        added twice. Returns its id."""
        text = str(text).strip()
        if not text:
            raise ValueError("empty query")
        for q in self.queries:
            if q["text"] == text or (qid is not None and q["id"] == qid):
                return q["id"]
        taken = {q["id"] for q in self.queries}
        if qid is None:
            n = len(self.queries) + 1
            while f"a{n:03d}" in taken:
                n += 1
            qid = f"a{n:03d}"
        record: dict[str, Any] = {"id": str(qid), "text": text, "tags": list(tags)}
        if now is not None:
            record["now"] = str(now)
        self.queries.append(record)
        self.save()
        return str(qid)

    def add_queries(self, queries: Any) -> list[str]:
        """Add query texts, a frame with ``qid``/``query`` (and ``tags``, ``now``) or the
        queries of a ``queries.jsonl`` file."""
        if isinstance(queries, str | Path) and Path(queries).suffix == ".jsonl":
            rows = [json.loads(line) for line in Path(queries).read_text(
                encoding="utf-8").splitlines() if line.strip()]
            return [self.add_query(r["text"], str(r["id"]), tags=r.get("tags", ()),
                                   now=r.get("now")) for r in rows]
        if isinstance(queries, pd.DataFrame):
            ids = []
            for r in queries.to_dict("records"):
                now = r.get("now")
                ids.append(self.add_query(r["query"], str(r["qid"]), tags=r.get("tags") or (),
                                          now=None if now is None or pd.isna(now)
                                          else pd.Timestamp(now).isoformat()))
            return ids
        if isinstance(queries, str):
            queries = [queries]
        return [self.add_query(t) for t in queries]

    def pipelines(self, depth: int | None = None) -> dict[str, Any]:
        """The pooled systems as pipelines (name → pipeline) returning ``depth`` hits
        (default ``k``) at ``minScore`` 0; built once per depth. Ready pipelines given as
        systems are returned as they are."""
        depth = self.k if depth is None else int(depth)
        if depth in self._pipelines:
            return self._pipelines[depth]
        from memlab.eval.systems import dataset_corpus, resolve_system
        from memlab.openclaw import make_embedder, openclaw_pipeline

        spec = self.systems_spec
        items = (list(spec.items()) if isinstance(spec, Mapping)
                 else [(None, s) for s in ([spec] if isinstance(spec, str) else spec)])
        pipes: dict[str, Any] = {}
        ws = SimpleNamespace(workspace=self.workspace)
        for i, (name, s) in enumerate(items, start=1):
            if hasattr(s, "transform"):
                pipes[str(name or f"system{i}")] = s
                continue
            tiered = _tiered_search(s, self.workspace)
            if tiered is not None:  # a memory.search config: its own line's search
                pipes[str(name or _system_name(s, i))] = _Searches(tiered, depth)
                continue
            if isinstance(s, tuple):
                cfg, embedder = resolve_system(s[0])[1], s[1]
                name = name or f"system{i}"
            else:
                auto, cfg = resolve_system(s)
                name = name or auto
                ms = cfg.memory_search
                key = repr((ms.resolved_provider(), ms.model, ms.local))
                if ms.resolved_provider() != "none" and key not in self._embedders:
                    self._embedders[key] = make_embedder(cfg)  # one per provider setting
                embedder = self._embedders.get(key)
            ms = cfg.memory_search
            ckey = repr((ms.chunking.tokens, ms.resolved_overlap(), ms.effective_sources(),
                         ms.effective_extra_paths(), getattr(embedder, "model", None),
                         getattr(embedder, "max_input_tokens", None)))
            if ckey not in self._corpora:  # systems that chunk alike share one corpus
                self._corpora[ckey] = dataset_corpus(ws, cfg, embedder)
            corpus = self._corpora[ckey]
            pipes[str(name)] = openclaw_pipeline(corpus, cfg, embedder, max_results=depth,
                                                 min_score=0.0)
        if not pipes:
            raise ValueError("give at least one system to pool")
        self._pipelines[depth] = pipes
        return pipes

    def _frame(self, qids: Sequence[str]) -> pd.DataFrame:
        qs = [self._query(q) for q in qids]
        frame = pd.DataFrame({"qid": [q["id"] for q in qs], "query": [q["text"] for q in qs]})
        if any(q.get("now") for q in qs):  # queries without one use the latest, as memlab eval
            now = pd.to_datetime([q.get("now") for q in qs], utc=True)
            frame["now"] = pd.Series(now).fillna(pd.Series(now).max()).to_numpy()
        return frame

    def runs(self, depth: int = 10, qids: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
        """Every pooled system's hits for the queries (all by default) at ``depth``: the
        runs to evaluate on the labels (:func:`memlab.eval.judged.compare_runs`)."""
        frame = self._frame(list(qids) if qids is not None else [q["id"] for q in self.queries])
        return {name: pipe.transform(frame) for name, pipe in self.pipelines(depth).items()}

    def pool(self, qid: str) -> list[dict[str, Any]]:
        """The shuffled, de-duplicated pool of a query (computed once, then stored; the
        pools of all queries not pooled yet are computed together)."""
        if qid in self.pools:
            return self.pools[qid]
        self._query(qid)
        todo = [q["id"] for q in self.queries if q["id"] not in self.pools]
        found: dict[str, dict[tuple[str, int, int], dict[str, Any]]] = {q: {} for q in todo}
        for name, hits in self.runs(self.k, todo).items():
            hits = hits.sort_values(["qid", "rank"], kind="stable")
            hits = hits.groupby("qid", sort=False).head(self.k)
            for h in hits.itertuples(index=False):
                key = (str(h.path), int(h.start_line), int(h.end_line))
                item = found[str(h.qid)].setdefault(key, {
                    "path": key[0], "start_line": key[1], "end_line": key[2], "systems": []})
                if name not in item["systems"]:
                    item["systems"].append(name)
        for q, by_span in found.items():
            items = [by_span[key] for key in sorted(by_span)]
            rng = np.random.default_rng([self.seed, zlib.crc32(q.encode("utf-8"))])
            self.pools[q] = [items[i] for i in rng.permutation(len(items))]
        self.save()
        return self.pools[qid]

    def _query(self, qid: str) -> dict[str, Any]:
        for q in self.queries:
            if q["id"] == qid:
                return q
        raise KeyError(f"no query {qid!r}")

    # -- replaying the log -----------------------------------------------------------------

    def _replay(self) -> tuple[int, int, dict[tuple[str, str, int], int], set, set]:
        """(query index, item index, line grades, finished items, skipped items)."""
        qi, ci = 0, 0
        grades: dict[tuple[str, str, int], int] = {}
        finished: set[tuple[str, int]] = set()
        skipped: set[tuple[str, int]] = set()
        for e in self.log:
            if e["op"] == "mark":
                for line in range(e["start_line"], e["end_line"] + 1):
                    grades[e["qid"], e["path"], line] = e["grade"]
            elif e["op"] in ("next", "skip"):
                (finished if e["op"] == "next" else skipped).add((e["qid"], e["item"]))
                qi, ci = e["qi"], e["item"] + 1
            elif e["op"] == "skip_query":
                qi, ci = e["qi"] + 1, 0
        return qi, ci, grades, finished, skipped

    @property
    def position(self) -> tuple[int, int]:
        """``(query index, chunk index)`` of the chunk shown now (past the pool's end when
        the query is done: :attr:`current` moves on to the next query)."""
        qi, ci = self._replay()[:2]
        while qi < len(self.queries) and ci >= len(self.pool(self.queries[qi]["id"])):
            qi, ci = qi + 1, 0
        return qi, ci

    @property
    def done(self) -> bool:
        return self.position[0] >= len(self.queries)

    @property
    def current(self) -> dict[str, Any] | None:
        """The chunk shown now: ``qid``, ``query``, ``item`` (index), ``path``, ``start_line``,
        ``end_line``, ``lines`` (``[(number, text)]``) and the ``grades`` marked on it; None
        when every query is done."""
        qi, ci = self.position
        if qi >= len(self.queries):
            return None
        q = self.queries[qi]
        item = self.pool(q["id"])[ci]
        grades = self._replay()[2]
        lines = self.chunk_lines(item["path"], item["start_line"], item["end_line"])
        return {"qid": q["id"], "query": q["text"], "item": ci, "path": item["path"],
                "start_line": item["start_line"], "end_line": item["end_line"],
                "lines": lines,
                "grades": {n: grades[q["id"], item["path"], n] for n, _ in lines
                           if (q["id"], item["path"], n) in grades}}

    def chunk_lines(self, path: str, start: int, end: int) -> list[tuple[int, str]]:
        """A chunk's lines with their numbers (a transcript's rendered lines with their JSONL
        line numbers, as OpenClaw cites them)."""
        file = self.workspace / path
        if path.endswith(".jsonl"):
            from memlab.sessions import parse_session

            t = parse_session(file, path=path)
            return [(n, text) for n, text in zip(t.line_map, t.lines, strict=True)
                    if start <= n <= end]
        text = file.read_text(encoding="utf-8", errors="replace").split("\n")
        return [(n, text[n - 1]) for n in range(start, min(end, len(text)) + 1)]

    # -- actions -----------------------------------------------------------------------------

    def _act(self, op: str, **fields: Any) -> None:
        cur = self.current
        if cur is None:
            raise ValueError("every query is labelled: add queries to go on")
        self.log.append({"op": op, "qid": cur["qid"], "qi": self.position[0],
                         "item": cur["item"], **fields})
        self.save()
        self.render()

    def mark(self, lines: str | tuple[int, int] | None, grade: int) -> None:
        """Grade lines of the current chunk: ``"12-14, 16"``, ``(12, 14)``, or ``None`` / ``""``
        for the whole chunk."""
        if grade not in GRADES:
            raise ValueError(f"grade must be one of {GRADES}, got {grade!r}")
        cur = self.current
        if cur is None:
            raise ValueError("every query is labelled: add queries to go on")
        if isinstance(lines, tuple):
            lines = f"{lines[0]}-{lines[1]}"
        for a, b in parse_lines(lines or "", cur["start_line"], cur["end_line"]):
            self._act("mark", path=cur["path"], start_line=a, end_line=b, grade=int(grade))

    def next(self) -> None:
        """Finish the current chunk: it is judged (unmarked lines count as not relevant)."""
        self._act("next")

    def skip(self) -> None:
        """Leave the current chunk unjudged and move on."""
        self._act("skip")

    def skip_query(self) -> None:
        """Leave the rest of the current query's pool unjudged and go to the next query."""
        self._act("skip_query")

    def undo(self) -> bool:
        """Undo the last action (a mark, next or skip); False when there is none."""
        if not self.log:
            return False
        self.log.pop()
        self.save()
        self.render()
        return True

    def label_from_qrels(self, qrels: pd.DataFrame, max_queries: int | None = None) -> int:
        """Play the assessor from existing judgments (``qid, path, start_line, end_line,
        grade``): on every pooled chunk, mark the lines the qrels grade, then finish it.
        Simulates pooled assessment of an already-labeled dataset (how much would pooling
        these systems have found?); returns the number of chunks judged.

        >>> qrels = load_memory_dataset("datasets/sample-memory").qrels  # doctest: +SKIP
        >>> a.label_from_qrels(qrels)  # doctest: +SKIP
        """
        judged, first = 0, self.position[0]
        while not self.done and (max_queries is None or self.position[0] - first < max_queries):
            cur = self.current
            spans = qrels[(qrels["qid"].astype(str) == cur["qid"])
                          & (qrels["path"] == cur["path"])
                          & (qrels["start_line"] <= cur["end_line"])
                          & (qrels["end_line"] >= cur["start_line"])]
            for r in spans.sort_values("grade").itertuples():
                self.mark((max(int(r.start_line), cur["start_line"]),
                           min(int(r.end_line), cur["end_line"])), int(r.grade))
            self.next()
            judged += 1
        return judged

    # -- saving ---------------------------------------------------------------------------

    def _link_workspace(self) -> None:
        link = self.out / "workspace"
        if link.exists() or link.is_symlink():
            return
        try:
            link.symlink_to(self.workspace, target_is_directory=True)
        except OSError:  # no symlinks here (some file systems): copy instead
            import shutil

            shutil.copytree(self.workspace, link)

    def labels(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """``(qrels, judged)`` as saved: qrels spans (grade >= 1) and judged spans."""
        _, _, grades, finished, _ = self._replay()
        qrels = _spans({k: g for k, g in grades.items() if g >= 1})
        judged = [{"query_id": qid, "path": self.pools[qid][i]["path"],
                   "start_line": self.pools[qid][i]["start_line"],
                   "end_line": self.pools[qid][i]["end_line"], "grade": 0}
                  for qid, i in sorted(finished)]
        judged += _spans({k: g for k, g in grades.items() if g == 0})
        cols = ["query_id", "path", "start_line", "end_line", "grade"]
        return pd.DataFrame(qrels, columns=cols), pd.DataFrame(judged, columns=cols)

    def save(self) -> None:
        """Write queries.jsonl, qrels.jsonl, judged.jsonl and assessor.json (atomically)."""
        qrels, judged = self.labels()
        _write(self.out / "queries.jsonl", _jsonl(self.queries))
        _write(self.out / "qrels.jsonl", _jsonl(qrels.to_dict("records")))
        _write(self.out / JUDGED_FILE, _jsonl(judged.to_dict("records")))
        state = {"workspace": str(self.workspace), "k": self.k, "seed": self.seed,
                 "queries": self.queries, "pools": self.pools, "log": self.log}
        _write(self.out / STATE_FILE, json.dumps(state, ensure_ascii=False, indent=1) + "\n")

    def progress(self) -> dict[str, int]:
        """Counts: queries, queries done, chunks judged, skipped, lines marked relevant."""
        _, _, grades, finished, skipped = self._replay()
        return {"queries": len(self.queries), "done": self.position[0],
                "judged": len(finished), "skipped": len(skipped),
                "relevant_lines": sum(g >= 1 for g in grades.values())}

    # -- the widget -------------------------------------------------------------------------

    @property
    def widget(self) -> Any:
        if self._widget is None:
            self._build()
        return self._widget

    def _build(self) -> None:
        w = ipywidgets_module()
        self.header = w.HTML()
        self.chunk = w.HTML()
        self.lines_box = w.Text(placeholder="lines, e.g. 12-14, 16 (empty: whole chunk)",
                                description="lines")
        self.new_query = w.Text(placeholder="type a query and press Enter",
                                description="add query", continuous_update=False)
        self.message = w.HTML()
        self.buttons = {"2": w.Button(description="2 relevant", button_style="success"),
                        "1": w.Button(description="1 partial", button_style="info"),
                        "0": w.Button(description="0 not relevant"),
                        "next": w.Button(description="done with chunk →",
                                         button_style="primary"),
                        "skip": w.Button(description="skip"),
                        "undo": w.Button(description="undo", button_style="warning")}
        for g in ("0", "1", "2"):
            self.buttons[g].on_click(lambda _b, g=int(g): self._guard(
                lambda: self.mark(self.lines_box.value, g)))
        self.buttons["next"].on_click(lambda _b: self._guard(self.next))
        self.buttons["skip"].on_click(lambda _b: self._guard(self.skip))
        self.buttons["undo"].on_click(lambda _b: self._guard(self.undo))
        self.new_query.observe(lambda change: change["new"].strip() and self._guard(
            lambda: self._typed(change["new"])), "value")
        self._widget = w.VBox([self.header, self.chunk, self.lines_box,
                               w.HBox([self.buttons[k] for k in ("2", "1", "0")]),
                               w.HBox([self.buttons[k] for k in ("next", "skip", "undo")]),
                               self.new_query, self.message])
        self.render()

    def _typed(self, text: str) -> None:
        self.add_query(text)
        self.new_query.value = ""
        self.render()

    def _guard(self, action: Any) -> None:
        try:
            action()
            self.lines_box.value = ""
            self.message.value = ""
        except (ValueError, KeyError) as exc:  # shown in the widget, not raised
            self.message.value = f"<span style='color:#b00'>{html.escape(str(exc))}</span>"

    def render(self) -> None:
        """Refresh the widget (no-op before it is built)."""
        if self._widget is None:
            return
        cur, p = self.current, self.progress()
        if cur is None:
            self.header.value = (f"<b>All {p['queries']} queries labelled</b> "
                                 f"({p['judged']} chunks judged). Add a query to go on.")
            self.chunk.value = ""
            return
        qi, ci = self.position
        self.header.value = (f"<b>Query {qi + 1}/{p['queries']}</b> · chunk {ci + 1}/"
                             f"{len(self.pools[cur['qid']])}: "
                             f"<i>{html.escape(cur['query'])}</i>")
        colours = {2: "#c8efc8", 1: "#e6f3ff", 0: "#f3f3f3"}
        rows = "".join(
            f"<div style='background:{colours.get(cur['grades'].get(n), 'none')}'>"
            f"<span style='color:#888'>{n:>5} </span>{html.escape(t)}"
            + (f" <b>[{cur['grades'][n]}]</b>" if n in cur["grades"] else "") + "</div>"
            for n, t in cur["lines"])
        self.chunk.value = (f"<div style='font-family:monospace;font-size:12px'>"
                            f"<div><b>{html.escape(cur['path'])}</b></div>{rows}</div>")

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


def _tiered_search(spec: Any, workspace: Path) -> Any:
    """A :class:`~memlab.openclaw.MemorySearch` of ``spec`` when it is a config (a dict, or a
    file) for a line of the tiered engine (``memory.search``), else ``None``."""
    from memlab.openclaw import MemorySearch, config_line

    if isinstance(spec, tuple) or not (isinstance(spec, Mapping) or (
            isinstance(spec, str | Path) and Path(spec).is_file())):
        return None
    line, tree = config_line(spec)
    return MemorySearch(workspace, tree, profile=line) if line.engine == "tiered" else None


def _system_name(spec: Any, i: int) -> str:
    return Path(spec).stem if isinstance(spec, str | Path) else f"system{i}"


class _Searches:
    """A tiered-line search behind the ``transform(queries)`` of a pooled pipeline: its
    :meth:`~memlab.openclaw.MemorySearch.run` at ``depth``, ``minScore`` 0."""

    def __init__(self, search: Any, depth: int) -> None:
        self.search, self.depth = search, depth

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        return self.search.run(frame, max_results=self.depth, min_score=0.0)

