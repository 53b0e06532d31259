"""The Explorer widget: one query's ranking under live fusion / decay / MMR / cut settings.

:class:`Explorer` wraps the pipeline OpenClaw runs (:func:`memlab.openclaw.openclaw_pipeline`,
or a :class:`~memlab.openclaw.MemorySearch`): a query box (and, with a dataset, a picker of its
queries) and sliders for ``vectorWeight``, ``candidateMultiplier``, MMR (on/off, λ), temporal
decay (on/off, half-life), ``minScore`` and ``maxResults``. Moving a slider calls
``set_params`` on the pipeline and re-runs it; both legs sit behind
:class:`~memlab.pipeline.Cached`, so only fusion, decay, MMR and the cut are recomputed (no
embedding, no search): a few milliseconds on the bundled dataset. The table shows each hit's
final, vector and keyword scores; with a dataset loaded, hits overlapping a judged span of
the selected query are marked with their grade.

The explorer runs each leg once at depth 200 and cuts it to ``candidates`` in the fusion
stage, as the sweep engine does. That is OpenClaw's ranking exactly, except for queries that
reach OpenClaw's keyword fallback (no hit for the AND query), whose per-keyword ``LIMIT`` is
``candidates`` in OpenClaw: there the explorer may show a few more keyword candidates.

:class:`SweepBrowser` filters a sweep results DataFrame (one row per configuration, axis
columns named by config key paths such as ``query.hybrid.vectorWeight``, metric columns such
as ``ndcg@10``), ranks the rows by a metric and exports the selected configuration with
:func:`memlab.config.export_config`.

Both are plain Python objects holding their widgets: display one in a notebook (it renders
its ``widget``), or drive it from code and tests by setting widget values
(``explorer.controls["vector_weight"].value = 0.3``); the latest table is ``.results``.

>>> from memlab.widgets import Explorer  # doctest: +SKIP
>>> ms = MemorySearch("datasets/sample-memory/workspace")  # doctest: +SKIP
>>> Explorer(ms, "datasets/sample-memory")  # doctest: +SKIP
"""


from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from memlab.config import HybridConfig
from memlab.config.types import MAX_CANDIDATE_MULTIPLIER, MAX_CANDIDATES
from memlab.frames import QueryHits
from memlab.kernels.fusion import normalize_weights
from memlab.results import COMPONENTS, ResultBuilder, mode_of
from memlab.widgets.common import html_table, ipywidgets_module, short_text

__all__ = ["Explorer", "relevant_grades"]

#: Depth at which the explorer runs each leg once (OpenClaw's maximum ``candidates``).
LEG_DEPTH = MAX_CANDIDATES


def relevant_grades(hits: pd.DataFrame, qrels: pd.DataFrame) -> np.ndarray:
    """Per hit, the highest grade of a judged span it overlaps (same path, overlapping lines);
    0 when none. Unlike :func:`memlab.eval.span_gains` no span is consumed: every hit that
    touches a judged span is marked.

    >>> hits = pd.DataFrame({"path": ["a.md", "a.md", "b.md"], "start_line": [1, 10, 1],
    ...                      "end_line": [5, 20, 9]})
    >>> qrels = pd.DataFrame({"path": ["a.md"], "start_line": [4], "end_line": [4],
    ...                       "grade": [2]})
    >>> relevant_grades(hits, qrels).tolist()
    [2, 0, 0]
    """
    if not len(hits) or not len(qrels):
        return np.zeros(len(hits), dtype=np.int64)
    # hits x spans at once (a few hits against one query's spans: a small matrix)
    overlap = ((hits["path"].to_numpy(dtype=object)[:, None]
                == qrels["path"].to_numpy(dtype=object)[None, :])
               & (qrels["start_line"].to_numpy()[None, :] <= hits["end_line"].to_numpy()[:, None])
               & (qrels["end_line"].to_numpy()[None, :] >= hits["start_line"].to_numpy()[:, None]))
    grades = np.where(overlap, qrels["grade"].to_numpy(dtype=np.int64)[None, :], 0)
    return grades.max(axis=1)


def _load_dataset(dataset: Any) -> Any:
    if dataset is None or hasattr(dataset, "queries"):
        return dataset
    from memlab.eval.datasets import load_dataset

    return load_dataset(dataset)


def _pipeline_of(target: Any, max_results: int, dataset: Any) -> tuple[Any, Any, Any]:
    """``(pipeline, corpus, search)`` for a pipeline (``search`` None), a MemorySearch or
    (with a dataset) a config."""
    from memlab.openclaw import MemorySearch, openclaw_pipeline
    from memlab.pipeline import Sequence

    if isinstance(target, Sequence):
        corpus = None
        for stage in target.stages:
            corpus = getattr(stage, "corpus", None) or corpus
        return target, corpus, None
    if isinstance(target, MemorySearch):
        if target.tiered is not None:
            raise ValueError(
                f"the Explorer's sliders set the stage pipeline's parameters; line "
                f"{target.line.name} runs the tiered engine, whose knobs are retired: use "
                f"MemorySearch.search(), or memlab sweep --profile {target.line.name} for its "
                "minScore/maxResults/importance axes")
        pipe = openclaw_pipeline(target.corpus, target.config, target.embedder,
                                 max_results=max_results, min_score=0.0,
                                 **target.session_options())
        return pipe, target.corpus, target
    if dataset is not None:  # a config (dict, path, MemlabConfig) searched over the dataset
        ms = MemorySearch(dataset.workspace, target)
        return _pipeline_of(ms, max_results, None)
    raise TypeError("Explorer needs a pipeline from memlab.openclaw.openclaw_pipeline or a "
                    f"memlab.openclaw.MemorySearch (got {type(target).__name__}), or a config "
                    "together with a dataset")


class Explorer:
    """Explore one query's ranking under live fusion / decay / MMR / cut settings.

    Parameters
    ----------
    target:
        A pipeline of :func:`memlab.openclaw.openclaw_pipeline` (its ``set_params`` is called),
        a :class:`memlab.openclaw.MemorySearch` (a pipeline of its own is built), or, with
        ``dataset``, a config to search the dataset's workspace with.
    dataset:
        A memory dataset (path or loaded): its queries become a picker, their ``now`` fixes
        the decay clock, and hits overlapping judged spans are marked.
    query:
        The initial query text (default: the dataset's first query).
    max_results:
        The initial ``maxResults`` (the explorer starts at ``minScore`` 0 so the whole top
        list shows; raise the slider to see OpenClaw's cut).
    now:
        Reference time of temporal decay for typed queries (default: the dataset's latest
        ``now``, else the clock).
    metric:
        The dataset-level metric (with a dataset): its mean over the dataset's judged
        queries under the current settings, shown below the sliders when the "score the
        dataset" button is pressed, or after every change with "live" ticked
        (:meth:`score_dataset`).
    """

    def __init__(self, target: Any, dataset: Any = None, *, query: str | None = None,
                 max_results: int = 10, now: object = None, metric: str = "ndcg@10"):
        from memlab.eval.metrics import parse_metric

        w = ipywidgets_module()
        parse_metric(metric)
        self.metric = metric.strip().lower()
        self.dataset = _load_dataset(dataset)
        self.pipeline, self.corpus, self.search = _pipeline_of(target, max_results,
                                                               self.dataset)
        stages = self.pipeline.named_stages()
        self.fusion = stages.get("fusion")
        self.decay = stages.get("temporaldecay")
        self.mmr = stages.get("mmr")
        self.threshold = stages.get("threshold")
        if self.fusion is None or self.threshold is None:
            raise ValueError("the pipeline needs a Fusion and a Threshold stage (build it with "
                             "memlab.openclaw.openclaw_pipeline)")
        self._deepen_legs()
        if self.mmr is not None and hasattr(self.mmr, "token_matrix"):
            self.mmr.token_matrix()  # tokenise the snippets once now, not on the first toggle
        self.now = now
        if now is None and self.dataset is not None and "now" in self.dataset.queries:
            nows = self.dataset.queries["now"].dropna()
            self.now = nows.max() if len(nows) else None
        hybrid = self.fusion.vector is not None and self.fusion.text is not None
        self.mode = mode_of(self.fusion.vector is not None, self.fusion.text is not None)
        builder = getattr(self.search, "result_builder", None)
        self.result_builder = builder if builder is not None else (
            ResultBuilder(self.corpus) if self.corpus is not None else None)
        mr = int(self.threshold.max_results)
        vw, _ = normalize_weights(self.fusion.vector_weight, self.fusion.text_weight)
        style = {"description_width": "150px"}
        layout = w.Layout(width="460px")

        def slider(cls, desc, value, lo, hi, step, **kw):
            return cls(value=value, min=lo, max=hi, step=step, description=desc,
                       continuous_update=False, style=style, layout=layout, **kw)

        self.controls: dict[str, Any] = {
            "query": w.Text(value="", description="query", placeholder="type a query, Enter",
                            continuous_update=False, style=style,
                            layout=w.Layout(width="700px")),
            "vector_weight": slider(w.FloatSlider, "vectorWeight",
                                    round(vw, 2), 0.0, 1.0, 0.05,
                                    disabled=not hybrid),
            # integer steps: OpenClaw's schema takes an integer candidateMultiplier
            "candidate_multiplier": slider(
                w.IntSlider, "candidateMultiplier",
                int(min(MAX_CANDIDATE_MULTIPLIER,
                        max(1, round(self.fusion.candidates / max(mr, 1))))),
                1, MAX_CANDIDATE_MULTIPLIER, 1),
            "mmr_enabled": w.Checkbox(value=bool(self.mmr.enabled) if self.mmr else False,
                                      description="MMR", disabled=self.mmr is None),
            "mmr_lambda": slider(w.FloatSlider, "MMR λ",
                                 float(self.mmr.lambda_) if self.mmr else 0.7, 0.0, 1.0, 0.05,
                                 disabled=self.mmr is None),
            "decay_enabled": w.Checkbox(value=bool(self.decay.enabled) if self.decay else False,
                                        description="temporal decay",
                                        disabled=self.decay is None),
            "half_life": slider(w.IntSlider, "half-life (days)",
                                int(self.decay.half_life_days) if self.decay else 30, 1, 365, 1,
                                disabled=self.decay is None),
            "min_score": slider(w.FloatSlider, "minScore", float(self.threshold.min_score),
                                0.0, 1.0, 0.01),
            "max_results": slider(w.IntSlider, "maxResults", mr, 1, 50, 1),
        }
        self._qids: dict[str, str] = {}
        if self.dataset is not None:
            q = self.dataset.queries
            options = [("(type your own)", "")] + [
                (f"{qid}: {text[:70]}", str(qid)) for qid, text in zip(q["qid"], q["query"],
                                                                      strict=True)]
            self._qids = {str(qid): text for qid, text in zip(q["qid"], q["query"],
                                                              strict=True)}
            self.controls["dataset_query"] = w.Dropdown(
                options=options, value="", description="dataset query", style=style,
                layout=w.Layout(width="700px"))
            self.controls["dataset_query"].observe(self._on_pick, names="value")
            self.controls["dataset_live"] = w.Checkbox(value=False, description="live")
        self.status = w.HTML()
        self.table = w.HTML()
        self.dataset_line = w.HTML()
        self.score_button = w.Button(description=f"score the dataset ({self.metric})",
                                     disabled=self.dataset is None,
                                     layout=w.Layout(width="260px"))
        self.score_button.on_click(lambda _button: self.score_dataset())
        self.results = pd.DataFrame()
        #: The dataset-level metric of the last :meth:`score_dataset` (per judged query, and
        #: its mean), and the settings it was computed for.
        self.dataset_scores = pd.Series(dtype=float)
        self.dataset_score: float | None = None
        self._scored_for: dict[str, Any] | None = None
        self.seconds = 0.0
        for name, control in self.controls.items():
            if name != "dataset_query":
                control.observe(self._on_change, names="value")
        self._updating = False
        if query is None and self.dataset is not None and len(self.dataset.queries):
            first = str(self.dataset.queries["qid"].iloc[0])
            self.controls["dataset_query"].value = first  # sets the query and updates
        else:
            self.controls["query"].value = query or ""
            if not query:
                self.update()
        c = self.controls
        rows = [c["query"]]
        if "dataset_query" in c:
            rows.insert(0, c["dataset_query"])
        rows += [w.HBox([w.VBox([c["vector_weight"], c["candidate_multiplier"],
                                 c["min_score"], c["max_results"]]),
                         w.VBox([w.HBox([c["mmr_enabled"], c["decay_enabled"]]),
                                 c["mmr_lambda"], c["half_life"]])]),
                 self.status]
        if "dataset_live" in c:
            rows.append(w.HBox([self.score_button, c["dataset_live"], self.dataset_line]))
        rows.append(self.table)
        self.widget = w.VBox(rows)

    def _deepen_legs(self) -> None:
        """Run the keyword leg at depth 200 once; Fusion cuts both legs to ``candidates``."""
        leg = self.fusion.text
        inner = getattr(leg, "stage", leg)
        if inner is not None and "depth" in inner.get_params(deep=False):
            depth = inner.get_params(deep=False)["depth"]
            if depth is not None and depth < LEG_DEPTH:
                inner.set_params(depth=LEG_DEPTH)

    # -- callbacks ---------------------------------------------------------------------------
    def _on_pick(self, change: Mapping[str, Any]) -> None:
        qid = change["new"]
        if qid:
            text = self._qids[qid]
            if self.controls["query"].value == text:
                self.update()
            else:
                self.controls["query"].value = text  # triggers update

    def _on_change(self, change: Mapping[str, Any]) -> None:
        if not self._updating:
            self.update()

    def params(self) -> dict[str, Any]:
        """The pipeline parameters the controls stand for (``set_params`` names)."""
        c = self.controls
        mr = int(c["max_results"].value)
        hybrid = HybridConfig(candidateMultiplier=int(c["candidate_multiplier"].value))
        params: dict[str, Any] = {
            "fusion__candidates": hybrid.candidates(mr),  # OpenClaw's formula, in the schema
            "threshold__min_score": float(c["min_score"].value),
            "threshold__max_results": mr,
        }
        if not c["vector_weight"].disabled:
            vw = float(c["vector_weight"].value)
            params.update(fusion__vector_weight=vw, fusion__text_weight=round(1.0 - vw, 10))
        if self.mmr is not None:
            params.update(mmr__enabled=bool(c["mmr_enabled"].value),
                          mmr__lambda_=float(c["mmr_lambda"].value))
        if self.decay is not None:
            params.update(temporaldecay__enabled=bool(c["decay_enabled"].value),
                          temporaldecay__half_life_days=int(c["half_life"].value))
        return params

    def config_overrides(self) -> dict[str, Any]:
        """The controls as OpenClaw key paths (for :func:`memlab.config.export_config`)."""
        c = self.controls
        out: dict[str, Any] = {"query.maxResults": int(c["max_results"].value),
                               "query.minScore": float(c["min_score"].value),
                               "query.hybrid.candidateMultiplier":
                                   int(c["candidate_multiplier"].value)}
        if not c["vector_weight"].disabled:
            vw = float(c["vector_weight"].value)
            out.update({"query.hybrid.vectorWeight": vw,
                        "query.hybrid.textWeight": round(1.0 - vw, 10)})
        if self.mmr is not None:
            out.update({"query.hybrid.mmr.enabled": bool(c["mmr_enabled"].value),
                        "query.hybrid.mmr.lambda": float(c["mmr_lambda"].value)})
        if self.decay is not None:
            out.update({"query.hybrid.temporalDecay.enabled": bool(c["decay_enabled"].value),
                        "query.hybrid.temporalDecay.halfLifeDays": int(c["half_life"].value)})
        return out

    def _queries(self, text: str) -> tuple[pd.DataFrame, str | None]:
        qid = None
        now = self.now
        picked = self.controls.get("dataset_query")
        if picked is not None and picked.value and self._qids.get(picked.value) == text:
            qid = picked.value
            row = self.dataset.queries[self.dataset.queries["qid"].astype(str) == qid].iloc[0]
            if "now" in row and not pd.isna(row["now"]) and str(row["now"]).strip():
                now = row["now"]  # the picked query's own clock (a Timestamp once loaded)
        elif self.dataset is not None:
            match = self.dataset.queries[self.dataset.queries["query"] == text]
            if len(match):
                qid = str(match["qid"].iloc[0])
        frame = pd.DataFrame({"qid": [qid or "q"], "query": [text]})
        if now is not None:
            frame["now"] = [now]
        return frame, qid

    def update(self) -> pd.DataFrame:
        """Apply the controls to the pipeline, re-rank the current query, redraw the table."""
        start = time.perf_counter()
        text = str(self.controls["query"].value).strip()
        self.pipeline.set_params(**self.params())
        if not text:
            self.results = pd.DataFrame()
            self.table.value = "<i>Type a query (or pick one of the dataset).</i>"
            self.status.value = ""
            return self.results
        frame, qid = self._queries(text)
        hits = self._rerank(frame)
        table = self._table(hits)
        if self.dataset is not None and qid is not None:
            qrels = self.dataset.qrels[self.dataset.qrels["qid"].astype(str) == qid]
            table.insert(len(table.columns) - ("snippet" in table),
                         "relevant", relevant_grades(hits, qrels) if len(hits) else [])
            self._judged = len(qrels)
        else:
            self._judged = None
        self.results = table
        self.seconds = time.perf_counter() - start
        self._render(qid)
        if self.dataset is not None:
            if self.controls["dataset_live"].value:
                self.score_dataset()
            else:
                self._render_dataset()
        return table

    def _table(self, hits: pd.DataFrame) -> pd.DataFrame:
        """The shown table: OpenClaw's result objects (:class:`memlab.results.ResultBuilder`,
        the builder of ``memlab search`` and :meth:`MemorySearch.search`), one row each:
        rank, citation, score, the mode's components, a short snippet."""
        columns = ["rank", "citation", "score", *COMPONENTS[self.mode]]
        if self.result_builder is None or not len(hits):
            return pd.DataFrame({c: [] for c in columns})
        results = self.result_builder.build(QueryHits.from_frame(hits), self.mode)
        table = pd.DataFrame.from_records(results)
        table.insert(0, "rank", range(1, len(table) + 1))
        table["snippet"] = [short_text(text) for text in table["snippet"]]
        return table[[*columns, "snippet"]]

    # -- the dataset-level metric -------------------------------------------------------------
    def score_dataset(self) -> float:
        """The mean of :attr:`metric` over the dataset's judged queries under the current
        settings (also :attr:`dataset_score`; per query in :attr:`dataset_scores`).

        With a :class:`~memlab.openclaw.MemorySearch` (or a config) the sweep engine
        (:class:`memlab.tune.SweepEngine`) evaluates the settings as one configuration from
        legs it caches (a sweep point equals a full run); with a bare pipeline the pipeline
        runs every dataset query and :func:`memlab.eval.evaluate` scores the hits.
        """
        if self.dataset is None:
            raise ValueError("the dataset-level metric needs the Explorer to be given a dataset")
        start = time.perf_counter()
        self.pipeline.set_params(**self.params())
        self.dataset_scores = self._per_query_scores()
        self.dataset_score = (float(self.dataset_scores.mean()) if len(self.dataset_scores)
                              else float("nan"))
        self._scored_for = self.config_overrides()
        self._render_dataset(time.perf_counter() - start)
        return self.dataset_score

    def _per_query_scores(self) -> pd.Series:
        """:attr:`metric` per judged query (index: qid), for the current settings."""
        search = self.search
        if search is not None and getattr(search, "session", None) is None:
            from memlab.tune.sweep import SweepEngine

            engine = self.__dict__.get("_engine")
            if engine is None:
                engine = self.__dict__["_engine"] = SweepEngine(
                    self.dataset, search.config, search.embedder, now=self.now)
            config = search.config.with_overrides(self.config_overrides())
            values, qids, _ = engine.evaluate_configs([config], [self.metric])
            judged = engine.judged_mask()
            return pd.Series(values[judged, 0, 0], index=pd.Index(qids)[judged], name=self.metric)
        from memlab.eval.experiment import evaluate

        queries = self.dataset.queries
        if "now" in queries.columns and queries["now"].notna().any():
            queries = queries.assign(now=queries["now"].fillna(queries["now"].max()))
        elif self.now is not None:
            queries = queries.assign(now=self.now)
        per_query, _ = evaluate(self.pipeline.transform(queries), self.dataset.qrels,
                                [self.metric], queries, level=getattr(self.dataset, "level",
                                                                      "span"))
        judged = per_query[per_query["judged"]]
        return pd.Series(judged[self.metric].to_numpy(dtype=float),
                         index=judged["qid"].astype(str), name=self.metric)

    def _render_dataset(self, seconds: float | None = None) -> None:
        if self.dataset_score is None:
            self.dataset_line.value = "<i>not scored yet</i>"
            return
        line = (f"<b>{self.metric} = {self.dataset_score:.3f}</b> over "
                f"{len(self.dataset_scores)} judged queries of {self.dataset.name}")
        if seconds is not None:
            line += f" ({seconds:.1f} s)"
        if self._scored_for != self.config_overrides():
            line = f"<span style='color:#888'>{line}; settings changed since: score again</span>"
        self.dataset_line.value = line

    def _rerank(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The pipeline's hits for ``frame``; the legs' candidates are kept per query frame
        (besides :class:`~memlab.pipeline.Cached`'s own store), so a slider move runs only
        ``Fusion.fuse`` and the stages after it."""
        stages = self.pipeline.stages
        if stages[0] is not self.fusion:
            return self.pipeline.transform(frame)
        key = repr(frame.to_dict("records"))
        legs = self.__dict__.get("_legs")
        self.ran_legs = legs is None or legs[0] != key
        if self.ran_legs:
            vec = self.fusion.vector.transform(frame) if self.fusion.vector is not None else None
            txt = self.fusion.text.transform(frame) if self.fusion.text is not None else None
            legs = (key, vec, txt)
            self.__dict__["_legs"] = legs
        _, vec, txt = legs
        hits = self.fusion.fuse(vec, txt)  # cuts each leg to the candidates, then merges
        for stage in stages[1:]:
            hits = stage.transform(hits)
        return hits

    def _render(self, qid: str | None) -> None:
        table = self.results
        if not len(table):
            self.table.value = "<i>No matches.</i>"
        else:
            self.table.value = html_table(table)
        how = ("ran the legs" if getattr(self, "ran_legs", True)
               else "re-ranked (cached legs)")
        bits = [f"{len(table)} hits", f"{how} in {self.seconds * 1000:.0f} ms"]
        if "relevant" in table:
            found = int((table["relevant"] > 0).sum())
            bits.append(f"{found} hit(s) overlap the {self._judged} judged span(s) of {qid}")
        self.status.value = " · ".join(bits)

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
