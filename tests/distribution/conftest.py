"""Session fixtures of the distribution tests: one copy of the source, one build, one venv.

What a user installs is tested as a user gets it: the sdist and the wheel are built by
``python -m build`` from a copy of the checkout's files (so the checkout itself gains no
``build/`` or ``*.egg-info``), and the wheel is installed into a fresh virtual environment
outside the source tree with ``pip install -c .ci/constraints.txt`` (torch from the local CPU
wheel). Commands then run from a temporary working directory, never the checkout.

Design constraints: building and installing take a minute or more, so each is done once per
test session and shared by every xdist worker (a file lock in the session's shared temporary
folder; the first worker to get it builds, the others reuse the result). The tests that use the
build run on one worker under xdist (the ``dist`` group, see :func:`pytest_collection_modifyitems`):
a second worker would only wait on the lock while the first builds, where it can run other tests.
When the build or the
install cannot reach a package index (no network), the tests that need them skip with the
reason; any other failure fails them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from distenv import CONSTRAINTS, ROOT, Dist, Venv, build_dist, copy_source, new_venv, pip_install

#: the fixtures whose tests share one worker: each waits for the build (and the venv) the first of them makes
_BUILD_FIXTURES = frozenset({"dist", "wheel_venv"})


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the group marks (``--dist loadgroup``)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every test that uses the build or the venv in the xdist group ``dist``."""
    for item in items:
        if _BUILD_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("dist"))


def _lock(path: Path):  # type: ignore[no-untyped-def]
    try:
        from filelock import FileLock
    except ImportError:
        pytest.skip("filelock is not installed (pip install -e '.[test]')")
    return FileLock(str(path))


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary folder every xdist worker of this session sees (the base temp itself without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def source_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout's files (the tree ``python -m build`` and pre-commit work from)."""
    shared = _shared_root(tmp_path_factory)
    dest = shared / "ropecheck-src"
    with _lock(shared / "ropecheck-src.lock"):
        if not (dest / ".copied").exists():
            shutil.rmtree(dest, ignore_errors=True)
            copy_source(dest)
            (dest / ".copied").write_text("")
    return dest


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory, source_copy: Path) -> Dist:
    """The sdist and the wheel, built once per session by ``python -m build``."""
    shared = _shared_root(tmp_path_factory)
    out, record = shared / "ropecheck-dist", shared / "ropecheck-dist.json"
    with _lock(shared / "ropecheck-dist.lock"):
        if not record.exists():
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            built = build_dist(source_copy, out)
            record.write_text(
                json.dumps(
                    {"wheel": str(built.wheel), "sdist": str(built.sdist), "log": built.log, "isolated": built.isolated}
                )
            )
        data = json.loads(record.read_text())
    return Dist(Path(data["wheel"]), Path(data["sdist"]), data["log"], data["isolated"])


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory: pytest.TempPathFactory, dist: Dist) -> Venv:
    """A fresh venv outside the source tree with the wheel (no extras) installed with the constraints file."""
    shared = _shared_root(tmp_path_factory)
    root, done = shared / "ropecheck-venv", shared / "ropecheck-venv.done"
    with _lock(shared / "ropecheck-venv.lock"):
        if not done.exists():
            shutil.rmtree(root, ignore_errors=True)
            new_venv(root)
            # --no-compile: byte-compiling every torch file at install time is half the install's CPU time;
            # the venv's Python compiles what it imports, once (distenv.bytecode_env)
            proc = pip_install(root, "-q", "--no-compile", "-c", CONSTRAINTS, dist.wheel, cwd=shared)
            assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
            done.write_text("")
    assert ROOT not in root.parents, "the venv must lie outside the checkout"
    return Venv(root)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """An empty working directory outside the checkout (nothing there resolves to the source files)."""
    assert ROOT not in tmp_path.parents, f"{tmp_path} lies inside the checkout"
    return tmp_path
