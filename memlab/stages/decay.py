"""Temporal decay (reference, section 5): older notes count less.

The multiplier is :func:`memlab.kernels.decay.decay_multipliers`,
``exp(-(ln 2 / half_life_days) * max(0, now - ts) / 1 day)``; this stage decides each hit's
timestamp. The timestamp of a hit is, in order: the date in a dated memory path (UTC
midnight), nothing for evergreen memory files (``MEMORY.md`` and undated files under
``memory/``, when the hit's source is ``memory``), nothing for session transcripts
(production keeps them outside the workspace, where OpenClaw's stat looks), else the file's
mtime read at query time (unreadable: no decay). After scaling, hits are re-sorted by score
(stably, so ties keep their order).

``now`` comes from the queries' ``now`` column when present, else the stage's ``now``
parameter, else the clock.

>>> float(decay_multiplier(age_days=30, half_life_days=30))
0.5
"""

from __future__ import annotations

import functools
import math
import os
import time
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd

from memlab.corpus import Corpus
from memlab.frames import Query, QueryHits, rerank
from memlab.kernels.decay import DAY_MS, decay_multiplier, decay_multipliers
from memlab.kernels.tail import Decay
from memlab.lines import DEFAULT_DATE_RULE
from memlab.pipeline import Stage
from memlab.workspace import dated_path_date, is_evergreen

__all__ = ["DAY_MS", "TemporalDecay", "decay_multiplier", "to_epoch_ms"]

def to_epoch_ms(value: object) -> float:
    """Milliseconds since the epoch for a datetime, ISO-8601 string or number (ms)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return time.time() * 1000.0
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    if isinstance(value, str):
        return _str_epoch_ms(value)
    stamp = pd.Timestamp(value)
    if stamp.tzinfo is None:
        stamp = stamp.tz_localize("UTC")
    return stamp.value / 1e6


@functools.lru_cache(maxsize=256)
def _str_epoch_ms(value: str) -> float:
    stamp = pd.Timestamp(value)
    if stamp.tzinfo is None:
        stamp = stamp.tz_localize("UTC")
    return stamp.value / 1e6


class TemporalDecay(Stage):
    """Scale hit scores by their age.

    Parameters
    ----------
    corpus:
        The corpus the hits come from (paths, sources, workspace root for mtimes).
    half_life_days:
        Half-life; OpenClaw resolves it as ``max(1, floor(value))``, done by the config.
    enabled:
        ``False`` makes the stage a no-op (handy for sweeps).
    now:
        Reference time (datetime, ISO-8601 or epoch ms) when the queries carry none.
    rule:
        ``"2026.7"`` (dated = ``memory/YYYY-MM-DD.md``) or ``"2026.8"`` (nested and slugged).
    """

    def __init__(self, corpus: Corpus, half_life_days: float = 30, enabled: bool = True,
                 now: object = None, rule: str = DEFAULT_DATE_RULE):
        self.corpus = corpus
        self.half_life_days = half_life_days
        self.enabled = enabled
        self.now = now
        self.rule = rule

    def timestamps_ms(self, hits: pd.DataFrame) -> np.ndarray:
        """Timestamp (epoch ms) per hit; NaN where the hit does not decay."""
        return self.timestamps_of(hits["path"], hits["source"])

    def timestamps_of(self, paths: Any, sources: Any) -> np.ndarray:
        """Timestamp (epoch ms) per ``(path, source)`` pair; NaN where it does not decay."""
        out = np.full(len(paths), np.nan)
        cache: dict[tuple[str, str], float] = {}
        for i, (path, source) in enumerate(zip(paths, sources, strict=True)):
            key = (source, path)
            if key not in cache:
                cache[key] = self._timestamp(path, source)
            out[i] = cache[key]
        return out

    def multipliers(self, paths: Any, sources: Any, now_ms: float) -> np.ndarray:
        """Decay multiplier per ``(path, source)`` pair at ``now_ms`` (1 where nothing
        decays); the array form of :meth:`transform` for one query."""
        return decay_multipliers(self.timestamps_of(paths, sources), now_ms,
                                 self.half_life_days)

    def docno_multipliers(self, docnos: np.ndarray, now_ms: float) -> np.ndarray:
        """:meth:`multipliers` of chunks of :attr:`corpus` given by docno. What a chunk's
        path decides (its day, or no decay) is looked up in a per-corpus array built once;
        only chunks whose file mtime decides are resolved per call (mtimes are read at query
        time)."""
        chunks = self.corpus.chunks
        cached = self.__dict__.get("_docno_ts")
        if cached is None or cached[0] is not chunks or cached[1] != self.rule:
            rules = [self._path_rule(p, s) for p, s in zip(chunks["path"], chunks["source"],
                                                           strict=True)]
            table = np.array([np.inf if r is None else r for r in rules], dtype=np.float64)
            cached = (chunks, self.rule, table, bool((table == np.inf).any()))
            self.__dict__["_docno_ts"] = cached
        docnos = np.asarray(docnos, dtype=np.int64)
        ts = cached[2][docnos]
        # inf: the file's mtime decides (no such chunk in the corpus: nothing to look for)
        late = np.flatnonzero(ts == np.inf) if cached[3] else ()
        if len(late):
            paths, sources = chunks["path"].to_numpy(), chunks["source"].to_numpy()
            ts = ts.copy()
            ts[late] = self.timestamps_of(paths[docnos[late]], sources[docnos[late]])
        return decay_multipliers(ts, now_ms, self.half_life_days)

    def transform_query(self, query: Query, hits: QueryHits | None = None) -> QueryHits:
        """One query's hits scaled and re-sorted (stably), on arrays (:meth:`transform`)."""
        if not self.enabled or hits is None or not len(hits.docno):
            return hits
        now = self.now if query.now is None else query.now
        mult = self.docno_multipliers(hits.docno, to_epoch_ms(now))
        hits = hits._replace(score=hits.score * mult)
        return hits.take(np.argsort(-hits.score, kind="stable"))

    def tail_step(self, query: Query) -> Decay:
        """This stage as a step of :mod:`memlab.kernels.tail` (the multipliers of
        :meth:`docno_multipliers` at the query's time; off: a no-op step)."""
        if not self.enabled:
            return Decay(None)
        now_ms = to_epoch_ms(self.now if query.now is None else query.now)
        return Decay(lambda docnos: self.docno_multipliers(docnos, now_ms))

    def _path_rule(self, path: str, source: str) -> float | None:
        """The timestamp a path itself decides (dated: its day; evergreen: NaN), else None
        (the file's mtime decides). Memoised: it depends on the path and rule only."""
        memo = self.__dict__.setdefault("_path_memo", {})
        key = (path, source, self.rule)
        if key in memo:
            return memo[key]
        day = dated_path_date(path, rule=self.rule)
        value: float | None
        if day is not None:
            value = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000.0
        elif source == "memory" and is_evergreen(path, source, rule=self.rule):
            value = math.nan
        elif source == "sessions":
            # OpenClaw stats workspace/<hit path> = workspace/sessions/<agent>/<file>, but
            # production keeps transcripts in ~/.openclaw/agents/<agent>/sessions/, so the
            # stat fails and session hits never decay (the parity harness's sessions+decay
            # suite checks it). memlab's dataset layout keeps transcripts at exactly that
            # workspace path: statting them would decay what production does not.
            value = math.nan
        else:
            value = None
        if len(memo) > 100_000:
            memo.clear()
        memo[key] = value
        return value

    def _timestamp(self, path: str, source: str) -> float:
        value = self._path_rule(path, source)
        if value is not None:
            return value
        if self.corpus.root is not None:  # read at query time, as OpenClaw does
            try:
                return os.stat(os.path.join(self.corpus.root, path)).st_mtime_ns / 1e6
            except OSError:
                return math.nan
        files = self.corpus.files
        cached = self.__dict__.get("_mtimes")
        if cached is None or cached[0] is not files:
            table: dict[tuple[str, str], Any] = {}
            for p, src, mt in zip(files["path"], files["source"], files["mtime_ms"],
                                  strict=True):
                table.setdefault((p, src), mt)  # the first row of a (path, source)
            cached = (files, table)
            self.__dict__["_mtimes"] = cached
        found = cached[1].get((path, source))
        return math.nan if found is None and (path, source) not in cached[1] else float(found)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())
        state.pop("_mtimes", None)
        state.pop("_path_memo", None)
        state.pop("_docno_ts", None)
        return state

    def transform(self, hits: pd.DataFrame) -> pd.DataFrame:
        if not self.enabled or hits.empty:
            return hits
        ts = self.timestamps_ms(hits)
        if "now" in hits.columns:
            default = to_epoch_ms(self.now)
            now = np.array([default if pd.isna(v) else to_epoch_ms(v) for v in hits["now"]])
        else:
            now = np.full(len(hits), to_epoch_ms(self.now))
        mult = decay_multipliers(ts, now, self.half_life_days)
        out = hits.copy()
        out["score"] = out["score"].to_numpy() * mult
        return rerank(out)
