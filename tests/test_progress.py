"""memlab.progress: bars when asked and interactive (terminal or notebook), silent otherwise."""

import io

import pytest

from memlab.progress import bar, show_progress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMLAB_PROGRESS", raising=False)
    assert show_progress(True, _Tty()) and show_progress(None, _Tty())
    assert not show_progress(False, _Tty())  # not asked
    assert not show_progress(True, io.StringIO())  # a pipe / CI log
    monkeypatch.setenv("MEMLAB_PROGRESS", "0")
    assert not show_progress(True, _Tty())  # silenced
    monkeypatch.setenv("MEMLAB_PROGRESS", "1")
    assert show_progress(True, io.StringIO())  # forced on
    assert not show_progress(False, io.StringIO())


def test_notebook_kernel_counts_as_interactive(monkeypatch: pytest.MonkeyPatch) -> None:
    import memlab.progress as progress

    monkeypatch.delenv("MEMLAB_PROGRESS", raising=False)
    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    assert show_progress(True, io.StringIO())


def test_silent_bar_writes_nothing(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.delenv("MEMLAB_PROGRESS", raising=False)
    with bar(total=5, desc="x", progress=True) as b:  # stderr is captured: not a terminal
        b.update(5)
    assert capsys.readouterr().err == ""


def test_index_cli_is_silent_when_not_interactive(tmp_path, capsys,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from memlab.cli import main

    monkeypatch.delenv("MEMLAB_PROGRESS", raising=False)
    (tmp_path / "MEMORY.md").write_text("# Memory\n\nhello\n")
    cfg = tmp_path / "c.json"
    cfg.write_text('{"provider": "none"}')
    assert main(["index", str(tmp_path), "--config", str(cfg),
                 "--index", str(tmp_path / "i.sqlite")]) == 0
    err = capsys.readouterr().err
    assert "file/s" not in err and "%|" not in err
