"""Check the quality gate in the real OpenClaw 2026.7.35: every fold's chosen config, exported by
memlab and loaded into OpenClaw with its model served by ``memlab serve-embeddings``, scores
on the fold's held-out queries exactly what memlab scored for it, and so does OpenClaw's
defaults; then the out-of-fold table of both (issue 19, "How it is checked").

    .venv/bin/python parity/check_gate.py [--dataset datasets/sample-memory]
                                          [--variants gated|both] [--cv 5] [--seed 0]
                                          [--n-resamples 10000] [--tol 1e-6] [--cache DIR]
                                          [--json FILE] [-v]

1. The gate (:func:`memlab.tune.gate.quality_gate`, its grid and models, k-fold CV on
   the dataset) runs in this process on a :class:`memlab.tune.sweep.SweepEngine` kept open;
   :func:`memlab.tune.gate.fold_configs` gives each fold's chosen config (model +
   knobs, at :data:`~memlab.tune.gate.EVAL_BUDGET`: 10 results, ``minScore`` 0), its
   held-out queries and memlab's per-query nDCG@10 there.
2. Per distinct config (folds that chose the same config share one OpenClaw run; the defaults,
   ``DEFAULT_BASELINE`` + ``EVAL_BUDGET``, run on every judged query):
   :func:`memlab.config.export_config` (schema 2026.7, merged into a base config naming the
   dataset's workspace as one agent, ``serve_port`` the port of the model's server) is written
   as ``$HOME/.openclaw/openclaw.json`` of a scratch HOME; ``memlab serve-embeddings --model X``
   (``check_serve.start_server``) serves the model the export names; the harness's batch
   runner (``run.run_openclaw_batch``: one Node process, ``memory index --force`` then
   ``memory search`` per query, clock frozen at the dataset's ``now``) answers the config's
   queries. The runner always passes ``--min-score -1`` and ``--max-results 50``; its
   ``also_max_results`` answer at ``--max-results 10`` is the one used (OpenClaw's candidate
   pool depends on maxResults). With ``--min-score -1`` instead of the config's 0 the first 10
   results are the same exactly when none of them scores below 0 (OpenClaw keeps the first
   ``maxResults`` results scoring at least ``minScore``, in rank order); a query whose top 10
   holds a negative score cannot be decided and counts as a mismatch.
3. nDCG@10 of OpenClaw's hits with memlab's evaluation code
   (:func:`memlab.eval.experiment.evaluate`, span gains on the dataset's qrels, the gate's
   mapping), per query, against the gate's per-query value (``--tol``); memlab's hits of the
   same config (``SweepEngine.hits``) are compared with OpenClaw's as the parity harness does
   (``run.compare_results``: same hits, order with ties as sets, scores), and their nDCG with
   the gate's (memlab's own consistency).
4. Prints per fold and per variant memlab's and OpenClaw's values, and the out-of-fold table:
   memlab tuned / OpenClaw tuned / memlab defaults / OpenClaw defaults, the gain and its
   randomization p-value (:func:`memlab.tune.gate.gain_tests`, the gate's tests,
   Holm-corrected over the variants run: with ``--variants both``, the default, exactly the
   gate's p).

Exit code 0 when every query agrees (|ΔnDCG| <= tol), 1 on any mismatch, 2 when it could not
run. The servers it started are stopped (SIGTERM) in every case.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import check_serve  # noqa: E402 - parity/ modules, loaded by path
from check_export import find_install, run  # noqa: E402

DEFAULTS = "OpenClaw defaults"
VARIANT_SETS = {"gated": ("tuned model + knobs",),
                "both": ("same model, tuned knobs", "tuned model + knobs")}


@dataclass
class QueryCheck:
    """One held-out query of one system (a variant's fold config, or the defaults)."""

    system: str
    fold: int | None
    qid: str
    query: str
    gate: float  # the gate's per-query value (memlab)
    memlab: float  # nDCG of memlab's hits of the config (SweepEngine.hits + evaluate)
    openclaw: float  # nDCG of OpenClaw's hits (evaluate)
    status: str  # run.compare_results of OpenClaw's vs memlab's hits, or "undetermined"
    detail: str = ""

    def ok(self, tol: float) -> bool:
        return (self.status != "undetermined" and abs(self.openclaw - self.gate) <= tol
                and abs(self.memlab - self.gate) <= tol)


@dataclass
class ConfigRun:
    """One distinct exported config run in OpenClaw."""

    label: str
    model: str
    serve_command: str
    queries: int
    seconds: float
    index_agree: bool
    index_detail: str = ""
    problems: list[str] = field(default_factory=list)


class CheckError(RuntimeError):
    """The check could not run (export refused, OpenClaw failed, server down)."""


def served_model(cfg: Any) -> str:
    """The model ``memlab serve-embeddings`` must serve for ``cfg``'s export (from the export's
    own serve command)."""
    from memlab.config import export_config

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        command = export_config(cfg, "2026.7").serve_command
    if not command:
        raise CheckError("the config exports no served model (not a packaged local model)")
    argv = shlex.split(command)
    return argv[argv.index("--model") + 1]


class Servers:
    """One ``memlab serve-embeddings`` per model, started on first use, all stopped by
    :meth:`close`."""

    def __init__(self) -> None:
        self.procs: dict[str, tuple[int, subprocess.Popen]] = {}

    def port(self, model: str) -> int:
        if model not in self.procs:
            port = check_serve.free_port()
            self.procs[model] = (port, check_serve.start_server(model, port))
        port, proc = self.procs[model]
        if proc.poll() is not None:
            raise CheckError(f"memlab serve-embeddings --model {model} exited "
                             f"{proc.returncode}: " + " | ".join(proc.log_tail))
        return port

    def close(self) -> None:
        for _, proc in self.procs.values():
            check_serve.stop_server(proc)


def export_text(cfg: Any, base: Path, port: int, header: dict[str, Any]) -> Any:
    """``memlab export`` of ``cfg`` for OpenClaw 2026.7 merged into ``base``, its model served
    on ``port``; refuses lossy exports (the gate only chooses exportable configs)."""
    from memlab.config import export_config

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = export_config(cfg, "2026.7", base=base, serve_port=port, header=header)
    if text.warnings or text.dropped:
        raise CheckError(f"the export of {header} is lossy: {text.warnings + text.dropped}")
    return text


def openclaw_answers(install: Any, home: Path, now: str, agent: str,
                     queries: list[str], depth: int) -> tuple[list[Any], dict[str, Any]]:
    """OpenClaw's ``--max-results depth`` answer per query (``None`` when the search failed)
    and the batch's index entry."""
    batch = run.run_openclaw_batch(install, home, now, {agent: queries},
                                   also_max_results=(depth,))
    entry = batch["agents"][agent]
    answers = []
    for q, e in zip(queries, entry["queries"], strict=True):
        if e["query"] != q:
            raise CheckError(f"the batch answered {e['query']!r} for {q!r}")
        answers.append((e.get("alsoMaxResults") or {}).get(str(depth)))
    return answers, entry["index"]


def ndcg_of(results: dict[str, list[dict[str, Any]]], qrels: pd.DataFrame,
            metric: str) -> dict[str, float]:
    """``metric`` per query of ranked ``--json``-style results (``path``, ``startLine``,
    ``endLine`` in rank order) with memlab's evaluation code (span gains)."""
    from memlab.eval.experiment import evaluate

    rows = [(qid, str(r["path"]), int(r["startLine"]), int(r["endLine"]), float(r["score"]),
             rank) for qid, hits in results.items() for rank, r in enumerate(hits, 1)]
    hits = pd.DataFrame(rows, columns=["qid", "path", "start_line", "end_line", "score", "rank"])
    queries = pd.DataFrame({"qid": list(results)})
    per_query, _ = evaluate(hits, qrels, [metric], queries)
    return dict(zip(per_query["qid"].astype(str), per_query[metric].astype(float), strict=True))


def memlab_results(engine: Any, cfg: Any) -> dict[str, list[dict[str, Any]]]:
    """memlab's hits of ``cfg`` per query (the gate's own engine), as ``--json`` results."""
    chunks = engine.corpus(cfg).chunks
    out: dict[str, list[dict[str, Any]]] = {str(q): [] for q in engine.queries["qid"]}
    hits = engine.hits(cfg).sort_values(["qid", "rank"], kind="stable")
    for qid, docno, score in zip(hits["qid"], hits["docno"], hits["score"], strict=True):
        c = chunks.iloc[int(docno)]
        out[str(qid)].append({"path": str(c["path"]), "startLine": int(c["start_line"]),
                              "endLine": int(c["end_line"]), "score": float(score)})
    return out


def check(args: argparse.Namespace, install: Any) -> tuple[list[QueryCheck], list[ConfigRun],
                                                          dict[str, Any]]:
    """Steps 1-3 of the module docstring; returns the per-query checks, the OpenClaw runs and
    the gate (with its engine's queries)."""
    from memlab.config import load_config
    from memlab.tune.gate import DEFAULT_BASELINE, EVAL_BUDGET, fold_configs, quality_gate
    from memlab.tune.sweep import SweepEngine

    variants = VARIANT_SETS[args.variants]
    metric = "ndcg@10"
    depth = int(EVAL_BUDGET["query.maxResults"])
    base_cfg = load_config(DEFAULT_BASELINE)
    t0 = time.monotonic()
    engine = SweepEngine(args.dataset, base_cfg)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gate = quality_gate(args.dataset, engine=engine, cv=args.cv, seed=args.seed,
                                n_resamples=args.n_resamples)
        gate_seconds = time.monotonic() - t0
        print(f"gate: {gate_seconds:.0f} s; {gate.metric} out of fold, "
              + ", ".join(f"{v} {t:.4f}" for v, t in zip(gate.overall["variant"],
                                                          gate.overall["tuned"], strict=True))
              + f", defaults {gate.overall['baseline'].iloc[0]:.4f}", flush=True)
        nows = {pd.Timestamp(v).isoformat() for v in engine.queries["now"]}
        if len(nows) != 1:
            raise CheckError(f"the dataset's queries have {len(nows)} different 'now' values; "
                             "one OpenClaw run has one frozen clock")
        now = pd.Timestamp(next(iter(nows))).strftime("%Y-%m-%dT%H:%M:%SZ")
        texts = dict(zip(engine.queries["qid"].astype(str), engine.queries["query"],
                         strict=True))
        judged = gate.per_query["qid"].astype(str).tolist()
        # the systems: (name, fold, config, qids, the gate's values on them)
        systems: list[tuple[str, int | None, Any, tuple[str, ...], np.ndarray]] = [
            (DEFAULTS, None, gate.base.with_overrides(EVAL_BUDGET), tuple(judged),
             gate.per_query["baseline"].to_numpy(dtype=np.float64))]
        for variant in variants:
            for f in fold_configs(gate, variant):
                systems.append((variant, f.fold, f.config, f.qids, f.tuned))
        checks, runs = _run_systems(args, install, engine, systems, texts, now, depth, metric)
    finally:
        engine.close()
    return checks, runs, {"gate": gate, "variants": variants, "judged": judged,
                          "gate_seconds": gate_seconds}


def _run_systems(args: argparse.Namespace, install: Any, engine: Any,
                 systems: list[tuple[str, int | None, Any, tuple[str, ...], np.ndarray]],
                 texts: dict[str, str], now: str, depth: int, metric: str
                 ) -> tuple[list[QueryCheck], list[ConfigRun]]:
    """Export and run each distinct config in OpenClaw; score both sides per query."""
    servers = Servers()
    checks: list[QueryCheck] = []
    runs: list[ConfigRun] = []
    with tempfile.TemporaryDirectory(prefix="memlab-gate-") as tmp:
        scratch = Path(tmp)
        staged = run.stage_workspaces([str(args.dataset)], scratch / "ws", run.iso_to_ms(now))
        oc_ws = run.stage_openclaw_workspaces(staged, scratch / "openclaw-ws")
        agent = next(iter(oc_ws))
        base = scratch / "base.json"
        base.write_text(json.dumps(run.openclaw_config({}, oc_ws), indent=2), encoding="utf-8")
        try:
            # one OpenClaw run per distinct exported file, on the union of its queries
            groups: dict[str, dict[str, Any]] = {}
            for name, fold, cfg, qids, values in systems:
                model = served_model(cfg)
                port = servers.port(model)
                text = export_text(cfg, base, port, {"dataset": str(args.dataset)})
                g = groups.setdefault(str(text), {"cfg": cfg, "model": model, "text": text,
                                                  "qids": [], "members": []})
                g["qids"] += [q for q in qids if q not in g["qids"]]
                g["members"].append((name, fold, qids, values))
            for i, g in enumerate(groups.values()):
                label = ", ".join(f"{n} fold {f}" if f is not None else n
                                  for n, f, _, _ in g["members"])
                checks += _run_group(args, install, engine, g, scratch / f"home-{i}", agent,
                                     texts, now, depth, metric, label, runs)
        finally:
            servers.close()
    return checks, runs


def _run_group(args: argparse.Namespace, install: Any, engine: Any, g: dict[str, Any],
               home: Path, agent: str, texts: dict[str, str], now: str, depth: int,
               metric: str, label: str, runs: list[ConfigRun]) -> list[QueryCheck]:
    t0 = time.monotonic()
    (home / ".openclaw").mkdir(parents=True)
    (home / ".openclaw" / "openclaw.json").write_text(str(g["text"]), encoding="utf-8")
    qids = g["qids"]
    answers, index = openclaw_answers(install, home, now, agent, [texts[q] for q in qids], depth)
    if index["exitCode"] != 0:
        raise CheckError(f"{label}: openclaw memory index --force failed: "
                         + (index["stderr"] or index["stdout"]).strip()[-800:])
    cfg = g["cfg"]
    idx = run.compare_index(agent, run.openclaw_chunks(home, agent),
                            [(str(p), int(s), int(e), str(h)) for p, s, e, h in
                             engine.corpus(cfg).chunks[["path", "start_line", "end_line",
                                                        "hash"]].itertuples(index=False)])
    crun = ConfigRun(label, g["model"], g["text"].serve_command or "", len(qids), 0.0,
                     idx.agree, "" if idx.agree else idx.describe())
    min_score = float(cfg.memory_search.query.min_score)
    theirs: dict[str, list[dict[str, Any]]] = {}
    undetermined: dict[str, str] = {}
    for qid, ans in zip(qids, answers, strict=True):
        if ans is None:
            undetermined[qid] = "openclaw memory search failed"
            theirs[qid] = []
            continue
        results = ans["results"]
        if results and "vectorScore" not in results[0]:
            crun.problems.append(f"{qid}: OpenClaw searched without vectors "
                                 f"(mode {ans.get('mode')})")
        low = [r for r in results if float(r["score"]) < min_score]
        if low:  # the --min-score -1 answer is not the config's minScore answer
            undetermined[qid] = (f"{len(low)} of OpenClaw's top {depth} score below the "
                                 f"config's minScore {min_score:g} (the batch runs at "
                                 f"--min-score {run.MIN_SCORE:g})")
        theirs[qid] = results
    mine_all = memlab_results(engine, cfg)
    mine = {q: mine_all[q] for q in qids}
    oc_ndcg = ndcg_of(theirs, engine.qrels, metric)
    ml_ndcg = ndcg_of(mine, engine.qrels, metric)
    out = []
    for name, fold, member_qids, values in g["members"]:
        for qid, gate_value in zip(member_qids, values, strict=True):
            cmp = run.compare_results(theirs[qid], mine[qid], args.tol, agent, texts[qid],
                                      limit=depth)
            status = "undetermined" if qid in undetermined else cmp.status
            detail = undetermined.get(qid) or ("" if cmp.status == "agree" else cmp.describe())
            out.append(QueryCheck(name, fold, qid, texts[qid], float(gate_value),
                                  ml_ndcg[qid], oc_ndcg[qid], status, detail))
    crun.seconds = time.monotonic() - t0
    runs.append(crun)
    print(f"  OpenClaw run {len(runs)}: {label}: {len(qids)} queries through "
          f"`{crun.serve_command}`, chunks {'agree' if idx.agree else 'DIFFER'}, "
          f"{crun.seconds:.0f} s", flush=True)
    return out


def tables(checks: list[QueryCheck], info: dict[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-fold table and the out-of-fold table (step 4)."""
    from memlab.tune.gate import gain_tests

    gate = info["gate"]
    frame = pd.DataFrame([asdict(c) for c in checks])
    folds = (frame[frame["system"] != DEFAULTS]
             .groupby(["system", "fold"], sort=False)
             .agg(queries=("qid", "size"), memlab=("gate", "mean"),
                  openclaw=("openclaw", "mean"),
                  same_hits=("status", lambda s: int((s == "agree").sum())))
             .reset_index())
    folds["fold"] = folds["fold"].astype(int)
    choice = gate.folds.set_index(["variant", "fold"])["choice"]
    folds.insert(2, "choice", [choice.loc[(v, f)] for v, f in zip(folds["system"],
                                                                  folds["fold"], strict=True)])
    judged = info["judged"]

    def column(system: str, field_: str) -> np.ndarray:
        sub = frame[frame["system"] == system].set_index("qid")[field_]
        return sub.reindex(judged).to_numpy(dtype=np.float64)

    sides = {}
    for side, field_ in (("memlab", "gate"), ("OpenClaw", "openclaw")):
        sides[side] = gain_tests({v: column(v, field_) for v in info["variants"]},
                                 column(DEFAULTS, field_), n_resamples=gate.n_resamples,
                                 seed=gate.seed).set_index("variant")
    rows = []
    for v in info["variants"]:
        m, o = sides["memlab"].loc[v], sides["OpenClaw"].loc[v]
        rows.append({"variant": v, "queries": int(m["n"]), "memlab tuned": m["tuned"],
                     "OpenClaw tuned": o["tuned"], "memlab defaults": m["baseline"],
                     "OpenClaw defaults": o["baseline"], "memlab gain": m["delta"],
                     "OpenClaw gain": o["delta"], "memlab p (rand.)": m["p_rand"],
                     "OpenClaw p (rand.)": o["p_rand"]})
    return folds, pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=REPO / "datasets" / "sample-memory",
                        help="the memory dataset the gate runs on (default %(default)s)")
    parser.add_argument("--variants", choices=sorted(VARIANT_SETS), default="both",
                        help="the gate's variants run in OpenClaw: 'both' (default; the p-value "
                        "is then Holm-corrected over both, as the gate's) or 'gated' only")
    parser.add_argument("--cv", type=int, default=5, help="folds (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="fold split and resampling seed")
    parser.add_argument("--n-resamples", type=int, default=10_000,
                        help="randomization/bootstrap resamples (default %(default)s)")
    parser.add_argument("--tol", type=float, default=run.DEFAULT_TOL,
                        help="max |ΔnDCG| and |Δscore| per query (default %(default)g)")
    parser.add_argument("--cache", type=Path, default=None,
                        help=f"parity install folder (default {run.DEFAULT_CACHE})")
    parser.add_argument("--json", type=Path, default=None, help="write every check as JSON")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list every query whose hits differ (even with equal nDCG)")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    wall0, load0 = time.monotonic(), os.getloadavg()
    cpu0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        install = find_install(args.cache, False)
    except run.SetupError as exc:
        print(f"check_gate: {exc}", file=sys.stderr)
        return 2
    if install is None:
        print("check_gate: no OpenClaw install; run `make parity` once (or parity/run.py "
              "--install-only)", file=sys.stderr)
        return 2
    try:
        checks, runs, info = check(args, install)
    except (CheckError, RuntimeError, OSError, subprocess.SubprocessError) as exc:
        print(f"check_gate: could not run: {exc}", file=sys.stderr)
        return 2
    folds, overall = tables(checks, info)
    bad = [c for c in checks if not c.ok(args.tol)]
    print()
    print(f"Per fold ({info['gate'].metric} on the held-out queries; same_hits: "
          "run.compare_results agrees):")
    print(folds.to_markdown(index=False, floatfmt=".4f"))
    print()
    print(f"Out of fold, {len(info['judged'])} judged queries, OpenClaw {run.OPENCLAW_VERSION} "
          "with the exported configs (models served by memlab serve-embeddings):")
    print(overall.to_markdown(index=False, floatfmt=".4f"))
    statuses = pd.Series([c.status for c in checks]).value_counts().to_dict()
    max_diff = max(abs(c.openclaw - c.gate) for c in checks)
    print()
    print(f"{len(checks)} query checks over {len(runs)} OpenClaw runs: hits {statuses}; "
          f"max |ΔnDCG| OpenClaw vs memlab {max_diff:.3g} (tol {args.tol:g})")
    for r in runs:
        if not r.index_agree:
            print(f"  chunks of {r.label}: {r.index_detail}")
        for p in r.problems[:5]:
            print(f"  {r.label}: {p}")
    for c in bad:
        print(f"MISMATCH {c.system} fold {c.fold} {c.qid}: gate {c.gate:.6f}, memlab hits "
              f"{c.memlab:.6f}, OpenClaw {c.openclaw:.6f}; {c.status}: {c.detail}")
    if args.verbose:
        for c in checks:
            if c.ok(args.tol) and c.status != "agree":
                print(f"  (nDCG equal) {c.system} fold {c.fold} {c.qid}: {c.detail}")
    self1, child1 = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(getattr(b, a) - getattr(s, a) for s, b in ((cpu0[0], self1), (cpu0[1], child1))
              for a in ("ru_utime", "ru_stime"))
    wall = time.monotonic() - wall0
    load1 = os.getloadavg()
    print(f"{'OK' if not bad else 'MISMATCH'}: {len(checks) - len(bad)}/{len(checks)} queries "
          f"agree; wall {wall:.0f} s (gate {info['gate_seconds']:.0f} s), CPU {cpu:.0f} s "
          f"(this process + children), 1-min load {load0[0]:.2f} -> {load1[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps({
            "checks": [asdict(c) for c in checks], "runs": [asdict(r) for r in runs],
            "overall": overall.to_dict(orient="records"),
            "folds": folds.to_dict(orient="records"),
            "wall_s": wall, "cpu_s": cpu, "load": [load0[0], load1[0]]},
            indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
