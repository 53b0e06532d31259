"""What an export to OpenClaw 2026.9 (``memory.search`` of 2026.9.6) can and cannot carry.

2026.9.6 accepts only the keys of its strict schema
(:class:`memlab.config.memory_layout.MemorySearchBlock`: provider, model, ``store.fts.tokenizer``,
``query.minScore``/``maxResults``, ``sources``, ``experimental.sessionMemory``,
``outputDimensionality``, input types, ...) and fixes the rest
(:data:`~memlab.config.memory_layout.MEMORY_DEFAULTS`). :func:`memory_block` splits a tuned
configuration into the block 2026.9 accepts and the :class:`Inexpressible` values: configured
keys 2026.9 has retired or never had, whose value differs from 2026.9's fixed one, and memlab-only
choices (fusion other than the weighted blend, a non-FTS5 keyword leg, FAISS, the
``memlab.whatIf`` research keys of the 2026.9 profile). Which keys 2026.9 drops is decided by
:func:`~memlab.config.memory_layout.doctor_fix` (the rule checked against the real doctor), so
this module keeps no list of its own.

:func:`measured_effects` reads, from sweep results, what each such knob was worth: the objective
of the chosen row minus the best row whose column holds 2026.9's fixed value.

>>> from memlab.config import MemlabConfig
>>> cfg = MemlabConfig().with_overrides({"query.minScore": 0.2,
...                                      "query.hybrid.vectorWeight": 0.5})
>>> block, lost = memory_block(cfg)
>>> block
{'query': {'minScore': 0.2}}
>>> [(x.key, x.value, x.fixed) for x in lost]
[('query.hybrid.vectorWeight', 0.5, 0.7)]
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memlab.annotations import CURATED_ROOTS
from memlab.config.dump import Json5Comment, dump_tree
from memlab.config.keypaths import canonical_key_path, get_path, leaf_paths
from memlab.config.memory_layout import MEMORY_DEFAULTS, doctor_fix, read_config
from memlab.config.options import MemlabConfig, WhatIf
from memlab.config.schema import MemorySearchConfig

__all__ = ["MEMORY_SEARCH_FIXED", "IMPORTANCE_FILES", "IMPORTANCE_PREFIX", "OPENCLAW_PIPELINE",
           "ImportanceChoice", "Inexpressible", "memory_block", "check_memory_block",
           "importance_choices", "importance_value", "is_importance_axis", "measured_effects",
           "parse_importance_axis"]

#: The effective value memlab ranks with, per 2026.7 key 2026.9 fixes (weights normalised,
#: defaults resolved), compared with :data:`MEMORY_DEFAULTS`.
_EFFECTIVE: dict[str, Callable[[MemorySearchConfig], Any]] = {
    "query.hybrid.enabled": lambda ms: ms.query.hybrid.enabled,
    "query.hybrid.vectorWeight": lambda ms: ms.normalized_weights()[0],
    "query.hybrid.textWeight": lambda ms: ms.normalized_weights()[1],
    "query.hybrid.candidateMultiplier":
        lambda ms: ms.query.hybrid.resolved_candidate_multiplier(),
    "query.hybrid.mmr.enabled": lambda ms: ms.query.hybrid.mmr.enabled,
    "query.hybrid.mmr.lambda": lambda ms: ms.mmr_lambda(),
    "query.hybrid.temporalDecay.enabled": lambda ms: ms.query.hybrid.temporal_decay.enabled,
    "query.hybrid.temporalDecay.halfLifeDays": lambda ms: ms.half_life_days(),
    "chunking.tokens": lambda ms: ms.chunking.resolved_tokens(),
    "chunking.overlap": lambda ms: ms.resolved_overlap(),
    "cache.maxEntries": lambda ms: ms.cache.resolved_max_entries() or 50_000,
}


#: What OpenClaw (2026.7 and 2026.9 alike) does for each memlab-only pipeline choice.
OPENCLAW_PIPELINE: dict[str, Any] = {
    "memlab.fusion.method": "openclaw", "memlab.keyword": "fts5", "memlab.match": "all",
    "memlab.keywordFallback": True, "memlab.vectorIndex": "Flat", "memlab.chunking": "openclaw",
}
#: 2026.9's fixed behaviour per memlab option: the memlab-only choices and the what-if axes.
_MEMLAB_FIXED: dict[str, Any] = {
    **OPENCLAW_PIPELINE,
    **{f"memlab.whatIf.{info.alias or name}": info.default
       for name, info in WhatIf.model_fields.items()},
}
#: What 2026.9 does for every key it does not let a user set (sweep column -> value).
MEMORY_SEARCH_FIXED: dict[str, Any] = {**MEMORY_DEFAULTS, **_MEMLAB_FIXED}


@dataclass(frozen=True)
class Inexpressible:
    """A tuned value the 2026.9 schema cannot carry: ``key`` (a sweep column name), the tuned
    ``value``, 2026.9's ``fixed`` behaviour, ``why``, and the measured ``effect`` (objective
    of the chosen configuration minus the best one with ``key`` at ``fixed``) when known."""

    key: str
    value: Any
    fixed: Any
    why: str
    effect: float | None = None

    def describe(self, metric: str | None = None) -> str:
        """One line: key, value, what OpenClaw does instead, and the measured effect (or "not
        measured" when no results row has ``key`` at OpenClaw's value).

        >>> Inexpressible("chunking.tokens", 256, 400, "retired").describe()
        'chunking.tokens = 256: retired; effect not measured'
        """
        text = f"{self.key} = {_show(self.value)}: {self.why}"
        if self.effect is not None:
            text += (f"; measured effect {self.effect:+.4f} {metric or 'objective'} (chosen row "
                     f"vs the best row with {self.key} = {_show(self.fixed)})")
        else:
            text += "; effect not measured"
        return text

    def measured(self, effects: Mapping[str, float] | None) -> Inexpressible:
        """This value with its effect from ``effects`` (key -> objective delta), if there."""
        effect = (effects or {}).get(self.key, self.effect)
        return Inexpressible(self.key, self.value, self.fixed, self.why, effect)


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value).lower() \
        if isinstance(value, bool) else str(value)


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, int | float) \
            or not isinstance(b, int | float):
        return a == b
    return math.isclose(float(a), float(b), rel_tol=0, abs_tol=1e-9)


def _memlab_only(cfg: MemlabConfig) -> list[Inexpressible]:
    """memlab-only choices in effect for a 2026.9 search (2026.9 always runs hybrid FTS5 +
    exact vectors with its weighted blend)."""
    ml, ms = cfg.memlab, cfg.memory_search
    vector = ms.resolved_provider() != "none"
    choices = [  # (key, value, in effect, why 2026.9 cannot do it)
        ("memlab.fusion.method", ml.fusion.method, vector, "2026.9 merges the legs by "
         "0.7*vector + 0.3*boosted keyword score only (no RRF or normalised fusion)"),
        ("memlab.keyword", ml.keyword, True, "2026.9's keyword leg is SQLite FTS5 (body and "
         "path tables); no BM25/TF-IDF leg"),
        ("memlab.match", ml.match, ml.keyword != "fts5", "2026.9's FTS query joins the tokens "
         "with AND"),
        ("memlab.keywordFallback", ml.keyword_fallback, True, "2026.9 always runs its "
         "<=6-keyword fallback"),
        ("memlab.vectorIndex", ml.vector_index, vector, "2026.9 searches vectors exactly "
         "(sqlite-vec)"),
        ("memlab.chunking", ml.chunking, True, "2026.9 chunks at its fixed 400/80 tokens; "
         "splitting chunks to the model's window has no setting"),
    ]
    for name, info in WhatIf.model_fields.items():
        choices.append((f"memlab.whatIf.{info.alias or name}", getattr(ml.what_if, name), True,
                        f"a memlab what-if of the 2026.9 profile; 2026.9.6 fixes "
                        f"{_show(info.default)}"))
    return [Inexpressible(key, value, _MEMLAB_FIXED[key], why)
            for key, value, active, why in choices if active and value != _MEMLAB_FIXED[key]]


def memory_block(cfg: MemlabConfig, full: bool = False,
                 effects: Mapping[str, float] | None = None
                 ) -> tuple[dict[str, Any], list[Inexpressible]]:
    """``(block, inexpressible)``: the ``memory.search`` object 2026.9.6 accepts for ``cfg``
    (only configured keys unless ``full``) and every tuned value it cannot carry (module
    docstring), each with its measured effect from ``effects`` (key -> objective delta).

    >>> memory_block(MemlabConfig().with_overrides({"memlab.fusion.method": "rrf"}))[1][0].key
    'memlab.fusion.method'
    """
    ms = cfg.memory_search
    configured = dump_tree(ms, False)
    _, removed = doctor_fix({"memory": {"search": configured}})
    lost: list[Inexpressible] = []
    seen: set[str] = set()
    for path in removed:  # doctor_fix names retired leaves, then the emptied/unknown parents
        rel = path.removeprefix("memory.search.")
        sub = get_path(configured, rel)
        leaves = leaf_paths(sub, rel) if isinstance(sub, Mapping) and sub else [(rel, sub)]
        for key, value in leaves:
            if isinstance(value, Json5Comment) or key in seen:
                continue
            seen.add(key)
            if key in _EFFECTIVE:
                fixed = MEMORY_DEFAULTS[key]
                if _close(_EFFECTIVE[key](ms), fixed):  # e.g. weights compared normalised
                    continue  # 2026.9 does the same: nothing is lost
                why = f"retired in 2026.9 (fixed {_show(fixed)})"
            else:
                fixed, why = MEMORY_DEFAULTS.get(key), "not a 2026.9 memory.search key"
                if fixed is not None and _close(value, fixed):
                    continue
            lost.append(Inexpressible(key, value, fixed, why))
    lost += _memlab_only(cfg)
    lost = [x.measured(effects) for x in lost]
    block, _ = doctor_fix({"memory": {"search": dump_tree(ms, full)}})
    return get_path(block, "memory.search") or {}, lost


def check_memory_block(doc: Mapping[str, Any]) -> None:
    """Raise ``AssertionError`` unless 2026.9's rules accept ``doc`` unchanged: it validates
    (:func:`read_config`) and ``doctor --fix`` removes nothing (:func:`doctor_fix`)."""
    def values(node: Any) -> Any:  # Json5Comment: a comment in place of a value
        if isinstance(node, Mapping):
            return {k: values(v) for k, v in node.items() if not isinstance(v, Json5Comment)}
        return node

    plain = values({k: v for k, v in doc.items() if k != "memlab"})
    read_config(plain)
    _, removed = doctor_fix(plain)
    if removed:
        raise AssertionError(f"2026.9's doctor --fix would remove {', '.join(removed)}")


def measured_effects(frame: Any, metric: str, chosen_score: float,
                     fixed: Mapping[str, Any] | None = None) -> dict[str, float]:
    """Per results column naming a key 2026.9 fixes (``fixed``, default
    :data:`MEMORY_SEARCH_FIXED`): ``chosen_score`` minus the best ``metric`` among the rows whose
    column holds the fixed value; columns without such a row are left out.

    >>> import pandas as pd
    >>> rows = pd.DataFrame({"query.hybrid.vectorWeight": [0.5, 0.7], "ndcg@10": [0.6, 0.55]})
    >>> measured_effects(rows, "ndcg@10", 0.6)
    {'query.hybrid.vectorWeight': 0.05}
    """
    fixed = MEMORY_SEARCH_FIXED if fixed is None else fixed
    columns = {canonical_key_path(str(c)) or str(c): c for c in frame.columns}
    out: dict[str, float] = {}
    for key, column in columns.items():
        if key not in fixed:
            continue
        target = fixed[key]
        mask = frame[column].map(lambda v, t=target: v is not None and _close(
            _cell(v), t)).astype(bool)
        best = frame.loc[mask, metric].max() if mask.any() else math.nan
        if not math.isnan(best):
            out[key] = round(float(chosen_score) - float(best), 12)
    return out


def _cell(value: Any) -> Any:
    """A results cell as a Python value (CSV writes booleans as text)."""
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value


# ---------------------------------------------------------------- importance axes
#: Results columns / sweep axes ``importance.FILE:LINE``: one curated entry's
#: ``<!-- importance: N -->`` (a content lever of 2026.9, :mod:`memlab.tune.importance`).
IMPORTANCE_PREFIX = "importance."
#: The files whose entries an importance axis may name: the curated roots 2026.9 indexes
#: (``memory.md`` is a curated root too, but 2026.9 never indexes it).
IMPORTANCE_FILES = tuple(p for p in CURATED_ROOTS if p != "memory.md")
_IMPORTANCE_KEY = re.compile(r"^importance\.(?P<path>[^:]+):(?P<line>[0-9]+)$")
_AS_WRITTEN = ("none", "null", "")


def is_importance_axis(key: Any) -> bool:
    """True for a sweep axis / results column naming an entry's importance.

    >>> is_importance_axis("importance.MEMORY.md:12"), is_importance_axis("query.minScore")
    (True, False)
    """
    return str(key).startswith(IMPORTANCE_PREFIX)


def parse_importance_axis(key: str) -> tuple[str, int]:
    """``(path, line)`` of ``importance.FILE:LINE`` (FILE ``MEMORY.md`` or ``USER.md``, LINE
    1-based). ``ValueError`` naming ``key`` and the allowed form otherwise.

    >>> parse_importance_axis("importance.MEMORY.md:12")
    ('MEMORY.md', 12)
    >>> parse_importance_axis("importance.memory/notes.md:3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: importance axis 'importance.memory/notes.md:3': ... not 'memory/notes.md'
    """
    match = _IMPORTANCE_KEY.match(str(key).strip())
    if match is None:
        raise ValueError(f"importance axis {key!r}: name one entry as importance.FILE:LINE "
                         f"(FILE {' or '.join(IMPORTANCE_FILES)}, LINE the 1-based line of a "
                         "'- ' entry), e.g. importance.MEMORY.md:12")
    path, line = match["path"], int(match["line"])
    if path not in IMPORTANCE_FILES:
        raise ValueError(f"importance axis {key!r}: importance counts only on entries of "
                         f"{' or '.join(IMPORTANCE_FILES)} (the curated roots 2026.9 indexes), "
                         f"not {path!r}")
    if line < 1:
        raise ValueError(f"importance axis {key!r}: lines are numbered from 1")
    return path, line


def importance_value(value: Any, key: str = "importance") -> int | None:
    """An importance axis value: an integer 1..10 (integral floats, as CSV reads them,
    included), or ``None`` for **the file as written** (``None``, NaN, ``"none"``, ``"null"``:
    the entry keeps whatever annotation the file has, none included). ``ValueError`` naming
    ``key`` otherwise.

    >>> [importance_value(v) for v in (9, 3.0, None, "none", float("nan"))]
    [9, 3, None, None, None]
    """
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if value is None or (isinstance(value, str) and value.strip().lower() in _AS_WRITTEN):
        return None
    try:
        if value != value or str(value) == "<NA>":  # NaN, pandas.NA (an as-written cell)
            return None
    except TypeError:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10:
        raise ValueError(f"importance axis {key!r}: {value!r} is not an importance; use an "
                         "integer 1..10, or null / \"none\" for the file as written")
    return value


@dataclass(frozen=True)
class ImportanceChoice:
    """A tuned importance the config cannot carry: entry ``path`` line ``line`` at ``value``,
    with ``effect``, the metric of the chosen row minus the same point with the file as
    written (``None`` when the results have no such row)."""

    key: str
    path: str
    line: int
    value: int
    effect: float | None = None

    def effect_text(self, metric: str | None = None) -> str:
        """The measured effect in words ("effect not measured" without one)."""
        if self.effect is None:
            return ("effect not measured (the results have no row of the same point with "
                    f"{self.path} as written)")
        return (f"measured effect {self.effect:+.4f} {metric or 'objective'} (this row vs the "
                f"same point with {self.path} as written)")

    def describe(self, metric: str | None = None, text: str | None = None) -> str:
        """What to tell the user: the choice, its measured effect, and the line to write
        (``text``: the annotated line, when the workspace is at hand).

        >>> text = ImportanceChoice("importance.MEMORY.md:4", "MEMORY.md", 4, 9, 0.0125
        ...                         ).describe("ndcg@10", "- Tuesday <!-- importance: 9 -->")
        >>> print(text.replace("; ", ";\\n"))
        importance 9 on MEMORY.md line 4: an annotation in the file, not a config key;
        measured effect +0.0125 ndcg@10 (this row vs the same point with MEMORY.md as written);
        add it to line 4 of MEMORY.md:
            - Tuesday <!-- importance: 9 -->
        """
        effect = self.effect_text(metric)
        where = (f"add it to line {self.line} of {self.path}:\n    {text}" if text else
                 f"end line {self.line} of {self.path} with <!-- importance: {self.value} -->")
        return (f"importance {self.value} on {self.path} line {self.line}: an annotation in the "
                f"file, not a config key; {effect}; {where}")


def _same(a: Any, b: Any) -> bool:
    """Two results cells hold the same axis value (NaN/None alike, lists element-wise)."""
    a, b = (x.tolist() if hasattr(x, "tolist") else x for x in (a, b))
    missing = [x is None or (isinstance(x, float) and math.isnan(x)) or str(x) == "<NA>"
               for x in (a, b)]
    if any(missing):
        return all(missing)
    return _close(_cell(a), _cell(b))


def importance_choices(frame: Any, row: Any, metric: str) -> tuple[list[ImportanceChoice],
                                                                   float | None]:
    """``(choices, joint effect)`` for the results row ``row`` (its index label in ``frame``):
    each importance column the row sets (not as written) with its measured effect (the row's
    ``metric`` minus that of the row equal on every other axis with this entry as written),
    and the effect of all of them together (vs the row with every importance axis as
    written; ``None`` when not in the results). Axis columns are every column but the metrics
    (names with ``@``, ``metric``) and ``dataset``/``trial``.

    >>> import pandas as pd
    >>> rows = pd.DataFrame({"importance.MEMORY.md:4": [9, None], "ndcg@10": [0.6, 0.55]})
    >>> [(c.value, round(c.effect, 4)) for c in importance_choices(rows, 0, "ndcg@10")[0]]
    [(9, 0.05)]
    """
    keys = [c for c in frame.columns if is_importance_axis(c)]
    axes = [c for c in frame.columns if c not in ("dataset", "trial", metric)
            and "@" not in str(c)]
    chosen = frame.loc[row]
    score = float(chosen[metric])

    def baseline(free: list[Any]) -> float | None:
        mask = [all(_same(r[c], chosen[c]) for c in axes if c not in free)
                and all(importance_value(r[c], str(c)) is None for c in free)
                for _, r in frame.iterrows()]
        best = frame.loc[mask, metric]
        return None if best.empty else round(score - float(best.max()), 12)

    choices = []
    for key in keys:
        value = importance_value(chosen[key], str(key))
        if value is not None:
            path, line = parse_importance_axis(str(key))
            choices.append(ImportanceChoice(str(key), path, line, value, baseline([key])))
    joint = baseline([c.key for c in choices]) if len(choices) > 1 else (
        choices[0].effect if choices else None)
    return choices, joint
