"""Writing ropecheck's output files, and the markers of their volatile blocks.

Atomic file writes: a report is either the old file or the whole new one, never half of
each. Pages that carry run-specific text (times, versions, the machine) keep it between
:data:`VOLATILE_BEGIN` and :data:`VOLATILE_END`, so two runs differ only there
(:func:`strip_volatile` removes those blocks before a comparison).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

__all__ = ["VOLATILE_BEGIN", "VOLATILE_END", "strip_volatile", "write_text_atomic", "write_bytes_atomic"]

VOLATILE_BEGIN = "<!-- ropecheck:header:begin (volatile: time, versions, machine, timings) -->"
VOLATILE_END = "<!-- ropecheck:header:end -->"


def strip_volatile(text: str) -> str:
    """``text`` with every volatile block (markers included) removed."""
    return re.sub(re.escape(VOLATILE_BEGIN) + ".*?" + re.escape(VOLATILE_END), "", text, flags=re.S)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 text atomically (see :func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, text.encode("utf-8"))
