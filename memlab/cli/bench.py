"""``memlab bench-providers``: embedding providers side by side on a labeled dataset.

For each provider (and each system, ``vector`` by default: hybrid off, so the metrics measure
the embedder alone) the benchmark runs the dataset through :func:`memlab.eval.systems.run_system`
with the provider metered, scores the hits with :func:`memlab.eval.experiment.evaluate`, and
reports one row per provider/system:

``provider, model, system``
    what ran (``provider`` is the spec's label).
``<metrics>``
    ``ndcg@10``, ``recall@10``, ``mrr@10`` by default (means over judged queries).
``dims, n_chunks, n_queries``
    vector size, document texts embedded, queries embedded.
``load_s``
    model load / first-call time (local models; ~0 for remote).
``index_s``
    seconds spent embedding the corpus (the documents) during the run.
``query_p50_ms, query_p95_ms, query_cpu_p50_ms``
    latency (wall) of embedding one query, and its process CPU time, after the run: with
    the thread count fixed (``threads``), ``latency_warmup`` untimed calls first, then
    ``latency_samples`` timed calls, one query each, cycling over the dataset's queries.
``threads, torch_threads, native_threads``
    the thread count asked for (``threads``, default 1: the latency of one query on one
    core, comparable between machines and runs) and what was in effect while the provider
    ran: PyTorch's intra-op threads (``None`` when PyTorch is not loaded) and the native
    pools threadpoolctl controls (BLAS, OpenMP) as ``api=threads``. An ONNX Runtime session
    keeps its own pool (ONNX Runtime's default: one thread per core).
``load_before, load_after``
    the machine's 1-minute load average before and after the latency measurement (on a
    busy machine, wall latency is not the provider's: compare CPU time, or re-run).
``window, chunks_over_window``
    the model's input window in tokens and how many of the embedded chunks are longer (so
    truncated when embedded), counted by the model's tokenizer
    (:func:`memlab.embed.window.window_report`); ``None`` / NaN when memlab does not know the
    model's window (remote providers, models that are not packaged).
``bytes_sent, tokens, token_source``
    UTF-8 bytes of all texts embedded during the run (corpus + queries) and their tokens:
    counted by the model's tokenizer when memlab has it (``tokenizer``), else estimated as
    bytes / 4 (``bytes/4``).
``usd_per_1m, cost_usd``
    the price (USD per 1M tokens) and the run's estimated cost. Prices come from
    :data:`DEFAULT_PRICES` (public list prices, which change: check and override them with
    ``prices={"openai:text-embedding-3-small": 0.02}`` or ``--price SPEC=USD``). Local models
    and loopback servers cost 0; an unknown price gives NaN.
``storage_bytes``
    bytes of the stored vectors: ``n_chunks x dims x 4`` (float32, as OpenClaw stores them).

Provider specs: ``local`` (the bundled MiniLM), ``local:ALIAS_OR_PATH`` (``local:minilm``,
``local:minilm-int8-onnx``, ``local:e5-small-multilingual``, a model folder...),
``openai-compatible:URL#MODEL`` (e.g. ``openai-compatible:http://127.0.0.1:8080/v1#minilm``),
``PROVIDER:MODEL`` for the other remote providers (API keys from their usual environment
variables), or, from Python, an :class:`~memlab.embed.base.EmbeddingProvider` instance or a
``(label, provider)`` pair. The embedding cache is never used, so every run really embeds.

>>> parse_spec("local:e5-small-multilingual")["memorySearch"]["local"]
{'modelPath': 'e5-small-multilingual'}
>>> parse_spec("openai-compatible:http://127.0.0.1:8080/v1#minilm")["memorySearch"]["remote"]
{'baseUrl': 'http://127.0.0.1:8080/v1'}
"""

from __future__ import annotations

import copy
import math
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from memlab.embed.base import EmbeddingProvider
from memlab.embed.pricing import price_per_million

if TYPE_CHECKING:  # pandas loads only when a table is built (start-up: issue 16)
    import pandas as pd

__all__ = ["DEFAULT_LATENCY_SAMPLES", "DEFAULT_LATENCY_WARMUP", "DEFAULT_PRICES", "bench_providers",
           "fixed_threads", "format_table", "parse_spec", "query_latency", "window_counts"]

#: USD per 1M input tokens (public list prices as of 2026; override them). Keys are
#: ``provider:model`` or ``provider`` (any model of that provider).
DEFAULT_PRICES: dict[str, float] = {
    "local": 0.0,
    "none": 0.0,
    "ollama": 0.0,
    "lmstudio": 0.0,
    "openai:text-embedding-3-small": 0.02,
    "openai:text-embedding-3-large": 0.13,
    "openai:text-embedding-ada-002": 0.10,
    "gemini:gemini-embedding-001": 0.15,
    "voyage:voyage-3.5": 0.06,
    "voyage:voyage-3.5-lite": 0.02,
    "voyage:voyage-3-large": 0.18,
    "voyage:voyage-code-3": 0.18,
    "mistral:mistral-embed": 0.10,
}
DEFAULT_METRICS = ("ndcg@10", "recall@10", "mrr@10")
#: Timed query embeddings per provider (after the warm-up), and untimed warm-up calls.
DEFAULT_LATENCY_SAMPLES = 200
DEFAULT_LATENCY_WARMUP = 5


def parse_spec(spec: str) -> dict[str, Any]:
    """The OpenClaw config fragment (``{"memorySearch": ...}``) a provider spec stands for:
    the key paths of :func:`memlab.tune.models.spec_overrides` (the one spec grammar, shared
    with the sweep's ``embedding`` axis), nested, with the embedding cache off.

    >>> parse_spec("openai:text-embedding-3-small")["memorySearch"]
    {'provider': 'openai', 'cache': {'enabled': False}, 'model': 'text-embedding-3-small'}
    """
    from memlab.tune.models import spec_overrides  # pandas: not at CLI start-up (issue 16)

    overrides = spec_overrides(spec)
    if overrides["provider"] == "none":
        raise ValueError("provider 'none' embeds nothing; benchmark it as the keyword system")
    ms: dict[str, Any] = {"provider": overrides.pop("provider"), "cache": {"enabled": False}}
    for path, value in overrides.items():
        *parents, leaf = path.split(".")
        node = ms
        for name in parents:
            node = node.setdefault(name, {})
        node[leaf] = value
    return {"memorySearch": ms}


class _Metered(EmbeddingProvider):
    """Delegates to a provider and records time, texts and bytes of every call."""

    def __init__(self, inner: EmbeddingProvider):
        self.inner = inner
        self.id = inner.id  # type: ignore[misc]
        self.max_input_tokens = getattr(inner, "max_input_tokens", 8192)
        self.reset()

    def reset(self) -> None:
        self.doc_s = 0.0
        self.query_s = 0.0
        self.doc_texts: list[str] = []
        self.query_texts: list[str] = []
        self.out_dims: int | None = None

    @property
    def model(self) -> str:  # type: ignore[override]
        return self.inner.model

    @property
    def dims(self) -> int:
        return self.inner.dims

    def key_settings(self) -> dict[str, Any]:
        return self.inner.key_settings()

    def cache_key_data(self) -> dict[str, Any]:
        return self.inner.cache_key_data()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        t0 = time.perf_counter()
        out = self.inner.embed_documents(texts)
        self.doc_s += time.perf_counter() - t0
        self.doc_texts.extend(str(t) for t in texts)
        if len(texts):
            self.out_dims = int(np.asarray(out).shape[1])
        return out

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        t0 = time.perf_counter()
        out = self.inner.embed_queries(texts)
        self.query_s += time.perf_counter() - t0
        self.query_texts.extend(str(t) for t in texts)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]


class _Inject(dict):
    """The ``embedders`` store of :func:`run_system` answering every key with one embedder."""

    def __init__(self, embedder: Any):
        super().__init__()
        self._embedder = embedder

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: Any) -> Any:
        return self._embedder

    def get(self, key: Any, default: Any = None) -> Any:
        return self._embedder


def _count_tokens(provider: EmbeddingProvider, texts: list[str]) -> tuple[int, str]:
    model = getattr(provider, "_model", None)
    try:
        if model is not None and hasattr(model, "count_tokens"):
            return int(model.count_tokens(texts)), "tokenizer"
        tok = getattr(model, "tokenizer", None)
        if tok is not None and texts:
            n = 0
            for start in range(0, len(texts), 256):
                n += sum(len(ids) for ids in tok(texts[start:start + 256])["input_ids"])
            return n, "tokenizer"
    except Exception:  # noqa: BLE001 - fall back to the estimate
        pass
    return int(math.ceil(sum(len(t.encode("utf-8")) for t in texts) / 4)), "bytes/4"


def _resolve(spec: Any) -> tuple[str, EmbeddingProvider, dict[str, Any]]:
    """``(label, provider, config fragment)`` for a spec string, a provider or a pair."""
    from memlab.config import load_config
    from memlab.openclaw import make_embedder

    if isinstance(spec, tuple) and len(spec) == 2:
        label, provider = spec
        return str(label), provider, {"memorySearch": {"provider": "local"}}
    if isinstance(spec, EmbeddingProvider):
        return f"{spec.id}:{spec.model}", spec, {"memorySearch": {"provider": "local"}}
    fragment = parse_spec(str(spec))
    provider = make_embedder(load_config(copy.deepcopy(fragment)))
    label = str(spec).strip()
    if label == "local":
        label = "local:minilm"
    if label.startswith("openai-compatible:"):
        label = "openai-compatible:" + label.rsplit("#", 1)[-1]
    return label, provider, fragment


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


@contextmanager
def fixed_threads(threads: int | None) -> Iterator[dict[str, Any]]:
    """Hold PyTorch's intra-op threads (when PyTorch is loaded) and the native BLAS/OpenMP
    pools (threadpoolctl) at ``threads`` for the block, then restore them; yields what is in
    effect (``torch_threads``, ``native_threads``). ``None`` changes nothing (records only).

    >>> with fixed_threads(1) as info:
    ...     info["threads"]
    1
    """
    from threadpoolctl import threadpool_info, threadpool_limits

    torch = sys.modules.get("torch")  # only a model that uses PyTorch has loaded it
    old_torch = torch.get_num_threads() if torch is not None else None
    limiter = threadpool_limits(limits=int(threads)) if threads is not None else None
    try:
        if torch is not None and threads is not None:
            torch.set_num_threads(int(threads))
        pools = sorted({f"{p['internal_api']}={p['num_threads']}" for p in threadpool_info()})
        yield {"threads": threads,
               "torch_threads": torch.get_num_threads() if torch is not None else None,
               "native_threads": ",".join(pools)}
    finally:
        if torch is not None and old_torch is not None:
            torch.set_num_threads(old_torch)
        if limiter is not None:
            limiter.restore_original_limits()


def query_latency(provider: EmbeddingProvider, queries: Sequence[str], samples: int,
                  warmup: int) -> dict[str, float]:
    """p50/p95 wall ms and p50 CPU ms of ``provider.embed_query``: ``warmup`` untimed calls,
    then ``samples`` timed ones, cycling over ``queries``; the load average around them.

    >>> from memlab.embed.hashing import HashingProvider
    >>> sorted(query_latency(HashingProvider(), ["a", "b"], 10, 2))
    ['load_after', 'load_before', 'query_cpu_p50_ms', 'query_p50_ms', 'query_p95_ms']
    """
    nan = float("nan")
    load_before = os.getloadavg()[0]
    if not queries or samples < 1:
        return {"query_p50_ms": nan, "query_p95_ms": nan, "query_cpu_p50_ms": nan,
                "load_before": load_before, "load_after": os.getloadavg()[0]}
    for i in range(max(0, int(warmup))):
        provider.embed_query(queries[i % len(queries)])
    wall, cpu = np.empty(int(samples)), np.empty(int(samples))
    for i in range(int(samples)):
        q = queries[i % len(queries)]
        t0, c0 = time.perf_counter(), time.process_time()
        provider.embed_query(q)
        cpu[i] = time.process_time() - c0
        wall[i] = time.perf_counter() - t0
    return {"query_p50_ms": float(np.percentile(wall, 50) * 1000.0),
            "query_p95_ms": float(np.percentile(wall, 95) * 1000.0),
            "query_cpu_p50_ms": float(np.percentile(cpu, 50) * 1000.0),
            "load_before": load_before, "load_after": os.getloadavg()[0]}


def window_counts(provider: EmbeddingProvider, texts: Sequence[str]) -> dict[str, Any]:
    """``window`` (tokens) and ``chunks_over_window`` of a packaged local model, through
    :func:`memlab.embed.window.window_report`; unknown (``None``/NaN) for other providers.

    >>> window_counts(object(), ["text"])
    {'window': None, 'chunks_over_window': nan}
    """
    unknown = {"window": None, "chunks_over_window": float("nan")}
    from memlab.embed.local import LocalProvider

    if not isinstance(provider, LocalProvider):
        return unknown
    from memlab.embed.window import window_report

    try:
        report = window_report(list(texts), provider.model_path or "minilm", provider=provider)
    except KeyError:  # not a packaged model: its window is unknown
        return unknown
    if report.window is None:
        return {"window": None, "chunks_over_window": 0}
    return {"window": report.window, "chunks_over_window": report.over}


def bench_providers(dataset: Any, specs: Sequence[Any], *,
                    systems: Sequence[str] = ("vector",),
                    metrics: Sequence[str] = DEFAULT_METRICS, depth: int = 10,
                    prices: Mapping[str, float] | None = None,
                    latency_queries: int | None = None, progress: Any = None,
                    threads: int | None = 1,
                    latency_samples: int = DEFAULT_LATENCY_SAMPLES,
                    latency_warmup: int = DEFAULT_LATENCY_WARMUP) -> pd.DataFrame:
    """Benchmark embedding providers on ``dataset`` (a path or a loaded dataset).

    ``systems`` are built-in system names (``vector``, ``hybrid``, ...) whose ``memorySearch``
    is combined with each provider; ``prices`` overrides :data:`DEFAULT_PRICES`;
    ``latency_queries`` caps the distinct queries timed one by one (default: all), which
    ``latency_samples`` timed calls cycle over after ``latency_warmup`` untimed ones;
    ``threads`` fixes PyTorch's and the native pools' threads while each provider runs
    (``None``: leave them). ``progress`` is called with a message before each
    provider/system. Returns one row per provider/system.
    """
    from memlab.config import load_config
    from memlab.eval.experiment import evaluate
    from memlab.eval.systems import NAMED_SYSTEMS, run_system

    if isinstance(dataset, str) or hasattr(dataset, "__fspath__"):
        from memlab.eval.datasets import load_dataset

        dataset = load_dataset(dataset)
    if not specs:
        raise ValueError("give at least one provider spec")
    table = dict(DEFAULT_PRICES)
    table.update(prices or {})
    level = getattr(dataset, "level", "span")
    qtexts = [str(t) for t in dataset.queries["query"]]
    if latency_queries is not None:
        qtexts = qtexts[:max(0, int(latency_queries))]
    rows = []
    for spec in specs:
        label, provider, fragment = _resolve(spec)
        t0 = time.perf_counter()
        dims = int(provider.dims)  # loads a local model
        load_s = time.perf_counter() - t0
        metered = _Metered(provider)
        windows: dict[str, Any] | None = None  # the same chunks for every system
        for system in systems:
            if system not in NAMED_SYSTEMS:
                raise ValueError(f"unknown system {system!r}: one of {', '.join(NAMED_SYSTEMS)}")
            sys_cfg = NAMED_SYSTEMS[system]
            if sys_cfg.get("memorySearch", {}).get("provider") == "none":
                raise ValueError(f"system {system!r} uses no embeddings")
            cfg = load_config(_merge(sys_cfg, fragment))
            if progress is not None:
                progress(f"{label} / {system}")
            metered.reset()
            with fixed_threads(threads) as in_effect:
                hits = run_system(dataset, cfg, depth=depth, embedders=_Inject(metered))
                lat = query_latency(provider, qtexts, latency_samples, latency_warmup)
            means = evaluate(hits, dataset.qrels, metrics, queries=dataset.queries,
                             level=level).means
            sent = metered.doc_texts + metered.query_texts
            tokens, source = _count_tokens(provider, sent)
            if windows is None:
                windows = window_counts(provider, metered.doc_texts)
            usd = price_per_million(provider.id, str(getattr(provider, "model", "") or ""),
                                    getattr(provider, "base_url", None), table)
            out_dims = metered.out_dims or dims
            row: dict[str, Any] = {"provider": label, "model": provider.model,
                                   "system": system}
            row.update({m: float(means[m]) for m in metrics})
            row.update({
                "dims": out_dims,
                "n_chunks": len(metered.doc_texts),
                "n_queries": len(metered.query_texts),
                "load_s": round(load_s, 3),
                "index_s": round(metered.doc_s, 3),
                "query_p50_ms": lat["query_p50_ms"],
                "query_p95_ms": lat["query_p95_ms"],
                "query_cpu_p50_ms": lat["query_cpu_p50_ms"],
                "latency_samples": int(latency_samples) if qtexts else 0,
                **in_effect,
                "load_before": lat["load_before"],
                "load_after": lat["load_after"],
                **windows,
                "bytes_sent": sum(len(t.encode("utf-8")) for t in sent),
                "tokens": tokens,
                "token_source": source,
                "usd_per_1m": usd,
                "cost_usd": tokens / 1e6 * usd if not math.isnan(usd) else float("nan"),
                "storage_bytes": len(metered.doc_texts) * out_dims * 4,
            })
            rows.append(row)
    import pandas as pd

    return pd.DataFrame(rows)


def format_table(df: pd.DataFrame) -> str:
    """A GitHub-markdown table of a :func:`bench_providers` result (no extra dependency)."""
    def cell(v: Any) -> str:
        if isinstance(v, float):
            if math.isnan(v):
                return "n/a"
            if v == 0:
                return "0"
            if abs(v) < 0.01:
                return f"{v:.2e}"
            return f"{v:.3f}" if abs(v) < 100 else f"{v:.0f}"
        return str(v)

    cols = list(df.columns)
    body = [[cell(v) for v in row] for row in df.itertuples(index=False)]
    widths = [max(len(c), *(len(r[i]) for r in body)) if body else len(c)
              for i, c in enumerate(cols)]
    line = "| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    out = [line, sep]
    for r in body:
        out.append("| " + " | ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) + " |")
    return "\n".join(out)


def add_bench_parser(sub: Any) -> None:
    """Register ``memlab bench-providers`` on the CLI's subparsers."""
    p = sub.add_parser("bench-providers",
                       help="compare embedding providers: quality, latency, cost, storage")
    p.add_argument("dataset", help="a memory dataset folder or a BEIR folder")
    p.add_argument("--provider", action="append", required=True, metavar="SPEC",
                   help="local[:ALIAS_OR_PATH], openai-compatible:URL#MODEL or "
                   "PROVIDER:MODEL; repeat for several")
    p.add_argument("--system", action="append", metavar="NAME",
                   help="built-in system(s) to run each provider in (default: vector)")
    p.add_argument("--metrics", default=",".join(DEFAULT_METRICS),
                   help="comma-separated NAME@K")
    p.add_argument("--depth", type=int, default=10, help="hits per query (default 10)")
    p.add_argument("--price", action="append", default=[], metavar="KEY=USD",
                   help="USD per 1M tokens for PROVIDER or PROVIDER:MODEL (overrides defaults)")
    p.add_argument("--latency-queries", type=int, default=None,
                   help="time at most this many distinct queries (default: all)")
    p.add_argument("--latency-samples", type=int, default=DEFAULT_LATENCY_SAMPLES,
                   help="timed query embeddings per provider, cycling over the queries "
                   f"(default {DEFAULT_LATENCY_SAMPLES})")
    p.add_argument("--latency-warmup", type=int, default=DEFAULT_LATENCY_WARMUP,
                   help=f"untimed query embeddings first (default {DEFAULT_LATENCY_WARMUP})")
    p.add_argument("--threads", type=int, default=1,
                   help="PyTorch and BLAS/OpenMP threads while a provider runs (default 1; "
                   "0: leave them as they are)")
    p.add_argument("--format", choices=["markdown", "csv", "json"], default="markdown")
    from memlab.cli.line import add_profile_argument

    add_profile_argument(p)  # 2026.9 is refused with the alternative
    p.set_defaults(func=_bench_cmd)


def _bench_cmd(args: Any) -> int:
    from memlab.cli.line import refuse_profile

    if (code := refuse_profile(args, "bench-providers", "it ranks with the 2026.7 systems; "
                               "compare providers on 2026.9 with memlab sweep --profile "
                               "2026.9 over provider/model axes")) is not None:
        return code
    prices: dict[str, float] = {}
    for item in args.price:
        key, sep, value = item.rpartition("=")
        if not sep or not key:
            raise ValueError(f"--price {item!r}: use PROVIDER[:MODEL]=USD_PER_1M_TOKENS")
        prices[key.strip()] = float(value)
    df = bench_providers(args.dataset, args.provider, systems=args.system or ("vector",),
                         metrics=[m.strip() for m in args.metrics.split(",") if m.strip()],
                         depth=args.depth, prices=prices,
                         latency_queries=args.latency_queries,
                         latency_samples=args.latency_samples,
                         latency_warmup=args.latency_warmup,
                         threads=args.threads or None,
                         progress=None if getattr(args, "no_progress", False) else
                         lambda msg: print(f"bench: {msg}", file=sys.stderr, flush=True))
    if args.format == "csv":
        print(df.to_csv(index=False), end="")
    elif args.format == "json":
        print(df.to_json(orient="records", indent=2))
    else:
        print(format_table(df))
    return 0
