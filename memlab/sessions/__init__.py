"""Session transcripts as OpenClaw 2026.7.35 indexes them (``experimental.sessionMemory``).

With ``sources: ["memory", "sessions"]`` and ``experimental.sessionMemory: true`` OpenClaw also
indexes the agent's chat transcripts (``packages/memory-host-sdk/src/host/session-files.ts``,
``buildSessionEntry``). This package reproduces that, cross-checked against the npm package:

* **Files** (:func:`list_session_files`): the agent's usage-counted transcripts --
  ``<sessionId>.jsonl`` plus ``.jsonl.reset.<ts>`` / ``.jsonl.deleted.<ts>`` archives -- found
  through the session store (``sessions.json``) and by listing the directory. Compaction
  checkpoints, ``.bak`` archives, trajectories, symlinks and other names are skipped. The
  indexed path is ``sessions/<agentId>/<basename>``.
* **Rendering** (:func:`parse_session`): each JSONL line is one record; only ``type ==
  "message"`` records from ``user``/``assistant`` are kept, their text being ``content`` when
  it is a string, else its ``{"type": "text"}`` blocks joined by ``\\n`` (tool calls, tool
  results, images are ignored). Channel metadata envelopes are stripped from user text,
  internal runtime-context blocks removed, whitespace collapsed; generated ``System: [...]``
  wrappers, ``[cron:...]`` prompts, heartbeat prompts, silent replies (``NO_REPLY``),
  ``HEARTBEAT_OK`` acknowledgements, exec-completion events and inter-session user messages
  are dropped. Transcripts the session store marks as dreaming-narrative or cron-run output
  render empty; inside a file, a dreaming-narrative record stops indexing from that line and
  a cron-run record empties a ``.reset``/``.deleted`` archive. Secrets are masked with
  OpenClaw's default redaction patterns. Every kept message becomes ``User: ...`` /
  ``Assistant: ...`` lines of at most 800 UTF-16 units (wrapped on spaces, the prefix
  repeated on each piece).
* **Line numbers**: ``line_map[i]`` is the 1-based JSONL line that rendered line ``i + 1``
  came from; :func:`session_chunks` chunks the rendered text with
  :func:`memlab.chunking.chunk_markdown` and maps chunk lines back (``remapChunkLines``), so
  hits cite JSONL lines. ``hash`` is OpenClaw's file hash:
  ``sha256(content + "\\n" + ",".join(lineMap) + "\\n" + ",".join(timestampsMs))``.
* **Visibility** (:func:`visible_session_paths`, :class:`SessionVisibility`): which session
  hits a requester may see under ``tools.sessions.visibility`` (``self``/``tree``/``agent``/
  ``all``), given the session store as the session tree. OpenClaw applies it in the
  ``memory_search`` tool *after* the ``minScore``/``maxResults`` cut; see
  :class:`SessionVisibility` for where to put the stage.

Where session files live: OpenClaw keeps them in ``~/.openclaw/agents/<agentId>/sessions/``;
a memlab dataset keeps them in ``workspace/sessions/<agentId>/*.jsonl`` (optionally with that
agent's ``sessions.json``). :func:`list_session_files` accepts either root.

Known deviations (all outside what a transcript file determines): secrets registered at
runtime from config SecretRefs are not known here; ``Date.parse`` is reproduced for ISO 8601
and RFC 2822 strings only (V8's lenient legacy formats give 0); Unicode property classes
come from Python's ``unicodedata`` (an older Unicode version than Node's ICU); a store entry's
``sessionFile`` must name a file in the agent's sessions folder (OpenClaw also follows some
paths elsewhere); session keys are compared in lower case (OpenClaw keeps the case of some
channel peer ids); the live session-list windows of ``tree`` visibility (recently ended
children, the subagent run registry, the 100-entry list limit) are not modelled.

>>> t = parse_session('{"type":"message","message":{"role":"user","content":"hi  there"}}')
>>> t.text, t.line_map
('User: hi there', [1])
"""

from memlab.sessions.files import SessionFile, list_session_files
from memlab.sessions.names import (
    is_usage_counted_transcript_name,
    session_path_for_file,
    usage_counted_session_id,
)
from memlab.sessions.redact import redact_sensitive_text
from memlab.sessions.render import (
    SESSION_WRAP_CHARS,
    SessionTranscript,
    parse_session,
    remap_chunk_lines,
    session_chunks,
)
from memlab.sessions.scan import LoadedSession, scan_sessions
from memlab.sessions.tree import SessionNode, SessionTree, load_session_tree
from memlab.sessions.visibility import (
    VISIBILITY_MODES,
    SessionVisibility,
    is_session_path_visible,
    visible_session_paths,
)

__all__ = [
    "SESSION_WRAP_CHARS",
    "VISIBILITY_MODES",
    "LoadedSession",
    "SessionFile",
    "SessionNode",
    "SessionTranscript",
    "SessionTree",
    "SessionVisibility",
    "is_session_path_visible",
    "is_usage_counted_transcript_name",
    "list_session_files",
    "load_session_tree",
    "parse_session",
    "redact_sensitive_text",
    "remap_chunk_lines",
    "scan_sessions",
    "session_chunks",
    "session_path_for_file",
    "usage_counted_session_id",
    "visible_session_paths",
]
