"""The wheel stands alone: built by ``python -m build``, installed into a fresh venv outside
the source tree, every user-facing entry point works from a directory that is not the checkout.

One venv serves every test here (see ``conftest.py``). Each command runs with the venv first on
PATH, no PYTHONPATH, and a temporary working directory, so nothing can resolve to the source
files; one test checks that imports indeed come from the venv's site-packages.
"""

from __future__ import annotations

import json
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from distchecks import metadata_fields, python_names, wheel_content_problems, wheel_metadata, wheel_names
from distenv import BROKEN_ROPE, GOOD_ROPE, ROOT, Dist, Venv

PROOFS = python_names(ROOT / "proofs", "*.py")
CERTIFICATES = python_names(ROOT / "proofs" / "coq", "*.v")

pytestmark = pytest.mark.slow


# ----------------------------------------------------------------------------- contents


def test_the_source_has_theorems_and_certificates() -> None:
    assert "__init__.py" in PROOFS and len(PROOFS) > 5, PROOFS
    assert len(CERTIFICATES) >= 6, CERTIFICATES


def test_wheel_contents(dist: Dist) -> None:
    names = wheel_names(dist.wheel)
    assert wheel_content_problems(names, proofs=PROOFS, certificates=CERTIFICATES) == []


@pytest.mark.parametrize(
    "breakage",
    ["no .v files", "no py.typed", "a theorem missing", "tests/ shipped", "reports/ shipped", "no license"],
)
def test_a_broken_wheel_is_caught(dist: Dist, breakage: str) -> None:
    names = wheel_names(dist.wheel)
    broken = {
        "no .v files": [n for n in names if not n.endswith(".v")],
        "no py.typed": [n for n in names if n != "ropecheck/py.typed"],
        "a theorem missing": [n for n in names if n != f"ropecheck/proofs/{PROOFS[-1]}"],
        "tests/ shipped": [*names, "tests/verify/test_verify.py"],
        "reports/ shipped": [*names, "reports/README.md"],
        "no license": [n for n in names if "/licenses/" not in n],
    }[breakage]
    assert wheel_content_problems(broken, proofs=PROOFS, certificates=CERTIFICATES) != []


def test_sdist_builds_the_same_package(dist: Dist) -> None:
    """The wheel is built from the sdist, so the sdist carries the certificates and the license too."""
    with tarfile.open(dist.sdist) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    assert {f"proofs/coq/{v}" for v in CERTIFICATES} <= names
    assert {"pyproject.toml", "README.md", "ropecheck/LICENSE", "ropecheck/py.typed"} <= names


# ------------------------------------------------------------------------ installed venv


def metadata_version(venv: Venv, cwd: Path) -> str:
    probe = "import importlib.metadata as m; print(m.version('ropecheck'))"
    return venv.run(venv.python, "-c", probe, cwd=cwd).stdout.strip()


def test_imports_come_from_the_venv(wheel_venv: Venv, workdir: Path) -> None:
    code = "import ropecheck, ropecheck.proofs; print(ropecheck.__file__); print(ropecheck.proofs.__file__)"
    proc = wheel_venv.run(wheel_venv.python, "-c", code, cwd=workdir)
    assert proc.returncode == 0, proc.stderr
    for line in proc.stdout.split():
        path = Path(line).resolve()
        assert wheel_venv.root.resolve() in path.parents and "site-packages" in path.parts, path
        assert ROOT not in path.parents, path


def test_version_is_the_metadata_version(wheel_venv: Venv, dist: Dist, workdir: Path) -> None:
    (version,) = metadata_fields(wheel_metadata(dist.wheel), "Version")
    proc = wheel_venv.run("ropecheck", "--version", cwd=workdir)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"ropecheck {version}"
    probe = "import importlib.metadata as m; print(m.version('ropecheck'))"
    assert wheel_venv.run(wheel_venv.python, "-c", probe, cwd=workdir).stdout.strip() == version


def test_prove_all(wheel_venv: Venv, workdir: Path) -> None:
    """Every theorem proved by the installed package, its pages written where ``--out`` says (the report's proofs
    section writes the same pages, ``tests/report``: run once here, not again through the report)."""
    out = workdir / "proofs"
    proc = wheel_venv.run("ropecheck", "prove", "--all", "--out", out, cwd=workdir)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PROVED" in proc.stdout and "relative_position_general" in proc.stdout
    assert {"index.md", "proofs.tex", "relative_position_general.md"} <= {p.name for p in out.iterdir()}
    assert [p.name for p in workdir.iterdir()] == ["proofs"], "prove wrote outside --out"


def test_prove_no_write(wheel_venv: Venv, workdir: Path) -> None:
    proc = wheel_venv.run("ropecheck", "prove", "rotation_2d", "--no-write", cwd=workdir)
    assert proc.returncode == 0 and "PROVED" in proc.stdout, proc.stdout + proc.stderr
    assert list(workdir.iterdir()) == [], "--no-write wrote files"


@pytest.mark.parametrize(
    ("source", "code", "verdict"), [(GOOD_ROPE, 0, "CONFORMS"), (BROKEN_ROPE, 1, "DOES NOT")], ids=["good", "broken"]
)
def test_verify(wheel_venv: Venv, workdir: Path, source: str, code: int, verdict: str) -> None:
    (workdir / "my_rope.py").write_text(source)
    proc = wheel_venv.run("ropecheck", "verify", "my_rope.py:rope", "--head-dim", "64", "--json", "v.json", cwd=workdir)
    assert proc.returncode == code, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert verdict in proc.stdout
    data = json.loads((workdir / "v.json").read_text())
    assert data["conforms"] is (code == 0)
    if code:
        assert [f["code"] for f in data["findings"]] == ["frequencies"]


def test_report_some_sections(wheel_venv: Venv, workdir: Path) -> None:
    out = workdir / "out"
    proc = wheel_venv.run("ropecheck", "report", "--only", "reference,schedules", "--out", out, cwd=workdir)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((out / "report.json").read_text())
    assert [s["key"] for s in report["sections"]] == ["reference", "schedules"]
    assert report["all_expected_verdicts_held"] is True
    assert report["header"]["ropecheck"] == metadata_version(wheel_venv, workdir)
    assert (out / "README.md").is_file() and (out / "index.html").is_file() and (out / "reference.md").is_file()


PLUGIN_TESTS = f"""\
import torch
from ropecheck import RopeSpec

{GOOD_ROPE.split("import torch", 1)[1].strip()}


def wrong_rope(x, positions):
    return rope(x, positions + 1)  # every position off by one


SPEC = RopeSpec(head_dim=64, base=10000.0, layout="half")


def test_correct(ropecheck):
    ropecheck.check(rope, spec=SPEC)


def test_wrong(ropecheck):
    ropecheck.check(wrong_rope, spec=SPEC)
"""


def test_pytest_plugin(wheel_venv: Venv, workdir: Path) -> None:
    (workdir / "test_rope.py").write_text(PLUGIN_TESTS)
    proc = wheel_venv.run(
        wheel_venv.python, "-m", "pytest", "-p", "ropecheck", "-p", "no:cacheprovider", "--junitxml=r.xml", cwd=workdir
    )
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "ropecheck: " in proc.stdout, "the plugin's report header is missing"
    cases = {c.get("name"): c for c in ET.parse(workdir / "r.xml").getroot().iter("testcase")}
    assert set(cases) == {"test_correct", "test_wrong"}
    assert cases["test_correct"].find("failure") is None
    failure = cases["test_wrong"].find("failure")
    assert failure is not None and "RoPE properties failed" in (failure.get("message") or "") + (failure.text or "")


def test_latex_claim_without_the_runtime(wheel_venv: Venv, workdir: Path) -> None:
    """A plain install has no ANTLR runtime (it is the `latex` extra): SymPy-syntax claims work,
    a LaTeX claim is one line saying what to install, exit 2."""
    proc = wheel_venv.run("ropecheck", "claim", "cos(a)**2 + sin(a)**2 == 1", cwd=workdir)
    assert proc.returncode == 0 and "PROVED" in proc.stdout, proc.stdout + proc.stderr
    proc = wheel_venv.run("ropecheck", "claim", r"\cos^2 a + \sin^2 a = 1", cwd=workdir)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "not installed" in lines[0] and "antlr4-python3-runtime==4.11.*" in lines[0], lines[0]


def test_bench_verify_says_the_corpus_is_in_the_checkout(wheel_venv: Venv, workdir: Path) -> None:
    proc = wheel_venv.run("ropecheck", "bench", "verify", "--repeats", "1", "--out", "b.md", cwd=workdir)
    assert "source checkout" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    # no adapter library in a plain install: nothing to time is a usage error, not a crash
    assert proc.returncode == 2, proc.stdout + proc.stderr
