"""Lint and types as part of the test suite: ``ruff check``, ``ruff format --check``, ``mypy``.

They run inside the one test command (``python -m pytest -n 2``), so CI and a contributor's
machine check the same things. Each is skipped with its reason where the tool is not
installed (``pip install -e ".[test]"`` installs both).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["ropecheck", "proofs", "tests"]


def _tool(name: str) -> list[str]:
    if shutil.which(name) is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return [name]


def _run(cmd: list[str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_ruff_check() -> None:
    proc = _run([*_tool("ruff"), "check", *SOURCES])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format() -> None:
    proc = _run([*_tool("ruff"), "format", "--check", *SOURCES])
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_mypy() -> None:
    _tool("mypy")
    proc = _run([sys.executable, "-m", "mypy", "ropecheck", "proofs"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
