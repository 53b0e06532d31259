"""Stages and how they compose.

A :class:`Stage` maps a frame to a hits frame (see :mod:`memlab.frames`). Retrievers take
queries; re-rankers (fusion, decay, MMR, thresholds) take hits. Stages chain with ``>>``::

    pipe = vector_leg >> TemporalDecay(corpus) >> Threshold(min_score=0.35)
    hits = pipe("where is the deploy key?")

Parameters follow scikit-learn's conventions (constructor arguments stored unchanged as
attributes), so ``get_params``/``set_params`` and the readable ``repr`` come from
:class:`memlab.text.params.Params` (scikit-learn's ``BaseEstimator`` convention without
importing scikit-learn), nested names included (``merge__vector_weight``);
``sklearn.base.clone`` works on a stage.

:class:`Cached` memoises a leg's candidates per query text: wrap the expensive legs once and
every later re-run of the cheap stages after them (fusion, decay, MMR, thresholds) reuses
the cached scores. This is the line between expensive and cheap work that sweeps rely on.

Two verbs run a stage: ``transform(frame) -> frame`` (the tabular contract, many queries) and
``transform_query(query, hits) -> hits`` (one query's candidate arrays, the single-query
search path). A stage *declares* that it runs on arrays by implementing ``transform_query``
(the :class:`ArrayStage` protocol); :meth:`Sequence.transform_query` walks the stages through
it and runs any other stage through ``transform`` on a one-query frame, so a custom stage
anywhere in a pipeline is still exact, only slower. A final selection whose eligible set does
not depend on order (:class:`Selects`, e.g. thresholds) is handed to the stage before it
(``query.cut``), so an order-only stage such as MMR can stop once the selection is full.
A stage may also run some of the stages after it in one step (:class:`Absorbs`: OpenClaw's
merge takes decay, MMR and the cut into one compiled call, :mod:`memlab.kernels.tail`).

Where the single-query path reaches numpy's BLAS it holds it at one thread
(:func:`memlab.kernels.blas.single_thread_blas`: around MMR's numpy Jaccard product, the
persistent index's exact vector scan and a stage run through ``transform``): one query's
arrays are a few dozen candidates, and a multi-threaded BLAS spends more on waking its threads
than on a product that small (MMR's Jaccard block cost 5-10x its one-thread CPU time with
OpenBLAS's two threads). Only there: setting and restoring the thread count costs tens of
microseconds between an agent's searches, a tenth of a search at 5,000 chunks.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from memlab.frames import Query, QueryHits, as_queries
from memlab.kernels.blas import single_thread_blas
from memlab.text.params import Params


@runtime_checkable
class ArrayStage(Protocol):
    """A stage that runs on one query's arrays: ``transform_query(query, hits)``.

    Retrievers get ``hits=None`` and read ``query.text``; re-rankers get the previous stage's
    hits. The result must equal what ``transform`` returns for that query.
    """

    def transform_query(self, query: Query, hits: QueryHits | None = None
                        ) -> QueryHits:  # pragma: no cover - protocol
        ...


@runtime_checkable
class Selects(Protocol):
    """A selection stage whose eligible set does not depend on the hits' order:
    ``eligible_query(hits) -> (mask, max_results)``; it keeps the first ``max_results``
    eligible hits in rank order."""

    def eligible_query(self, hits: QueryHits) -> tuple[np.ndarray, int]:  # pragma: no cover
        ...


@runtime_checkable
class Absorbs(Protocol):
    """A stage that, for one query, can also run the stages right after it in one step:
    ``absorb_query(query, hits, following)`` returns ``(hits, n)``, the hits after itself
    and the first ``n`` stages of ``following``, or ``None`` when it cannot this time (then
    each stage runs on its own). The hits must equal what those stages return one by one."""

    def absorb_query(self, query: Query, hits: QueryHits | None, following: list[Any]
                     ) -> tuple[QueryHits, int] | None:  # pragma: no cover
        ...


def run_query(stage: Any, query: Query, hits: QueryHits | None = None) -> QueryHits:
    """``stage`` on one query's arrays: through ``transform_query`` when the stage declares it
    (:class:`ArrayStage`), else through ``transform`` on a one-query frame."""
    method = getattr(stage, "transform_query", None)
    if method is not None:
        return method(query, hits)
    frame = query.frame() if hits is None else hits.to_frame(query)
    with single_thread_blas():  # whatever the stage does runs on one query
        return QueryHits.from_frame(stage.transform(frame))


class Stage(Params):
    """Base class of every stage: ``transform(frame) -> hits``.

    Calling a stage accepts anything :func:`memlab.frames.as_queries` does (a string, a list of
    strings or a queries DataFrame).
    """

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement transform()")

    def __call__(self, queries: Any) -> pd.DataFrame:
        return self.transform(as_queries(queries) if not _is_hits(queries) else queries)

    def __rshift__(self, other: Stage) -> Sequence:
        if not isinstance(other, Stage):
            return NotImplemented
        left = self.stages if isinstance(self, Sequence) else [self]
        right = other.stages if isinstance(other, Sequence) else [other]
        return Sequence([*left, *right])


def _is_hits(frame: Any) -> bool:
    return isinstance(frame, pd.DataFrame) and "docno" in frame.columns


class Sequence(Stage):
    """Stages run one after another; built by ``a >> b``.

    Parameters of the inner stages are addressed by the stage's lower-cased class name
    (suffixed ``-2``, ``-3`` on repeats), like scikit-learn's ``make_pipeline``::

        pipe.set_params(mmr__lambda_=0.5)
    """

    def __init__(self, stages: list[Stage]):
        self.stages = stages

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        for stage in self.stages:
            frame = stage.transform(frame)
        return frame

    def transform_query(self, query: Query | str, hits: QueryHits | None = None) -> QueryHits:
        """One query through every stage on arrays (see the module docstring); the same hits
        as :meth:`transform` of that query."""
        if isinstance(query, str):
            query = Query(query.strip())
        stages = self.stages
        i = 0
        while i < len(stages):
            stage = stages[i]
            absorb = getattr(stage, "absorb_query", None)
            done = absorb(query, hits, stages[i + 1:]) if absorb is not None else None
            if done is not None:
                hits, n = done
                i += 1 + n
                continue
            nxt = stages[i + 1] if i + 1 < len(stages) else None
            here = query
            if nxt is not None and getattr(nxt, "eligible_query", None) is not None:
                here = query.replace(cut=nxt)
            hits = run_query(stage, here, hits)
            i += 1
        return hits if hits is not None else QueryHits.empty()

    def named_stages(self) -> dict[str, Stage]:
        names: dict[str, Stage] = {}
        for stage in self.stages:
            base = type(stage).__name__.lower()
            name, n = base, 1
            while name in names:
                n += 1
                name = f"{base}-{n}"
            names[name] = stage
        return names

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        params: dict[str, Any] = {"stages": self.stages}
        if deep:
            for name, stage in self.named_stages().items():
                params[name] = stage
                for key, value in stage.get_params(deep=True).items():
                    params[f"{name}__{key}"] = value
        return params

    def set_params(self, **params: Any) -> Sequence:
        if "stages" in params:
            self.stages = params.pop("stages")
        named = self.named_stages()
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, sep, sub = key.partition("__")
            if name not in named:
                raise ValueError(
                    f"invalid parameter {key!r} for {type(self).__name__}; "
                    f"stage names are {sorted(named)}"
                )
            if not sep:
                raise ValueError(f"replacing stage {name!r} by name is not supported; "
                                 "set its parameters with '<stage>__<param>'")
            nested.setdefault(name, {})[sub] = value
        for name, sub_params in nested.items():
            named[name].set_params(**sub_params)
        return self

    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        return "\n>> ".join(repr(s) for s in self.stages)


class Cached(Stage):
    """Memoise a leg's hits per query text (and the leg's parameters).

    The first call runs ``stage``; later calls with the same query texts return the stored
    candidates (re-labelled with the new ``qid``/``now``). Changing a parameter of the wrapped
    stage invalidates the cache.

    >>> from memlab.pipeline import Cached  # doctest: +SKIP
    >>> leg = Cached(VectorSearch(corpus, embedder))  # doctest: +SKIP
    """

    def __init__(self, stage: Stage):
        self.stage = stage

    def _key(self) -> str:
        return repr(sorted((k, repr(v)) for k, v in self.stage.get_params(deep=False).items()))

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        store: dict[str, pd.DataFrame] = self.__dict__.setdefault("_store", {})
        key = self._key()
        if self.__dict__.get("_store_key") != key:
            store.clear()
            self.__dict__["_store_key"] = key
        queries = as_queries(frame)
        query_cols = [c for c in queries.columns if c != "qid"]
        todo = queries[~queries["query"].isin(store.keys())].drop_duplicates("query")
        if len(todo):
            fresh = self.stage.transform(todo)
            fresh = fresh.drop(columns=[c for c in query_cols if c in fresh.columns])
            by_qid = dict(tuple(fresh.groupby("qid", sort=False))) if len(fresh) else {}
            for qid, text in zip(todo["qid"], todo["query"], strict=True):
                store[text] = by_qid.get(qid, fresh.iloc[0:0]).drop(columns="qid")
        parts = [store[text].assign(qid=qid)
                 for qid, text in zip(queries["qid"], queries["query"], strict=True)]
        out = pd.concat(parts, ignore_index=True) if parts else self.stage.transform(queries)
        out = out[["qid", *[c for c in out.columns if c != "qid"]]]
        return out.merge(queries, on="qid", how="left", sort=False)

    def transform_query(self, query: Query, hits: QueryHits | None = None) -> QueryHits:
        """One query's candidates as arrays: the wrapped leg's own array path when it has one
        (nothing to cache: it is the fast path), else its cached frame."""
        if getattr(self.stage, "transform_query", None) is not None:
            return self.stage.transform_query(query, hits)
        return QueryHits.from_frame(self.transform(query.frame()))

    def clear(self) -> None:
        """Forget every cached candidate list."""
        self.__dict__.get("_store", {}).clear()
