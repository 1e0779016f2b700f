"""The package metadata users resolve against: no upper bounds, a torch they already have is kept.

The fast tests read ``pyproject.toml`` and the check functions' verdicts on broken inputs; the
slow ones read the built wheel and ask pip's resolver (``pip install --dry-run --report``) what
it would do in an environment that already holds a torch other than the one
``.ci/constraints.txt`` names.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import tomllib
from distchecks import capped_requirements, metadata_fields, wheel_metadata
from distenv import CONSTRAINTS, ROOT, Dist, new_venv, pip_install
from packaging.requirements import Requirement

import ropecheck
from ropecheck.version import __version__

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?")


def _as_metadata(requirements: list[str]) -> str:
    return "Metadata-Version: 2.4\nName: x\nVersion: 1\n" + "".join(f"Requires-Dist: {r}\n" for r in requirements)


def _declared() -> list[str]:
    project = PYPROJECT["project"]
    return [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]


# --------------------------------------------------------------------------- fast


def test_pyproject_caps_no_dependency() -> None:
    assert capped_requirements(_as_metadata(_declared())) == []


@pytest.mark.parametrize(
    "requirement",
    [
        "torch<3",
        "torch>=2.1,<=2.13",
        "antlr4-python3-runtime==4.11.*",
        "numpy~=1.24",
        "sympy!=1.13",
        "sympy===1.12",
        "torch @ https://example.invalid/torch-2.13.0-cp311-none-any.whl",
    ],
)
def test_a_capped_requirement_is_caught(requirement: str) -> None:
    assert capped_requirements(_as_metadata([requirement, "rich>=13"])) != []


def test_an_extra_marker_is_not_a_cap() -> None:
    assert capped_requirements(_as_metadata(['pytest-xdist>=3.5; extra == "test"', "torch>=2.1"])) == []


def test_torch_has_the_lower_bound_the_code_needs() -> None:
    (torch,) = [Requirement(r) for r in PYPROJECT["project"]["dependencies"] if Requirement(r).name == "torch"]
    # 2.1 is the first torch with float16 cos/sin on CPU (the precision policies' float16 angles)
    assert str(torch.specifier) == ">=2.1"


#: Pins for an install the package metadata cannot carry: timm, installed with ``--no-deps`` by the README's command 1
#: for the survey (its torchvision requirement would pull the CUDA wheel that breaks ``import torchvision``).
NO_DEPS_PINS = {"timm"}


def test_every_pin_lives_in_the_constraints_file() -> None:
    pins = {
        Requirement(line).name: line
        for line in CONSTRAINTS.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    }
    assert {"torch", "antlr4-python3-runtime"} <= set(pins)
    assert all("==" in line for line in pins.values()), pins
    declared = {Requirement(r).name for r in _declared()}
    unasked = set(pins) - declared - NO_DEPS_PINS
    assert not unasked, f"the constraints file pins what nothing asks for: {unasked}"


def test_version_is_semver_and_single_sourced() -> None:
    assert SEMVER.fullmatch(__version__), __version__
    assert ropecheck.__version__ == __version__
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "ropecheck.version.__version__"}


def test_license_is_a_pep639_expression_with_its_file() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"
    for pattern in project["license-files"]:
        assert sorted(ROOT.glob(pattern)), f"license-files pattern {pattern!r} matches nothing"
    assert not [c for c in project["classifiers"] if c.startswith("License ::")], "PEP 639: no license classifiers"


def test_extras_are_named_for_what_they_add() -> None:
    assert set(PYPROJECT["project"]["optional-dependencies"]) == {"adapters", "jax", "latex", "runtimes", "test"}


def test_no_module_reads_the_checkout() -> None:
    """``__file__`` appears only where it stays inside the installed package, and in the
    benchmark's lookup of the broken corpus, which needs the checkout's own files to be there
    (an installed ropecheck says so and times the adapters: test_wheel.py runs it)."""
    package = ROOT / "ropecheck"
    users = sorted(
        str(p.relative_to(package)) for p in package.rglob("*.py") if "__file__" in p.read_text(encoding="utf-8")
    )
    # host.py and verify/run.py: the package's own folder, to tell the target's frames from ropecheck's;
    # survey/timm_source.py sets the installed timm file as the __file__ of the timm code it compiles
    assert users == ["bench/verify.py", "host.py", "survey/timm_source.py", "verify/run.py"], users
    timm = (package / "survey" / "timm_source.py").read_text(encoding="utf-8")
    assert [line.strip() for line in timm.splitlines() if "__file__" in line] == ["namespace.__file__ = str(path)"]
    bench = (package / "bench" / "verify.py").read_text(encoding="utf-8")
    assert '"pyproject.toml").is_file()' in bench, "the corpus lookup must check it is in a source checkout"
    run = (package / "verify" / "run.py").read_text(encoding="utf-8")
    assert "parents[" not in run and "tests" not in run, "verify/run.py must not reach outside the package"


# --------------------------------------------------------------------------- built wheel


@pytest.mark.slow
def test_wheel_metadata_caps_no_dependency(dist: Dist) -> None:
    metadata = wheel_metadata(dist.wheel)
    requires = metadata_fields(metadata, "Requires-Dist")
    assert any(r.startswith("torch>=") for r in requires), requires
    assert capped_requirements(metadata) == []


@pytest.mark.slow
def test_wheel_metadata_fields(dist: Dist) -> None:
    metadata = wheel_metadata(dist.wheel)
    assert metadata_fields(metadata, "Version") == [__version__]
    assert metadata_fields(metadata, "License-Expression") == ["Apache-2.0"]
    assert metadata_fields(metadata, "License-File") == ["ropecheck/LICENSE"]
    assert "Typing :: Typed" in metadata_fields(metadata, "Classifier")
    assert "Framework :: Pytest" in metadata_fields(metadata, "Classifier")
    assert sorted(metadata_fields(metadata, "Provides-Extra")) == ["adapters", "jax", "latex", "runtimes", "test"]
    # no invented home: ropecheck names no URL it cannot vouch for
    assert metadata_fields(metadata, "Project-URL") == []


@pytest.mark.slow
def test_build_prints_no_packaging_warning(dist: Dist) -> None:
    assert "`project.license` as a TOML table is deprecated" not in dist.log
    assert "absent from the `packages` configuration" not in dist.log
    assert "SetuptoolsDeprecationWarning" not in dist.log


def _fake_torch(venv: Path, version: str) -> None:
    """Record a torch distribution of ``version`` as installed (its metadata only: pip reads nothing else)."""
    purelib = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    for old in purelib.glob("torch-*.dist-info"):
        for f in old.iterdir():
            f.unlink()
        old.rmdir()
    info = purelib / f"torch-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text("")


def _dry_run(venv: Path, *args: str | Path) -> dict[str, str]:
    """``pip install --dry-run --report`` in ``venv``: what it would install, name -> version."""
    report = venv / "report.json"
    proc = pip_install(venv, "--dry-run", "--report", report, *args, cwd=venv, outer=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    data = json.loads(report.read_text())
    return {item["metadata"]["name"].lower(): item["metadata"]["version"] for item in data["install"]}


@pytest.mark.slow
def test_an_installed_torch_is_kept(dist: Dist, tmp_path: Path) -> None:
    """A venv holding torch 2.5.1 (not the 2.13.0 the constraints file names): installing the
    wheel the way a user does (no constraints file) leaves that torch alone; a torch below the
    lower bound is replaced, so the check can see torch in the install set when it is there.

    The venv sees this environment's packages, its own fake torch first: pip then resolves only what the wheel
    asks beyond them (ropecheck, and torch where the one installed does not do), not every dependency again
    from the index, which took most of this test's time; none of the other dependencies asks for torch."""
    venv = new_venv(tmp_path / "user-venv", with_pip=False, system_site=True)  # what pip would install is all
    _fake_torch(venv, "2.5.1")
    plan = _dry_run(venv, dist.wheel)
    assert plan.get("ropecheck") == __version__, plan
    assert "torch" not in plan, f"pip would replace the installed torch 2.5.1: {plan['torch']}"

    _fake_torch(venv, "2.0.1")  # below torch>=2.1: pip must replace it (the constraints file keeps it local)
    plan = _dry_run(venv, "-c", CONSTRAINTS, dist.wheel)
    assert plan.get("torch", "").startswith("2.13.0"), plan
