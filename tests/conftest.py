"""Shared test set-up: Hypothesis profiles, one torch thread, and the one GPU skip.

The profiles come from :mod:`ropecheck.strategies` (``ropecheck-ci``, ``ropecheck-dev``),
registered here also as ``ci`` and ``dev``. ``ci`` -- derandomized, no deadline, no example
database, 60 examples -- is the default, so ``.ci/run`` and a plain ``python -m pytest -n 2``
give the same result on every run and under xdist; set ``HYPOTHESIS_PROFILE=dev`` for the
quicker local profile, or pick one with ``--hypothesis-profile``.

Tests that need CUDA carry ``@pytest.mark.gpu`` and nothing else: the hook below skips them,
with the reason, where CUDA is not available (the same checks run on the CPU elsewhere).
"""

from __future__ import annotations

import os

import pytest
import torch
from hypothesis import settings

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
