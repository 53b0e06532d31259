"""memlab.sessions.live_store: live sessions read from a hand-written 2026.9 session store.

The fixture has the columns of OpenClaw 2026.9.6's agent database that the reader uses
(``session_nodes``, ``transcript_events``, ``session_transcript_cold_archives``); the parity
suites ``9.6/live-sessions`` and ``9.6/live-sessions-fts`` check the reader against a store
written by OpenClaw itself.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memlab.sessions.live_store import (
    STORE_FILE,
    StoreError,
    chunk_at_reset_boundary,
    live_store_path,
    read_live_sessions,
    reset_cutoff_line,
)
from memlab.tiered.index import collect_files, file_chunks

try:  # the zstd module the reader uses: the standard library's from 3.14, else its backport
    from compression import zstd  # type: ignore[import-not-found]
except ImportError:
    from backports import zstd  # type: ignore[no-redef]

SCHEMA = """
CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT,
                            entry_json TEXT NOT NULL);
CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT,
                                event_zstd BLOB, event_utf8_bytes INTEGER,
                                PRIMARY KEY (session_id, seq));
CREATE TABLE session_transcript_cold_archives (session_id TEXT PRIMARY KEY);
"""


def header(sid: str) -> dict:
    return {"type": "session", "version": 3, "id": sid, "timestamp": "2026-09-01T08:00:00.000Z"}


def msg(mid: str, role: str, content, parent: str | None = None) -> dict:
    return {"type": "message", "id": mid, "parentId": parent,
            "timestamp": "2026-09-01T08:01:00.000Z",
            "message": {"role": role, "content": content}}


def make_store(path: Path, sessions: dict[str, tuple[dict, list[dict]]],
               compress: tuple[tuple[str, int], ...] = ()) -> Path:
    """sessions: key -> (entry, records); ``compress``: (session id, seq) stored as zstd."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    for key, (entry, records) in sessions.items():
        con.execute("INSERT INTO session_nodes VALUES (?, ?, ?)",
                    (key, entry.get("sessionId"), json.dumps(entry)))
        for seq, rec in enumerate(records):
            text = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
            raw = text.encode("utf-8")
            if (entry["sessionId"], seq) in compress:
                con.execute("INSERT INTO transcript_events VALUES (?, ?, NULL, ?, ?)",
                            (entry["sessionId"], seq, zstd.compress(raw), len(raw)))
            else:
                con.execute("INSERT INTO transcript_events VALUES (?, ?, ?, NULL, ?)",
                            (entry["sessionId"], seq, text, len(raw)))
    con.commit()
    con.close()
    return path


@pytest.fixture
def store(tmp_path: Path) -> Path:
    long_text = "kiln backup rotation " * 60  # 1260 chars: wraps at 800, compressed below
    return make_store(tmp_path / "sessions" / "main" / STORE_FILE, {
        "agent:main:main": ({"sessionId": "s-main", "updatedAt": 1789200400000},
                            [header("s-main"), msg("m1", "user", "Where do backups go?"),
                             msg("m2", "assistant", [{"type": "text", "text": long_text}], "m1"),
                             msg("m3", "assistant", "NO_REPLY", "m2")]),
        "agent:main:telegram:direct:42": ({"sessionId": "s-tg"},
                                          [header("s-tg"), msg("t1", "user", "ramen?")]),
        "agent:main:cron:nightly:run:r1": ({"sessionId": "s-cron", "updatedAt": 5},
                                           [header("s-cron"), msg("c1", "user", "digest")]),
        "agent:main:subagent:x": ({"sessionId": "s-spawn",
                                   "spawnedBy": "agent:main:cron:nightly:run:r1"},
                                  [header("s-spawn"), msg("x1", "user", "child of cron")]),
        "agent:main:hb": ({"sessionId": "s-hb",
                           "heartbeatIsolatedBaseSessionKey": "agent:main:main"},
                          [header("s-hb"), msg("h1", "user", "heartbeat run")]),
        "agent:other:main": ({"sessionId": "s-other"}, [header("s-other"), msg("o1", "user", "x")]),
        "agent:main:internal-session-effects:run": ({"sessionId": "s-fx"},
                                                    [header("s-fx"), msg("f1", "user", "fx")]),
        "agent:main:dreaming-narrative-abc": ({"sessionId": "s-dream"},
                                              [header("s-dream"), msg("d1", "user", "dream")]),
    }, compress=(("s-main", 2),))


def test_lists_the_agents_indexable_sessions_in_session_key_order(store: Path):
    got = read_live_sessions(store, "main")
    assert [(s.session_key, s.session_id, s.session_kind) for s in got] == [
        ("agent:main:main", "s-main", "interactive"),
        ("agent:main:telegram:direct:42", "s-tg", "interactive")]
    assert [s.path for s in got] == ["sessions/main/s-main.jsonl", "sessions/main/s-tg.jsonl"]


def test_renders_records_with_record_numbers_and_decodes_zstd(store: Path):
    main = read_live_sessions(store, "main")[0]
    lines = main.transcript.lines
    assert lines[0] == "User: Where do backups go?"
    assert all(line.startswith("Assistant: kiln backup rotation") for line in lines[1:])
    assert len(lines) == 3  # 1259 characters wrap once at 800; NO_REPLY is dropped
    assert main.transcript.line_map == [2, 3, 3]  # the header is record 1


def test_mtime_is_updated_at_else_the_highest_seq_and_size_is_jsonl_bytes(store: Path):
    main, tg = read_live_sessions(store, "main")
    assert main.mtime_ms == 1789200400000.0
    assert tg.mtime_ms == 1.0  # no updatedAt: max(seq)
    con = sqlite3.connect(store)
    sizes = [n for (n,) in con.execute("SELECT event_utf8_bytes FROM transcript_events "
                                       "WHERE session_id = 's-tg' ORDER BY seq")]
    con.close()
    assert tg.size == sum(sizes) + len(sizes) - 1


def test_other_agent_sees_only_its_own_sessions(store: Path):
    assert [s.session_id for s in read_live_sessions(store, "other")] == ["s-other"]


def test_a_dreaming_record_inside_a_transcript_drops_it(tmp_path: Path):
    dream = {"type": "custom", "id": "c", "customType": "openclaw:bootstrap-context:full",
             "data": {"runId": "dreaming-narrative-1"}}
    db = make_store(tmp_path / STORE_FILE, {"agent:main:main": (
        {"sessionId": "s"}, [header("s"), msg("m", "user", "hi"), dream])})
    assert read_live_sessions(db, "main") == []


def test_cold_transcripts_and_broken_payloads_are_refused(tmp_path: Path):
    db = make_store(tmp_path / "a" / STORE_FILE, {"agent:main:main": (
        {"sessionId": "s"}, [header("s"), msg("m", "user", "hi")])})
    con = sqlite3.connect(db)
    con.execute("INSERT INTO session_transcript_cold_archives VALUES ('s')")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="cold storage"):
        read_live_sessions(db, "main")
    db2 = make_store(tmp_path / "b" / STORE_FILE, {"agent:main:main": (
        {"sessionId": "s"}, [header("s"), msg("m", "user", "hi")])}, compress=(("s", 1),))
    con = sqlite3.connect(db2)
    con.execute("UPDATE transcript_events SET event_utf8_bytes = 3 WHERE seq = 1")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="decompresses to"):
        read_live_sessions(db2, "main")


def test_a_file_without_session_tables_has_no_sessions(tmp_path: Path):
    db = tmp_path / STORE_FILE
    sqlite3.connect(db).close()
    assert read_live_sessions(db, "main") == []


def test_reset_cutoff_and_chunking_at_the_boundary():
    records = [header("s"), msg("a", "user", "x"), msg("b", "assistant", "y", "a"),
               {"type": "reset", "id": "r", "parentId": "b", "reason": "reset"},
               msg("c", "user", "z", "r")]
    assert reset_cutoff_line(records) == 4
    kept = [*records[:3], {"type": "reset", "id": "r", "reason": "new", "firstKeptEntryId": "b"}]
    assert reset_cutoff_line(kept) == 3
    missing = [*records[:3], {"type": "reset", "id": "r", "firstKeptEntryId": "nope"}]
    assert reset_cutoff_line(missing) is None
    text = "User: x\nAssistant: y\nUser: z"
    assert [(c.start_line, c.end_line, c.text) for c in
            chunk_at_reset_boundary("s", text, [2, 3, 5], 4)] == [
        (1, 2, "User: x\nAssistant: y"), (3, 3, "User: z")]
    assert [(c.start_line, c.end_line) for c in
            chunk_at_reset_boundary("s", text, [2, 3, 5], None)] == [(1, 3)]


def test_the_2026_9_profile_indexes_live_sessions_before_reset_archives(tmp_path: Path):
    ws = tmp_path / "ws"
    records = [header("s1"), msg("a", "user", "ramen on Dock Street?"),
               {"type": "reset", "id": "r", "parentId": "a", "reason": "reset"},
               msg("b", "user", "tide tables", "r")]
    make_store(live_store_path(ws / "sessions", "main"), {
        "agent:main:main": ({"sessionId": "s1", "updatedAt": 1785697400000}, records)})
    archive = ws / "sessions" / "main" / "s0.jsonl.reset.2026-06-21T08-00-00.000Z"
    archive.write_text("\n".join(json.dumps(r) for r in [header("s0"), msg("z", "user", "old")]))
    (ws / "sessions" / "main" / "s1.jsonl").write_text(json.dumps(header("s1")))  # not indexed
    files = collect_files(ws, ["memory", "sessions"], [], "main")
    assert [(f.path, f.source) for f in files] == [
        ("sessions/main/s1.jsonl", "sessions"),
        ("sessions/main/s0.jsonl.reset.2026-06-21T08-00-00.000Z", "sessions")]
    live = files[0]
    assert (live.mtime_ms, live.cutoff_line) == (1785697400000.0, 3)
    assert [(c.start_line, c.end_line) for c in file_chunks(live, None)] == [(2, 2), (4, 4)]
    assert collect_files(ws, ["memory"], [], "main") == []
