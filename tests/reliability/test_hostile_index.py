"""Issue 18, index items: memlab never replaces a file it did not create as an index (1),
never writes through a planted lock link (2), serves a read-only index (16) and answers
searches from a consistent index when the disk is full (17)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from memlab_reliability import NOTES

from memlab.index.store import IndexStore

# -- 1: --index pointing at a file that is not an index ---------------------------------------


@pytest.mark.parametrize("force", [False, True])
def test_index_never_replaces_a_file_that_is_not_an_index(cli, workspace, none_config, force):
    notes = workspace / "MEMORY.md"
    before = notes.read_bytes()
    args = ["index", workspace, "--config", none_config, "--index", notes]
    result = cli(*args, *(["--force"] if force else []))
    assert result.code == 2, result
    assert "not a memlab index" in result.err and "--force" in result.err, result
    assert "rebuild it with" not in result.err  # the old advice that destroyed the file
    assert notes.read_bytes() == before
    for command in (["status", workspace], ["search", workspace, "deploy"]):
        assert cli(*command, "--config", none_config, "--index", notes).code == 2
    assert notes.read_bytes() == before
    assert not Path(f"{notes}-wal").exists() and not Path(f"{notes}.lock").exists()


def test_index_never_writes_into_another_applications_database(cli, workspace, none_config,
                                                               tmp_path):
    other = tmp_path / "app.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.execute("INSERT INTO users VALUES ('ada')")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    result = cli("index", workspace, "--force", "--config", none_config, "--index", other)
    assert result.code == 2 and "tables memlab does not own (users)" in result.err, result
    assert other.read_bytes() == before


def test_a_memlab_index_carries_its_marker_and_older_indexes_are_adopted(tmp_path):
    from memlab.index.store import APPLICATION_ID, index_file_problem

    path = tmp_path / "i.sqlite"
    IndexStore(path).close()
    assert int.from_bytes(path.read_bytes()[68:72], "big") == APPLICATION_ID
    conn = sqlite3.connect(path)  # an index written before the marker existed
    conn.execute("PRAGMA application_id = 0")
    conn.close()
    assert index_file_problem(path) is None
    IndexStore(path).close()
    assert int.from_bytes(path.read_bytes()[68:72], "big") == APPLICATION_ID


# -- 2: a planted <index>.lock link -------------------------------------------------------------


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_lock_file_link_is_refused_not_truncated(cli, workspace, none_config, tmp_path, link):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    index = tmp_path / "i.sqlite"
    lock = Path(f"{index}.lock")
    (os.symlink if link == "symlink" else os.link)(victim, lock)
    result = cli("index", workspace, "--config", none_config, "--index", index)
    assert result.code == 2, result
    assert ("symbolic link" if link == "symlink" else "hard links") in result.err, result
    assert victim.read_text() == "precious\n"


# -- 16: a read-only index --------------------------------------------------------------------


@contextlib.contextmanager
def _read_only_dir(path: Path):
    """Make ``path`` (holding files already) read-only for real: a read-only tmpfs when this
    runs as root (root ignores permission bits), permission bits otherwise."""
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in path.iterdir()}
        for p in modes:
            p.chmod(0o444)
        path.chmod(0o555)
        try:
            yield
        finally:
            path.chmod(0o755)
            for p, mode in modes.items():
                p.chmod(mode)
        return
    try:
        subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot remount {path} read-only here: {exc}")
    try:
        yield
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(path)], check=True)


@pytest.fixture
def index_dir(tmp_path):
    """A directory for the index; a tmpfs of its own when running as root (to remount it)."""
    d = tmp_path / "idx"
    d.mkdir()
    mounted = False
    if os.geteuid() == 0:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(d)],
                                 capture_output=True).returncode == 0
        if not mounted:
            pytest.skip("running as root without permission to mount a tmpfs")
    yield d
    if mounted:
        subprocess.run(["umount", "-l", str(d)], check=False)


def test_read_only_index_still_answers_status_and_search(cli, workspace, none_config,
                                                         index_dir):
    index = index_dir / "i.sqlite"
    assert cli("index", workspace, "--config", none_config, "--index", index).code == 0
    (workspace / "memory" / "new.md").write_text("fresh deploy note\n")  # a sync would write
    with _read_only_dir(index_dir):
        status = cli("status", workspace, "--config", none_config, "--index", index)
        assert status.code == 0, status
        assert "--force" not in status.err
        found = cli("search", workspace, "staging database", "--config", none_config,
                    "--index", index)
        assert found.code == 0 and "MEMORY.md" in found.out, found
        indexed = cli("index", workspace, "--config", none_config, "--index", index)
        assert indexed.code == 2 and "cannot write the index" in indexed.err, indexed
        assert "--force" not in indexed.err and "damaged" not in indexed.err


# -- 17: disk full: searches answer from the consistent index ----------------------------------


def test_search_answers_from_the_index_when_the_disk_is_full(cli, workspace, none_config,
                                                             tmp_path, monkeypatch):
    import memlab.index.store as store_mod

    index = tmp_path / "i.sqlite"
    assert cli("index", workspace, "--config", none_config, "--index", index).code == 0
    for i in range(30):
        (workspace / "memory" / f"big-{i}.md").write_text(f"filler {i} " * 3000)
    store = IndexStore(index)
    pages = store.execute("PRAGMA page_count")[0][0]
    store.close()
    real = store_mod.IndexStore._open_schema

    def capped(self, tokenizer):  # SQLite's own SQLITE_FULL: the file cannot grow
        real(self, tokenizer)
        self._conn.execute(f"PRAGMA max_page_count = {pages + 20}")

    monkeypatch.setattr(store_mod.IndexStore, "_open_schema", capped)
    result = cli("search", workspace, "staging database", "--config", none_config,
                 "--index", index)
    assert result.code == 0 and "MEMORY.md" in result.out, result
    assert "cannot write the index" in result.err and "searching the index as it is" in \
        result.err, result
    indexed = cli("index", workspace, "--config", none_config, "--index", index)
    assert indexed.code == 2 and "free some disk space" in indexed.err, indexed
    monkeypatch.undo()
    assert cli("index", workspace, "--config", none_config, "--index", index).code == 0
    assert len(IndexStore(index).source_hashes()) == len(NOTES) + 30
