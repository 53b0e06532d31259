"""An agent's transcripts listed and rendered for the corpus (``sources: ["sessions"]``).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

from memlab.chunking import Chunk
from memlab.config.types import DEFAULT_AGENT_ID
from memlab.sessions.files import SessionFile, list_session_files
from memlab.sessions.render import SessionTranscript, parse_session, session_chunks
from memlab.workspace import LoadedFile, MemlabWarning, SkippedFile


@dataclass(frozen=True)
class LoadedSession:
    """A transcript ready for the corpus: its file entry and its rendering."""

    file: LoadedFile
    session: SessionFile
    transcript: SessionTranscript

    def chunks(self, tokens: int = 400, overlap: int = 80) -> list[Chunk]:
        return session_chunks(self.transcript, tokens, overlap)


def scan_sessions(sessions_root: str | os.PathLike[str], agent_id: str = DEFAULT_AGENT_ID
                  ) -> tuple[list[LoadedSession], list[SkippedFile]]:
    """List and parse an agent's transcripts: what the index adds for ``sources: ["sessions"]``.

    Each :class:`LoadedSession` carries a :class:`~memlab.workspace.LoadedFile` with
    ``source="sessions"``, the indexed path, the rendered ``text``, OpenClaw's entry ``hash``,
    mtime and size. Unreadable files are skipped (with a warning), as OpenClaw skips them.
    """
    loaded: list[LoadedSession] = []
    skipped: list[SkippedFile] = []
    for f in list_session_files(sessions_root, agent_id):
        try:
            st = os.lstat(f.abs_path)
            transcript = parse_session(
                f.abs_path, path=f.path, generated_by_dreaming=f.generated_by_dreaming,
                generated_by_cron=f.generated_by_cron)
        except (OSError, ValueError) as exc:
            skipped.append(SkippedFile(f.path, f"unreadable: {exc}"))
            continue
        entry = LoadedFile(path=f.path, abs_path=f.abs_path, source="sessions",
                           text=transcript.text, hash=transcript.hash,
                           mtime_ms=int(st.st_mtime_ns // 1_000_000), size=st.st_size)
        loaded.append(LoadedSession(entry, f, transcript))
    for item in skipped:
        warnings.warn(f"{item.path}: {item.reason}", MemlabWarning, stacklevel=2)
    return loaded, skipped
