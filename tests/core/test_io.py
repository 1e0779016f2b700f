"""Writing outputs: atomic replacement with the user's umask, write-through for links and devices, stdout, trees."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ropecheck.errors import UsageError
from ropecheck.io import check_writable, replace_tree, round_floats, write_output


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def test_new_files_get_the_users_umask(tmp_path: Path, umask_027: None) -> None:
    write_output(tmp_path / "a.json", "{}")
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o640


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "a.md"
    target.write_text("old")
    target.chmod(0o604)
    write_output(target, "new")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o604


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_output(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_fifo_is_written_through_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so the writer does not block
    try:
        write_output(fifo, "hello")
        assert os.read(fd, 100) == b"hello"
    finally:
        os.close(fd)
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_dash_and_dev_stdout_mean_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    write_output("-", "one\n")
    write_output("/dev/stdout", "two\n")
    assert capfd.readouterr().out == "one\ntwo\n"
    assert not Path("-").exists()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: (d / "file").write_text("x") and d / "file" / "out.json", "is not a folder"),
        (lambda d: d, "is a folder"),
    ],
    ids=["under-a-file", "a-folder"],
)
def test_unwritable_paths_are_usage_errors(tmp_path: Path, make, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        check_writable(make(tmp_path), "--json")


def test_replace_tree_swaps_the_whole_folder_and_keeps_what_it_is_told(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    replace_tree(out, {"verify/gone.md": "stale page of an adapter skipped this time", "a.md": "a"}, keep=bool)
    (out / "benchmarks").mkdir()
    (out / "benchmarks" / "b.md").write_text("kept: not ropecheck's")
    replace_tree(out, {"verify/new.md": "fresh", "README.md": "top"}, keep=lambda rel: not rel.startswith("verify/"))
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        ".ropecheck-manifest.json",
        "README.md",
        "a.md",
        "benchmarks/b.md",
        "verify/new.md",
    ]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no hidden build folder left behind"


def test_round_floats_keeps_six_significant_digits() -> None:
    assert round_floats({"a": [0.123456789, 1.0000000000000002], "b": "x", "c": 3}) == {
        "a": [0.123457, 1.0],
        "b": "x",
        "c": 3,
    }


def test_a_failure_while_writing_a_tree_leaves_the_old_tree_and_no_litter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill (here: an exception) in the write phase leaves the old report whole, and no hidden build folder."""
    out = tmp_path / "reports"
    replace_tree(out, {"README.md": "old"}, keep=bool)
    calls = {"n": 0}
    real = Path.write_bytes

    def failing(self: Path, data: bytes) -> int:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    with pytest.raises(KeyboardInterrupt):
        replace_tree(out, {"README.md": "new", "b.md": "new"}, keep=lambda rel: False)
    monkeypatch.undo()
    assert (out / "README.md").read_text() == "old" and not (out / "b.md").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["reports"]
