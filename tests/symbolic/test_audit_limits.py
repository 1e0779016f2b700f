"""A child stopped at a limit (time, memory) changes no reading silently: what rests on it is UNDECIDED, saying so.

Each test forces the limit on one line's children (no timing involved): the same text then reads the same way
on a busy machine as on an idle one, except where the limit is the reason, and then the reason names it.
"""

from __future__ import annotations

from typing import Any

import pytest

from ropecheck.symbolic.audit import steps
from ropecheck.symbolic.audit.run import audit_document

# a sequence given by a formula, one entry of it fixed otherwise in the prose, and a step true by the formula alone:
# read with the entry the prose fixes, the document gives the entry two values (UNDECIDED, naming both); without
# it, PROVED -- so the entry's child must finish
PINNED = "A sequence:\n\n$$ c_{j} = 2 j $$\n\nthe prose fixes $c_{4} = 1$ for this note.\n\n$$ c_{4} + 2 = 10 $$\n"
# a name defined by a display, and a step that uses it
DEFINED = "Let\n\n$$ s = b^2 + 3 $$\n\nthen\n\n$$ s - 3 = b^2 $$\n"


def _limit_at(monkeypatch: pytest.MonkeyPatch, line: int) -> None:
    """Every child given a link of ``line`` stops at the time limit, as a loaded machine may make it."""
    run = steps._run

    def stopped(fn: Any, *args: Any, timeout: float | None, memory_limit: int | None) -> Any:
        if any(getattr(a, "line", None) == line for a in args):
            return steps._Outcome("UNDECIDED", reason=f"time limit of {timeout:g} s reached")
        return run(fn, *args, timeout=timeout, memory_limit=memory_limit)

    monkeypatch.setattr(steps, "_run", stopped)


def test_pinned_entry_is_read_when_its_child_finishes() -> None:
    (step,) = audit_document(PINNED, path="pinned.md").steps
    assert (step.line, step.status) == (7, "UNDECIDED")
    assert "c_{4} two values: 1 (line 5) and 8" in step.reason, step.reason


def test_pinned_entry_cut_short_leaves_the_step_undecided_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    _limit_at(monkeypatch, 5)
    (step,) = audit_document(PINNED, path="pinned.md").steps
    assert step.status == "UNDECIDED"  # never PROVED with the entry the prose fixes left out
    assert "line 5" in step.reason and "time limit of 5 s reached" in step.reason


def test_definition_read_when_its_child_finishes() -> None:
    (step,) = audit_document(DEFINED, path="defined.md").steps
    assert step.status == "PROVED"


def test_definition_cut_short_leaves_the_step_undecided_not_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    _limit_at(monkeypatch, 3)
    result = audit_document(DEFINED, path="defined.md")
    (step,) = result.steps
    assert step.status == "UNDECIDED"
    assert "line 3" in step.reason and "time limit of 5 s reached" in step.reason
    assert [d.reason for d in result.definitions if d.line == 3] == ["time limit of 5 s reached"]
