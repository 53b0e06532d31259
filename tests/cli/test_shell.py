"""``memlab shell``: each query prints what ``memlab search`` prints for it, the local model
loads once per shell (and not at all before a text must be embedded), failed queries report
like ``memlab search`` and the shell goes on (issue 16 item 4, warm-model mode)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from memlab.cli.main import main
from memlab.embed import local

SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "sample-memory" / "workspace"
QUERIES = ["staging database host", "When is the billing cutover?", "Maya's pager rota"]

pytestmark = pytest.mark.skipif(not SAMPLE.exists(), reason="no sample workspace")


class FakeSentenceTransformer:
    """Stands in for ``sentence_transformers.SentenceTransformer``: deterministic unit vectors
    from character counts; counts how many were created."""

    created = 0

    def __init__(self, target: str, device: str = "cpu", local_files_only: bool = True):
        type(self).created += 1

    def get_embedding_dimension(self) -> int:
        return 16

    def encode(self, texts, batch_size=32, show_progress_bar=False, convert_to_numpy=True,
               normalize_embeddings=True) -> np.ndarray:
        out = np.zeros((len(texts), 16), dtype=np.float32)
        for row, text in enumerate(texts):
            for ch in text.lower():
                out[row, ord(ch) % 16] += 1.0
        out += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path
               ) -> type[FakeSentenceTransformer]:
    """The default local provider, its identity intact, loading the fake model; a private
    embedding cache (its vectors are stored under the real model's identity)."""
    monkeypatch.setenv("MEMLAB_CACHE_DIR", str(tmp_path / "cache"))
    module = types.ModuleType("sentence_transformers")
    module.SentenceTransformer = FakeSentenceTransformer
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    monkeypatch.setattr(local, "_MODELS", {})
    monkeypatch.setattr(FakeSentenceTransformer, "created", 0)
    return FakeSentenceTransformer


@pytest.fixture
def indexed(tmp_path: Path, fake_model) -> tuple[Path, Path]:
    """A copy of the sample workspace and its index, built with the fake model."""
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    index = tmp_path / "index.sqlite"
    assert main(["index", str(ws), "--index", str(index), "--no-progress"]) == 0
    local._MODELS.clear()  # the next process-like step starts without a loaded model
    fake_model.created = 0
    return ws, index


def _shell(monkeypatch, capsys, argv: list[str], lines: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    code = main(["shell", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("json_mode", [True, False])
def test_each_query_prints_what_memlab_search_prints(indexed, fake_model, monkeypatch, capsys,
                                                      json_mode):
    ws, index = indexed
    options = ["--index", str(index), "--now", "2026-10-01T09:00:00Z"]
    options += ["--json"] if json_mode else []
    expected = []
    for query in QUERIES:
        local._MODELS.clear()  # each `memlab search` is a fresh process with a cold model
        assert main(["search", str(ws), query, *options]) == 0
        expected.append(capsys.readouterr().out)
    loads_cold = fake_model.created
    fake_model.created = 0
    local._MODELS.clear()
    code, out, _ = _shell(monkeypatch, capsys, [str(ws), *options],
                          "\n".join(QUERIES) + "\n\n")
    assert code == 0
    if json_mode:
        assert out == "".join(expected)
        decoder, pos, docs = json.JSONDecoder(), 0, []
        while pos < len(out):  # the stream of documents reads back one by one
            doc, pos = decoder.raw_decode(out, pos)
            docs.append(doc)
            while pos < len(out) and out[pos].isspace():
                pos += 1
        assert len(docs) == len(QUERIES) and docs[0]["results"]
    else:
        assert out == "".join(text + "\n" for text in expected)
    assert loads_cold == len(QUERIES)
    assert fake_model.created == 1  # warm: one load for every query of the shell


def test_the_model_loads_only_when_a_query_is_embedded(indexed, fake_model, monkeypatch,
                                                      capsys):
    ws, index = indexed
    code, out, _ = _shell(monkeypatch, capsys, [str(ws), "--index", str(index)], "\n  \n")
    assert (code, out, fake_model.created) == (0, "", 0)  # no query: no model, no output
    code, out, _ = _shell(monkeypatch, capsys, [str(ws), "--index", str(index)],
                          "staging database host\n")
    assert code == 0 and "memory/" in out and fake_model.created == 1


def test_a_failed_query_is_reported_and_the_shell_goes_on(indexed, fake_model, monkeypatch,
                                                         capsys):
    ws, index = indexed
    bad = "bad \udcff bytes"  # an undecodable byte, as surrogateescape reads it
    code, out, err = _shell(monkeypatch, capsys, [str(ws), "--index", str(index), "--json"],
                            f"{bad}\nstaging database host\n")
    assert code == 2  # the first failure's exit code, as `memlab search` returns it
    assert "memlab: error: the query is not valid UTF-8 text" in err
    assert out.count('"results"') == 1  # the second query still ran


def test_a_config_error_ends_the_shell(tmp_path, monkeypatch, capsys):
    config = tmp_path / "bad.json5"
    config.write_text("{memorySearch: {query: {maxResults: 'many'}}}", encoding="utf-8")
    code, out, err = _shell(monkeypatch, capsys, [str(SAMPLE), "--config", str(config),
                                                  "--no-index"], "one\ntwo\n")
    assert code == 2 and out == ""
    assert err.count("config error") == 1


def test_shell_in_a_fresh_process_reads_stdin_and_flushes_each_answer(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlab.cli", "shell", str(ws), "--no-index", "--json",
         "--set", "provider=none"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=os.environ | {"MEMLAB_PROGRESS": "0"})
    try:
        proc.stdin.write("staging database host\n")
        proc.stdin.flush()
        lines = []
        while not lines or lines[-1] != "}\n":  # the first answer, before stdin is closed
            lines.append(proc.stdout.readline())
            assert lines[-1], proc.stderr.read()[-2000:]
        assert json.loads("".join(lines))["results"][0]["path"] == "memory/2026-08-06.md"
        out, err = proc.communicate("billing cutover\n", timeout=300)
    finally:
        proc.kill() if proc.poll() is None else None
    assert proc.returncode == 0, err[-2000:]
    assert json.loads(out)["results"]
