"""Reading a file a user names: a regular file only, decided without blocking, bounded by the bytes read.

Every command that reads a user's file (``--hf-config``, ``audit FILE``) reads it through
:func:`read_input`. A FIFO with no writer would block ``open()`` forever, a device such as
``/dev/zero`` never ends, a socket cannot be opened, a folder is not a document: each is
refused at once with one line naming the argument and the path.

Design constraints: standard library only, at the bottom of the package. The path is
``stat``-ed first (following links, so a link to a FIFO is a FIFO), then opened with
``O_NONBLOCK`` -- a FIFO swapped in after the check still cannot block the open -- and the
open descriptor is checked again with ``fstat`` to close that race. The size limit holds on
the bytes actually read (at most ``limit + 1``), never on ``st_size`` alone: a file can grow
while it is read, and ``/proc`` files report 0.
"""

from __future__ import annotations

import os
import stat

from .errors import UsageError

__all__ = ["describe_size", "is_folder", "read_input"]

_CHUNK = 1 << 20
_KINDS = (
    (stat.S_ISDIR, "is a folder"),
    (stat.S_ISFIFO, "is a FIFO (a named pipe)"),
    (stat.S_ISCHR, "is a character device"),
    (stat.S_ISBLK, "is a block device"),
    (stat.S_ISSOCK, "is a socket"),
)


def describe_size(n: int) -> str:
    """``4 MiB``, ``1 KiB``, ``64 bytes``: a limit for a message.

    Example:
        >>> describe_size(16 << 20)
        '16 MiB'
    """
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def _not_regular(mode: int) -> str:
    for test, words in _KINDS:
        if test(mode):
            return f"{words}, not a regular file"
    return "is not a regular file"


def read_input(
    path: str | os.PathLike[str],
    *,
    name: str,
    limit: int,
    hint: str = "",
    error: type[Exception] = UsageError,
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Args:
        path: the file the user gave.
        name: how the user gave it, for messages: a flag (``--hf-config``) or an argument (``FILE``).
        limit: the most bytes accepted; a file with more is refused after reading ``limit + 1``.
        hint: words after the size message (``"split the document"``).
        error: the exception raised (one line: ``"{name} {path}: {why}"``).

    Raises:
        error: the path is missing, not a regular file, unreadable, or longer than ``limit``.

    Example:
        >>> read_input("/dev/null", name="FILE", limit=10)
        Traceback (most recent call last):
        ...
        ropecheck.errors.UsageError: FILE /dev/null: is a character device, not a regular file
    """
    where = f"{name} {path}"
    try:
        before = os.stat(path)
    except FileNotFoundError:
        raise error(f"{where}: no such file") from None
    except OSError as exc:
        raise error(f"{where}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(before.st_mode):
        raise error(f"{where}: {_not_regular(before.st_mode)}")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise error(f"{where}: cannot be read ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped for something else between the stat and the open
            raise error(f"{where}: {_not_regular(mode)}")
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError as exc:
        raise error(f"{where}: cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if got > limit:
        raise error(f"{where}: larger than {describe_size(limit)}" + (f"; {hint}" if hint else ""))
    return b"".join(chunks)


def is_folder(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder (following links); False when it cannot be stat-ed."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False
