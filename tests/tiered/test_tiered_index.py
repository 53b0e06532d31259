"""The 2026.9 profile's persistent index: incremental sync (only new and changed files
re-chunked and re-embedded, deleted files dropped, one transaction per file, a killed sync
completed by the next one), results equal to a full rebuild's, 2026.9.6's row order, the
2026.7 index's lock and file-safety checks, and ``memlab index/search --profile 2026.9``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memlab.cli.main import main
from memlab.embed.hashing import HashingProvider
from memlab.index.errors import IndexLocked, NotAnIndex
from memlab.index.sync import IndexLock
from memlab.tiered import index as store
from memlab.tiered.search import TieredSearch

NOW = "2026-10-01T00:00:00Z"
HYBRID = {"memory": {"search": {"provider": "local"}}}
KEYWORD_ONLY = {"memory": {"search": {"provider": "none"}}}
QUERIES = ["deploy window", "billing invoices", "incident", "MEMORY.md", "billing", "Dana",
           "retro postgres", "the", "2026-09-20"]


class Counting(HashingProvider):
    """HashingProvider that remembers every text it embedded, and can fail on a call."""

    def __init__(self, fail_on_call: int | None = None):
        super().__init__()
        self.embedded: list[str] = []
        self.fail_on_call = fail_on_call

    def embed_documents(self, texts):
        if self.fail_on_call is not None and self.calls + 1 >= self.fail_on_call:
            raise RuntimeError("embedder killed")
        self.embedded.extend(texts)
        return super().embed_documents(texts)


def _write(ws: Path, rel: str, text: str) -> None:
    path = ws / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    _write(ws, "MEMORY.md", "# Memory\n\n- Deploy window is Tuesday <!-- importance: 9 -->\n"
                            "- Billing owner is Priya\n")
    _write(ws, "USER.md", "- Name: Dana\n")
    _write(ws, "memory/2026-09-20-retro.md", "# Retro\n\nPostgres failover took 4 minutes.\n"
                                             "Incident review on Friday.\n")
    _write(ws, "memory/team/billing.md", "Invoices go out monthly.\n\nBilling runs on the "
                                         "first business day.\n")
    _write(ws, "memory/team/oncall.md", "Incident rotation: weekly, handover Monday.\n")
    return ws


def _results(search: TieredSearch) -> list:
    return [search.search(q, now=NOW, min_score=-1, max_results=50)["results"]
            for q in QUERIES]


def _rebuild(ws: Path, config: dict, tmp: Path) -> list:
    """The results of a fresh ``sync(force=True)`` on the same files."""
    fresh = TieredSearch(ws, config, index_path=tmp / "rebuild.sqlite",
                         embedder=HashingProvider(), sync=False)
    try:
        fresh.sync(force=True)
        assert fresh.rebuilt
        return _results(fresh)
    finally:
        fresh.close()


def _rows(con: sqlite3.Connection) -> dict[str, list]:
    return {"chunks": con.execute(f"SELECT rowid, id, path, text, embedding FROM "
                                  f"{store.CHUNKS_TABLE} ORDER BY rowid").fetchall(),
            "sources": con.execute(f"SELECT id, path, source, hash FROM {store.SOURCES_TABLE} "
                                   "ORDER BY id").fetchall()}


def _edit_many(ws: Path) -> None:
    _write(ws, "MEMORY.md", "# Memory\n\n- Deploy window is Thursday <!-- importance: 9 -->\n"
                            "- Billing owner is Priya\n- Incident channel is #ops\n")
    (ws / "memory" / "team" / "oncall.md").unlink()
    _write(ws, "memory/team/aardvark.md", "Billing dashboards live in Grafana.\n")  # sorts first
    _write(ws, "memory/zz-late.md", "The deploy retro notes moved here.\n")


def test_editing_one_file_embeds_only_its_new_texts(workspace, tmp_path):
    emb = Counting()
    s = TieredSearch(workspace, HYBRID, index_path=tmp_path / "i.sqlite", embedder=emb)
    assert s.rebuilt and s.sync_report.reason == "initial index"
    before = _rows(s.con)
    first = len(emb.embedded)
    assert first == len(before["chunks"])
    _write(workspace, "memory/team/billing.md", "Invoices go out weekly.\n\nBilling runs on "
                                                "the first business day.\n")
    s.sync()
    report = s.sync_report
    assert report.mode == "incremental" and not s.rebuilt
    assert (report.indexed, report.unchanged, report.deleted) == (1, 4, 0)
    new_texts = emb.embedded[first:]
    billing = [t for _r, _i, p, t, _e in _rows(s.con)["chunks"] if p == "memory/team/billing.md"]
    old_texts = {t for _r, _i, _p, t, _e in before["chunks"]}
    assert new_texts == [t for t in billing if t not in old_texts] and new_texts
    assert report.texts_embedded == len(new_texts)
    after = _rows(s.con)
    # the other files' rows are left alone (same rowids, same vectors); the source id is kept
    untouched = [r for r in before["chunks"] if r[2] != "memory/team/billing.md"]
    assert [r for r in after["chunks"] if r[2] != "memory/team/billing.md"] == untouched
    assert [r[:3] for r in after["sources"]] == [r[:3] for r in before["sources"]]
    # nothing changed: no write, no embedding
    s.sync()
    assert s.sync_report.indexed == 0 and not s.sync_report.changed
    assert len(emb.embedded) == first + len(new_texts)
    s.close()


def test_deleting_a_file_drops_its_rows(workspace, tmp_path):
    s = TieredSearch(workspace, KEYWORD_ONLY, index_path=tmp_path / "i.sqlite")
    assert s.meta["files"] == 5
    (workspace / "memory" / "team" / "oncall.md").unlink()
    s.sync()
    assert s.sync_report.deleted == 1 and s.meta["files"] == 4
    for table, column in ((store.CHUNKS_TABLE, "path"), (store.FTS_TABLE, "path"),
                          (store.SOURCES_TABLE, "path"), ("memory_index_paths_fts", "path")):
        assert not s.con.execute(f"SELECT 1 FROM {table} WHERE {column} = ?",
                                 ("memory/team/oncall.md",)).fetchall(), table
    assert s.meta["chunks"] == s.con.execute(
        f"SELECT COUNT(*) FROM {store.FTS_TABLE}").fetchone()[0]
    assert all(r["path"] != "memory/team/oncall.md"
               for r in s.search("incident rotation", now=NOW, min_score=-1)["results"])
    s.close()


@pytest.mark.parametrize("config", [HYBRID, KEYWORD_ONLY], ids=["hybrid", "keyword-only"])
def test_incremental_results_equal_a_rebuild(workspace, tmp_path, config):
    s = TieredSearch(workspace, config, index_path=tmp_path / "i.sqlite",
                     embedder=HashingProvider())
    for edit in (_edit_many,
                 lambda ws: _write(ws, "USER.md", "- Name: Dana Whitfield\n- Team: billing\n"),
                 lambda ws: (ws / "memory" / "2026-09-20-retro.md").unlink()):
        edit(workspace)
        s.sync()
        assert s.sync_report.mode == "incremental"
        assert _results(s) == _rebuild(workspace, config, tmp_path)
        assert s.meta["files"] == len(store.collect_files(workspace, ["memory"], [], "main"))
    s.close()


def test_a_killed_sync_is_completed_by_the_next(workspace, tmp_path):
    index = tmp_path / "i.sqlite"
    TieredSearch(workspace, HYBRID, index_path=index, embedder=HashingProvider()).close()
    _edit_many(workspace)
    _write(workspace, "USER.md", "- Name: Dana Whitfield\n")
    killed = TieredSearch(workspace, HYBRID, index_path=index, embedder=Counting(2),
                          sync=False)
    with pytest.raises(RuntimeError, match="embedder killed"):
        killed.sync()  # the first changed file written, the second one's embedding fails
    meta = store.stored_meta(killed.con)
    written = dict(killed.con.execute(f"SELECT path, hash FROM {store.SOURCES_TABLE}"))
    killed.close()
    assert meta["files"] == 5  # the meta is written last: still the old one
    files = {f.path: f for f in store.collect_files(workspace, ["memory"], [], "main")}
    assert written["MEMORY.md"] == store.content_hash(files["MEMORY.md"])  # done
    assert written["USER.md"] != store.content_hash(files["USER.md"])  # not yet
    emb = Counting()
    s = TieredSearch(workspace, HYBRID, index_path=index, embedder=emb)
    # MEMORY.md (done by the killed sync), the retro and billing are unchanged; USER.md and
    # the two new files are written, oncall.md deleted
    assert s.sync_report.mode == "incremental" and s.sync_report.unchanged == 3
    assert s.sync_report.indexed == 3 and s.sync_report.deleted == 1
    assert not any("Thursday" in t for t in emb.embedded)  # MEMORY.md not embedded again
    assert _results(s) == _rebuild(workspace, HYBRID, tmp_path)
    s.close()


def test_a_held_lock_makes_a_second_sync_fail(workspace, tmp_path):
    index = tmp_path / "i.sqlite"
    s = TieredSearch(workspace, KEYWORD_ONLY, index_path=index)
    with IndexLock(index):
        with pytest.raises(IndexLocked, match="another memlab index is running on"):
            s.sync()
        with pytest.raises(IndexLocked):
            TieredSearch(workspace, KEYWORD_ONLY, index_path=index)
        TieredSearch(workspace, KEYWORD_ONLY).close()  # an in-memory index takes no lock
    s.sync()  # released
    s.close()


def test_cli_index_and_search_report_the_lock(workspace, tmp_path, capsys):
    index = tmp_path / "i.sqlite"
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps(KEYWORD_ONLY), encoding="utf-8")
    args = ["--profile", "2026.9", "--index", str(index), "--config", str(config)]
    assert main(["index", str(workspace), *args]) == 0
    assert capsys.readouterr().out == "Memory index updated (main): 5 files indexed.\n"
    (workspace / "USER.md").unlink()
    assert main(["index", str(workspace), *args]) == 0
    assert capsys.readouterr().out == "Memory index updated (main): 4 files indexed.\n"
    with IndexLock(index):
        assert main(["index", str(workspace), *args]) == 5
        err = capsys.readouterr().err
        assert err == (f"memlab: error: another memlab index is running on {index}; wait for "
                       "it to finish (the index stays consistent) and try again\n")
        (workspace / "memory" / "team" / "billing.md").unlink()
        # a search reads the index as it is (as on 2026.7), with the lock's message
        assert main(["search", str(workspace), "invoices", "--json", "--now", NOW,
                     *args]) == 0
        out = capsys.readouterr()
        assert "searching the index as it is" in out.err
        assert [r["path"] for r in json.loads(out.out)["results"]] == ["memory/team/billing.md"]
    assert main(["search", str(workspace), "invoices", "--json", "--now", NOW, *args]) == 0
    assert json.loads(capsys.readouterr().out)["results"] == []


def test_a_file_that_is_not_an_index_is_refused(workspace, tmp_path):
    notes = workspace / "MEMORY.md"
    before = notes.read_bytes()
    with pytest.raises(NotAnIndex, match="does not start with the SQLite header"):
        TieredSearch(workspace, KEYWORD_ONLY, index_path=notes)
    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE accounts(id INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(NotAnIndex, match="tables memlab does not own"):
        TieredSearch(workspace, KEYWORD_ONLY, index_path=other)
    link = tmp_path / "link.sqlite"
    link.symlink_to(tmp_path / "target.sqlite")
    with pytest.raises(NotAnIndex, match="symbolic link"):
        TieredSearch(workspace, KEYWORD_ONLY, index_path=link)
    assert notes.read_bytes() == before
    # an index of this profile carries memlab's marker, and opens again
    index = tmp_path / "i.sqlite"
    TieredSearch(workspace, KEYWORD_ONLY, index_path=index).close()
    assert index.read_bytes()[68:72] == b"MLab"
    TieredSearch(workspace, KEYWORD_ONLY, index_path=index).close()


def test_an_unmarked_index_of_this_profile_is_accepted(workspace, tmp_path):
    index = tmp_path / "i.sqlite"
    TieredSearch(workspace, KEYWORD_ONLY, index_path=index).close()
    con = sqlite3.connect(index)
    con.execute("PRAGMA application_id = 0")  # as written before the marker
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    assert store.index_file_problem(index) is None
    TieredSearch(workspace, KEYWORD_ONLY, index_path=index).close()


def test_row_order_follows_2026_9_6(workspace, tmp_path):
    """2026.9.6's ``replaceRows``: a rewritten file's chunks take the next rowids and keep
    their source id, a new file takes the next source id, a deleted one frees its own;
    ``sync(force=True)`` numbers everything in listing order again."""
    s = TieredSearch(workspace, KEYWORD_ONLY, index_path=tmp_path / "i.sqlite")
    ids = {p: i for i, p, _s, _h in _rows(s.con)["sources"]}
    _write(workspace, "MEMORY.md", "# Memory\n\n- Deploy window is Friday\n")
    _write(workspace, "memory/team/aardvark.md", "Grafana dashboards.\n")
    s.sync()
    chunks = _rows(s.con)["chunks"]
    assert [p for _r, _i, p, _t, _e in chunks][-2:] == ["MEMORY.md", "memory/team/aardvark.md"]
    sources = {p: i for i, p, _s, _h in _rows(s.con)["sources"]}
    assert sources["MEMORY.md"] == ids["MEMORY.md"]
    assert sources["memory/team/aardvark.md"] == max(ids.values()) + 1
    s.sync(force=True)
    listing = [f.path for f in store.collect_files(workspace, ["memory"], [], "main")]
    assert [p for _i, p, _s, _h in _rows(s.con)["sources"]] == listing
    assert [p for _r, _i, p, _t, _e in _rows(s.con)["chunks"]][0] == "MEMORY.md"
    s.close()


def test_ties_at_the_candidate_cut_follow_insertion_order(tmp_path):
    """The one place row order shows (sync_index's docstring): two chunks tied exactly
    at the candidate cut. After an incremental sync rewrote the first file, the other one's
    chunk comes first, as in 2026.9.6; a rebuild restores the listing order."""
    ws = tmp_path / "ws"
    _write(ws, "memory/a.md", "Kestrel rollout notes.\n")
    _write(ws, "memory/b.md", "Kestrel rollout notes.\n")
    config = {**KEYWORD_ONLY, "memlab": {"whatIf": {"candidateUniverse": 1}}}
    s = TieredSearch(ws, config, index_path=tmp_path / "i.sqlite")

    def first() -> str:
        return s.search("kestrel rollout", now=NOW, min_score=-1)["results"][0]["path"]

    assert first() == "memory/a.md"
    _write(ws, "memory/a.md", "Kestrel rollout notes (draft).\n")
    s.sync()
    _write(ws, "memory/a.md", "Kestrel rollout notes.\n")
    s.sync()
    assert s.sync_report.mode == "incremental" and first() == "memory/b.md"
    s.sync(force=True)
    assert first() == "memory/a.md"
    s.close()
