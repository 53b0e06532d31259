"""Export a tuned memlab configuration as an OpenClaw config file, and import OpenClaw configs.

:func:`export_config` writes JSON5 text OpenClaw reads as ``~/.openclaw/openclaw.json``:

* schema ``"2026.7"`` (OpenClaw 2026.7.x): the whole-config shape
  ``{agents: {defaults: {memorySearch: {...}}}}``, every key valid per the reference
  (section 10). Only the keys that were configured are written unless ``full=True``.
* schema ``"2026.8"`` (2026.8.x and later): ``{memory: {search: {...}}}`` with only the keys
  still configurable there (reference section 15). Everything else is a fixed constant in
  2026.8+ (weights 0.7/0.3, candidate multiplier 4, chunks 400/80 tokens, MMR on with
  lambda 0.7, temporal decay on with a 30-day half-life, cache 50 000 entries); a tuned value
  that differs from those cannot be expressed: it is listed in a :class:`ExportWarning`
  (``warnings.warn``), in the returned text's ``.warnings`` and in the file's comment header.

memlab-only research choices have no OpenClaw equivalent (fusion by RRF / min-max / z-score,
a BM25 or TF-IDF keyword leg instead of FTS5, OR matching, no keyword fallback, an
approximate FAISS index, the 2026.8 decay path rule under schema 2026.7): exporting them is
refused with an :class:`ExportError` saying why, unless ``allow_lossy=True``, in which case
they are dropped and listed in the header. Secrets (plain-string ``remote.apiKey``,
authorization-like ``remote.headers``) are never written; a ``//`` comment marks their place.
Secret references (``{source: "env", provider: "default", id: "OPENAI_API_KEY"}``) are
written: they name where the secret lives, not the secret.

:func:`import_config` reads any OpenClaw config file (2026.7 ``agents.defaults.memorySearch``
with per-agent ``agents.list[].memorySearch``; 2026.8 ``memory.search`` with per-agent
``agents.entries.<id>.memory.search``) into a :class:`~memlab.config.MemlabConfig`. A 2026.8
config is mapped onto the 2026.7 model with its fixed constants written out explicitly, and
``memlab.decayRule = "2026.8"``. Import then export (same schema) is lossless for every key
memlab knows (plain-string secrets aside).

``export_config(cfg, base=ORIGINAL)`` merges the tuned block into an existing whole config
(a path or JSON5 text): every key outside the memory search block is kept as it was. JSON5
parsing does not keep comments or formatting, so comments of ``base`` are lost in the output
(its keys and values are not). Other sections of ``base`` are copied as they are (including
whatever credentials the user keeps there: they are the user's own, and dropping them would
break the config).

The ``memlab export`` command (:func:`add_export_parser`) exports one row of a sweep results
file (Parquet or CSV: one row per configuration, axis columns named by config key paths such
as ``query.hybrid.vectorWeight`` or ``memlab.fusion.method``, metric columns such as
``ndcg@10``) or a config file.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memlab.config.dump import Json5Comment, dump_tree, emit_json5
from memlab.config.errors import ConfigError, ConfigIssue, ExportError, ExportWarning, show_value
from memlab.config.export_2026_9 import block_2026_9, check_block_2026_9
from memlab.config.json5io import read_source
from memlab.config.keypaths import canonical_key_path, get_path, leaf_paths
from memlab.config.openclaw_2026_8 import CONFIGURABLE_2026_8, SCHEMAS
from memlab.config.openclaw_import import import_config
from memlab.config.options import MemlabConfig
from memlab.config.schema import MemorySearchConfig


class ExportedConfig(str):
    """The exported JSON5 text, with what could not be written attached.

    ``warnings``: tuned values the schema cannot express (2026.8+ constants, keys no longer
    configurable); ``dropped``: memlab-only choices left out because ``allow_lossy=True``.
    """

    warnings: list[str]
    dropped: list[str]

    def __new__(cls, text: str, warnings_: Sequence[str] = (),
                dropped: Sequence[str] = ()) -> ExportedConfig:
        obj = super().__new__(cls, text)
        obj.warnings = list(warnings_)
        obj.dropped = list(dropped)
        return obj


def _memlab_only(cfg: MemlabConfig, schema: str) -> list[str]:
    """memlab-only choices in effect, each with why OpenClaw cannot do it."""
    ms, ml = cfg.memory_search, cfg.memlab
    hybrid = ms.query.hybrid
    vector = ms.resolved_provider() != "none"
    keyword_used = not vector or hybrid.enabled
    fused = vector and hybrid.enabled
    out = []
    if fused and ml.fusion.method != "openclaw":
        out.append(f"memlab.fusion.method = {ml.fusion.method!r}: OpenClaw merges the legs only "
                   "by the weighted sum vectorWeight*vectorScore + textWeight*textScore (no "
                   "RRF or normalised fusion)")
    if keyword_used and ml.keyword != "fts5":
        out.append(f"memlab.keyword = {ml.keyword!r}: OpenClaw's keyword leg is SQLite FTS5 "
                   "bm25() (an in-process BM25/TF-IDF leg, its tokenizer and parameters have no "
                   "OpenClaw setting)")
    if keyword_used and ml.keyword != "fts5" and ml.match != "all":
        out.append("memlab.match = 'any': OpenClaw's FTS query joins the tokens with AND")
    if keyword_used and not ml.keyword_fallback:
        out.append("memlab.keywordFallback = false: OpenClaw always runs the <=6-keyword "
                   "fallback when the AND query finds nothing")
    if vector and ml.vector_index != "Flat":
        out.append(f"memlab.vectorIndex = {ml.vector_index!r}: OpenClaw searches vectors "
                   "exactly (sqlite-vec); an approximate FAISS index has no setting")
    decay_on = hybrid.temporal_decay.enabled
    if schema == "2026.7" and decay_on and ml.decay_rule != "2026.7":
        out.append(f"memlab.decayRule = {ml.decay_rule!r}: OpenClaw 2026.7 decides which paths "
                   "are dated/evergreen by its own 2026.7 rule")
    return out


def _start_config(config_or_overrides: Any, base: str | Path | None) -> MemlabConfig:
    if isinstance(config_or_overrides, MemlabConfig):
        return config_or_overrides
    if isinstance(config_or_overrides, MemorySearchConfig):
        return MemlabConfig(memory_search=config_or_overrides)
    if isinstance(config_or_overrides, Mapping):
        start = import_config(base) if base is not None else MemlabConfig()
        return start.with_overrides(_sweep_overrides(config_or_overrides))
    if config_or_overrides is None:
        return import_config(base) if base is not None else MemlabConfig()
    return import_config(config_or_overrides)


def _sweep_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Overrides with canonical key paths; ``vectorWeight`` alone implies ``textWeight = 1-w``
    (the sweep's convention)."""
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        path = canonical_key_path(key) or key  # with_overrides reports bad paths
        out[path] = value
    vw = out.get("query.hybrid.vectorWeight")
    if isinstance(vw, int | float) and not isinstance(vw, bool) \
            and "query.hybrid.textWeight" not in out and 0 <= vw <= 1:
        out["query.hybrid.textWeight"] = round(1.0 - float(vw), 12)
    return out


def _header_lines(schema: str, header: Mapping[str, Any] | None, notes: Sequence[str],
                  dropped: Sequence[str]) -> list[str]:
    title = ("OpenClaw 2026.7 memory search config (agents.defaults.memorySearch)"
             if schema == "2026.7" else
             "OpenClaw 2026.8+ memory search config (memory.search)")
    lines = [f"{title}, written by memlab"]
    for key, value in (header or {}).items():
        if value is None:
            continue
        if isinstance(value, float):
            value = f"{value:.4f}"
        text = re.sub(r"[\r\n]+", " ", str(value))
        lines.append(f"{str(key).replace('_', ' ')}: {text}")
    if notes:
        lines.append(f"not expressible in OpenClaw {schema}+ (dropped; OpenClaw uses its own "
                     "values):" if schema == "2026.8" else "warnings:")
        lines += [f"  - {n}" for n in notes]
    if dropped:
        lines.append("memlab-only choices dropped (--allow-lossy); OpenClaw will rank "
                     "differently from the tuned pipeline:")
        lines += [f"  - {d}" for d in dropped]
    return lines


#: 2026.7 keys compared with the 2026.8 constants instead of being reported one by one.
_COMPARED = ("query.hybrid", "chunking", "cache.maxEntries", "experimental")


def _block_2026_8(cfg: MemlabConfig, full: bool) -> tuple[dict[str, Any], list[str]]:
    ms = cfg.memory_search
    tree = dump_tree(ms, full)
    notes: list[str] = []

    def keep(node: dict[str, Any], rule: dict[str, Any], prefix: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in node.items():
            here = f"{prefix}{key}"
            sub = rule.get(key)
            if sub is True:
                out[key] = value
            elif isinstance(sub, dict) and isinstance(value, dict):
                kept = keep(value, sub, here + ".")
                if kept:
                    out[key] = kept
            elif any(here == c or here.startswith(c + ".") for c in _COMPARED) or isinstance(
                    value, Json5Comment):
                continue  # compared below / comments of unset keys
            elif isinstance(value, dict):
                for leaf, v in leaf_paths(value, here):
                    notes.append(f"{leaf} = {show_value(v)}: not configurable in 2026.8+")
            else:
                notes.append(f"{here} = {show_value(value)}: not configurable in 2026.8+")
        return out

    block = keep(tree, CONFIGURABLE_2026_8, "")
    hybrid = ms.query.hybrid
    if not hybrid.enabled:
        notes.append("query.hybrid.enabled = false: 2026.8+ always runs hybrid search")
    vw, tw = hybrid.normalized_weights()
    if abs(vw - 0.7) > 1e-9 or abs(tw - 0.3) > 1e-9:
        notes.append(f"query.hybrid weights vector {vw:.4g} / text {tw:.4g}: 2026.8+ fixes "
                     "0.7 / 0.3")
    if hybrid.resolved_candidate_multiplier() != 4:
        notes.append(f"query.hybrid.candidateMultiplier = {hybrid.candidate_multiplier}: "
                     "2026.8+ fixes 4 (and a 200-candidate universe per leg)")
    if not hybrid.mmr.enabled:
        notes.append("query.hybrid.mmr.enabled = false: 2026.8+ always applies MMR "
                     "(lambda 0.7)")
    elif abs(hybrid.mmr.resolved_lambda() - 0.7) > 1e-9:
        notes.append(f"query.hybrid.mmr.lambda = {hybrid.mmr.lambda_}: 2026.8+ fixes 0.7")
    if not hybrid.temporal_decay.enabled:
        notes.append("query.hybrid.temporalDecay.enabled = false: 2026.8+ always applies "
                     "temporal decay (half-life 30 days)")
    elif ms.half_life_days() != 30:
        notes.append(f"query.hybrid.temporalDecay.halfLifeDays = "
                     f"{hybrid.temporal_decay.half_life_days}: 2026.8+ fixes 30")
    if (ms.chunking.tokens, ms.resolved_overlap()) != (400, 80):
        notes.append(f"chunking {ms.chunking.tokens}/{ms.chunking.overlap} tokens: 2026.8+ "
                     "fixes 400/80")
    if ms.cache.max_entries is not None and ms.cache.max_entries != 50_000:
        notes.append(f"cache.maxEntries = {ms.cache.max_entries}: 2026.8+ fixes 50000")
    if "sessions" in ms.sources and not ms.experimental.session_memory:
        notes.append('sources includes "sessions" without experimental.sessionMemory: 2026.7 '
                     "ignores sessions, 2026.8+ indexes them")
    if hybrid.temporal_decay.enabled and cfg.memlab.decay_rule != "2026.8":
        notes.append("memlab.decayRule = '2026.7': 2026.8+ decides dated/evergreen paths by "
                     "its own rule (memlab.decayRule '2026.8')")
    return block, notes


def export_config(config_or_overrides: Any = None, schema: str = "2026.7", *,
                  header: Mapping[str, Any] | None = None, allow_lossy: bool = False,
                  full: bool = False, base: str | Path | None = None,
                  effects: Mapping[str, float] | None = None) -> ExportedConfig:
    """The OpenClaw JSON5 config text for a tuned configuration (see the module docstring).

    ``config_or_overrides``: a :class:`MemlabConfig` / :class:`MemorySearchConfig`, a config
    path or JSON5 text (read with :func:`import_config`), or a mapping of key-path overrides
    (``{"query.hybrid.vectorWeight": 0.5, "memlab.fusion.method": "openclaw"}``, e.g. a sweep
    row) applied to ``base``'s configuration (OpenClaw defaults without ``base``); an override
    of ``vectorWeight`` without ``textWeight`` sets ``textWeight = 1 - vectorWeight``.

    ``schema``: ``"2026.7"``, ``"2026.8"`` (2026.8 and later, fixed constants reported) or
    ``"2026.9"`` (2026.9.6's strict ``memory.search``: a tuned value it cannot express is
    refused, :mod:`memlab.config.export_2026_9`; ``effects`` maps such keys to their measured
    effect on the objective, quoted in the refusal and the header). ``header``: items written as
    ``//`` comment lines at the top (e.g. ``dataset``, ``metric``, ``score``,
    ``out_of_sample``, ``date``). ``full``: write every key with its effective value, not only
    the configured ones. ``base``: an existing whole OpenClaw config (path or text) to merge
    into; its other keys are kept (its comments are not: JSON5 parsing drops them).

    Returns an :class:`ExportedConfig` (a ``str``) whose ``.warnings`` list the values the
    schema cannot express (also emitted as one :class:`ExportWarning`) and ``.dropped`` the
    memlab-only choices left out under ``allow_lossy``. Raises :class:`ExportError` for
    memlab-only choices without ``allow_lossy`` and ``ValueError`` for an unknown schema.
    """
    schema = {"2026.7.35": "2026.7", "2026.9.6": "2026.9"}.get(schema, schema)
    if schema == "2026.9":
        return _export_2026_9(_start_config(config_or_overrides, base), header, allow_lossy,
                              full, base, effects)
    if schema not in SCHEMAS:
        raise ValueError(f"schema must be one of {', '.join(SCHEMAS)} (2026.8 covers 2026.8 "
                         f"and later), not {schema!r}")
    cfg = _start_config(config_or_overrides, base)
    lossy = _memlab_only(cfg, schema)
    if lossy and not allow_lossy:
        raise ExportError([ConfigIssue("", "cannot export a memlab-only choice to OpenClaw "
                                           f"{schema}: {why}") for why in lossy]
                          + [ConfigIssue("", "pass allow_lossy=True (--allow-lossy) to drop "
                                             "them and export the rest")])
    base_doc: dict[str, Any] = {}
    if base is not None:
        raw, name = read_source(base)
        if not isinstance(raw, dict):
            raise ConfigError(f"the base config must be an object, got {show_value(raw)}",
                              source=name)
        base_doc = raw
    shadowed: list[str] = []  # per-agent values of base that override the exported ones
    if schema == "2026.7":
        block = dump_tree(cfg.memory_search, full)
        notes: list[str] = []
        doc = _merge_2026_7(base_doc, block, shadowed)
    else:
        block, notes = _block_2026_8(cfg, full)
        doc = _merge_2026_8(base_doc, block, shadowed)
    text = "".join(f"// {line}\n" for line in _header_lines(schema, header, notes, lossy))
    if shadowed:
        text += "// per-agent settings kept from the base config that override these values:\n"
        text += "".join(f"//   - {s}\n" for s in shadowed)
    text += emit_json5(doc, 0, "json5") + "\n"
    message = []
    if notes:
        message.append(f"{len(notes)} tuned value(s) cannot be expressed in OpenClaw {schema} "
                       "and are not in the file:\n  - " + "\n  - ".join(notes))
    if shadowed:
        message.append("per-agent settings of the base config override exported values:\n  - "
                       + "\n  - ".join(shadowed))
    if message:
        warnings.warn(ExportWarning("\n".join(message)), stacklevel=2)
    return ExportedConfig(text, [*notes, *shadowed], lossy if allow_lossy else [])


def _export_2026_9(cfg: MemlabConfig, header: Mapping[str, Any] | None, allow_lossy: bool,
                   full: bool, base: str | Path | None,
                   effects: Mapping[str, float] | None) -> ExportedConfig:
    """Schema 2026.9: only keys 2026.9.6 accepts; inexpressible tuned values refused (or, with
    ``allow_lossy``, dropped and listed in the header); the result re-checked against
    2026.9's validation and doctor rules."""
    block, lost = block_2026_9(cfg, full, effects)
    metric = (header or {}).get("metric")
    if lost and not allow_lossy:
        raise ExportError([ConfigIssue(x.key, "OpenClaw 2026.9 cannot express the tuned value "
                                       + x.describe(metric).removeprefix(f"{x.key} = "))
                           for x in lost]
                          + [ConfigIssue("", "pass allow_lossy=True (--allow-lossy) to drop "
                                             "them and export the rest")])
    base_doc: dict[str, Any] = {}
    if base is not None:
        raw, name = read_source(base)
        if not isinstance(raw, dict):
            raise ConfigError(f"the base config must be an object, got {show_value(raw)}",
                              source=name)
        base_doc = raw
    shadowed: list[str] = []
    doc = _merge_2026_8(base_doc, block, shadowed)
    check_block_2026_9(doc)
    dropped = [x.describe(metric) for x in lost]
    lines = ["OpenClaw 2026.9 memory search config (memory.search), written by memlab"]
    lines += _header_lines("2026.9", header, (), ())[1:]
    if dropped:
        lines.append("tuned values OpenClaw 2026.9 cannot express, dropped (--allow-lossy); "
                     "OpenClaw uses its fixed behaviour:")
        lines += [f"  - {d}" for d in dropped]
    text = "".join(f"// {line}\n" for line in lines)
    if shadowed:
        text += "// per-agent settings kept from the base config that override these values:\n"
        text += "".join(f"//   - {s}\n" for s in shadowed)
    text += emit_json5(doc, 0, "json5") + "\n"
    if shadowed:
        warnings.warn(ExportWarning("per-agent settings of the base config override exported "
                                    "values:\n  - " + "\n  - ".join(shadowed)), stacklevel=3)
    return ExportedConfig(text, shadowed, dropped)


def _merge_2026_7(base: dict[str, Any], block: dict[str, Any],
                  notes: list[str]) -> dict[str, Any]:
    doc = dict(base)
    doc.pop("memlab", None)  # memlab's own key: OpenClaw rejects it
    if isinstance(get_path(doc, "memory"), dict) and "search" in doc["memory"]:
        raise ExportError("the base config uses the 2026.8 layout (memory.search); export "
                          "with schema 2026.8 or start from a 2026.7 config")
    agents = dict(doc.get("agents") or {})
    defaults = dict(agents.get("defaults") or {})
    defaults["memorySearch"] = block
    agents = {"defaults": defaults, **{k: v for k, v in agents.items() if k != "defaults"}}
    for i, entry in enumerate(agents.get("list") or []):
        over = entry.get("memorySearch") if isinstance(entry, dict) else None
        if isinstance(over, dict):
            for leaf, value in leaf_paths(over):
                tuned = get_path(block, leaf, _MISSING)
                if tuned is not _MISSING and tuned != value and not isinstance(tuned, Json5Comment):
                    notes.append(f"agents.list[{i}].memorySearch.{leaf} = {show_value(value)} "
                                 f"overrides the exported {show_value(tuned)} for agent "
                                 f"{entry.get('id', i)!r}")
    doc["agents"] = agents
    return doc


def _merge_2026_8(base: dict[str, Any], block: dict[str, Any],
                  notes: list[str]) -> dict[str, Any]:
    doc = dict(base)
    doc.pop("memlab", None)
    if get_path(doc, "agents.defaults.memorySearch") is not None:
        raise ExportError("the base config uses the 2026.7 layout "
                          "(agents.defaults.memorySearch); export with schema 2026.7 or run "
                          "`openclaw doctor --fix` on it first")
    memory = dict(doc.get("memory") or {})
    memory["search"] = block
    doc["memory"] = memory
    for eid, entry in (get_path(doc, "agents.entries") or {}).items():
        over = get_path(entry, "memory.search") if isinstance(entry, dict) else None
        if isinstance(over, dict):
            for leaf, value in leaf_paths(over):
                tuned = get_path(block, leaf, _MISSING)
                if tuned is not _MISSING and tuned != value and not isinstance(tuned, Json5Comment):
                    notes.append(f"agents.entries.{eid}.memory.search.{leaf} = {show_value(value)} "
                                 f"overrides the exported {show_value(tuned)}")
    return doc


_MISSING = object()
