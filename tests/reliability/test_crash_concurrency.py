"""``kill -9`` at random points of ``memlab index`` (20 seeded trials), and two indexers plus a
search loop on one index."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from memlab_reliability import embeddings_route, subprocess_env, write_config

from memlab.chunking import chunk_markdown
from memlab.embed.base import text_hash
from memlab.index.store import IndexStore

TRIALS = 20
TOKENS = 16
N_FILES = 40


def _note(i: int, version: str) -> str:
    return "".join(f"Note {i} line {j} version {version}: deploy item {i}-{j} is ready.\n"
                   for j in range(14))


def _spawn(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "memlab.cli", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=subprocess_env())


def _cache_hashes(cache_dir: Path) -> set[str]:
    path = cache_dir / "embeddings.sqlite"
    if not path.exists():
        return set()
    conn = sqlite3.connect(path, timeout=30)
    try:
        return {h for (h,) in conn.execute("SELECT hash FROM memory_embedding_cache")}
    except sqlite3.OperationalError:
        return set()
    finally:
        conn.close()


def _check_index(index: Path, versions: dict[str, dict[str, str]]) -> dict[str, str]:
    """Integrity, table consistency, and every indexed file entirely one real version."""
    if not index.exists():
        return {}
    conn = sqlite3.connect(index, timeout=30)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    store = IndexStore(index)
    try:
        assert store.check_consistency() == []
        hashes = store.source_hashes()
        chunks: dict[str, list[str]] = {}
        for path, h in store.execute("SELECT path, hash FROM memory_index_chunks ORDER BY rowid"):
            chunks.setdefault(path, []).append(h)
        for path, file_hash in hashes.items():
            assert file_hash in versions[path], f"{path}: indexed text was never on disk"
            want = [c.hash for c in chunk_markdown(versions[path][file_hash], tokens=TOKENS,
                                                   overlap=0)]
            assert chunks.get(path, []) == want, f"{path}: chunks do not match its file"
        assert set(chunks) <= set(hashes)
        return hashes
    finally:
        store.close()


def test_kill_9_at_random_points(cli, tmp_path, fake):
    rng = random.Random(20260509)
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    cache_dir = Path(os.environ["MEMLAB_CACHE_DIR"])
    index = tmp_path / "idx.sqlite"
    fake.route = embeddings_route(4)
    fake.delay = 0.05  # a slow-ish provider: the kill lands mid-run
    cfg = write_config(tmp_path, {"memorySearch": {
        "provider": "openai-compatible", "model": "m",
        "remote": {"baseUrl": f"{fake.url}/v1", "apiKey": "sk-crash-test"},
        "chunking": {"tokens": TOKENS, "overlap": 0}}})
    versions: dict[str, dict[str, str]] = {}

    def write(i: int, version: str) -> None:
        text = _note(i, version)
        path = f"memory/n{i:02d}.md"
        (ws / path).write_text(text)
        versions.setdefault(path, {})[text_hash(text)] = text

    for i in range(N_FILES):
        write(i, "t0")
    outcomes = {"killed": 0, "finished": 0}
    for trial in range(1, TRIALS + 1):
        for i in rng.sample(range(N_FILES), rng.randint(5, N_FILES)):
            write(i, f"t{trial}")
        if trial % 5 == 0:  # now and then from scratch: the initial, all-or-nothing path
            for suffix in ("", "-wal", "-shm"):
                Path(f"{index}{suffix}").unlink(missing_ok=True)
        seen = len(fake.requests)
        child = _spawn("index", ws, "--config", cfg, "--index", index)
        # a random point: during start-up, or after the k-th provider request
        k = rng.choice([0, 1, 1, 2, 2, 3, 3, 4])
        deadline = time.monotonic() + 60
        if k == 0:
            time.sleep(rng.uniform(0.2, 2.5))
        else:
            while len(fake.requests) < seen + k and child.poll() is None \
                    and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.08))
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            outcomes["killed"] += 1
        else:
            outcomes["finished"] += 1
        child.communicate(timeout=60)
        _check_index(index, versions)
        cached = _cache_hashes(cache_dir)
        before = len(fake.requests)
        result = cli("index", ws, "--config", cfg, "--index", index)
        assert result.code == 0, (trial, result)
        resent = [t for r in fake.requests[before:] for t in (r["body"] or {})["input"]
                  if text_hash(t) in cached]
        assert not resent, f"trial {trial}: {len(resent)} cached texts were embedded again"
        hashes = _check_index(index, versions)
        current = {f"memory/{p.name}": text_hash(p.read_text())
                   for p in (ws / "memory").glob("*.md")}
        assert hashes == current, f"trial {trial}: the index is not up to date"
    assert outcomes["killed"] >= TRIALS // 2, outcomes


def test_two_indexers_and_a_search_loop(cli, tmp_path, fake):
    """Indexer A holds the index (its provider answers only once B has given up); B and a
    loop of searches run meanwhile: B says why it stops, searches keep answering, nothing is
    lost or corrupted."""
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    for i in range(60):
        (ws / "memory" / f"n{i:03d}.md").write_text(_note(i, "v1"))
    index = tmp_path / "idx.sqlite"
    lock = Path(f"{index}.lock")
    gate = threading.Event()
    answer = embeddings_route(4)

    def gated(req, n):  # document batches wait; single-text (query) requests do not
        if len((req["body"] or {}).get("input", [])) > 1:
            gate.wait(90)
        return answer(req, n)

    fake.route = answer
    cfg = write_config(tmp_path, {"memorySearch": {
        "provider": "openai-compatible", "model": "m",
        "remote": {"baseUrl": f"{fake.url}/v1", "apiKey": "sk-lock-test"},
        "chunking": {"tokens": TOKENS, "overlap": 0}, "query": {"minScore": 0}}})
    assert cli("index", ws, "--config", cfg, "--index", index).code == 0
    stop, running, idle = threading.Event(), threading.Event(), threading.Event()
    idle.set()
    searches: list[tuple[int, str, str]] = []

    def search_loop() -> None:  # searches run while indexer A holds the index
        while not stop.is_set():
            if not running.wait(0.05):
                continue
            idle.clear()
            try:
                done = subprocess.run([sys.executable, "-m", "memlab.cli", "search", str(ws),
                                       "deploy item", "--config", cfg, "--index", str(index),
                                       "--json"], capture_output=True, text=True,
                                      env=subprocess_env(), timeout=120)
                searches.append((done.returncode, done.stdout, done.stderr))
            finally:
                idle.set()

    loop = threading.Thread(target=search_loop, daemon=True)
    loop.start()
    try:
        for r in range(2):
            for i in range(r, 60, 2):
                (ws / "memory" / f"n{i:03d}.md").write_text(_note(i, f"r{r}"))
            gate.clear()
            fake.route = gated
            a = _spawn("index", ws, "--config", cfg, "--index", index)
            deadline = time.monotonic() + 90
            while not (lock.exists() and lock.read_text().strip() == str(a.pid)):
                assert a.poll() is None and time.monotonic() < deadline, a.communicate()
                time.sleep(0.02)
            done_before = len(searches)
            running.set()
            b = _spawn("index", ws, "--config", cfg, "--index", index)
            out, err = b.communicate(timeout=120)
            assert b.returncode == 5, (out, err)
            assert f"another memlab index is running on {index}" in err
            assert "the index stays consistent" in err and "Traceback" not in err
            while len(searches) <= done_before and time.monotonic() < deadline + 60:
                time.sleep(0.05)
            running.clear()
            idle.wait(120)
            gate.set()
            out, err = a.communicate(timeout=120)
            assert a.returncode == 0, err
            fake.route = answer
    finally:
        gate.set()
        running.set()
        stop.set()
        loop.join(timeout=120)
    assert searches, "the search loop never ran"
    for code, out, err in searches:
        assert "Traceback" not in out + err and code == 0, err
        assert json.loads(out)["results"]
    # a search that could not sync the dirty index says why, and answers from the last one
    assert any(f"another memlab index is running on {index}" in err for _, _, err in searches)
    store = IndexStore(index)
    assert store.check_consistency() == []
    assert sqlite3.connect(index).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    hashes = store.source_hashes()
    assert len(hashes) == 60  # no lost files
    for path, h in hashes.items():
        text = (ws / path).read_text()
        assert h == text_hash(text)
        rows = store.execute("SELECT hash FROM memory_index_chunks WHERE path = ? ORDER BY rowid",
                             (path,))
        assert [x for (x,) in rows] == [c.hash for c in chunk_markdown(text, tokens=TOKENS,
                                                                       overlap=0)]
