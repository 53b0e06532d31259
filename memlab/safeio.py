"""File access that cannot be redirected: no writes through symbolic or hard links, and reads
confined to a directory by descriptor.

Two rules memlab keeps everywhere (SECURITY.md):

* every file memlab opens for writing is opened with ``O_NOFOLLOW`` and must be a regular
  file with one link (:func:`open_for_writing`), so a planted ``<index>.lock`` symlink or a
  hard link to another file is refused instead of truncated;
* workspace files are read by walking from the workspace (or extra path) directory one
  component at a time with ``openat``-style calls (``dir_fd`` + ``O_NOFOLLOW``,
  :func:`open_beneath`), so a directory swapped for a symlink between discovery and reading
  cannot make memlab read a file outside it.

>>> import tempfile, os, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp()); (root / "a").mkdir()
>>> _ = (root / "a" / "n.md").write_text("hi")
>>> fd = open_beneath(root, ["a", "n.md"]); os.read(fd, 10); os.close(fd)
b'hi'
>>> os.symlink(root / "a", root / "link")
>>> open_beneath(root, ["link", "n.md"])
Traceback (most recent call last):
...
memlab.safeio.UnsafePath: refusing to follow the symbolic link link (under ...); ...workspace
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

__all__ = ["UnsafePath", "open_beneath", "open_for_writing", "path_parts", "refuse_link"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class UnsafePath(OSError):
    """A path memlab refuses to use: a symbolic link, a hard link or a non-regular file where
    a regular file is expected. An ``OSError``, so every caller's file-error handling (and the
    command line's exit code 2) applies."""

    def __init__(self, message: str):
        super().__init__(errno.ELOOP, message)

    def __str__(self) -> str:
        return str(self.strerror)


def refuse_link(path: str | os.PathLike[str]) -> None:
    """Raise :class:`UnsafePath` when ``path`` exists and is a symbolic link.

    >>> refuse_link("/nonexistent/path")   # a missing path is fine (it will be created)
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePath(f"refusing to use {os.fspath(path)}: it is a symbolic link (memlab "
                         "never writes through links); remove it or choose another path")


def open_for_writing(path: str | os.PathLike[str], flags: int = os.O_RDWR | os.O_CREAT,
                     mode: int = 0o644) -> int:
    """``os.open`` for writing that refuses symbolic links (``O_NOFOLLOW``), hard links
    (``st_nlink > 1``) and anything but a regular file. Returns the descriptor.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); os.symlink("/etc/hostname", f"{d}/x.lock")
    >>> open_for_writing(f"{d}/x.lock")
    Traceback (most recent call last):
    ...
    memlab.safeio.UnsafePath: refusing to write .../x.lock: it is a symbolic link ...
    """
    where = os.fspath(path)
    try:
        fd = os.open(where, flags | _NOFOLLOW | _CLOEXEC | _NONBLOCK, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.EMLINK and os.path.islink(where)):
            raise UnsafePath(f"refusing to write {where}: it is a symbolic link (memlab never "
                             "writes through links); remove it or choose another path") from None
        raise
    st = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(st.st_mode):
        problem = "it is not a regular file"
    elif st.st_nlink > 1:
        problem = f"it has {st.st_nlink} hard links (it may be another file)"
    if problem:
        os.close(fd)
        raise UnsafePath(f"refusing to write {where}: {problem}; remove it or choose another "
                         "path")
    if _NONBLOCK:
        os.set_blocking(fd, True)
    return fd


def open_beneath(root: str | os.PathLike[str] | int, parts: Sequence[str], *,
                 directory: bool = False) -> int:
    """Open ``root/parts[0]/.../parts[-1]`` for reading without following any symbolic link
    below ``root``: each directory is opened relative to its parent's descriptor with
    ``O_NOFOLLOW``, so the file opened is the one at that place, whatever is swapped
    meanwhile. ``root`` itself (a path the user gave, or a descriptor) may be reached through
    links. ``directory=True`` opens the last part as a directory. The last part of a file is
    opened non-blocking (a FIFO cannot hang the reader); check ``fstat`` of the result.

    Raises :class:`UnsafePath` when a component is a symbolic link, ``OSError`` otherwise.
    """
    names = [p for p in parts if p not in ("", ".")]
    if any(p == ".." or "/" in p for p in names):
        raise UnsafePath(f"refusing the path {'/'.join(names)!r}: it leaves its directory")
    own_root = not isinstance(root, int)
    current = os.open(os.fspath(root), os.O_RDONLY | _DIRECTORY | _CLOEXEC) if own_root \
        else root
    try:
        for i, name in enumerate(names):
            last = i == len(names) - 1
            flags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC
            flags |= _DIRECTORY if (not last or directory) else _NONBLOCK
            try:
                fd = os.open(name, flags, dir_fd=current)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(name, current):
                    where = root if own_root else "its directory"
                    raise UnsafePath(f"refusing to follow the symbolic link "
                                     f"{'/'.join(names[:i + 1])} (under {os.fspath(where)}); "
                                     "memlab never follows links in a workspace") from None
                raise
            if current is not root:
                os.close(current)
            current = fd
        if current is root:
            return os.dup(current)
        return current
    except BaseException:
        if current is not root:
            os.close(current)
        raise


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def path_parts(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> list[str]:
    """The components of ``path`` below ``root`` (both absolute, ``path`` lexically under
    ``root``).

    >>> path_parts("/w/memory/a.md", "/w")
    ['memory', 'a.md']
    """
    rel = os.path.relpath(os.fspath(path), os.fspath(root))
    if rel == ".":
        return []
    return list(Path(rel).parts)
