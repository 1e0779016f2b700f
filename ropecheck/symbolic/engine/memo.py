"""Outcomes of the children this process has run, by what they were given: one decision, one child.

The audit reads and decides each step and definition in a forked child
(:func:`ropecheck.isolate.run_isolated`), and forking a process that holds SymPy, torch and a
document's parses costs tens of milliseconds, most of a small step's time. The same call comes
again: a document and its corrected twin share every step before the first change, and a test
audits a document another test audited before. What a child returns is a function of its
arguments alone (the parses and caches it inherits make it faster, not different), so the value
of a child that returned is kept, keyed by the function and the pickle of its arguments, and
given back when the same call comes again.

Design constraints: only a value the child returned is kept (a time or memory limit reached says
nothing about the arguments), and it is given back only under a time limit at least as long as the
child took; equal pickles are equal arguments, so a key may miss (one value pickled two ways) but
never takes one call for another; each caller gets its own shallow copy (callers set fields of the
outcome they get; the values inside are immutable). At most :data:`MAX_KEPT` are kept.

Example:
    >>> k = key(abs, (-2,), None)
    >>> keep(k, 2, 0.01)
    >>> known(k, timeout=1.0)
    2
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_KEPT", "clear", "key", "keep", "known"]

#: How many values one process keeps (a long document has a few hundred steps and definitions).
MAX_KEPT = 8192

_KEPT: dict[bytes, tuple[Any, float]] = {}


def key(fn: Callable[..., Any], args: tuple[Any, ...], memory_limit: int | None) -> bytes | None:
    """The key of calling ``fn(*args)`` under ``memory_limit``; None when the arguments do not pickle."""
    try:
        return pickle.dumps((fn.__module__, fn.__qualname__, args, memory_limit), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an argument that does not pickle: the call is simply not kept
        return None


def known(k: bytes | None, timeout: float | None) -> Any | None:
    """A copy of the value kept for ``k``, if the child that gave it finished within ``timeout``; else None."""
    if k is None or k not in _KEPT:
        return None
    value, seconds = _KEPT[k]
    if timeout is not None and seconds > timeout:
        return None
    return copy.copy(value)


def keep(k: bytes | None, value: Any, seconds: float) -> None:
    """Keep (a copy of) the value a child returned for ``k`` after ``seconds``."""
    if k is not None and value is not None and len(_KEPT) < MAX_KEPT:
        _KEPT[k] = (copy.copy(value), seconds)


def clear() -> None:
    """Forget every value kept (a test that must see children run)."""
    _KEPT.clear()
