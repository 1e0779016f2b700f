"""Shared test set-up: Hypothesis profiles, one torch thread, and the one GPU skip.

The profiles come from :mod:`ropecheck.strategies` (``ropecheck-ci``, ``ropecheck-dev``),
registered here also as ``ci`` and ``dev``. ``ci`` -- derandomized, no deadline, no example
database, 60 examples -- is the default, so ``.ci/run`` and a plain ``python -m pytest -n 2``
give the same result on every run and under xdist; set ``HYPOTHESIS_PROFILE=dev`` for the
quicker local profile, or pick one with ``--hypothesis-profile``.

Tests that need CUDA carry ``@pytest.mark.gpu`` and nothing else: the hook below skips them,
with the reason, where CUDA is not available (the same checks run on the CPU elsewhere).

Under xdist the workers share the audits of the world documents (``tests/worldaudit.py``).

The process-leak check: after every test, no child process ropecheck started to hold a target
(a session leader: the guardian of :class:`ropecheck.isolate.TargetProcess` and
:func:`~ropecheck.isolate.run_isolated`) may be left; the warm child that answers the audit's own
calls (:class:`ropecheck.isolate.WarmChild`) stays between tests by design.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from hypothesis import settings

from ropecheck import isolate
from ropecheck.strategies import CI_PROFILE, DEV_PROFILE

settings.register_profile("ci", settings.get_profile(CI_PROFILE))
settings.register_profile("dev", settings.get_profile(DEV_PROFILE))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The tests use tiny tensors: one torch thread per process keeps two xdist workers from
# oversubscribing two cores (threads spinning cost more than they save here).
torch.set_num_threads(1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip every ``gpu``-marked test, with the reason, where CUDA is not available."""
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="CUDA is not available on this machine")
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _world_audits_shared_by_the_workers(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Under xdist, the audits of the world documents are made once for all workers (see ``worldaudit``)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        from worldaudit import share_between_workers

        share_between_workers(tmp_path_factory.getbasetemp().parent / "world-audits")


def _session_leader_children() -> set[int]:
    """This process's children that lead their own session (what ropecheck's isolation makes)."""
    found: set[int] = set()
    for task in Path("/proc/self/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for pid in children:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != "Z" and fields[3] == pid:  # state, ppid, pgrp, session
                found.add(int(pid))
    return found


@pytest.fixture(autouse=True)
def _fresh_warm_child_around_a_patch(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that patches the process starts and leaves without a warm child: one forked before the patch would
    not see it, and one forked during it would keep it for the tests after."""
    patched = "monkeypatch" in request.fixturenames
    if patched:
        isolate.close_warm()
    yield
    if patched:
        isolate.close_warm()


@pytest.fixture(autouse=True)
def no_process_left_behind() -> Iterator[None]:
    """Fail a test after which a child ropecheck started to run a target is still alive."""
    before = _session_leader_children()
    yield
    left = _session_leader_children() - before - isolate.warm_pids()  # the audit's warm child stays, by design
    assert not left, f"processes started to hold a target outlived the test: {sorted(left)}"
