"""Writing ropecheck's output files, and the markers of their volatile blocks.

What a path argument means, for every command:

* ``-`` (and ``/dev/stdout``, ``/dev/fd/1``, ``/proc/self/fd/1``) is standard output;
* an existing FIFO, character device or socket is written *through* (opened and written),
  never replaced by a regular file;
* an existing symbolic link is followed: its target is replaced, the link stays;
* anything else is a regular file, replaced atomically (a temporary file in the same folder,
  then ``os.replace``), so a reader sees the old file or the whole new one. A new file gets
  the permissions the user's umask gives (0666 & ~umask); a replaced file keeps its mode. A
  file without write permission is never replaced.

A full disk, a read-only place or a read-only file is a :class:`~ropecheck.errors.UsageError`
naming the path (exit code 2), not a bug in ropecheck.

A folder of outputs (``reports/``, ``prove --out``, ``survey --out``, ...) is replaced as a
whole by :func:`replace_tree`, and only if it is missing, empty or ropecheck's own: ropecheck
writes :data:`MANIFEST_NAME` into it, listing the files it wrote; a report of an older version
(no manifest) is recognised by its README's volatile header and its ``report.json``. Inside
its own folder ropecheck replaces only the files it listed; a user's files, links and empty
folders stay. The new tree is built beside the old one and exchanged with it in one
``renameat2(RENAME_EXCHANGE)`` where the kernel offers it, so a kill at any moment leaves the
old set of files or the new one; a link to a folder is written through.

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
import errno
import json
import math
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import UsageError

__all__ = [
    "MANIFEST_FORMAT",
    "MANIFEST_NAME",
    "STDOUT_NAMES",
    "VOLATILE_BEGIN",
    "VOLATILE_END",
    "check_replaceable",
    "check_writable",
    "is_stdout",
    "owned_files",
    "read_manifest",
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


def check_writable(path: str | os.PathLike[str], flag: str, *, directory: bool = False, tree: bool = False) -> None:
    """Raise :class:`UsageError` (naming ``flag``) unless ``path`` can be written.

    Checked before any work starts, by trying: the missing folders are created (as the write
    would create them), a temporary file is made and removed where the output will go, and the
    folders created for the probe are removed again, so a run that fails later leaves nothing.
    A parent that is a file, a read-only or pseudo file system (``/proc``), an existing folder
    where a file is wanted (or the reverse), or a file without write permission is one line and
    exit code 2, not a traceback after the work. With ``tree``, the folder is one ropecheck will
    replace (:func:`replace_tree`): it must be missing, empty, or ropecheck's own (:func:`owned_files`).
    """
    if not directory and is_stdout(path):
        return
    p = Path(os.path.realpath(path))
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
        if not directory:
            _check_not_read_only(p, f"{flag} {path}")
        if tree:
            check_replaceable(p, flag, shown=path)
    folder = p if directory else p.parent
    ancestor = folder
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor.exists() and not ancestor.is_dir():
        raise UsageError(f"{flag} {path}: {ancestor} is not a folder")
    created: list[Path] = []
    try:
        for missing in reversed([folder, *folder.parents][: len(folder.parts) - len(ancestor.parts)]):
            missing.mkdir()
            created.append(missing)
        fd, probe = tempfile.mkstemp(prefix=".ropecheck-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None
    finally:
        for made in reversed(created):  # the write creates them again when the work is done
            with contextlib.suppress(OSError):
                made.rmdir()


def _check_not_read_only(p: Path, what: str) -> None:
    """A regular file the user made read-only (no write permission, or ``chmod a-w``) is never replaced."""
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        return
    if stat.S_ISREG(mode) and (not os.access(p, os.W_OK) or not mode & 0o222):
        raise UsageError(f"{what}: the file is read-only; make it writable or choose another path")


def _write_error(what: str, exc: OSError) -> UsageError:
    """An OS refusal while writing (a full disk, a read-only place, no permission) as one line."""
    where = f" ({exc.filename})" if exc.filename and os.fspath(exc.filename) not in what else ""
    return UsageError(f"{what}: cannot write{where}: {exc.strerror or exc}")


def write_output(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write one output: to stdout, through a FIFO/device/link, or atomically to a regular file.

    A read-only file, a full disk or a place that cannot be written is a :class:`UsageError`
    naming the path (a closed pipe stays a :class:`BrokenPipeError`).
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if is_stdout(path):
        sys.stdout.flush()
        sys.stdout.buffer.write(raw)
        sys.stdout.flush()
        return
    p = Path(path)
    if p.is_symlink():
        p = p.resolve()  # replace the link's target, keep the link
    try:
        if p.exists():
            mode = p.stat().st_mode
            if not stat.S_ISREG(mode):  # a FIFO, a terminal, /dev/null: write through, never replace
                with open(p, "wb") as fh:
                    fh.write(raw)
                return
        write_bytes_atomic(p, raw)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise _write_error(os.fspath(path), exc) from None


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the regular file ``path`` with ``data`` atomically (temporary file, then ``os.replace``).

    The new file gets the mode of the file it replaces, or 0666 & ~umask for a new file; a
    read-only file (see :func:`check_writable`) is not replaced but a :class:`UsageError`.
    """
    target = Path(path)
    _check_not_read_only(target, os.fspath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _write_error(os.fspath(path), exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # a full disk, a quota: the user's to fix, named by the path
            raise _write_error(os.fspath(path), exc) from None
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


#: The file that marks a folder as ropecheck's own and lists the files ropecheck wrote there.
MANIFEST_NAME = ".ropecheck-manifest.json"
MANIFEST_FORMAT = "ropecheck.manifest/1"
_SUMMARY_FILES = ("README.md", "index.html", "report.json")
#: How far up an enclosing output folder (``reports/`` for ``reports/proofs``) is looked for.
_ENCLOSING_LEVELS = 3


def _is_relative(rel: str) -> bool:
    parts = PurePosixPath(rel).parts
    return bool(rel) and not rel.startswith("/") and ".." not in parts and PurePosixPath(rel).as_posix() == rel


def read_manifest(folder: str | os.PathLike[str]) -> frozenset[str] | None:
    """The files ropecheck's manifest in ``folder`` lists, or None (no manifest, or one it cannot read)."""
    try:
        data = json.loads((Path(folder) / MANIFEST_NAME).read_text(encoding="utf-8"))
        files = data["files"] if data.get("format") == MANIFEST_FORMAT else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not isinstance(files, list):
        return None
    return frozenset(f for f in files if isinstance(f, str) and _is_relative(f))


def _legacy_report_files(folder: Path) -> frozenset[str] | None:
    """The files of a report written before manifests existed, or None if ``folder`` is not one.

    Such a report (the committed ``reports/`` of older versions) is recognised by its
    ``README.md`` carrying the volatile header (:data:`VOLATILE_BEGIN`) and its ``report.json``
    listing every section's pages, plots and files; those and the summary files are its own.
    """
    try:
        if VOLATILE_BEGIN not in (folder / "README.md").read_text(encoding="utf-8"):
            return None
        sections = json.loads((folder / "report.json").read_text(encoding="utf-8"))["sections"]
        listed = set(_SUMMARY_FILES)
        for s in sections:
            listed.update(x["path"] for x in s.get("pages", []))
            listed.update(x["file"] for x in s.get("plots", []))
            listed.update(s.get("files", []))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return frozenset(f for f in listed if isinstance(f, str) and _is_relative(f))


def _listing(folder: Path) -> frozenset[str] | None:
    """What ``folder``'s own manifest (or, before manifests, its report) lists; None for neither."""
    manifest, legacy = read_manifest(folder), _legacy_report_files(folder)
    if manifest is None:
        return legacy
    return manifest | legacy if legacy is not None else manifest


def owned_files(folder: str | os.PathLike[str]) -> frozenset[str] | None:
    """The files ropecheck wrote in ``folder`` (relative paths), or None where it cannot tell the folder is its own.

    A folder is ropecheck's own when it holds ropecheck's manifest (:data:`MANIFEST_NAME`) or is a
    report of an older version (see :func:`_legacy_report_files`), or when an enclosing output
    folder a few levels up lists files in it (``reports/proofs`` inside ``reports/``), or when
    every file in it is listed by the manifests of its sub-folders. The files listed by all of
    these are ropecheck's; any other file in the folder is the user's.
    """
    root = Path(os.path.realpath(folder))
    found: set[str] | None = None
    current, prefix = root, ""
    for _ in range(_ENCLOSING_LEVELS + 1):
        listing = _listing(current)
        if listing is not None:
            part = {rel[len(prefix) :] for rel in listing if rel.startswith(prefix)}
            if part or not prefix:  # an enclosing folder counts where it lists files in this one
                found = (found or set()) | part
        if current.parent == current:
            break
        current, prefix = current.parent, f"{current.name}/{prefix}"
    inner: set[str] = set()
    every_file_listed = True
    for dirpath, dirnames, names in os.walk(root):
        here = Path(dirpath).relative_to(root).as_posix()
        sub = "" if here == "." else f"{here}/"
        listing = read_manifest(dirpath) if sub else None
        if listing is not None:
            inner |= {sub + rel for rel in listing}
        for name in names + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            rel = sub + name
            if name != MANIFEST_NAME and rel not in inner and not (found and rel in found):
                every_file_listed = False
    if found is None and not (inner and every_file_listed):
        return None
    return frozenset((found or set()) | inner)


def check_replaceable(path: str | os.PathLike[str], flag: str, *, shown: object = None) -> None:
    """Raise :class:`UsageError` (naming ``flag``) unless the folder ``path`` may be replaced by ropecheck.

    A missing or empty folder may, and so may one ropecheck can tell is its own (:func:`owned_files`);
    any other folder holds a user's files and is left alone.
    """
    p = Path(os.path.realpath(path))
    if not p.is_dir():
        return
    try:
        empty = not any(os.scandir(p))
    except OSError as exc:
        raise UsageError(f"{flag} {shown or path}: cannot read the folder ({exc.strerror or exc})") from None
    if empty or owned_files(p) is not None:
        return
    raise UsageError(
        f"{flag} {shown or path}: the folder holds files ropecheck did not write (it has no {MANIFEST_NAME}) "
        "and would be replaced; choose an empty or new folder, or move those files away"
    )


def _carry(old: Path, new: Path, skip: Callable[[str], bool]) -> set[str]:
    """Copy into ``new`` every entry of ``old`` that ``skip`` does not reject; returns the files copied.

    Files are hard-linked where possible (copied otherwise), links are recreated as links (never
    followed), FIFOs as FIFOs, and folders that were empty stay, with their modes.
    """

    def fail(exc: OSError) -> None:
        raise exc  # a folder that cannot be read: stop rather than lose its files

    carried: set[str] = set()
    modes: dict[str, int] = {}
    for dirpath, dirnames, names in os.walk(old, onerror=fail):
        here = Path(dirpath)
        sub = here.relative_to(old).as_posix()
        if sub != ".":
            modes[sub] = stat.S_IMODE(here.stat().st_mode)
        if not dirnames and not names and sub != ".":
            (new / sub).mkdir(parents=True, exist_ok=True)
        for name in [*names, *(d for d in dirnames if (here / d).is_symlink())]:
            src = here / name
            rel = src.relative_to(old).as_posix()
            if rel == MANIFEST_NAME or skip(rel):
                continue
            dest = new / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            info = src.lstat()
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(src), dest)
            elif stat.S_ISFIFO(info.st_mode):
                os.mkfifo(dest, stat.S_IMODE(info.st_mode))
            elif stat.S_ISREG(info.st_mode):
                try:
                    os.link(src, dest)
                except OSError:
                    shutil.copy2(src, dest)
            else:
                continue  # a socket or a device node cannot be carried over
            carried.add(rel)
    for sub, mode in sorted(modes.items(), reverse=True):  # deepest first: a read-only folder last
        with contextlib.suppress(FileNotFoundError):
            os.chmod(new / sub, mode)
    return carried


def replace_tree(
    out: str | os.PathLike[str],
    files: Mapping[str, bytes | str],
    *,
    keep: Callable[[str], bool],
    flag: str = "--out",
) -> None:
    """Make folder ``out`` hold ``files`` (relative path -> content), the old files ``keep`` accepts, and the user's.

    Only a folder ropecheck may replace is replaced (missing, empty, or its own: see
    :func:`check_replaceable`; otherwise a :class:`UsageError` naming ``flag``). The files the old
    manifest lists are ropecheck's: each is carried over if ``keep(rel)`` says so and dropped
    otherwise; every other entry (a user's file, link or empty folder) is carried over as it is,
    and a user's file where ropecheck would now write is a :class:`UsageError`. The new
    manifest lists ``files`` and the carried files of ropecheck's.

    The new tree is built in a hidden folder beside ``out`` (old files kept by hard link, or
    copied), then exchanged with ``out`` atomically, and the old tree is removed. A kill at
    any moment leaves either the old folder or the new one at ``out`` (plus, at worst, a
    hidden ``.<name>.new-*`` or ``.<name>.old-*`` folder that the next run removes). A link
    ``out`` is written through: its target folder is replaced and the link stays. A full disk
    or a place that cannot be written is a :class:`UsageError` naming the path.

    Example:
        >>> import tempfile
        >>> out = Path(tempfile.mkdtemp()) / "reports"
        >>> replace_tree(out, {"README.md": "# report\\n"}, keep=lambda rel: False)
        >>> sorted(p.name for p in out.iterdir())
        ['.ropecheck-manifest.json', 'README.md']
    """
    bad = [rel for rel in files if not _is_relative(rel) or PurePosixPath(rel).name == MANIFEST_NAME]
    if bad:
        raise ValueError(f"replace_tree: not a relative file name: {bad[0]!r}")
    target = Path(os.path.realpath(out))  # a link is written through: its target is what is replaced
    check_replaceable(target, flag, shown=out)
    exists = target.is_dir()
    owned = (owned_files(target) or frozenset()) if exists else frozenset()
    if exists:
        clash = sorted(rel for rel in files if rel not in owned and os.path.lexists(target / rel))
        if clash:
            raise UsageError(
                f"{flag} {out}: {clash[0]} was not written by ropecheck and would be overwritten; move it away"
            )
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for stale in [*parent.glob(f".{target.name}.new-*"), *parent.glob(f".{target.name}.old-*")]:
            shutil.rmtree(stale, ignore_errors=True)  # left by a killed run
        new = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=parent))
    except OSError as exc:
        raise _write_error(f"{flag} {out}", exc) from None
    try:
        _build(target if exists else None, new, files, owned, keep)
        _swap(new, target, exists)
    except OSError as exc:
        shutil.rmtree(new, ignore_errors=True)
        raise _write_error(f"{flag} {out}", exc) from None
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise


def _build(
    old: Path | None, new: Path, files: Mapping[str, bytes | str], owned: frozenset[str], keep: Callable[[str], bool]
) -> None:
    """Fill ``new``: the carried entries of ``old``, then ``files``, then the manifest."""
    umask = _umask()
    os.chmod(new, stat.S_IMODE(old.stat().st_mode) if old is not None else 0o777 & ~umask)
    carried: set[str] = set()
    if old is not None:
        carried = _carry(old, new, lambda rel: rel in files or (rel in owned and not keep(rel)))
    for rel, data in files.items():
        dest = new / rel
        for folder in reversed([p for p in dest.parents if p != new and new in p.parents]):
            if not folder.exists():
                folder.mkdir()
                os.chmod(folder, 0o777 & ~umask)
        dest.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(dest, 0o666 & ~umask)
    listed = sorted(set(files) | (carried & owned))
    manifest = {
        "format": MANIFEST_FORMAT,
        "about": "the files ropecheck wrote in this folder; it replaces only those, and keeps every other file",
        "files": listed,
    }
    (new / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    os.chmod(new / MANIFEST_NAME, 0o666 & ~umask)


def _swap(new: Path, target: Path, exists: bool) -> None:
    """Put the tree ``new`` at ``target`` in one step (or two renames where the kernel has no exchange)."""
    if not exists:
        if os.path.lexists(target):  # a dangling link's target, or a file check_writable did not see
            raise FileExistsError(errno.EEXIST, "exists and is not a folder", os.fspath(target))
        os.replace(new, target)
        return
    if _exchange(new, target):
        shutil.rmtree(new, ignore_errors=True)  # `new` now names the old tree
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rmdir(old)
    os.replace(target, old)
    os.replace(new, target)
    shutil.rmtree(old, ignore_errors=True)
