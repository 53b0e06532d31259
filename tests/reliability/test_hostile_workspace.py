"""Issue 18, workspace items: reads confined to the workspace by descriptor (6), any nesting
depth (13), file names that are not UTF-8 skipped and named (15)."""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

from memlab.workspace import list_memory_files, read_memory_files, scan_workspace


def test_directory_swapped_for_a_link_after_discovery_is_not_followed(workspace, tmp_path):
    sub = workspace / "memory" / "projects"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "billing.md").write_text("TOP SECRET outside the workspace\n")
    files = list_memory_files(workspace)
    assert "memory/projects/billing.md" in [f.path for f in files]
    shutil.rmtree(sub)  # the race: between discovery and reading, the folder becomes a link
    os.symlink(outside, sub)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded, skipped = read_memory_files(files)
    assert not any("TOP SECRET" in f.text for f in loaded)
    assert any(s.path == "memory/projects/billing.md" and "symlink" in s.reason
               for s in skipped), skipped


def test_extra_path_swapped_for_a_link_is_not_followed(workspace, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "n.md").write_text("fine\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "n.md").write_text("TOP SECRET\n")
    files = list_memory_files(workspace, [str(notes)])
    notes.rename(tmp_path / "notes-old")
    os.symlink(outside, notes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded, _ = read_memory_files(files)
    assert not any("TOP SECRET" in f.text for f in loaded)


def test_deeply_nested_directories_are_walked(workspace):
    deep = workspace / "memory"
    for _ in range(1200):  # one level at a time (mkdir(parents=True) recurses itself)
        deep = deep / "d"
        deep.mkdir()
    (deep / "bottom.md").write_text("the bottom of the well\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded, skipped = scan_workspace(workspace)
    try:
        bottom = [f for f in loaded if f.path.endswith("bottom.md")]
        assert not skipped, [(s.path[-60:], s.reason) for s in skipped]
        assert len(bottom) == 1 and bottom[0].text == "the bottom of the well\n"
        assert bottom[0].path.split("/").count("d") == 1200
    finally:  # pytest's own clean-up of old temp folders (shutil.rmtree) recurses per level
        subprocess.run(["rm", "-rf", str(workspace / "memory" / "d")], check=True)


@pytest.fixture
def bad_name_workspace(workspace) -> Path:
    raw = os.fsencode(workspace / "memory") + b"/caf\xe9-\xff.md"
    fd = os.open(raw, os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"deploy notes in a badly named file\n")
    os.close(fd)
    os.mkdir(os.fsencode(workspace / "memory") + b"/dir\xfe")
    return workspace


@pytest.mark.parametrize("command", [["index"], ["search", "staging database"],
                                     ["search", "staging database", "--no-index"]])
def test_file_names_that_are_not_utf8_are_skipped_and_named(cli, bad_name_workspace,
                                                            none_config, tmp_path, command):
    verb, *rest = command
    result = cli(verb, bad_name_workspace, *rest[:1], "--config", none_config, *rest[1:],
                 *(["--index", tmp_path / "i.sqlite"] if "--no-index" not in rest else []))
    assert result.code == 0, result
    assert "skipped memory/caf\\xe9-\\xff.md: file name is not valid UTF-8" in result.err, result
    assert "memory/dir\\xfe" in result.err
    if verb == "search":
        assert "MEMORY.md" in result.out
