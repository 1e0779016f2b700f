"""LaTeX claims and SymPy's ANTLR runtime: working here, one clear line when it is missing or another line.

SymPy's LaTeX parser checks the runtime's version at parse time and raises ImportError unless
it is the release line its grammar was generated with. The package cannot require that line
without an upper bound, so the runtime comes from the ``latex`` extra and the user's pin
(``.ci/constraints.txt`` here); ``ropecheck claim`` must say which case it is and how to fix it.
The missing case is also run for real in a plain install of the wheel (tests/distribution).
"""

from __future__ import annotations

import functools
import importlib.metadata
import sys

import pytest
import sympy.parsing.latex._parse_latex_antlr as sympy_antlr

from ropecheck.cli import main
from ropecheck.errors import ExitCode
from ropecheck.symbolic.readers import latex_parser
from ropecheck.symbolic.readers.claim import antlr_runtime_problem, check_claim

LATEX = r"\cos^2 a + \sin^2 a = 1"


def test_the_runtime_here_is_the_line_sympy_accepts() -> None:
    assert importlib.metadata.version("antlr4-python3-runtime").startswith("4.11.")
    assert check_claim(LATEX).verdict.value == "PROVED"


def _pretend_installed(monkeypatch: pytest.MonkeyPatch, version: str | None) -> None:
    real = importlib.metadata.version

    def fake(name: str) -> str:
        if name != "antlr4-python3-runtime":
            return real(name)
        if version is None:
            raise importlib.metadata.PackageNotFoundError(name)
        return version

    monkeypatch.setattr(importlib.metadata, "version", fake)
    monkeypatch.setattr(sympy_antlr, "version", fake)  # SymPy's own check reads it too
    # the fast stage looks for the runtime once per process: here, afresh (and the cache of the run is put back after)
    monkeypatch.setattr(latex_parser, "_sll_parts", functools.cache(latex_parser._sll_parts.__wrapped__))
    if version is None:
        monkeypatch.setitem(sys.modules, "antlr4", None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("installed", "says"),
    [
        (None, "not installed"),
        ("4.13.2", "and 4.13.2 is installed"),
        ("4.9.3", "and 4.9.3 is installed"),
    ],
    ids=["missing", "newer", "older"],
)
def test_claim_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], installed: str | None, says: str
) -> None:
    _pretend_installed(monkeypatch, installed)
    assert main(["claim", LATEX]) == ExitCode.USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert says in err[0] and "pip install 'antlr4-python3-runtime==4.11.*'" in err[0], err[0]
    assert "Traceback" not in err[0]


def test_sympy_syntax_needs_no_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    _pretend_installed(monkeypatch, None)
    assert check_claim("cos(a)**2 + sin(a)**2 == 1").verdict.value == "PROVED"


def test_the_message_follows_the_line_sympy_names() -> None:
    message = antlr_runtime_problem(ImportError("LaTeX parsing requires ... version 4.13"))
    assert "4.13.x" in message and "==4.13.*" in message
