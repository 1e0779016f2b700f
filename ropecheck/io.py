"""Writing ropecheck's output files, and the markers of their volatile blocks.

What a path argument means, for every command:

* ``-`` (and ``/dev/stdout``, ``/dev/fd/1``, ``/proc/self/fd/1``) is standard output;
* an existing FIFO, character device or socket is written *through* (opened and written),
  never replaced by a regular file;
* an existing symbolic link is followed: its target is replaced, the link stays;
* anything else is a regular file, replaced atomically (a temporary file in the same folder,
  then ``os.replace``), so a reader sees the old file or the whole new one. A new file gets
  the permissions the user's umask gives (0666 & ~umask); a replaced file keeps its mode.

A folder of outputs (``reports/``) is replaced as a whole by :func:`replace_tree`: the new
tree is built beside it and exchanged with the old one in one ``renameat2(RENAME_EXCHANGE)``
where the kernel offers it, so a kill at any moment leaves the old report or the new one.

Pages that carry run-specific text (times, versions, the machine) keep it between
:data:`VOLATILE_BEGIN` and :data:`VOLATILE_END`, so two runs differ only there
(:func:`strip_volatile` removes those blocks before a comparison). :func:`round_floats`
gives the committed JSON pages a stable number of significant digits.

Design constraints: standard library only; :func:`check_writable` tells a user mistake
(a path under a file, in a missing or read-only place) before any work starts, as a
:class:`~ropecheck.errors.UsageError` naming the flag.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import math
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .errors import UsageError

__all__ = [
    "STDOUT_NAMES",
    "VOLATILE_BEGIN",
    "VOLATILE_END",
    "check_writable",
    "is_stdout",
    "replace_tree",
    "round_floats",
    "strip_volatile",
    "write_bytes_atomic",
    "write_output",
    "write_text_atomic",
]

VOLATILE_BEGIN = "<!-- ropecheck:header:begin (volatile: time, versions, machine, timings) -->"
VOLATILE_END = "<!-- ropecheck:header:end -->"

#: Path arguments that mean standard output.
STDOUT_NAMES = frozenset({"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})

_UMASK_LOCK = threading.Lock()


def strip_volatile(text: str) -> str:
    """``text`` with every volatile block (markers included) removed."""
    return re.sub(re.escape(VOLATILE_BEGIN) + ".*?" + re.escape(VOLATILE_END), "", text, flags=re.S)


def round_floats(obj: Any, digits: int = 6) -> Any:
    """``obj`` (JSON-ready data) with every finite float rounded to ``digits`` significant digits.

    Measured values differ in their last bits between machines (another libm, another SIMD
    path); pages committed to a repository keep the digits that mean something.

    Example:
        >>> round_floats({"inv_freq": [0.10000000000000002, 1e-300]}, 3)
        {'inv_freq': [0.1, 1e-300]}
    """
    if isinstance(obj, float):
        return float(f"{obj:.{digits}g}") if math.isfinite(obj) else obj
    if isinstance(obj, Mapping):
        return {k: round_floats(v, digits) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [round_floats(v, digits) for v in obj]
    return obj


def is_stdout(path: str | os.PathLike[str]) -> bool:
    """Whether a path argument means standard output."""
    return os.fspath(path) in STDOUT_NAMES


def _umask() -> int:
    with _UMASK_LOCK:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def check_writable(path: str | os.PathLike[str], flag: str, *, directory: bool = False) -> None:
    """Raise :class:`UsageError` (naming ``flag``) unless ``path`` can be written.

    Checked before any work starts, by trying: a missing folder is created (as the write would
    create it) and a temporary file is made and removed where the output will go, so a parent
    that is a file, a read-only or pseudo file system (``/proc``), or an existing folder where a
    file is wanted (or the reverse) is one line and exit code 2, not a traceback after the work.
    """
    if not directory and is_stdout(path):
        return
    p = Path(path)
    if p.is_symlink():
        p = p.resolve()
    if p.exists():
        mode = p.stat().st_mode
        if directory != stat.S_ISDIR(mode):
            raise UsageError(
                f"{flag} {path}: " + ("exists and is not a folder" if directory else "is a folder; give a file name")
            )
        if not directory and not stat.S_ISREG(mode):
            if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)):
                raise UsageError(f"{flag} {path}: cannot write to this kind of file")
            if not os.access(p, os.W_OK):
                raise UsageError(f"{flag} {path}: not writable")
            return  # written through when the work is done
    folder = p if directory else p.parent
    ancestor = folder
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor.exists() and not ancestor.is_dir():
        raise UsageError(f"{flag} {path}: {ancestor} is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".ropecheck-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None


def write_output(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write one output: to stdout, through a FIFO/device/link, or atomically to a regular file."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if is_stdout(path):
        sys.stdout.flush()
        sys.stdout.buffer.write(raw)
        sys.stdout.flush()
        return
    p = Path(path)
    if p.is_symlink():
        p = p.resolve()  # replace the link's target, keep the link
    if p.exists():
        mode = p.stat().st_mode
        if not stat.S_ISREG(mode):  # a FIFO, a terminal, /dev/null: write through, never replace
            with open(p, "wb") as fh:
                fh.write(raw)
            return
    write_bytes_atomic(p, raw)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the regular file ``path`` with ``data`` atomically (temporary file, then ``os.replace``).

    The new file gets the mode of the file it replaces, or 0666 & ~umask for a new file.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 text atomically (see :func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, text.encode("utf-8"))


# --------------------------------------------------------------------------- whole trees

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux ``renameat2``); False where unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    ok = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0
    return ok


def _files_under(root: Path) -> Iterator[str]:
    for dirpath, _, names in os.walk(root):
        for name in names:
            yield (Path(dirpath) / name).relative_to(root).as_posix()


def replace_tree(out: str | os.PathLike[str], files: Mapping[str, bytes | str], *, keep: Callable[[str], bool]) -> None:
    """Make folder ``out`` hold ``files`` (relative path -> content) plus the old files ``keep`` accepts.

    The new tree is built in a hidden folder beside ``out`` (old files kept by hard link, or
    copied), then exchanged with ``out`` atomically, and the old tree is removed. A kill at
    any moment leaves either the old folder or the new one at ``out`` (plus, at worst, a
    hidden ``.<name>.new-*`` or ``.<name>.old-*`` folder that the next run removes).
    """
    target = Path(out)
    parent = target.parent if str(target.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    for stale in parent.glob(f".{target.name}.new-*"):  # left by a killed run
        shutil.rmtree(stale, ignore_errors=True)
    for stale in parent.glob(f".{target.name}.old-*"):
        shutil.rmtree(stale, ignore_errors=True)
    umask = _umask()
    new = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=parent))
    try:
        os.chmod(new, stat.S_IMODE(target.stat().st_mode) if target.is_dir() else 0o777 & ~umask)
        if target.is_dir():
            for rel in _files_under(target):
                if rel in files or not keep(rel):
                    continue
                dest = new / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                src = target / rel
                if src.is_symlink() or not src.is_file():
                    continue
                try:
                    os.link(src, dest)
                except OSError:
                    shutil.copy2(src, dest)
        for rel, data in files.items():
            dest = new / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
            os.chmod(dest, 0o666 & ~umask)
        for dirpath, dirnames, _ in os.walk(new):
            for d in dirnames:
                os.chmod(Path(dirpath) / d, 0o777 & ~umask)
        if not target.exists():
            os.replace(new, target)
            return
        if _exchange(new, target):
            shutil.rmtree(new, ignore_errors=True)  # `new` now names the old tree
            return
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=parent))
        os.rmdir(old)
        os.replace(target, old)
        os.replace(new, target)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
