"""Session transcripts (memlab.sessions) against OpenClaw 2026.7.35.

Expected values marked "JS" were produced by running the npm package openclaw@2026.7.35
(``buildSessionEntry``, ``redactSensitiveText``, ``chunkMarkdown`` + ``remapChunkLines``,
``listSessionTranscriptCorpusEntriesForAgent`` and the ``memory_search`` tool's
``filterMemorySearchHitsBySessionVisibility``) under Node 20 with ``TZ=UTC`` and hard-coded
here; the rest is checked by hand. ``tests/data/sessions/openclaw_2026.7.35.json`` holds the
JS entries of the fixture transcripts next to it.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlab.chunking import chunk_markdown
from memlab.corpus import CHUNK_TABLE_COLUMNS, Corpus
from memlab.frames import as_queries, build_hits
from memlab.pipeline import Stage
from memlab.sessions import (
    SESSION_WRAP_CHARS,
    SessionVisibility,
    is_session_path_visible,
    is_usage_counted_transcript_name,
    list_session_files,
    load_session_tree,
    parse_session,
    redact_sensitive_text,
    remap_chunk_lines,
    scan_sessions,
    session_chunks,
    session_path_for_file,
    usage_counted_session_id,
    visible_session_paths,
)
from memlab.stages.threshold import Threshold
from memlab.workspace import MemlabWarning

DATA = Path(__file__).parent / "data" / "sessions"
JS_FIXTURES = json.loads((DATA / "openclaw_2026.7.35.json").read_text(encoding="utf-8"))
#: JS: the entry hash of a transcript that renders empty (sha256 of "\n\n").
EMPTY_ENTRY_HASH = "75a11da44c802486bc6f65640aa48a730f0f684c5c07a42ba3cd1735eb3fb070"


def msg(role: str, content, **extra) -> str:
    message = {"role": role, "content": content}
    message.update({k: v for k, v in extra.items() if not k.startswith("rec_")})
    record = {"type": "message", "message": message}
    record.update({k[4:]: v for k, v in extra.items() if k.startswith("rec_")})
    return json.dumps(record, ensure_ascii=False)


def render(*lines: str, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemlabWarning)
        return parse_session("\n".join(lines), **kwargs)


# --------------------------------------------------------------------------- rendering


def test_renders_user_and_assistant_lines_with_jsonl_line_numbers():
    t = render(
        json.dumps({"type": "session", "id": "s1"}),
        msg("user", "Where do we\n\n  deploy?"),
        msg("assistant", [{"type": "text", "text": "On"}, {"type": "toolCall", "name": "x"},
                          {"type": "image", "data": "AAAA"}, {"type": "text", "text": "Tuesday."}]),
        json.dumps({"type": "message", "message": {"role": "toolResult", "content": "r"}}),
        msg("system", "ignored"),
        "",
        msg("user", "ok"),
    )
    assert t.lines == ["User: Where do we deploy?", "Assistant: On Tuesday.", "User: ok"]
    assert t.line_map == [2, 3, 7]
    assert t.message_count == 3
    assert t.timestamps == [0, 0, 0]
    assert t.skip_reason is None


def test_content_without_text_blocks_is_ignored():
    t = render(msg("user", [{"type": "image", "data": "AAAA"}]), msg("user", {"text": "x"}),
               msg("user", [{"type": "text", "text": 5}]), msg("assistant", ""))
    assert t.text == "" and t.line_map == [] and t.message_count == 0
    assert t.dropped == {"no-text": 3, "empty": 1}


def test_whitespace_collapses_with_javascript_semantics():
    # \u00a0, \u2028 and \ufeff are JavaScript whitespace; \x1c is not (Python's str.split
    # would treat it as whitespace).
    t = render(msg("user", "a\u00a0\u00a0b\u2028c\ufeffd\x1ce\r\n\tf "))
    assert t.text == "User: a b c d\x1ce f"


def test_wraps_long_messages_at_800_units_on_spaces_repeating_the_prefix():
    words = " ".join(f"w{i:03d}" for i in range(400))  # 1999 chars, spaces every 5
    t = render(msg("assistant", words))
    assert [line[:11] for line in t.lines] == ["Assistant: "] * 3
    pieces = [line[len("Assistant: "):] for line in t.lines]
    assert all(len(p) <= SESSION_WRAP_CHARS for p in pieces)
    assert " ".join(pieces) == words
    # cut at the last space at or before unit 800: "w000 ... w159" is 799 chars
    assert len(pieces[0]) == 799 and pieces[0].endswith("w159")
    assert t.line_map == [1, 1, 1]


def test_wrap_without_spaces_cuts_hard_and_keeps_surrogate_pairs_whole():
    t = render(msg("user", "x" * 1700))
    assert [len(line) - len("User: ") for line in t.lines] == [800, 800, 100]
    # 799 ASCII then an emoji straddling unit 800: the cut moves before the pair.
    t = render(msg("user", "a" * 799 + "😀" + "b" * 10))
    assert [line[len("User: "):] for line in t.lines] == ["a" * 799, "😀" + "b" * 10]


def test_space_exactly_at_the_limit_is_a_split_point():
    text = "a" * 800 + " " + "b" * 5
    assert render(msg("user", text)).lines == ["User: " + "a" * 800, "User: bbbbb"]


def test_timestamps_message_first_then_record_seconds_become_ms():
    t = render(
        msg("user", "a", timestamp=1772355606),  # seconds
        msg("user", "b", timestamp="2026-03-01T09:00:05.250Z"),
        msg("user", "c", rec_timestamp=1772355607000),
        msg("user", "d", timestamp=-5, rec_timestamp="2026-03-01"),
        msg("user", "e", timestamp="not a date", rec_timestamp=True),
        msg("user", "f", timestamp=1772355606.5),
    )
    assert t.timestamps == [1772355606000, 1772355605250, 1772355607000, 1772323200000, 0,
                            1772355606500]


# --------------------------------------------------------------------------- filters


@pytest.mark.parametrize("role, text, reason", [
    ("user", "System: [2026-03-02 08:00] Exec finished: backup.sh", "system-wrapper"),
    ("user", "System (untrusted): [ref] wrapped", "system-wrapper"),
    ("user", "[cron:daily-digest] Summarize yesterday", "cron-prompt"),
    ("user", "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not "
             "infer or repeat old tasks from prior chats. If nothing needs attention, reply "
             "HEARTBEAT_OK.", "heartbeat-prompt"),
    ("user", "[OpenClaw heartbeat poll]", "heartbeat-prompt"),
    ("user", "Run the following periodic tasks (only those due based on their intervals):\n"
             "- inbox\nAfter completing all due tasks, reply HEARTBEAT_OK.", "heartbeat-prompt"),
    ("assistant", "HEARTBEAT_OK", "heartbeat-ok"),
    ("assistant", "NO_REPLY", "silent-reply"),
    ("assistant", "  no_reply  NO_REPLY ", "silent-reply"),
    ("assistant", "...NO_REPLY!", "silent-reply"),
    ("assistant", '"NO_REPLY"', "silent-reply"),
    ("assistant", '{"action": "NO_REPLY"}', "silent-reply"),
    ("assistant", "<think>nothing to add</think> NO_REPLY", "silent-reply"),
    ("user", "NO_REPLY", "silent-reply"),
    ("user", "exec completed (job-7, code 0) :: done", "exec-completion"),
    ("assistant", "Exec finished (abc)", "exec-completion"),
])
def test_generated_messages_are_dropped(role, text, reason):
    t = render(msg(role, text), msg("user", "kept"))
    assert t.lines == ["User: kept"] and t.line_map == [2]
    assert t.dropped == {reason: 1}


@pytest.mark.parametrize("role, text", [
    ("assistant", "HEARTBEAT_OK."),  # only the exact token is dropped
    ("user", "HEARTBEAT_OK"),  # from the user it is ordinary text
    ("assistant", "System: [x] assistants may say this"),  # wrappers only from the user
    ("assistant", "[cron:x] assistants too"),
    ("user", "NO_REPLY is our team's inside joke"),
])
def test_lookalikes_are_kept(role, text):
    assert render(msg(role, text)).message_count == 1


def test_inter_session_user_messages_are_dropped():
    t = render(msg("user", "from the research agent",
                   provenance={"kind": "inter_session", "sourceSessionKey": "agent:main:x"}),
               msg("user", "typed", provenance={"kind": "external_user"}),
               msg("assistant", "reply", provenance={"kind": "inter_session"}))
    assert t.lines == ["User: typed", "Assistant: reply"]
    assert t.dropped == {"inter-session": 1}


def test_channel_metadata_envelopes_are_stripped_from_user_text_only():
    envelope = ("Conversation info (untrusted metadata):\n```json\n{\"chat_id\": \"tg:42\"}\n```\n"
                "\nSender (untrusted metadata):\n```json\n{\"label\": \"Ana\"}\n```\n\n")
    t = render(msg("user", "[Mon 2026-03-02 09:15 UTC] " + envelope + "Remind me at 5"),
               msg("assistant", envelope + "Sure"))
    assert t.lines[0] == "User: Remind me at 5"
    assert t.lines[1].startswith("Assistant: Conversation info (untrusted metadata): ```json")


def test_internal_runtime_context_is_removed():
    t = render(msg("assistant", "Before\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nsecret\n"
                                "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nafter"),
               msg("user", "OpenClaw runtime event.\nThis context is runtime-generated, not "
                           "user-authored. Keep internal details private.\n\nbody"))
    assert t.lines == ["Assistant: Before after", "User: body"]


def test_sensitive_strings_are_redacted_before_indexing():
    t = render(msg("user", "key sk-abcdefghijklmnopqrstuvwxyz123456 and DB_PASSWORD=hunter2"))
    assert t.text == "User: key sk-abc…3456 and DB_PASSWORD=***"


# JS: redactSensitiveText(text, {mode: "tools"}) of openclaw@2026.7.35.
REDACTIONS = [
    ("plain text with no secrets", "plain text with no secrets"),
    ("short sk-abc12345 key", "short *** key"),
    ("export OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz123456",
     "export OPENAI_API_KEY=sk-abc…3456"),
    ("API_KEY=$API_KEY and TOKEN=${TOKEN}", "API_KEY=$API_KEY and TOKEN=${TOKEN}"),
    ('password="correct horse battery staple"', 'password=***"'),
    ("curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123' https://api.example.com",
     "curl -H 'Authorization: Bearer abcdef…0123' https://api.example.com"),
    ("postgres://app:s3cr3t-pass@db.internal:5432/prod",
     "postgres://app:***@db.internal:5432/prod"),
    ("https://example.com/callback?code=abc123&state=xyz",
     "https://example.com/callback?code=***&state=xyz"),
    ("https://example.com/cb?access_token=abcdefghijklmnopqrstuvwxyz&x=1",
     "https://example.com/cb?access_token=abcdef…wxyz&x=1"),
    ("form body: password=secretpass&user=bob", "form body: password=***&user=bob"),
    ("client_id=x&client_secret=abcdefghijklmnopqrstu&z=1", "client_id=x&client_secret=***&z=1"),
    ("run it with --api-key abcdefghijklmnopqrstuvwxyz", "run it with --api-key abcdef…wxyz"),
    ('{"apiKey": "abcdefghijklmnopqrstuvwxyz"}', '{"apiKey": "abcdef…wxyz"}'),
    ("-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEA -----END RSA PRIVATE KEY-----", "***"),
    ("aws AKIAABCDEFGHIJKLMNOP and data:image/png;base64,AKIAABCDEFGHIJKLMNOP",
     "aws AKIAAB…MNOP and data:image/png;base64,AKIAABCDEFGHIJKLMNOP"),
    ("telegram bot123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdef", "telegram bot123456…cdef"),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789 github_pat_11ABCDEFG0123456789_abcdefghij",
     "ghp_ab…6789 github…ghij"),
    ("emoji secret='😀😀😀😀😀😀😀😀😀😀😀😀'", "emoji secret=***'"),
    ("pa\u200bssword=zzz&b=1", "pa\u200bssword=***&b=1"),
    ("https://h.example/p?pass%77ord=abcdefghijklmnopqrst",
     "https://h.example/p?pass%77ord=abcdef…qrst"),
    ("xoxb-123456789012-abcdefghijklmnop slack", "xoxb-1…mnop slack"),
    ("the word token alone, and key=value pairs like color=blue",
     "the word token alone, and key=value pairs like color=blue"),
]


@pytest.mark.parametrize("text, expected", REDACTIONS)
def test_redaction_matches_openclaw(text, expected):
    assert redact_sensitive_text(text) == expected


def test_redaction_of_long_text_is_chunked_like_openclaw():
    # Over 32768 UTF-16 units the patterns run on 16384-unit slices, so a secret cut by a
    # slice boundary escapes a prefix pattern (JS gives the same output).
    secret = "sk-" + "a" * 30
    text = "x" * 16380 + " " + secret + " tail"
    padded = text + " " + "y" * 20000
    assert secret in redact_sensitive_text(padded)
    assert secret not in redact_sensitive_text(text)


# --------------------------------------------------------------------------- whole transcripts


def test_dreaming_record_stops_indexing_from_that_line():
    t = render(msg("user", "before"),
               json.dumps({"type": "custom", "customType": "openclaw:bootstrap-context:full",
                           "data": {"runId": "dreaming-narrative-1"}}),
               msg("assistant", "narrative"))
    assert t.lines == ["User: before"] and t.skip_reason == "dreaming-narrative"


def test_cron_record_empties_usage_counted_archives_only():
    lines = [msg("user", "before"),
             json.dumps({"type": "custom", "data": {"sessionKey": "agent:main:cron:d:run:1"}}),
             msg("assistant", "after")]
    live = render(*lines)
    assert live.lines == ["User: before", "Assistant: after"] and live.skip_reason is None
    archived = render(*lines, archive=True)
    assert archived.text == "" and archived.skip_reason == "cron-run"
    assert archived.hash == EMPTY_ENTRY_HASH


def test_store_classification_empties_the_transcript():
    t = render(msg("user", "cron output"), generated_by_cron=True)
    assert t.text == "" and t.skip_reason == "cron-run"
    assert t.hash == EMPTY_ENTRY_HASH


@pytest.mark.parametrize("name", sorted(JS_FIXTURES["entries"]))
def test_fixture_entries_equal_openclaw(name):
    expected = JS_FIXTURES["entries"][name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemlabWarning)
        t = parse_session(DATA / name, generated_by_dreaming=False, generated_by_cron=False)
    assert t.text == expected["content"]
    assert t.line_map == expected["lineMap"]
    assert t.timestamps == expected["messageTimestampsMs"]
    assert t.hash == expected["hash"]
    for key, chunks in expected["chunks"].items():
        tokens, overlap = map(int, key.split("/"))
        got = [[c.start_line, c.end_line, c.hash] for c in session_chunks(t, tokens, overlap)]
        assert got == chunks, key


def test_hash_is_sha256_of_content_line_map_and_timestamps():
    import hashlib

    t = render(msg("user", "hi", timestamp=1772355606.25), "", msg("assistant", "yo"))
    payload = "User: hi\nAssistant: yo\n1,3\n1772355606250,0"
    assert t.hash == hashlib.sha256(payload.encode()).hexdigest()


def test_fixture_checkpoints_and_bak_archives_index_empty(tmp_path):
    for name in ("a.checkpoint.12345678-1234-4234-8234-123456789abc.jsonl",
                 "a.jsonl.bak.2026-01-02T03-04-05Z"):
        (tmp_path / name).write_text(msg("user", "x"))
        t = parse_session(tmp_path / name)
        assert t.text == "" and t.skip_reason in ("compaction-checkpoint",
                                                  "archive-not-usage-counted")


# --------------------------------------------------------------------------- robustness


def test_malformed_lines_are_skipped_with_a_warning():
    lines = ["{bad json", "[1, 2]", "null", '"str"', "42",
             '{"type":"message","message":{"role":"user","content":NaN}}',
             '{"type":"message","message":"not an object"}',
             '{"type":"message","message":{"role":5,"content":"x"}}',
             "\ufeff" + msg("user", "bom-prefixed line is invalid JSON in JS too"),
             msg("user", "survivor")]
    with pytest.warns(MemlabWarning, match="not valid JSON"):
        t = parse_session("\n".join(lines))
    assert t.lines == ["User: survivor"] and t.line_map == [10]
    assert len(t.warnings) == 3  # bad JSON, NaN, the BOM line; valid non-records are ignored
    assert all("not valid JSON" in w for w in t.warnings)


def test_crlf_and_invalid_utf8_bytes():
    data = (msg("user", "one") + "\r\n" + msg("user", "two") + "\r\n").encode()
    assert render_bytes(data).lines == ["User: one", "User: two"]
    bad = b'{"type":"message","message":{"role":"user","content":"caf\xe9 \xe2\x82"}}'
    assert render_bytes(bad).text == "User: caf\ufffd \ufffd"


def render_bytes(data: bytes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemlabWarning)
        return parse_session(data)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(data):
    t = render_bytes(data)
    assert len(t.line_map) == len(t.lines) == len(t.timestamps)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(
    st.text(max_size=40),
    st.builds(msg, st.sampled_from(["user", "assistant", "tool"]), st.one_of(
        st.text(max_size=200), st.lists(st.fixed_dictionaries(
            {"type": st.sampled_from(["text", "image", "toolCall"]), "text": st.text(max_size=50)}),
            max_size=3), st.none(), st.integers()))), max_size=8))
def test_random_transcripts_keep_invariants(lines):
    t = render(*lines)
    assert len(t.line_map) == len(t.lines) == len(t.timestamps)
    assert t.line_map == sorted(t.line_map)
    assert all(line.startswith(("User: ", "Assistant: ")) for line in t.lines)
    assert all(len(line.split(": ", 1)[1].encode("utf-16-le", "surrogatepass")) // 2
               <= SESSION_WRAP_CHARS
               for line in t.lines)


def test_missing_file_raises_and_symlink_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError):
        parse_session(tmp_path / "nope.jsonl")
    (tmp_path / "real.jsonl").write_text(msg("user", "x"))
    os.symlink(tmp_path / "real.jsonl", tmp_path / "link.jsonl")
    with pytest.raises(ValueError, match="regular file"):
        parse_session(tmp_path / "link.jsonl")


# --------------------------------------------------------------------------- chunks


def test_chunk_lines_are_remapped_to_jsonl_lines():
    lines = [json.dumps({"type": "session"})]
    for i in range(30):
        lines.append(msg("user" if i % 2 == 0 else "assistant", f"message number {i} " * 6))
        lines.append(json.dumps({"type": "custom"}))
    t = render(*lines)
    rendered = chunk_markdown(t.text, tokens=64, overlap=16)
    chunks = session_chunks(t, tokens=64, overlap=16)
    assert len(chunks) == len(rendered) > 3
    for raw, mapped in zip(rendered, chunks, strict=True):
        assert mapped.text == raw.text and mapped.hash == raw.hash
        assert mapped.start_line == t.line_map[raw.start_line - 1]
        assert mapped.end_line == t.line_map[raw.end_line - 1]
        assert mapped.start_line % 2 == 0  # messages sit on even JSONL lines here


def test_remap_keeps_lines_outside_the_map_and_empty_maps():
    chunks = chunk_markdown("a\nb\nc", tokens=400)
    assert remap_chunk_lines(chunks, []) == chunks
    assert [(c.start_line, c.end_line) for c in remap_chunk_lines(chunks, [7, 9])] == [(7, 3)]


def test_a_wrapped_message_keeps_its_jsonl_line_in_every_chunk():
    t = render(json.dumps({"type": "session"}), msg("user", "word " * 1000))
    chunks = session_chunks(t, tokens=100, overlap=10)
    assert len(chunks) > 3 and {(c.start_line, c.end_line) for c in chunks} == {(2, 2)}


# --------------------------------------------------------------------------- files


def test_transcript_name_rules():
    assert is_usage_counted_transcript_name("s.jsonl")
    assert is_usage_counted_transcript_name("s.jsonl.deleted.2026-01-02T03-04-05.123Z")
    assert not is_usage_counted_transcript_name("s.jsonl.reset.2026-01-02")  # bad timestamp
    assert not is_usage_counted_transcript_name(
        "s.checkpoint.12345678-1234-4234-8234-123456789abc.jsonl")
    assert not is_usage_counted_transcript_name("sessions.json.bak.17")
    assert usage_counted_session_id("s.jsonl.reset.2026-01-02T03-04-05Z") == "s"
    assert usage_counted_session_id("x.reset.2026-01-02T03-04-05Z") is None
    openclaw_location = "/h/.openclaw/agents/ops/sessions/s.jsonl"
    assert session_path_for_file(openclaw_location) == "sessions/ops/s.jsonl"


def make_sessions_dir(folder: Path) -> None:
    """The layout cross-checked with listSessionTranscriptCorpusEntriesForAgent("main")."""
    folder.mkdir(parents=True)
    texts = {"aaa.jsonl": "main chat", "aaa.jsonl.reset.2026-01-02T03-04-05Z": "old main",
             "bbb.jsonl": "child", "ccc.jsonl": "cron job", "ddd.jsonl": "cron child",
             "eee.jsonl": "dream", "fff.jsonl": "orphan", "ggg.jsonl": "ops owned",
             "ggg.jsonl.deleted.2026-01-02T03-04-05Z": "ops archive",
             "aaa.checkpoint.12345678-1234-4234-8234-123456789abc.jsonl": "checkpoint",
             "aaa.jsonl.bak.2026-01-02T03-04-05Z": "bak", "aaa.trajectory.jsonl": "traj"}
    for name, text in texts.items():
        (folder / name).write_text(msg("user", text) + "\n")
    os.symlink(folder / "aaa.jsonl", folder / "link.jsonl")
    (folder / "hhh.jsonl.reset.2026-01-02T03-04-05Z").write_text(
        '{"type":"x","sessionKey":"agent:main:cron:j:run:1"}\n' + msg("user", "archived cron"))
    (folder / "iii.jsonl").write_text("\n".join([
        msg("user", "before dream"),
        '{"type":"custom","customType":"openclaw:bootstrap-context:full",'
        '"data":{"runId":"dreaming-narrative-7"}}', msg("user", "after dream")]))
    (folder / "sessions.json").write_text(json.dumps({
        "agent:main:main": {"sessionId": "aaa", "updatedAt": 1},
        "agent:main:subagent:1": {"sessionId": "bbb", "spawnedBy": "agent:main:main",
                                  "updatedAt": 1},
        "agent:main:cron:job1:run:r1": {"sessionId": "ccc", "updatedAt": 1},
        "agent:main:subagent:2": {"sessionId": "ddd", "spawnedBy": "agent:main:cron:job1:run:r1",
                                  "updatedAt": 1},
        "agent:main:dreaming-narrative-x": {"sessionId": "eee", "updatedAt": 1},
        "agent:ops:main": {"sessionId": "ggg", "updatedAt": 1},
        "agent:main:missing": {"sessionId": "zzz", "updatedAt": 1},
        "agent:main:iii": {"sessionId": "iii", "sessionFile": "iii.jsonl"},
    }))


# JS: (path, artifactKind, sessionKey, dreaming, cron, content) per corpus entry.
JS_LISTING = [
    ("sessions/main/aaa.jsonl", "active-session", "agent:main:main", False, False,
     "User: main chat"),
    ("sessions/main/bbb.jsonl", "active-session", "agent:main:subagent:1", False, False,
     "User: child"),
    ("sessions/main/ccc.jsonl", "active-session", "agent:main:cron:job1:run:r1", False, True, ""),
    ("sessions/main/ddd.jsonl", "active-session", "agent:main:subagent:2", False, True, ""),
    ("sessions/main/eee.jsonl", "active-session", "agent:main:dreaming-narrative-x", True,
     False, ""),
    ("sessions/main/iii.jsonl", "active-session", "agent:main:iii", False, False,
     "User: before dream"),
    ("sessions/main/aaa.jsonl.reset.2026-01-02T03-04-05Z", "archive-artifact", None, False,
     False, "User: old main"),
    ("sessions/main/fff.jsonl", "orphan-file-artifact", None, False, False, "User: orphan"),
    ("sessions/main/hhh.jsonl.reset.2026-01-02T03-04-05Z", "archive-artifact", None, False,
     False, ""),
]


@pytest.mark.parametrize("layout", ["openclaw", "memlab"])
def test_listing_matches_openclaw(tmp_path, layout):
    if layout == "openclaw":
        root = tmp_path / ".openclaw"
        make_sessions_dir(root / "agents" / "main" / "sessions")
    else:
        root = tmp_path / "workspace" / "sessions"
        make_sessions_dir(root / "main")
    files = list_session_files(root, "main")
    got = []
    for f in files:
        t = parse_session(f.abs_path, path=f.path, generated_by_dreaming=f.generated_by_dreaming,
                          generated_by_cron=f.generated_by_cron)
        got.append((f.path, f.kind, f.session_key, f.generated_by_dreaming,
                    f.generated_by_cron, t.text))
    assert got == JS_LISTING
    # Without explicit flags, parse_session reads the same classification from sessions.json.
    assert parse_session(files[2].abs_path).text == ""
    assert list_session_files(root, "nobody") == []


def test_scan_sessions_returns_loaded_files_for_the_corpus(tmp_path):
    root = tmp_path / "sessions"
    make_sessions_dir(root / "main")
    loaded, skipped = scan_sessions(root)
    assert skipped == []
    first = loaded[0]
    assert first.file.source == "sessions" and first.file.path == "sessions/main/aaa.jsonl"
    assert first.file.text == "User: main chat" and first.file.hash == first.transcript.hash
    assert first.file.size == (root / "main" / "aaa.jsonl").stat().st_size
    assert [(c.start_line, c.end_line, c.text) for c in first.chunks()] == [
        (1, 1, "User: main chat")]


# --------------------------------------------------------------------------- visibility

TREE = {
    "agent:main:main": {"sessionId": "root"},
    "agent:main:subagent:a": {"sessionId": "child", "spawnedBy": "agent:main:main"},
    "agent:main:subagent:b": {"sessionId": "grandchild", "spawnedBy": "agent:main:subagent:a"},
    "agent:main:subagent:c": {"sessionId": "adopted", "parentSessionKey": "agent:main:main"},
    "agent:main:subagent:d": {"sessionId": "gone", "spawnedBy": "agent:main:main",
                              "archivedAt": 5},
    "agent:main:telegram:direct:42": {"sessionId": "dm", "sessionFile": "dm-file.jsonl"},
    "agent:ops:main": {"sessionId": "ops"},
}
PATHS = ["sessions/main/root.jsonl", "sessions/main/child.jsonl",
         "sessions/main/grandchild.jsonl", "sessions/main/adopted.jsonl",
         "sessions/main/gone.jsonl", "sessions/main/dm-file.jsonl",
         "sessions/main/root.jsonl.reset.2026-01-02T03-04-05Z",
         "sessions/main/orphan.jsonl", "sessions/main/orphan.jsonl.reset.2026-01-02T03-04-05Z",
         "sessions/ops/ops.jsonl"]


def visible(mode, requester="agent:main:main", **kw):
    return sorted(visible_session_paths(TREE, requester, mode, paths=PATHS, **kw))


def test_visibility_self_and_tree():
    assert visible("self") == ["sessions/main/root.jsonl",
                               "sessions/main/root.jsonl.reset.2026-01-02T03-04-05Z"]
    # tree: the session and the sessions it spawned directly (2026.7.35 lists direct children
    # only); archived children are not listed.
    assert visible("tree") == ["sessions/main/adopted.jsonl", "sessions/main/child.jsonl",
                               "sessions/main/root.jsonl",
                               "sessions/main/root.jsonl.reset.2026-01-02T03-04-05Z"]
    assert "sessions/main/grandchild.jsonl" in visible("tree", transitive=True)
    assert visible("tree", requester="agent:main:subagent:a") == [
        "sessions/main/child.jsonl", "sessions/main/grandchild.jsonl"]


def test_visibility_agent_and_all():
    agent = visible("agent")
    # every session of the agent, plus its archives; orphan live files map to no session,
    # an orphan archive maps to a synthetic key of the owning agent.
    assert agent == sorted(["sessions/main/root.jsonl", "sessions/main/child.jsonl",
                            "sessions/main/grandchild.jsonl", "sessions/main/adopted.jsonl",
                            "sessions/main/gone.jsonl", "sessions/main/dm-file.jsonl",
                            "sessions/main/root.jsonl.reset.2026-01-02T03-04-05Z",
                            "sessions/main/orphan.jsonl.reset.2026-01-02T03-04-05Z"])
    assert visible("all") == agent  # hits of other agents never pass the agent scope
    assert visible("agent", requester="agent:main:telegram:direct:42") == agent
    assert "sessions/ops/ops.jsonl" in visible("agent", requester="agent:ops:main",
                                               agent_id="ops")


def test_visibility_without_a_requester_hides_every_session():
    assert visible_session_paths(TREE, None, "all", paths=PATHS) == set()
    assert not is_session_path_visible("sessions/main/root.jsonl", TREE, "", "all")


def test_visibility_default_candidates_and_bad_mode():
    assert visible_session_paths(TREE, "agent:main:main", "self") == {"sessions/main/root.jsonl"}
    with pytest.raises(ValueError, match="visibility"):
        visible_session_paths(TREE, "agent:main:main", "everyone")


def test_store_keys_are_canonicalized_like_openclaw():
    # JS (memory_search filter over a store with a bare "main" key): the bare key becomes
    # agent:main:main and is merged with the existing entry (latest updatedAt wins).
    store = {"agent:main:main": {"updatedAt": 1, "sessionId": "s0"},
             "agent:main:telegram:direct:2": {"updatedAt": 1, "sessionId": "s4"},
             "main": {"updatedAt": 1, "sessionId": "s7", "sessionFile": "s7.jsonl"}}
    tree = load_session_tree(store)
    assert tree["agent:main:main"].session_id == "s7"
    paths = ["sessions/main/s0.jsonl", "sessions/main/s4.jsonl", "sessions/main/s7.jsonl"]
    assert sorted(visible_session_paths(tree, "agent:main:telegram:direct:2", "agent",
                                        paths=paths)) == paths[1:]


def test_load_session_tree_reads_store_files(tmp_path):
    make_sessions_dir(tmp_path / ".openclaw" / "agents" / "main" / "sessions")
    tree = load_session_tree(tmp_path / ".openclaw" / "agents" / "main" / "sessions")
    assert tree["agent:main:subagent:1"].spawned_by == "agent:main:main"
    assert visible_session_paths(tree, "agent:main:main", "tree") >= {
        "sessions/main/aaa.jsonl", "sessions/main/bbb.jsonl"}


class Leg(Stage):
    """Fixed ranked candidates for every query."""

    def __init__(self, corpus: Corpus, ranked: list):
        self.corpus = corpus
        self.ranked = ranked

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        docnos = np.array([d for d, _ in self.ranked], dtype=np.int64)
        scores = np.array([s for _, s in self.ranked], dtype=np.float64)
        return build_hits(queries, self.corpus.chunks, [(docnos, scores)] * len(queries))


def stage_corpus() -> Corpus:
    rows = [("m1", "MEMORY.md", "memory"), ("h1", "sessions/main/secret.jsonl", "sessions"),
            ("v1", "sessions/main/root.jsonl", "sessions"), ("h2", "sessions/main/secret.jsonl",
                                                             "sessions"),
            ("m2", "memory/notes.md", "memory"), ("v2", "sessions/main/child.jsonl", "sessions")]
    chunks = pd.DataFrame([(cid, path, source, 1, 1, cid, cid) for cid, path, source in rows],
                          columns=CHUNK_TABLE_COLUMNS)
    return Corpus(chunks=chunks)


SECRET_TREE = {"agent:main:main": {"sessionId": "root"},
               "agent:main:subagent:a": {"sessionId": "child", "spawnedBy": "agent:main:main"},
               "agent:main:telegram:direct:9": {"sessionId": "secret"}}


@pytest.mark.parametrize("placement", ["after", "before"])
def test_hidden_sessions_never_appear_at_any_max_results(placement):
    corpus = stage_corpus()
    leg = Leg(corpus, [(1, 0.9), (2, 0.8), (3, 0.7), (0, 0.6), (4, 0.5), (5, 0.4)])
    vis = SessionVisibility(SECRET_TREE, "agent:main:main", mode="tree")
    for k in range(1, 7):
        cut = Threshold(min_score=0.0, max_results=k, relaxed=None)
        pipe = leg >> cut >> vis if placement == "after" else leg >> vis >> cut
        hits = pipe(as_queries("q"))
        assert "sessions/main/secret.jsonl" not in set(hits["path"])
        assert hits["rank"].tolist() == list(range(1, len(hits) + 1))
        if placement == "before":
            assert len(hits) == min(k, 4)
        else:  # OpenClaw: hidden hits take slots before the tool drops them
            kept = [d for d, _ in leg.ranked[:k] if d not in (1, 3)]
            assert hits["docno"].tolist() == kept


def test_visibility_stage_keeps_memory_hits_and_modes():
    corpus = stage_corpus()
    leg = Leg(corpus, [(i, 1.0 - i / 10) for i in range(6)])
    q = as_queries(["q1", "q2"])
    everything = SessionVisibility(SECRET_TREE, "agent:main:main", mode="agent")(leg(q))
    assert len(everything) == 12
    nobody = SessionVisibility(SECRET_TREE, None)(leg(q))
    assert set(nobody["source"]) == {"memory"} and len(nobody) == 4
    assert nobody.groupby("qid")["rank"].apply(list).tolist() == [[1, 2], [1, 2]]
    assert SessionVisibility(SECRET_TREE, "agent:main:main").get_params()["mode"] == "tree"
