"""Memory-file discovery and loading with OpenClaw's rules (2026.7.35).

Reproduces ``listMemoryFiles`` / ``buildFileEntry`` (``packages/memory-host-sdk/src/host/
internal.ts``) and the dated/evergreen path rules of ``temporal-decay.ts``:

* ``MEMORY.md`` at the workspace root, only when the directory entry is named exactly
  ``MEMORY.md`` and is a regular file (not a symlink). ``memory.md`` is never indexed.
* every ``*.md`` file under ``memory/`` (recursively). Symlinks are skipped -- entries and
  the ``memory`` directory itself -- and ``.openclaw-repair`` directories are not entered.
* ``extra_paths``: absolute or workspace-relative, ``~`` expanded; directories are walked
  like ``memory/``, single ``.md`` files accepted, symlinks skipped. 2026.9's ``{path,
  pattern}`` form (:class:`ExtraPath`) keeps, of a directory's files, those whose path
  relative to it matches the glob ``pattern`` (Node's ``path.posix.matchesGlob``,
  :mod:`memlab.text.node_glob`); a single file is kept whatever its pattern, as in 2026.9.6.
* the list is deduplicated by realpath, keeping the first occurrence.

Order is OpenClaw's: ``MEMORY.md``, then a depth-first walk of ``memory/``, then the extra
paths in the order given. Like Node's ``fs.readdir`` on POSIX, each directory's entries are
visited sorted by the bytes of their names, subdirectories walked where they occur.

Unlike OpenClaw, which decodes any bytes as UTF-8 with U+FFFD replacement, the default
loader skips files that contain NUL bytes or are not valid UTF-8 (``strict=False`` restores
OpenClaw's lossy decoding), and files or directories whose *names* are not valid UTF-8 (the
name is reported with its bad bytes escaped, ``\\xff``). Every skipped file is reported as a
:class:`SkippedFile` and a :class:`MemlabWarning`.

Reads are confined by descriptor: each file is opened from its root (the workspace, or the
directory holding an extra path) one path component at a time without following links
(:func:`memlab.safeio.open_beneath`), so a directory swapped for a symlink after discovery
cannot make memlab read a file elsewhere. The walk is iterative: any nesting depth works.

>>> import tempfile, pathlib
>>> ws = pathlib.Path(tempfile.mkdtemp())
>>> _ = (ws / "MEMORY.md").write_text("# Long-term\\n")
>>> (ws / "memory").mkdir(); _ = (ws / "memory" / "2026-01-02.md").write_text("note\\n")
>>> [f.path for f in list_memory_files(ws)]
['MEMORY.md', 'memory/2026-01-02.md']
"""

from __future__ import annotations

import datetime
import errno
import hashlib
import json
import os
import re
import stat as stat_mod
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memlab.lines import DATE_RULES, DEFAULT_DATE_RULE
from memlab.safeio import UnsafePath, open_beneath, path_parts
from memlab.text.js import JS_WHITESPACE as _JS_WHITESPACE
from memlab.text.node_glob import compile_glob

if TYPE_CHECKING:
    from memlab.embedding_input import EmbeddingInput

__all__ = [
    "MULTIMODAL_SPECS",
    "ExtraPath",
    "LoadedFile",
    "MemlabWarning",
    "MemoryFile",
    "MultimodalFile",
    "MultimodalSettings",
    "classify_multimodal_path",
    "detect_mime",
    "load_multimodal_input",
    "multimodal_settings",
    "normalize_extra_path_entries",
    "normalize_extra_paths",
    "SkippedFile",
    "dated_path_date",
    "is_evergreen",
    "is_memory_path",
    "list_memory_files",
    "read_memory_files",
    "scan_workspace",
]

#: A dated/evergreen path rule's name (``memlab.decayRule``, :data:`memlab.lines.DATE_RULES`).
DecayRule = str

CANONICAL_ROOT_MEMORY = "MEMORY.md"
REPAIR_DIR_NAME = ".openclaw-repair"
_ROOT_MEMORY_REPAIR_REL = ".openclaw-repair/root-memory"

# temporal-decay.ts DATED_MEMORY_PATH_RE per rule (the rules are the lines' data).
_DATED_RE: dict[str, re.Pattern[str]] = {
    name: re.compile(rule.dated) for name, rule in DATE_RULES.items()
}
_EVERGREEN_ROOT_FILES: dict[str, frozenset[str]] = {
    name: rule.evergreen for name, rule in DATE_RULES.items()
}


class MemlabWarning(UserWarning):
    """Something in the workspace was skipped or could not be used."""


@dataclass(frozen=True)
class MemoryFile:
    """A discovered memory file.

    ``path`` is workspace-relative with ``/`` separators (``../…`` for extra paths outside
    the workspace), exactly the path OpenClaw stores; ``abs_path`` is the absolute path as
    OpenClaw builds it (joined, not symlink-resolved).
    """

    path: str
    abs_path: Path
    source: str = "memory"
    #: The directory reads start from (``abs_path`` is opened below it without following
    #: links); ``None`` opens ``abs_path`` directly (its last component still not followed).
    root: Path | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ExtraPath:
    """An ``extraPaths`` entry in 2026.9's object form: ``{path, pattern}``. ``pattern``
    (a glob relative to ``path``) filters the files found when ``path`` is a directory."""

    path: str
    pattern: str | None = None


@dataclass(frozen=True)
class SkippedFile:
    """A path that was not indexed, with a human-readable reason."""

    path: str
    reason: str


@dataclass(frozen=True)
class LoadedFile:
    """A memory file read from disk (OpenClaw's file entry plus its text).

    ``hash`` is sha256 hex of the UTF-8 encoding of ``text`` (OpenClaw's ``hashText`` of the
    decoded content; for valid UTF-8 this is the sha256 of the file bytes). ``mtime_ms`` is
    the modification time in whole milliseconds (OpenClaw keeps Node's fractional
    ``mtimeMs``), ``size`` the size in bytes.
    """

    path: str
    abs_path: Path
    source: str
    text: str
    hash: str
    mtime_ms: int
    size: int


# --------------------------------------------------------------------------- helpers


def _js_trim(value: str) -> str:
    return value.strip(_JS_WHITESPACE)


def _resolve(base: str, value: str) -> str:
    """Node ``path.resolve(base, value)`` on POSIX (lexical; ``//x`` collapses to ``/x``)."""
    joined = os.path.normpath(os.path.join(base, value))
    if joined.startswith("//"):
        joined = "/" + joined.lstrip("/")
    return joined


def _rel_posix(workspace: str, abs_path: str) -> str:
    """``path.relative(workspace, absPath)`` with ``\\`` turned into ``/``."""
    return os.path.relpath(abs_path, workspace).replace("\\", "/")


def _expand_home(value: str) -> str:
    """OpenClaw's ``expandHomePath``: only ``~``, ``~/…`` and ``~\\…`` (not ``~user``)."""
    if value == "~":
        return os.path.expanduser("~")
    if value.startswith("~/") or value.startswith("~\\"):
        return os.path.join(os.path.expanduser("~"), value[2:])
    return value


def normalize_extra_paths(workspace: str, extra_paths: Sequence[str]) -> list[str]:
    """``normalizeExtraMemoryPaths``: trim, drop empty, expand ``~``, resolve, unique."""
    out: list[str] = []
    for raw in extra_paths:
        value = _js_trim(str(raw))
        if not value:
            continue
        value = _expand_home(value)
        resolved = _resolve("/", value) if os.path.isabs(value) else _resolve(workspace, value)
        if resolved not in out:
            out.append(resolved)
    return out


def _entry_parts(entry: object) -> tuple[str, str | None]:
    """``(path, pattern)`` of a string, an :class:`ExtraPath`-like object or a mapping."""
    if isinstance(entry, str):
        return entry, None
    if isinstance(entry, dict):
        return str(entry.get("path", "")), entry.get("pattern")
    return str(getattr(entry, "path", "")), getattr(entry, "pattern", None)


def normalize_extra_path_entries(workspace: str, extra_paths: Sequence[str | ExtraPath]
                                 ) -> list[ExtraPath]:
    """2026.9's ``normalizeConfiguredMemoryExtraPaths`` + ``normalizeExtraMemoryPathEntries``:
    path and pattern trimmed (an empty pattern is no pattern), entries unique by the
    configured ``(path, pattern)`` (first position kept), empty paths dropped, then each path
    ``~``-expanded and resolved against ``workspace`` and ``\\`` in the pattern read as
    ``/``.

    >>> [(e.path, e.pattern) for e in normalize_extra_path_entries(
    ...     "/ws", ["notes", ExtraPath(" notes ", " *.md "), {"path": "notes", "pattern": " "}])]
    [('/ws/notes', None), ('/ws/notes', '*.md')]
    """
    configured: dict[tuple[str, str], None] = {}
    for entry in extra_paths:
        raw_path, raw_pattern = _entry_parts(entry)
        path = _js_trim(raw_path)
        pattern = _js_trim(raw_pattern) if isinstance(raw_pattern, str) else ""
        if path:
            configured.setdefault((path, pattern), None)
    out: list[ExtraPath] = []
    for path, pattern in configured:
        value = _expand_home(path)
        resolved = _resolve("/", value) if os.path.isabs(value) else _resolve(workspace, value)
        out.append(ExtraPath(resolved, pattern.replace("\\", "/") or None))
    return out


def _should_skip_workspace_path(workspace: str, abs_path: str) -> bool:
    """``shouldSkipRootMemoryAuxiliaryPath``: root ``memory.md`` and the repair dir."""
    relative = os.path.relpath(abs_path, workspace)
    if relative.startswith("..") or os.path.isabs(relative):
        return False
    normalized = _js_trim(relative).replace("\\", "/")
    if normalized.startswith("./"):
        normalized = normalized[2:]
    return (
        normalized == "memory.md"
        or normalized == _ROOT_MEMORY_REPAIR_REL
        or normalized.startswith(_ROOT_MEMORY_REPAIR_REL + "/")
    )


def _sorted_entries(directory: str) -> list[os.DirEntry[str]]:
    """Directory entries in Node ``fs.readdir`` order (libuv sorts names with strcmp)."""
    with os.scandir(directory) as it:
        return sorted(it, key=lambda entry: os.fsencode(entry.name))


def _errno_text(exc: OSError) -> str:
    return exc.strerror or errno.errorcode.get(exc.errno or 0, str(exc))


class _Discovery:
    """One run of OpenClaw's ``listMemoryFiles`` that also records what it skipped."""

    def __init__(self, workspace: str, multimodal: MultimodalSettings | None = None) -> None:
        self.workspace = workspace
        self.multimodal = multimodal
        self.found: list[str] = []
        #: the directory each found path is read from (see :func:`memlab.safeio.open_beneath`)
        self.roots: dict[str, str] = {}
        self.skipped: list[SkippedFile] = []
        self._skipped_paths: set[str] = set()

    def rel(self, abs_path: str) -> str:
        return _rel_posix(self.workspace, abs_path)

    def skip(self, abs_path: str, reason: str) -> None:
        # Overlapping scans (e.g. extra path "." and memory/) meet the same entry twice:
        # report each path once.
        rel = self.rel(abs_path)
        if rel not in self._skipped_paths:
            self._skipped_paths.add(rel)
            self.skipped.append(SkippedFile(rel, reason))

    def should_skip(self, abs_path: str) -> bool:
        return _should_skip_workspace_path(self.workspace, abs_path)

    def add(self, path: str, root: str) -> None:
        self.found.append(path)
        self.roots.setdefault(path, root)

    def bad_name(self, full: str) -> bool:
        """Skip (and report) a path whose name is not valid UTF-8: it could not be stored,
        printed or compared with OpenClaw's paths."""
        try:
            full.encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(self.rel(full)).decode("utf-8", "backslashreplace")
            if shown not in self._skipped_paths:
                self._skipped_paths.add(shown)
                self.skipped.append(SkippedFile(shown, "file name is not valid UTF-8"))
            return True
        return False

    def walk(self, root: str, read_root: str | None = None,
             pattern: str | None = None) -> None:
        """``walkDirectory(root, {symlinks: "skip"})`` with the memory include/descend rules.

        Depth-first in Node's order, with an explicit stack (no recursion limit on nesting).
        ``read_root`` is the directory files found here are read from (default ``root``).
        ``pattern``: an extra path's glob; a file is kept only when its path relative to
        ``root`` matches it (``matchesExtraMemoryPathEntry``; directories are still entered).
        """
        glob = compile_glob(pattern) if pattern else None
        visited: set[str] = set()
        base = read_root or os.path.abspath(root)
        stack: list[tuple[str, Iterator[os.DirEntry[str]]]] = []

        def enter(directory: str) -> None:
            try:
                real = os.path.realpath(directory, strict=True)
            except OSError as exc:
                self.skip(directory, f"unreadable directory: {_errno_text(exc)}")
                return
            if real in visited:
                return
            visited.add(real)
            try:
                entries = _sorted_entries(directory)
            except OSError as exc:
                self.skip(directory, f"unreadable directory: {_errno_text(exc)}")
                return
            stack.append((directory, iter(entries)))

        enter(os.path.abspath(root))
        while stack:
            directory, entries = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                continue
            full = os.path.join(directory, entry.name)
            if self.bad_name(full):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    kind = "directory"
                elif entry.is_file(follow_symlinks=False):
                    kind = "file"
                elif entry.is_symlink():
                    kind = "symlink"
                else:
                    kind = "other"
            except OSError:
                kind = "other"
            if kind == "symlink":
                if full.endswith(".md") or _is_dir_target(full):
                    self.skip(full, "symlink")
                continue
            if self.should_skip(full):
                if (kind == "file" and full.endswith(".md")) or kind == "directory":
                    self.skip(full, "legacy/repair root memory path")
                continue
            if kind == "file" and (full.endswith(".md") or classify_multimodal_path(
                    full, self.multimodal) is not None):
                if glob is None or glob.matches(_rel_posix(root, full)):
                    self.add(full, base)
            elif kind == "other" and full.endswith(".md"):
                self.skip(full, "not a regular file")
            elif kind == "directory":
                if entry.name == REPAIR_DIR_NAME:
                    self.skip(full, "repair directory (not descended)")
                else:
                    enter(full)

    def root_memory_file(self) -> None:
        """``resolveCanonicalRootMemoryFile`` + ``addMarkdownFile``."""
        try:
            entries = _sorted_entries(self.workspace)
        except OSError:
            return
        for entry in entries:
            full = os.path.join(self.workspace, entry.name)
            if entry.name == CANONICAL_ROOT_MEMORY:
                if entry.is_symlink():
                    self.skip(full, "symlink")
                elif entry.is_file(follow_symlinks=False):
                    self.add(full, self.workspace)
                else:
                    self.skip(full, "not a regular file")
            elif entry.name.lower() == "memory.md":
                self.skip(full, f"root memory file must be named exactly {CANONICAL_ROOT_MEMORY}")

    def memory_dir(self) -> None:
        memory_dir = os.path.join(self.workspace, "memory")
        try:
            st = os.lstat(memory_dir)
        except OSError:
            return
        if stat_mod.S_ISLNK(st.st_mode):
            self.skip(memory_dir, "symlink")
        elif stat_mod.S_ISDIR(st.st_mode):
            self.walk(memory_dir, read_root=self.workspace)

    def extra(self, extra_paths: Sequence[str | ExtraPath]) -> None:
        if all(isinstance(e, str) for e in extra_paths):  # 2026.7: unique resolved paths
            entries = [ExtraPath(p) for p in normalize_extra_paths(self.workspace, extra_paths)]
        else:
            entries = normalize_extra_path_entries(self.workspace, extra_paths)
        for entry in entries:
            input_path = entry.path
            if self.bad_name(input_path):
                continue
            if self.should_skip(input_path):
                self.skip(input_path, "legacy/repair root memory path")
                continue
            try:
                st = os.lstat(input_path)
            except FileNotFoundError:
                self.skip(input_path, "extra path not found")
                continue
            except OSError as exc:
                self.skip(input_path, f"unreadable: {_errno_text(exc)}")
                continue
            # read from the extra path's parent as configured (links the user wrote into the
            # path are theirs, as in OpenClaw); the path itself and anything found below it
            # are never followed
            read_root = os.path.dirname(input_path)
            if stat_mod.S_ISLNK(st.st_mode):
                self.skip(input_path, "symlink")
            elif stat_mod.S_ISDIR(st.st_mode):
                self.walk(input_path, read_root=read_root, pattern=entry.pattern)
            elif stat_mod.S_ISREG(st.st_mode) and (input_path.endswith(".md") or (
                    classify_multimodal_path(input_path, self.multimodal) is not None)):
                self.add(input_path, read_root)
            elif stat_mod.S_ISREG(st.st_mode):
                self.skip(input_path, "not a .md file")
            else:
                self.skip(input_path, "not a regular file")

    def dedup(self) -> list[str]:
        if len(self.found) <= 1:
            return list(self.found)
        seen: dict[str, str] = {}
        out: list[str] = []
        for entry in self.found:
            try:
                key = os.path.realpath(entry, strict=True)
            except OSError:
                key = entry
            if key in seen:
                if entry != seen[key]:  # the same path met twice is not worth reporting
                    self.skip(entry, f"duplicate of {self.rel(seen[key])}")
                continue
            seen[key] = entry
            out.append(entry)
        return out


def _open_confined(file: MemoryFile | LoadedFile) -> int:
    """A read descriptor for ``file``: opened below ``file.root`` component by component
    without following links (:func:`memlab.safeio.open_beneath`), non-blocking."""
    abs_path = os.fspath(file.abs_path)
    root = getattr(file, "root", None)
    if root is None:
        return os.open(abs_path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                       | getattr(os, "O_NONBLOCK", 0))
    return open_beneath(root, path_parts(abs_path, root))


def _is_dir_target(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except OSError:
        return False


def _workspace_dir(workspace: str | Path) -> str:
    ws = os.path.abspath(_expand_home(os.fspath(workspace)))
    if not os.path.exists(ws):
        raise FileNotFoundError(f"memory workspace not found: {ws}")
    if not os.path.isdir(ws):
        raise NotADirectoryError(f"memory workspace is not a directory: {ws}")
    return ws


def _discover(
    workspace: str | Path, extra_paths: Sequence[str | ExtraPath],
    multimodal: MultimodalSettings | None = None,
) -> tuple[list[MemoryFile], list[SkippedFile]]:
    if isinstance(extra_paths, str):
        raise TypeError("extra_paths must be a sequence of paths, not a single string")
    ws = _workspace_dir(workspace)
    run = _Discovery(ws, multimodal)
    run.root_memory_file()
    run.memory_dir()
    run.extra(extra_paths)
    files = [MemoryFile(run.rel(p), Path(p), root=Path(run.roots[p]) if p in run.roots else None)
             for p in run.dedup()]
    return files, run.skipped


# --------------------------------------------------------------------------- public API


def list_memory_files(
    workspace: str | Path, extra_paths: Sequence[str | ExtraPath] = (), *,
    multimodal: MultimodalSettings | None = None,
) -> list[MemoryFile]:
    """The memory files OpenClaw indexes for ``workspace``, in OpenClaw's order.

    Raises ``FileNotFoundError`` when the workspace does not exist (OpenClaw would index
    nothing). Use :func:`scan_workspace` to also learn what was skipped and why.

    >>> import tempfile, pathlib
    >>> ws = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (ws / "memory.md").write_text("legacy")   # lowercase: not indexed
    >>> (ws / "memory" / "b").mkdir(parents=True)
    >>> for name in ["memory/b/x.md", "memory/a.md", "memory/c.txt"]:
    ...     _ = (ws / name).write_text("x")
    >>> [f.path for f in list_memory_files(ws)]
    ['memory/a.md', 'memory/b/x.md']
    """
    return _discover(workspace, extra_paths, multimodal)[0]


def _read_one(file: MemoryFile, strict: bool,
              multimodal: MultimodalSettings | None = None) -> LoadedFile | SkippedFile:
    abs_path = os.fspath(file.abs_path)
    modality = classify_multimodal_path(abs_path, multimodal)
    if modality is not None and multimodal is not None:
        return _read_multimodal(file, modality, multimodal)
    try:
        st = os.lstat(abs_path)
    except FileNotFoundError:
        return SkippedFile(file.path, "missing")
    except OSError as exc:
        return SkippedFile(file.path, f"unreadable: {_errno_text(exc)}")
    if stat_mod.S_ISLNK(st.st_mode):
        return SkippedFile(file.path, "symlink")
    if not stat_mod.S_ISREG(st.st_mode):
        kind = "directory" if stat_mod.S_ISDIR(st.st_mode) else "special file"
        return SkippedFile(file.path, f"not a regular file ({kind})")
    try:
        fd = _open_confined(file)
        try:
            st = os.fstat(fd)  # the file actually opened: its size and mtime
            if not stat_mod.S_ISREG(st.st_mode):
                return SkippedFile(file.path, "not a regular file (changed during read)")
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = handle.read()
        finally:
            os.close(fd)
    except OSError as exc:
        if isinstance(exc, UnsafePath):
            return SkippedFile(file.path, "symlink (a directory on its path was replaced by "
                               "a link after discovery)")
        return SkippedFile(file.path, f"unreadable: {_errno_text(exc)}")
    if strict:
        if b"\x00" in data:
            return SkippedFile(file.path, "binary file")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return SkippedFile(file.path, f"invalid UTF-8 (byte offset {exc.start})")
        digest = hashlib.sha256(data).hexdigest()
    else:
        text = data.decode("utf-8", "replace")  # same substitution as Node's Buffer decode
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return LoadedFile(
        path=file.path,
        abs_path=file.abs_path,
        source=file.source,
        text=text,
        hash=digest,
        mtime_ms=st.st_mtime_ns // 1_000_000,
        size=st.st_size,
    )


def _warn_skipped(skipped: Sequence[SkippedFile]) -> None:
    for item in skipped:
        warnings.warn(f"memlab: skipped {item.path}: {item.reason}", MemlabWarning, stacklevel=3)


def _read_all(
    files: Sequence[MemoryFile], strict: bool,
    multimodal: MultimodalSettings | None = None,
) -> tuple[list[LoadedFile], list[SkippedFile]]:
    loaded: list[LoadedFile] = []
    skipped: list[SkippedFile] = []
    for file in files:
        result = _read_one(file, strict, multimodal)
        (loaded if isinstance(result, LoadedFile) else skipped).append(result)  # type: ignore[arg-type]
    return loaded, skipped


def read_memory_files(
    files: Sequence[MemoryFile], *, strict: bool = True
) -> tuple[list[LoadedFile], list[SkippedFile]]:
    """Read ``files``; bad files are skipped (with a :class:`MemlabWarning`), never raised.

    With ``strict=True`` a file containing NUL bytes is skipped as ``"binary file"`` and
    undecodable bytes as ``"invalid UTF-8 (byte offset N)"``. With ``strict=False`` the
    bytes are decoded the way OpenClaw does (``Buffer.toString("utf-8")``: U+FFFD for bad
    sequences, NULs kept). Unreadable, missing or non-regular files are always skipped.

    >>> import tempfile, pathlib
    >>> ws = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (ws / "MEMORY.md").write_bytes(b"caf\\xc3\\xa9\\n")
    >>> loaded, skipped = read_memory_files(list_memory_files(ws))
    >>> loaded[0].text, loaded[0].size, skipped
    ('café\\n', 6, [])
    """
    loaded, skipped = _read_all(files, strict)
    _warn_skipped(skipped)
    return loaded, skipped


def scan_workspace(
    workspace: str | Path, extra_paths: Sequence[str] = (), *, strict: bool = True,
    multimodal: MultimodalSettings | None = None,
) -> tuple[list[LoadedFile], list[SkippedFile]]:
    """Discover and read a workspace: loaded files, plus everything skipped and why.

    Skips found during discovery (symlinks, lowercase ``memory.md``, missing or non-``.md``
    extra paths, realpath duplicates, ``.openclaw-repair`` directories) come first, then
    read failures. Each skipped item emits one :class:`MemlabWarning`.

    ``multimodal`` (:func:`multimodal_settings` of ``memorySearch.multimodal``): when enabled,
    image/audio files of the enabled modalities are discovered too and loaded as
    :class:`MultimodalFile` (one labelled chunk each; see :func:`load_multimodal_input`).

    >>> import tempfile, pathlib, os, warnings
    >>> ws = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (ws / "MEMORY.md").write_text("hello")
    >>> os.symlink(ws / "MEMORY.md", ws / "alias.md")
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     loaded, skipped = scan_workspace(ws, extra_paths=["alias.md"])
    >>> [f.path for f in loaded], skipped
    (['MEMORY.md'], [SkippedFile(path='alias.md', reason='symlink')])
    """
    files, skipped = _discover(workspace, extra_paths, multimodal)
    loaded, unread = _read_all(files, strict, multimodal)
    skipped = skipped + unread
    _warn_skipped(skipped)
    return loaded, skipped


def _normalize_decay_path(path: str) -> str:
    normalized = path.replace("\\", "/")
    return normalized[2:] if normalized.startswith("./") else normalized


def dated_path_date(path: str, rule: DecayRule = DEFAULT_DATE_RULE) -> datetime.date | None:
    """The date in a dated memory path (``parseMemoryDateFromPath``), else ``None``.

    ``rule="2026.7"``: ``memory/YYYY-MM-DD.md`` directly (the ``memory/`` segment may be at
    any position of the path, e.g. ``../x/memory/…``). ``rule="2026.8"``: also nested
    (``memory/dreaming/light/YYYY-MM-DD.md``) and slugged (``memory/YYYY-MM-DD-topic.md``).
    The date must be a real calendar date; years before 100 are rejected (JavaScript's
    ``Date.UTC`` maps them to 19xx).

    >>> dated_path_date("memory/2026-02-28.md"), dated_path_date("memory/2026-02-30.md")
    (datetime.date(2026, 2, 28), None)
    >>> dated_path_date("memory/2026-02-28-trip.md"), dated_path_date(
    ...     "memory/2026-02-28-trip.md", rule="2026.8")
    (None, datetime.date(2026, 2, 28))
    """
    pattern = _DATED_RE.get(rule)
    if pattern is None:
        raise ValueError(f"unknown rule {rule!r}; expected one of {sorted(_DATED_RE)}")
    match = pattern.search(_normalize_decay_path(path))
    if not match:
        return None
    year, month, day = (int(g) for g in match.groups())
    if year < 100:
        return None
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


def is_evergreen(path: str, source: str = "memory", rule: DecayRule = DEFAULT_DATE_RULE) -> bool:
    """True when temporal decay never applies to hits from ``path`` (``isEvergreenMemoryPath``).

    Only ``source == "memory"`` hits can be evergreen: ``MEMORY.md`` (2026.8 adds
    ``USER.md``) or a path under ``memory/`` that is not dated under the same rule. Note that
    a path can be neither dated nor evergreen (then decay uses the file's mtime).

    >>> is_evergreen("MEMORY.md"), is_evergreen("memory/projects.md")
    (True, True)
    >>> is_evergreen("memory/2026-01-02.md"), is_evergreen("notes/x.md")
    (False, False)
    >>> slugged = "memory/2026-01-02-x.md"
    >>> is_evergreen(slugged), is_evergreen(slugged, rule="2026.8")
    (True, False)
    """
    pattern = _DATED_RE.get(rule)
    if pattern is None:
        raise ValueError(f"unknown rule {rule!r}; expected one of {sorted(_DATED_RE)}")
    if source != "memory":
        return False
    normalized = _normalize_decay_path(path)
    if normalized in _EVERGREEN_ROOT_FILES[rule]:
        return True
    if not normalized.startswith("memory/"):
        return False
    return not pattern.search(normalized)


def is_memory_path(rel_path: str) -> bool:
    """OpenClaw's ``isMemoryPath``: may ``memory_get`` read this workspace-relative path?

    Leading ``.``/``/`` characters are stripped first (as OpenClaw does), then the path must
    be ``MEMORY.md``, ``DREAMS.md`` (any case) or start with ``memory/``.

    >>> is_memory_path("MEMORY.md"), is_memory_path("./memory/a.md"), is_memory_path("notes.md")
    (True, True, False)
    """
    normalized = re.sub(r"^[./]+", "", _js_trim(rel_path)).replace("\\", "/")
    if not normalized:
        return False
    if normalized == CANONICAL_ROOT_MEMORY or normalized.lower() == "dreams.md":
        return True
    return normalized.startswith("memory/")


# --------------------------------------------------------------------------- multimodal
#
# OpenClaw 2026.7.35 ``packages/memory-host-sdk/src/host/multimodal.ts`` and ``internal.ts``
# (``listMemoryFiles`` / ``buildFileEntry`` / ``loadMultimodalEmbeddingInput``). With
# ``memorySearch.multimodal.enabled``, the directory walks (``memory/`` and extra-path
# directories) and single extra-path files also accept image/audio files of the enabled
# modalities. (OpenClaw's docs say "only files in extraPaths"; its code walks ``memory/`` with
# the same rule, and memlab follows the code.) ``MEMORY.md`` stays Markdown.

#: Modality -> label prefix and accepted extensions (OpenClaw's ``MEMORY_MULTIMODAL_SPECS``;
#: the code accepts ``.m2a`` too, which the docs do not list).
MULTIMODAL_SPECS: dict[str, tuple[str, tuple[str, ...]]] = {
    "image": ("Image file", (".jpg", ".jpeg", ".png", ".webp", ".gif", ".heic", ".heif")),
    "audio": ("Audio file", (".mp3", ".wav", ".ogg", ".opus", ".m4a", ".m2a", ".aac", ".flac")),
}
DEFAULT_MULTIMODAL_MAX_FILE_BYTES = 10 * 1024 * 1024

# OpenClaw's MIME_BY_EXT for these extensions (used when sniffing finds nothing).
_MIME_BY_EXT = {
    ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp",
    ".gif": "image/gif", ".heic": "image/heic", ".heif": "image/heif", ".mp3": "audio/mpeg",
    ".m2a": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".opus": "audio/opus",
    ".m4a": "audio/x-m4a", ".aac": "audio/aac", ".flac": "audio/flac",
}


@dataclass(frozen=True)
class MultimodalSettings:
    """OpenClaw's normalised ``multimodal`` settings (``normalizeMemoryMultimodalSettings``)."""

    enabled: bool = False
    modalities: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MULTIMODAL_MAX_FILE_BYTES

    @property
    def active(self) -> bool:
        return self.enabled and bool(self.modalities)


def multimodal_settings(config: object | None) -> MultimodalSettings | None:
    """:class:`MultimodalSettings` from ``memorySearch.multimodal`` (a
    :class:`memlab.config.MultimodalConfig` or a dict); ``None`` when not active."""
    if config is None:
        return None
    if isinstance(config, dict):
        enabled = config.get("enabled") is True
        raw = config.get("modalities")
        max_bytes = config.get("maxFileBytes", DEFAULT_MULTIMODAL_MAX_FILE_BYTES)
    else:
        enabled = bool(getattr(config, "enabled", False))
        raw = getattr(config, "modalities", None)
        max_bytes = getattr(config, "max_file_bytes", DEFAULT_MULTIMODAL_MAX_FILE_BYTES)
    if raw is None or "all" in raw:
        modalities: tuple[str, ...] = ("image", "audio")
    else:
        modalities = tuple(m for m in ("image", "audio") if m in raw)
    settings = MultimodalSettings(enabled, modalities if enabled else (),
                                  max(1, int(max_bytes)))
    return settings if settings.active else None


def classify_multimodal_path(path: str | os.PathLike[str],
                             settings: MultimodalSettings | None) -> str | None:
    """``"image"``/``"audio"`` when ``path`` has an enabled modality's extension (case
    insensitive), else ``None`` (OpenClaw's ``classifyMemoryMultimodalPath``).

    >>> s = MultimodalSettings(True, ("image",))
    >>> classify_multimodal_path("x/Photo.PNG", s), classify_multimodal_path("a.wav", s)
    ('image', None)
    """
    if settings is None or not settings.active:
        return None
    lower = os.fspath(path).lower()
    for modality in settings.modalities:
        if lower.endswith(MULTIMODAL_SPECS[modality][1]):
            return modality
    return None


def _sniff(head: bytes) -> str | None:
    """The MIME type of the first bytes of a file (the formats OpenClaw's ``file-type``
    recognises among the multimodal ones), ``None`` when unknown."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio/wav"
    if head.startswith(b"fLaC"):
        return "audio/flac"
    if head.startswith(b"ID3"):
        return "audio/mpeg"
    if head.startswith(b"OggS"):
        if b"OpusHead" in head[:64]:
            return "audio/opus"
        if b"\x01vorbis" in head[:64] or b"FLAC" in head[:64]:
            return "audio/ogg"
        return "application/ogg"
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx"):
            return "image/heic"
        if brand in (b"mif1", b"msf1"):
            return "image/heif"
        if brand in (b"M4A ", b"M4B "):
            return "audio/x-m4a"
        return None
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xF6 == 0xF0:
        return "audio/aac"
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        return "audio/mpeg"
    return None


def detect_mime(head: bytes, path: str | os.PathLike[str]) -> str | None:
    """OpenClaw's ``detectMime`` for multimodal files: the sniffed type when the bytes are
    recognised, else the extension's type.

    >>> detect_mime(b"RIFF\\0\\0\\0\\0WAVEfmt ", "clip.png"), detect_mime(b"text", "a.png")
    ('audio/wav', 'image/png')
    """
    sniffed = _sniff(bytes(head[:512]))
    if sniffed is not None:
        return sniffed
    return _MIME_BY_EXT.get(os.path.splitext(os.fspath(path))[1].lower())


@dataclass(frozen=True)
class MultimodalFile(LoadedFile):
    """An image/audio memory file: ``text`` is its label (``"Image file: <path>"``), ``hash``
    OpenClaw's chunk hash (sha256 of ``{path, contentText, mimeType, dataHash}``)."""

    modality: str = "image"
    mime_type: str = ""
    data_hash: str = ""


def _read_multimodal(file: MemoryFile, modality: str,
                     settings: MultimodalSettings) -> MultimodalFile | SkippedFile:
    abs_path = os.fspath(file.abs_path)
    try:
        st = os.lstat(abs_path)
        if not stat_mod.S_ISREG(st.st_mode):
            return SkippedFile(file.path, "not a regular file")
        if st.st_size > settings.max_file_bytes:
            return SkippedFile(file.path, f"{modality} file larger than multimodal."
                                          f"maxFileBytes ({st.st_size} > "
                                          f"{settings.max_file_bytes} bytes)")
        with os.fdopen(_open_confined(file), "rb") as handle:
            data = handle.read(settings.max_file_bytes + 1)
    except FileNotFoundError:
        return SkippedFile(file.path, "missing")
    except UnsafePath:
        return SkippedFile(file.path, "symlink (a directory on its path was replaced by a link "
                           "after discovery)")
    except OSError as exc:
        return SkippedFile(file.path, f"unreadable: {_errno_text(exc)}")
    mime = detect_mime(data[:512], abs_path)
    if not mime or not mime.startswith(f"{modality}/"):
        return SkippedFile(file.path, f"content is {mime or 'unknown'}, not {modality}")
    label = f"{MULTIMODAL_SPECS[modality][0]}: {file.path}"
    data_hash = hashlib.sha256(data).hexdigest()
    chunk_json = json.dumps({"path": file.path, "contentText": label, "mimeType": mime,
                             "dataHash": data_hash}, separators=(",", ":"), ensure_ascii=False)
    return MultimodalFile(path=file.path, abs_path=file.abs_path, source=file.source,
                          text=label, hash=hashlib.sha256(chunk_json.encode("utf-8")).hexdigest(),
                          mtime_ms=st.st_mtime_ns // 1_000_000, size=st.st_size,
                          modality=modality, mime_type=mime, data_hash=data_hash)


def load_multimodal_input(file: MultimodalFile) -> EmbeddingInput | None:
    """The embedding input of a multimodal file: its label as a text part plus the bytes as
    an ``inline-data`` part (base64). ``None`` when the file changed since it was scanned
    (size or sha256), as OpenClaw's ``loadMultimodalEmbeddingInput``."""
    import base64

    from memlab.embedding_input import EmbeddingInput

    try:
        with os.fdopen(_open_confined(file), "rb") as handle:
            data = handle.read(file.size + 1)
    except OSError:
        return None
    if len(data) != file.size or hashlib.sha256(data).hexdigest() != file.data_hash:
        return None
    return EmbeddingInput(file.text, [
        {"type": "text", "text": file.text},
        {"type": "inline-data", "mimeType": file.mime_type,
         "data": base64.b64encode(data).decode("ascii")},
    ], hash=file.hash)
