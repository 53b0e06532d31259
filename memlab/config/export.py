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

Every export names the embeddings it was measured with (:func:`production_provider`): the
provider and model are always written (an unset provider as the ``"openai"`` memlab resolved it
to, with its default model). A config measured with memlab's ``local`` provider (a packaged
model such as ``minilm`` or ``e5-small-multilingual``, ``memlab.embed.models``) is written as
an ``openai-compatible`` provider pointing at ``memlab serve-embeddings --model X`` (base URL
from ``serve_host``/``serve_port``), with ``queryInputType: "query"`` and
``documentInputType: "document"`` so that the server embeds queries and documents as memlab
did (E5's ``query: ``/``passage: `` prefixes; symmetric models ignore them); the command that
serves it is in the file's header. OpenClaw's own ``local`` provider is a GGUF model through
node-llama-cpp, not the model memlab evaluated, so ``provider: "local"`` is never exported.

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
import shlex
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memlab.config.dump import Json5Comment, dump_tree, emit_json5
from memlab.config.errors import ConfigError, ConfigIssue, ExportError, ExportWarning, show_value
from memlab.config.json5io import read_source
from memlab.config.keypaths import canonical_key_path, get_path, leaf_paths
from memlab.config.memory_export import (
    OPENCLAW_PIPELINE,
    Inexpressible,
    check_memory_block,
    memory_block,
)
from memlab.config.memory_keys import CONFIGURABLE_KEYS, DEFAULT_SCHEMA, SCHEMAS
from memlab.config.openclaw_import import import_config
from memlab.config.options import MemlabConfig
from memlab.config.schema import MemorySearchConfig
from memlab.lines import detected_line, export_schema


class ExportedConfig(str):
    """The exported JSON5 text, with what could not be written attached.

    ``warnings``: tuned values the schema cannot express (2026.8+ constants, keys no longer
    configurable); ``dropped``: memlab-only choices left out because ``allow_lossy=True``, each
    with its measured effect (or "not measured"); ``serve_command``: the command that serves the
    exported model (``None`` unless the config used memlab's ``local`` provider).
    """

    warnings: list[str]
    dropped: list[str]
    serve_command: str | None

    def __new__(cls, text: str, warnings_: Sequence[str] = (),
                dropped: Sequence[str] = (), serve_command: str | None = None) -> ExportedConfig:
        obj = super().__new__(cls, text)
        obj.warnings = list(warnings_)
        obj.dropped = list(dropped)
        obj.serve_command = serve_command
        return obj


#: What OpenClaw 2026.7 does for each memlab-only option (results column -> value), for
#: :func:`memlab.config.memory_export.measured_effects` under schema 2026.7.
PIPELINE_FIXED: dict[str, Any] = {**OPENCLAW_PIPELINE,
                                  "memlab.decayRule": detected_line("memorySearch").date_rule}
#: The configuration sweeps start from unless given a base (``memlab.tune.sweep``): OpenClaw's
#: defaults with memlab's ``local`` provider (the packaged MiniLM).
SWEEP_BASE = MemlabConfig(memory_search=MemorySearchConfig(provider="local"))
#: Where ``memlab serve-embeddings`` listens unless told otherwise (its own defaults).
SERVE_HOST, SERVE_PORT = "127.0.0.1", 8080
#: ``input_type`` values OpenClaw sends for a served model: ``memlab serve-embeddings`` embeds
#: ``"query"`` as a query (E5's ``query: `` prefix) and anything else as a document.
SERVED_INPUT_TYPES = {"queryInputType": "query", "documentInputType": "document"}


def _schema_kind(schema: str) -> str:
    """``"agents"``: a schema of the ``agents.defaults.memorySearch`` layout; ``"strict"``: a
    ``memory.search`` line's own schema (:mod:`memlab.config.memory_export`); ``"reported"``:
    another ``memory.search`` schema (its fixed values reported, :data:`SCHEMAS`)."""
    if export_schema(schema)[1].layout == "memorySearch":
        return "agents"
    return "reported" if schema in SCHEMAS else "strict"


def _memlab_only(cfg: MemlabConfig, schema: str) -> list[Inexpressible]:
    """memlab-only choices in effect, each with why OpenClaw cannot do it."""
    ms, ml = cfg.memory_search, cfg.memlab
    hybrid = ms.query.hybrid
    vector = ms.resolved_provider() != "none"
    keyword_used = not vector or hybrid.enabled
    fused = vector and hybrid.enabled
    choices = [  # (key, value, in effect, why OpenClaw cannot do it)
        ("memlab.fusion.method", ml.fusion.method, fused, "OpenClaw merges the legs only by "
         "the weighted sum vectorWeight*vectorScore + textWeight*textScore (no RRF or "
         "normalised fusion)"),
        ("memlab.keyword", ml.keyword, keyword_used, "OpenClaw's keyword leg is SQLite FTS5 "
         "bm25() (an in-process BM25/TF-IDF leg, its tokenizer and parameters have no OpenClaw "
         "setting)"),
        ("memlab.match", ml.match, keyword_used and ml.keyword != "fts5",
         "OpenClaw's FTS query joins the tokens with AND"),
        ("memlab.keywordFallback", ml.keyword_fallback, keyword_used, "OpenClaw always runs "
         "the <=6-keyword fallback when the AND query finds nothing"),
        ("memlab.vectorIndex", ml.vector_index, vector, "OpenClaw searches vectors exactly "
         "(sqlite-vec); an approximate FAISS index has no setting"),
        ("memlab.chunking", ml.chunking, True, "OpenClaw chunks by chunking.tokens/overlap "
         "only; splitting every chunk to the model's window has no setting (export a "
         "chunking.tokens number instead)"),
        ("memlab.decayRule", ml.decay_rule,
         _schema_kind(schema) == "agents" and hybrid.temporal_decay.enabled,
         "OpenClaw 2026.7 decides which paths are dated/evergreen by its own 2026.7 rule"),
    ]
    return [Inexpressible(key, value, PIPELINE_FIXED[key], why)
            for key, value, active, why in choices if active and value != PIPELINE_FIXED[key]]


def serve_command(model: str, host: str = SERVE_HOST, port: int = SERVE_PORT) -> str:
    """The shell command that serves ``model`` (a packaged alias, folder or cached name) where
    an exported config expects it.

    >>> serve_command("e5-small-multilingual", port=8081)
    'memlab serve-embeddings --model e5-small-multilingual --host 127.0.0.1 --port 8081'
    """
    return (f"memlab serve-embeddings --model {shlex.quote(model)} --host {shlex.quote(host)} "
            f"--port {int(port)}")


def production_provider(ms: MemorySearchConfig, block: dict[str, Any], *,
                        serve_host: str = SERVE_HOST, serve_port: int = SERVE_PORT
                        ) -> tuple[dict[str, Any], str | None]:
    """``(block, serve command or None)``: a dumped ``memorySearch`` block with the provider and
    model memlab measured written out (module docstring).

    ``provider: "local"`` (memlab's packaged model ``local.modelPath``, default ``minilm``)
    becomes ``openai-compatible`` at ``http://serve_host:serve_port/v1`` with the served input
    types; ``local`` and the other ``remote`` settings are dropped. Any other provider is
    written with its model (the configured one, else the provider's default).

    >>> from memlab.config import load_config
    >>> ms = load_config({"memorySearch": {"provider": "local"}}).memory_search
    >>> block, cmd = production_provider(ms, {"provider": "local"})
    >>> block["provider"], block["model"], block["remote"], cmd.split()[:4]
    ('openai-compatible', 'minilm', {'baseUrl': 'http://127.0.0.1:8080/v1'}, \
['memlab', 'serve-embeddings', '--model', 'minilm'])
    """
    out = dict(block)
    provider = ms.resolved_provider()
    if provider.lower() == "none":
        out["provider"] = "none"
        return out, None
    if provider.lower() == "local":
        model = (ms.local.model_path or "").strip() or "minilm"
        url_host = f"[{serve_host}]" if ":" in serve_host else serve_host
        out.pop("local", None)
        out.pop("inputType", None)
        out.update({"provider": "openai-compatible", "model": model,
                    "remote": {"baseUrl": f"http://{url_host}:{int(serve_port)}/v1"},
                    **SERVED_INPUT_TYPES})
        order = ["provider", "model", "remote", *SERVED_INPUT_TYPES]
        out = {**{k: out[k] for k in order}, **{k: v for k, v in out.items() if k not in order}}
        return out, serve_command(model, serve_host, serve_port)
    if isinstance(out.get("provider"), Json5Comment) or "provider" not in out:
        out["provider"] = provider
    model = ms.resolved_model()
    if "model" not in out and model:
        out["model"] = model
    first = [k for k in ("provider", "model") if k in out]
    return {**{k: out[k] for k in first}, **{k: v for k, v in out.items() if k not in first}}, None


def _start_config(config_or_overrides: Any, base: str | Path | None) -> MemlabConfig:
    if isinstance(config_or_overrides, MemlabConfig):
        return config_or_overrides
    if isinstance(config_or_overrides, MemorySearchConfig):
        return MemlabConfig(memory_search=config_or_overrides)
    if isinstance(config_or_overrides, Mapping):
        start = import_config(base) if base is not None else SWEEP_BASE
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
                  dropped: Sequence[str], command: str | None) -> list[str]:
    kind = _schema_kind(schema)
    title = (f"OpenClaw {schema} memory search config (agents.defaults.memorySearch)"
             if kind == "agents" else f"OpenClaw {schema}"
             f"{'+' if kind == 'reported' else ''} memory search config (memory.search)")
    lines = [f"{title}, written by memlab"]
    for key, value in (header or {}).items():
        if value is None:
            continue
        if isinstance(value, float):
            value = f"{value:.4f}"
        text = re.sub(r"[\r\n]+", " ", str(value))
        lines.append(f"{str(key).replace('_', ' ')}: {text}")
    if command:
        lines += ["embeddings: the local model memlab measured, served by memlab over the "
                  "OpenAI embeddings API (OpenClaw's own `local` provider runs a GGUF model, not "
                  "this one); start it before OpenClaw:", f"  {command}"]
    if notes:
        lines.append(f"not expressible in OpenClaw {schema}+ (dropped; OpenClaw uses its own "
                     "values):" if kind == "reported" else "warnings:")
        lines += [f"  - {n}" for n in notes]
    if dropped:
        lines.append("memlab-only choices dropped (--allow-lossy); OpenClaw will rank "
                     "differently from the tuned pipeline:" if kind != "strict" else
                     "tuned values OpenClaw 2026.9 cannot express, dropped (--allow-lossy); "
                     "OpenClaw uses its fixed behaviour:")
        lines += [f"  - {d}" for d in dropped]
    return lines


#: 2026.7 keys compared with the 2026.8 constants instead of being reported one by one.
_COMPARED = ("query.hybrid", "chunking", "cache.maxEntries", "experimental")


def _memory_search_block(cfg: MemlabConfig, full: bool) -> tuple[dict[str, Any], list[str]]:
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

    block = keep(tree, CONFIGURABLE_KEYS, "")
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
    if hybrid.temporal_decay.enabled and \
            cfg.memlab.decay_rule != detected_line("memory.search").date_rule:
        notes.append("memlab.decayRule = '2026.7': 2026.8+ decides dated/evergreen paths by "
                     "its own rule (memlab.decayRule '2026.8')")
    return block, notes


def export_config(config_or_overrides: Any = None, schema: str = DEFAULT_SCHEMA, *,
                  header: Mapping[str, Any] | None = None, allow_lossy: bool = False,
                  full: bool = False, base: str | Path | None = None,
                  effects: Mapping[str, float] | None = None, serve_host: str = SERVE_HOST,
                  serve_port: int = SERVE_PORT) -> ExportedConfig:
    """The OpenClaw JSON5 config text for a tuned configuration (see the module docstring).

    ``config_or_overrides``: a :class:`MemlabConfig` / :class:`MemorySearchConfig`, a config
    path or JSON5 text (read with :func:`import_config`), or a mapping of key-path overrides
    (``{"query.hybrid.vectorWeight": 0.5, "memlab.fusion.method": "openclaw"}``, e.g. a sweep
    row) applied to ``base``'s configuration (without ``base``: the sweeps' default base, OpenClaw
    defaults with memlab's ``local`` provider); an override of ``vectorWeight`` without
    ``textWeight`` sets ``textWeight = 1 - vectorWeight``.

    ``schema``: ``"2026.7"``, ``"2026.8"`` (2026.8 and later, fixed constants reported) or
    ``"2026.9"`` (2026.9.6's strict ``memory.search``: a tuned value it cannot express is
    refused, :mod:`memlab.config.memory_export`). ``effects`` maps inexpressible keys (results
    column names) to their measured effect on the objective, quoted in the refusal and the
    header ("not measured" for the others). ``header``: items written as ``//`` comment lines at
    the top (e.g. ``dataset``, ``metric``, ``score``, ``out_of_sample``, ``date``). ``full``:
    write every key with its effective value, not only the configured ones. ``base``: an
    existing whole OpenClaw config (path or text) to merge into; its other keys are kept (its
    comments are not: JSON5 parsing drops them). ``serve_host``/``serve_port``: where
    ``memlab serve-embeddings`` will listen for a ``local`` model (:func:`production_provider`).

    Returns an :class:`ExportedConfig` (a ``str``) whose ``.warnings`` list the values the
    schema cannot express (also emitted as one :class:`ExportWarning`), ``.dropped`` the
    choices left out under ``allow_lossy`` and ``.serve_command`` the command serving the
    model. Raises :class:`ExportError` for inexpressible choices without ``allow_lossy`` and
    ``ValueError`` for an unknown schema.

    >>> text = export_config({"provider": "local", "local.modelPath": "e5-small-multilingual"})
    >>> text.serve_command
    'memlab serve-embeddings --model e5-small-multilingual --host 127.0.0.1 --port 8080'
    >>> import json5; json5.loads(text)["agents"]["defaults"]["memorySearch"]["queryInputType"]
    'query'
    """
    schema = export_schema(schema)[0]  # a ValueError for an unknown schema
    kind = _schema_kind(schema)
    cfg = _start_config(config_or_overrides, base)
    notes: list[str] = []
    if kind == "strict":
        block, lost = memory_block(cfg, full, effects)
    else:
        lost = [x.measured(effects) for x in _memlab_only(cfg, schema)]
        if kind == "agents":
            block = dump_tree(cfg.memory_search, full)
        else:
            block, notes = _memory_search_block(cfg, full)
    metric = (header or {}).get("metric")
    if lost and not allow_lossy:
        raise ExportError([ConfigIssue(x.key, f"OpenClaw {schema} cannot express "
                                       + ("the memlab-only choice " if x.key.startswith(
                                           "memlab.") else "the tuned value ")
                                       + x.describe(metric).removeprefix(f"{x.key} = "))
                           for x in lost]
                          + [ConfigIssue("", "pass allow_lossy=True (--allow-lossy) to drop "
                                             "them and export the rest")])
    block, command = production_provider(cfg.memory_search, block, serve_host=serve_host,
                                         serve_port=serve_port)
    base_doc = _read_base(base)
    shadowed: list[str] = []  # per-agent values of base that override the exported ones
    if kind == "agents":
        doc = _merge_agents_defaults(base_doc, block, shadowed)
    else:
        doc = _merge_memory_search(base_doc, block, shadowed)
    if kind == "strict":
        check_memory_block(doc)
    dropped = [x.describe(metric) for x in lost]
    lines = _header_lines(schema, header, notes, dropped, command)
    text = "".join(f"// {line}\n" for line in lines)
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
    return ExportedConfig(text, [*notes, *shadowed], dropped, command)


def _read_base(base: str | Path | None) -> dict[str, Any]:
    """The whole OpenClaw config to merge into (``{}`` without one)."""
    if base is None:
        return {}
    raw, name = read_source(base)
    if not isinstance(raw, dict):
        raise ConfigError(f"the base config must be an object, got {show_value(raw)}",
                          source=name)
    return raw


def _merge_agents_defaults(base: dict[str, Any], block: dict[str, Any],
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


def _merge_memory_search(base: dict[str, Any], block: dict[str, Any],
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
