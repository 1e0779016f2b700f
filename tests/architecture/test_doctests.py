"""Every example in a docstring runs and prints what it shows: an example that drifts from the code misleads."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ropecheck

MODULES = sorted(m.name for m in pkgutil.walk_packages(ropecheck.__path__, "ropecheck.") if not m.ispkg)


# the strategies' examples draw with ``.example()``, as one explores a strategy at a prompt
@pytest.mark.filterwarnings("ignore::hypothesis.errors.NonInteractiveExampleWarning")
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples fail (python -m doctest -v)"
