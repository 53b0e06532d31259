"""memlab.workspace: OpenClaw's memory-file discovery, loading and dated/evergreen rules.

Expected orders and paths follow OpenClaw 2026.7.35's listMemoryFiles (they were also
cross-checked against the real function run under Node on similar trees); the
dated/evergreen tables were cross-checked against the real temporal-decay.ts regexes.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import time
import warnings
from pathlib import Path

import pytest

from memlab import workspace as ws_mod
from memlab.chunking import chunk_markdown
from memlab.workspace import (
    LoadedFile,
    MemlabWarning,
    MemoryFile,
    SkippedFile,
    dated_path_date,
    is_evergreen,
    is_memory_path,
    list_memory_files,
    read_memory_files,
    scan_workspace,
)


def write(path: Path, content: str | bytes = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def paths(files: list[MemoryFile] | list[LoadedFile]) -> list[str]:
    return [f.path for f in files]


def quiet_scan(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemlabWarning)
        return scan_workspace(*args, **kwargs)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


# ------------------------------------------------------------------ root MEMORY.md


def test_missing_workspace_raises(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError, match="memory workspace not found"):
        list_memory_files(missing)
    with pytest.raises(FileNotFoundError):
        scan_workspace(missing)


def test_empty_workspace(ws: Path) -> None:
    assert list_memory_files(ws) == []
    assert scan_workspace(ws) == ([], [])


def test_memory_md_exact_casing_only(ws: Path) -> None:
    write(ws / "MEMORY.md")
    write(ws / "memory.md")
    write(ws / "Memory.md")
    files = list_memory_files(ws)
    assert paths(files) == ["MEMORY.md"]
    assert files[0] == MemoryFile("MEMORY.md", ws / "MEMORY.md", "memory")
    _, skipped = quiet_scan(ws)
    assert {s.path for s in skipped} == {"memory.md", "Memory.md"}
    assert all("exactly MEMORY.md" in s.reason for s in skipped)


def test_lowercase_memory_md_alone_is_not_indexed(ws: Path) -> None:
    write(ws / "memory.md")
    assert list_memory_files(ws) == []


def test_root_memory_md_symlink_skipped(ws: Path, tmp_path: Path) -> None:
    target = write(tmp_path / "real.md")
    os.symlink(target, ws / "MEMORY.md")
    assert list_memory_files(ws) == []
    _, skipped = quiet_scan(ws)
    assert skipped == [SkippedFile("MEMORY.md", "symlink")]


def test_root_memory_md_directory_skipped(ws: Path) -> None:
    (ws / "MEMORY.md").mkdir()
    assert list_memory_files(ws) == []
    _, skipped = quiet_scan(ws)
    assert skipped == [SkippedFile("MEMORY.md", "not a regular file")]


def test_other_root_files_not_indexed(ws: Path) -> None:
    write(ws / "DREAMS.md")
    write(ws / "USER.md")
    write(ws / "notes.md")
    assert list_memory_files(ws) == []


# ------------------------------------------------------------------ memory/ walk


def test_memory_dir_order_and_filters(ws: Path) -> None:
    mem = ws / "memory"
    for name in ["b.md", "a-b.md", "a/x.md", "a/b/c.md", "B.md", "é.md", "10.md", "9.md",
                 "notes.txt", "upper.MD", ".md", ".openclaw-repair/r.md",
                 "deep/.openclaw-repair/r.md", "deep/y.md"]:
        write(mem / name)
    write(ws / "MEMORY.md")
    # Node's readdir order on POSIX = strcmp of names, directories walked in place:
    # "10.md" < "9.md" < "B.md" < "a" < "a-b.md" ("a" is a prefix) < "b.md" < "deep" < "é.md";
    # ".md" sorts first. Inside a/: "b" < "x.md".
    assert paths(list_memory_files(ws)) == [
        "MEMORY.md",
        "memory/.md",
        "memory/10.md",
        "memory/9.md",
        "memory/B.md",
        "memory/a/b/c.md",
        "memory/a/x.md",
        "memory/a-b.md",
        "memory/b.md",
        "memory/deep/y.md",
        "memory/é.md",
    ]
    _, skipped = quiet_scan(ws)
    assert [s.path for s in skipped] == ["memory/.openclaw-repair", "memory/deep/.openclaw-repair"]
    assert all(s.reason == "repair directory (not descended)" for s in skipped)


def test_symlinks_under_memory_skipped(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside / "secret.md")
    write(outside / "sub" / "deep.md")
    write(ws / "memory" / "real.md")
    os.symlink(outside / "secret.md", ws / "memory" / "out.md")  # points outside
    os.symlink(ws / "memory" / "real.md", ws / "memory" / "self.md")  # points inside
    os.symlink(outside / "sub", ws / "memory" / "linkdir")
    assert paths(list_memory_files(ws)) == ["memory/real.md"]
    _, skipped = quiet_scan(ws)
    assert skipped == [
        SkippedFile("memory/linkdir", "symlink"),
        SkippedFile("memory/out.md", "symlink"),
        SkippedFile("memory/self.md", "symlink"),
    ]


def test_symlinked_memory_dir_skipped(ws: Path, tmp_path: Path) -> None:
    real = tmp_path / "real-memory"
    write(real / "2026-01-02.md")
    os.symlink(real, ws / "memory")
    write(ws / "MEMORY.md")
    assert paths(list_memory_files(ws)) == ["MEMORY.md"]
    _, skipped = quiet_scan(ws)
    assert skipped == [SkippedFile("memory", "symlink")]


def test_fifo_named_md_is_not_indexed(ws: Path) -> None:
    write(ws / "memory" / "a.md")
    os.mkfifo(ws / "memory" / "pipe.md")
    assert paths(list_memory_files(ws)) == ["memory/a.md"]
    _, skipped = quiet_scan(ws)
    assert skipped == [SkippedFile("memory/pipe.md", "not a regular file")]


# ------------------------------------------------------------------ extra paths


def test_extra_paths_relative_absolute_file_dir(ws: Path, tmp_path: Path) -> None:
    write(ws / "notes" / "n1.md")
    write(ws / "notes" / "k" / "n2.md")
    write(ws / "notes" / "skip.txt")
    write(ws / "single.md")
    outside = tmp_path / "outside"
    write(outside / "o.md")
    write(outside / "deep" / "d.md")
    files = list_memory_files(ws, ["notes", str(outside), "./single.md"])
    # extra dirs are walked in the same readdir order; outside paths become "../…"
    assert paths(files) == [
        "notes/k/n2.md",
        "notes/n1.md",
        "../outside/deep/d.md",
        "../outside/o.md",
        "single.md",
    ]
    assert all(f.source == "memory" for f in files)
    assert files[2].abs_path == outside / "deep" / "d.md"


def test_extra_paths_home_expansion(ws: Path, tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "home"
    write(home / "notes" / "h.md")
    write(home / "top.md")
    monkeypatch.setenv("HOME", str(home))
    assert paths(list_memory_files(ws, ["~/notes", "~/top.md"])) == [
        "../home/notes/h.md",
        "../home/top.md",
    ]
    # "~" alone is the home directory, walked recursively
    assert paths(list_memory_files(ws, ["~"])) == ["../home/notes/h.md", "../home/top.md"]


def test_extra_paths_skips(ws: Path, tmp_path: Path) -> None:
    write(ws / "plain.txt")
    target = write(tmp_path / "t.md")
    os.symlink(target, ws / "link.md")
    os.symlink(tmp_path, ws / "linkdir")
    files, skipped = quiet_scan(ws, ["plain.txt", "missing.md", "link.md", "linkdir", "  ", ""])
    assert files == []
    assert skipped == [
        SkippedFile("plain.txt", "not a .md file"),
        SkippedFile("missing.md", "extra path not found"),
        SkippedFile("link.md", "symlink"),
        SkippedFile("linkdir", "symlink"),
    ]


def test_extra_path_string_rejected(ws: Path) -> None:
    with pytest.raises(TypeError):
        list_memory_files(ws, "notes")  # type: ignore[arg-type]


def test_dedup_by_realpath_keeps_first(ws: Path, tmp_path: Path) -> None:
    write(ws / "MEMORY.md")
    write(ws / "memory" / "a.md")
    outside = tmp_path / "outside"
    write(outside / "o.md")
    os.symlink(outside, ws / "alias")  # a symlinked *parent* is followed by lstat
    files, skipped = quiet_scan(
        ws, ["alias/o.md", str(outside / "o.md"), "memory", "MEMORY.md", "."]
    )
    assert paths(files) == ["MEMORY.md", "memory/a.md", "alias/o.md"]
    assert SkippedFile("../outside/o.md", "duplicate of alias/o.md") in skipped
    # meeting the same path twice (memory/ and extra "memory") is not reported
    assert not any(s.path == "memory/a.md" for s in skipped)


def test_extra_path_workspace_root_skips_legacy_and_repair(ws: Path) -> None:
    write(ws / "memory.md")
    write(ws / "DREAMS.md")
    write(ws / ".openclaw-repair" / "root-memory" / "MEMORY.md")
    # an explicit extra path to the legacy file is skipped too
    assert paths(list_memory_files(ws, [".", "memory.md"])) == ["DREAMS.md"]


# ------------------------------------------------------------------ reading


def test_read_memory_files_values(ws: Path) -> None:
    content = "# Notes\ncafé ☕ 記憶\n"
    path = write(ws / "MEMORY.md", content)
    os.utime(path, ns=(1_700_000_000_123_456_789, 1_700_000_000_123_456_789))
    loaded, skipped = read_memory_files(list_memory_files(ws))
    assert skipped == []
    (f,) = loaded
    raw = content.encode("utf-8")
    assert f == LoadedFile(
        path="MEMORY.md",
        abs_path=ws / "MEMORY.md",
        source="memory",
        text=content,
        hash=hashlib.sha256(raw).hexdigest(),
        mtime_ms=1_700_000_000_123,
        size=len(raw),
    )


def test_bom_is_kept_like_node(ws: Path) -> None:
    write(ws / "MEMORY.md", b"\xef\xbb\xbfhi")
    (f,), _ = read_memory_files(list_memory_files(ws))
    assert f.text == "\ufeffhi"


def test_bad_files_skipped_with_reasons_and_warnings(ws: Path) -> None:
    mem = ws / "memory"
    write(mem / "binary.md", b"abc\x00def")
    write(mem / "latin1.md", b"caf\xe9 au lait")
    write(mem / "empty.md", b"")
    write(mem / "good.md", "ok\n")
    with pytest.warns(MemlabWarning) as record:
        loaded, skipped = scan_workspace(ws)
    assert paths(loaded) == ["memory/empty.md", "memory/good.md"]
    assert skipped == [
        SkippedFile("memory/binary.md", "binary file"),
        SkippedFile("memory/latin1.md", "invalid UTF-8 (byte offset 3)"),
    ]
    messages = [str(w.message) for w in record if issubclass(w.category, MemlabWarning)]
    assert len(messages) == 2
    assert "memory/binary.md" in messages[0] and "binary file" in messages[0]
    empty = loaded[0]
    assert empty.text == "" and empty.size == 0
    assert chunk_markdown(empty.text) == []


def test_lossy_mode_decodes_like_node(ws: Path) -> None:
    raw = b"a\xffb\x00c\xed\xa0\x80"
    write(ws / "MEMORY.md", raw)
    (f,), skipped = read_memory_files(list_memory_files(ws), strict=False)
    assert skipped == []
    # Buffer.toString("utf-8"): one U+FFFD per maximal bad subpart; NUL kept.
    assert f.text == "a\ufffdb\x00c\ufffd\ufffd\ufffd"
    assert f.hash == hashlib.sha256(f.text.encode("utf-8")).hexdigest()
    assert f.size == len(raw)


def test_unreadable_paths_do_not_crash(ws: Path) -> None:
    (ws / "dir.md").mkdir()
    os.mkfifo(ws / "pipe.md")
    files = [
        MemoryFile("dir.md", ws / "dir.md"),
        MemoryFile("pipe.md", ws / "pipe.md"),  # must not block on open()
        MemoryFile("gone.md", ws / "gone.md"),
    ]
    with pytest.warns(MemlabWarning):
        loaded, skipped = read_memory_files(files)
    assert loaded == []
    assert skipped == [
        SkippedFile("dir.md", "not a regular file (directory)"),
        SkippedFile("pipe.md", "not a regular file (special file)"),
        SkippedFile("gone.md", "missing"),
    ]


def test_permission_error_reported(ws: Path, monkeypatch) -> None:
    write(ws / "MEMORY.md")
    real_open = os.open

    def deny(path, flags, *args, **kwargs):
        if os.fspath(path).endswith("MEMORY.md"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(ws_mod.os, "open", deny)
    with pytest.warns(MemlabWarning, match="Permission denied"):
        loaded, skipped = scan_workspace(ws)
    assert loaded == []
    assert skipped == [SkippedFile("MEMORY.md", "unreadable: Permission denied")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read mode-000 files")
def test_chmod_000_reported(ws: Path) -> None:
    path = write(ws / "MEMORY.md")
    path.chmod(0)
    try:
        _, skipped = quiet_scan(ws)
    finally:
        path.chmod(0o644)
    assert skipped == [SkippedFile("MEMORY.md", "unreadable: Permission denied")]


def test_five_megabyte_single_line_file(ws: Path) -> None:
    write(ws / "MEMORY.md", "word " * 1_000_000)
    start = time.perf_counter()
    (f,), skipped = read_memory_files(list_memory_files(ws))
    assert time.perf_counter() - start < 2.0
    assert f.size == 5_000_000 and len(f.text) == 5_000_000


# ------------------------------------------------------------------ dated / evergreen

D = datetime.date

DATED_CASES = [
    # path, 2026.7 date, 2026.8 date
    ("memory/2026-01-02.md", D(2026, 1, 2), D(2026, 1, 2)),
    ("./memory/2026-01-02.md", D(2026, 1, 2), D(2026, 1, 2)),
    ("memory\\2026-01-02.md", D(2026, 1, 2), D(2026, 1, 2)),
    ("notes/memory/2026-01-02.md", D(2026, 1, 2), D(2026, 1, 2)),  # (^|/) is not anchored
    ("../extra/memory/2026-01-02.md", D(2026, 1, 2), D(2026, 1, 2)),
    ("xmemory/2026-01-02.md", None, None),
    ("memory/2024-02-29.md", D(2024, 2, 29), D(2024, 2, 29)),
    ("memory/2026-02-29.md", None, None),  # not a leap year
    ("memory/2026-13-01.md", None, None),
    ("memory/2026-01-00.md", None, None),
    ("memory/0099-01-01.md", None, None),  # JS Date.UTC maps years < 100 to 19xx
    ("memory/0100-01-01.md", D(100, 1, 1), D(100, 1, 1)),
    ("memory/2026-01-02-trip.md", None, D(2026, 1, 2)),  # slug: 2026.8 only
    ("memory/dreaming/light/2026-01-02.md", None, D(2026, 1, 2)),  # nested: 2026.8 only
    ("memory/a/b/2026-01-02-x-y.md", None, D(2026, 1, 2)),
    ("memory/2026-1-02.md", None, None),
    ("memory/2026-01-02.md\n", None, None),  # JS $ does not match before a final newline
    ("memory/\uff12\uff10\uff12\uff16-01-02.md", None, None),  # JS \d is ASCII only
    ("memory/2026-01-02.MD", None, None),
    ("memory/2026-01-02-.md", None, None),
    ("memory//2026-01-02.md", None, None),
    ("MEMORY.md", None, None),
]


@pytest.mark.parametrize(("path", "d7", "d8"), DATED_CASES)
def test_dated_path_date(path: str, d7: D | None, d8: D | None) -> None:
    assert dated_path_date(path) == d7
    assert dated_path_date(path, rule="2026.7") == d7
    assert dated_path_date(path, rule="2026.8") == d8


EVERGREEN_CASES = [
    # path, 2026.7, 2026.8   (source "memory")
    ("MEMORY.md", True, True),
    ("./MEMORY.md", True, True),
    ("memory.md", False, False),
    ("USER.md", False, True),
    ("DREAMS.md", False, False),
    ("memory/projects.md", True, True),
    ("memory/2026-01-02.md", False, False),
    ("memory/2026-01-02-trip.md", True, False),
    ("memory/dreaming/light/2026-01-02.md", True, False),
    # matches the dated pattern but is not a real date: neither dated nor evergreen (mtime)
    ("memory/2026-02-30.md", False, False),
    ("notes/x.md", False, False),
    ("../x/memory/a.md", False, False),
    ("Memory/a.md", False, False),
]


@pytest.mark.parametrize(("path", "e7", "e8"), EVERGREEN_CASES)
def test_is_evergreen(path: str, e7: bool, e8: bool) -> None:
    assert is_evergreen(path) == e7
    assert is_evergreen(path, "memory", rule="2026.8") == e8


def test_evergreen_only_for_memory_source() -> None:
    assert is_evergreen("MEMORY.md", source="sessions") is False
    assert is_evergreen("memory/projects.md", source="sessions") is False


def test_invalid_date_is_neither_dated_nor_evergreen() -> None:
    assert dated_path_date("memory/2026-02-30.md") is None
    assert is_evergreen("memory/2026-02-30.md") is False


def test_unknown_rule() -> None:
    with pytest.raises(ValueError):
        dated_path_date("memory/2026-01-02.md", rule="2027.1")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        is_evergreen("MEMORY.md", rule="x")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("MEMORY.md", True),
        ("dreams.md", True),
        ("DREAMS.md", True),
        ("memory/a.md", True),
        ("./memory/a.md", True),
        ("../memory/a.md", True),  # OpenClaw strips every leading "." and "/"
        ("memory.md", False),
        ("notes/a.md", False),
        ("", False),
    ],
)
def test_is_memory_path(path: str, expected: bool) -> None:
    assert is_memory_path(path) is expected
