"""Reading a user's input file: regular files only, decided without blocking, bounded by the bytes read.

A FIFO with no writer, a device such as /dev/zero, a socket or a folder is refused at once,
naming the argument and the path; a file is refused past its limit by what was read, never by
``st_size`` alone. Each call runs under an alarm, so a read that blocks fails the test instead
of hanging it.
"""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from ropecheck.errors import UsageError
from ropecheck.inputs import read_input


@pytest.fixture(autouse=True)
def _no_blocking() -> Iterator[None]:
    def fail(signum: int, frame: object) -> None:
        raise TimeoutError("the read blocked")

    before = signal.signal(signal.SIGALRM, fail)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(b"$$x = x$$\n")
    assert read_input(path, name="FILE", limit=100) == b"$$x = x$$\n"


def test_a_file_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(b"x" * 64)
    assert len(read_input(path, name="FILE", limit=64)) == 64
    path.write_bytes(b"x" * 65)
    with pytest.raises(UsageError, match=r"^FILE .*doc\.md: larger than 64 bytes"):
        read_input(path, name="FILE", limit=64)


def test_a_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_bytes(b"{}")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    assert read_input(tmp_path / "link.json", name="--hf-config", limit=10) == b"{}"


def test_a_fifo_without_a_writer_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match=r"^--hf-config .*pipe: is a FIFO \(a named pipe\), not a regular file"):
        read_input(fifo, name="--hf-config", limit=100)


def test_a_symlink_to_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "config.json").symlink_to(tmp_path / "pipe")
    with pytest.raises(UsageError, match="is a FIFO"):
        read_input(tmp_path / "config.json", name="--hf-config", limit=100)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_an_endless_device_is_refused_without_reading() -> None:
    with pytest.raises(UsageError, match=r"^FILE /dev/zero: is a character device, not a regular file"):
        read_input("/dev/zero", name="FILE", limit=1 << 20)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"is a folder, not a regular file"):
        read_input(tmp_path, name="FILE", limit=100)


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(path))
        with pytest.raises(UsageError, match="is a socket, not a regular file"):
            read_input(path, name="FILE", limit=100)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^FILE .*missing\.md: no such file$"):
        read_input(tmp_path / "missing.md", name="FILE", limit=100)


def test_the_error_class_can_be_chosen(tmp_path: Path) -> None:
    class Custom(Exception):
        pass

    with pytest.raises(Custom, match="is a folder"):
        read_input(tmp_path, name="config file", limit=100, error=Custom)


def test_a_file_larger_on_disk_than_its_stat_says_is_bounded_by_what_is_read(tmp_path: Path) -> None:
    """The limit holds on the bytes read: a sparse 1 GiB file costs at most limit + 1 bytes of reading."""
    path = tmp_path / "sparse.md"
    with path.open("wb") as fh:
        fh.truncate(1 << 30)
    with pytest.raises(UsageError, match="larger than 1 KiB"):
        read_input(path, name="FILE", limit=1 << 10)
