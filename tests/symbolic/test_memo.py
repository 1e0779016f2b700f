"""What the audit's children returned, kept by their arguments: the same call forks no child again, and
a different call (one character apart) is never answered with another's outcome."""

from __future__ import annotations

import os
from typing import Any

import pytest

from ropecheck import isolate
from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.engine import memo

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork (POSIX)")

RIGHT = "$$\\cos^2 x + \\sin^2 x = 1$$\n\n$$(a + b)^2 = a^2 + 2 a b + b^2$$\n"
WRONG = "$$\\cos^2 x + \\sin^2 x = 1$$\n\n$$(a + b)^2 = a^2 + 3 a b + b^2$$\n"


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The functions run in a child from now on (nothing kept before this test)."""
    monkeypatch.setattr(memo, "_KEPT", {})
    ran: list[str] = []
    real = isolate.run_warm

    def counted(fn: Any, *args: Any, **kwargs: Any) -> isolate.Outcome:
        ran.append(fn.__name__)
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(isolate, "run_warm", counted)
    return ran


def test_a_document_audited_again_forks_no_child_and_reads_the_same(forks: list[str]) -> None:
    first = audit_document(RIGHT, timeout=30.0)
    n = len(forks)
    again = audit_document(RIGHT, timeout=30.0)
    assert n >= 2 and len(forks) == n
    assert [(s.line, s.status, s.method, s.reason) for s in again.steps] == [
        (s.line, s.status, s.method, s.reason) for s in first.steps
    ]
    assert [s.status for s in again.steps] == ["PROVED", "PROVED"]


def test_a_step_one_character_apart_is_decided_again(forks: list[str]) -> None:
    assert [s.status for s in audit_document(RIGHT, timeout=30.0).steps] == ["PROVED", "PROVED"]
    n = len(forks)
    wrong = audit_document(WRONG, timeout=30.0)
    assert [s.status for s in wrong.steps] == ["PROVED", "REFUTED"]
    assert len(forks) == n + 1  # the shared first step came from what was kept; the changed one was decided


def test_what_is_given_back_is_a_copy_and_only_within_the_time_it_took() -> None:
    k = memo.key(sorted, ([3, 1, 2],), None)
    assert k is not None and k != memo.key(sorted, ([3, 2, 1],), None) and k != memo.key(sorted, ([3, 1, 2],), 1)
    kept: dict[bytes, Any] = {}
    memo._KEPT, saved = kept, memo._KEPT
    try:
        assert memo.known(k, None) is None
        memo.keep(k, [1, 2, 3], 2.0)
        got = memo.known(k, 5.0)
        assert got == [1, 2, 3]
        got.append(4)  # a caller edits its copy: the kept value stays
        assert memo.known(k, None) == [1, 2, 3]
        assert memo.known(k, 1.0) is None  # a shorter time limit than the child took: decided again
    finally:
        memo._KEPT = saved
    assert memo.key(sorted, (lambda: 0,), None) is None  # what does not pickle is not kept


def test_a_limit_reached_is_not_kept(forks: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    real = isolate.run_warm
    monkeypatch.setattr(isolate, "run_warm", lambda fn, *a, **k: isolate.Outcome(status="timeout", timeout=1.0))
    timed_out = audit_document("$$(a + b)^2 = a^2 + 2 a b + b^2$$\n", timeout=1.0)
    assert [s.status for s in timed_out.steps] == ["UNDECIDED"] and not memo._KEPT
    monkeypatch.setattr(isolate, "run_warm", real)
    assert [s.status for s in audit_document("$$(a + b)^2 = a^2 + 2 a b + b^2$$\n", timeout=30.0).steps] == ["PROVED"]
