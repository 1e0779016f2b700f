"""Shared test set-up: Hypothesis profiles and the CUDA skip.

The profiles come from :mod:`ropecheck.strategies` (``ropecheck-ci``, ``ropecheck-dev``),
registered here also as ``ci`` and ``dev``. ``ci`` -- derandomized, no deadline, no example
database, 60 examples -- is the default, so ``.ci/run`` and a plain ``python -m pytest -n 2``
give the same result on every run and under xdist; set ``HYPOTHESIS_PROFILE=dev`` for the
quicker local profile, or pick one with ``--hypothesis-profile``.
"""

from __future__ import annotations

import os
from pathlib import Path

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

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:  # pragma: no cover
        return False
    return bool(torch.cuda.is_available())


requires_cuda = pytest.mark.skipif(not cuda_available(), reason="CUDA is not available on this machine")
