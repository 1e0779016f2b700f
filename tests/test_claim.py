"""The claim checker: SymPy and LaTeX claims, verdicts, counterexamples, exit codes, parse errors."""

from __future__ import annotations

import json

import pytest
import sympy

from ropecheck._cli import main
from ropecheck.errors import ClaimParseError
from ropecheck.symbolic import Verdict, check_claim, parse_claim

# (id, claim, verdict): right identities and the wrong versions tutorials print
CLAIMS = [
    ("angle-sum", "cos(a + b) == cos(a)*cos(b) - sin(a)*sin(b)", Verdict.PROVED),
    ("angle-sum-wrong-sign", "cos(a + b) == cos(a)*cos(b) + sin(a)*sin(b)", Verdict.REFUTED),
    ("rotation-relative", "R(a).T * R(b) == R(b - a)", Verdict.PROVED),
    ("rotation-relative-swapped", "R(a).T * R(b) == R(a - b)", Verdict.REFUTED),
    ("rotation-orthogonal", "R(a).T * R(a) == eye(2)", Verdict.PROVED),
    ("complex-form", "re((q0 + I*q1)*exp(I*m*t) * conjugate((k0 + I*k1)*exp(I*n*t))) == re((q0 + I*q1)*(k0 - I*k1)*exp(I*(m - n)*t))", Verdict.PROVED),
    ("complex-form-n-minus-m", "re((q0 + I*q1)*exp(I*m*t) * conjugate((k0 + I*k1)*exp(I*n*t))) == re((q0 + I*q1)*(k0 - I*k1)*exp(I*(n - m)*t))", Verdict.REFUTED),
    ("matrix-literal", "Matrix([[cos(t), -sin(t)], [sin(t), cos(t)]]) == R(t)", Verdict.PROVED),
    ("power-xor", "(cos(t)^2 + sin(t)^2) == 1", Verdict.PROVED),
    ("decimal-exact", "0.5*x + 0.5*x == x", Verdict.PROVED),
    ("near-miss", "exp(pi*sqrt(163)) == 640320**3 + 744", Verdict.REFUTED),
    ("undefined-function", "f(x) == g(x)", Verdict.UNDECIDED),
    ("latex-relative", r"\cos(m\theta)\cos(n\theta) + \sin(m\theta)\sin(n\theta) = \cos((m-n)\theta)", Verdict.PROVED),
    ("latex-relative-wrong", r"\cos(m\theta)\cos(n\theta) + \sin(m\theta)\sin(n\theta) = \cos((m+n)\theta)", Verdict.REFUTED),
    ("latex-re-bar-star", r"\mathrm{Re}\left[q \bar{k} e^{i(m-n)\theta}\right] = \operatorname{Re}\left[q k^* e^{i(m-n)\theta}\right]", Verdict.PROVED),
    ("latex-euler", r"e^{i m \theta} = \cos(m\theta) + i \sin(m\theta)", Verdict.PROVED),
    ("latex-euler-wrong-sign", r"e^{i m \theta} = \cos(m\theta) - i \sin(m\theta)", Verdict.REFUTED),
    ("latex-rotation", r"R(\alpha)^\top R(\beta) = R(\beta - \alpha)", Verdict.PROVED),
    ("latex-rotation-swapped", r"R(\alpha)^T R(\beta) = R(\alpha - \beta)", Verdict.REFUTED),
    ("latex-frac", r"\frac{1}{2}\sin(2x) = \sin(x)\cos(x)", Verdict.PROVED),
]


@pytest.mark.parametrize("claim,verdict", [c[1:] for c in CLAIMS], ids=[c[0] for c in CLAIMS])
def test_claim_verdicts(claim: str, verdict: Verdict) -> None:
    result = check_claim(claim)
    assert result.verdict == verdict, (result.method, result.counterexample)
    if verdict == Verdict.REFUTED:
        cex = result.counterexample
        assert cex is not None
        lhs, rhs = (result.lhs[cex.entry], result.rhs[cex.entry]) if cex.entry else (result.lhs, result.rhs)
        diff = complex(sympy.N((lhs - rhs).xreplace(cex.values), 40))
        assert abs(diff) > 1e-15  # re-verified numerically, independently of the certificate
    if verdict == Verdict.PROVED:
        assert result.method not in ("none", "counterexample")


def test_free_names_are_real() -> None:
    lhs, rhs, syntax = parse_claim("conjugate(x) == x")
    assert syntax == "sympy" and lhs == rhs


@pytest.mark.parametrize(
    "claim,column",
    [
        ("cos(a) == cos(a) + (", 20),
        ("a == b == c", 7),
        ("cos(a)", 6),
        ("  == b", 0),
        ("R(a) == 1", 7),
        (r"\frac{1}{2} = \sin(", 13),
    ],
    ids=["unclosed-paren", "two-equals", "no-equals", "empty-left", "matrix-vs-scalar", "latex-unclosed"],
)
def test_parse_errors_have_a_position(claim: str, column: int) -> None:
    with pytest.raises(ClaimParseError) as info:
        parse_claim(claim)
    assert info.value.position is not None and info.value.position >= column


@pytest.mark.parametrize(
    "argv,code",
    [
        (["R(a).T * R(b) == R(b - a)"], 0),
        (["R(a).T * R(b) == R(a - b)"], 1),
        (["f(x) == g(x)"], 3),
        (["cos(a) == cos(a) + ("], 2),
        (["--latex", r"\cos^2 x + \sin^2 x = 1"], 0),
    ],
    ids=["proved", "refuted", "undecided", "parse-error", "latex"],
)
def test_cli_exit_codes(argv: list[str], code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claim", *argv]) == code
    out, err = capsys.readouterr()
    if code == 2:
        assert out == "" and len(err.strip().splitlines()) == 1 and "column" in err and "Traceback" not in err
    else:
        assert out.split()[0] in ("PROVED", "REFUTED", "UNDECIDED")
    if code == 1:
        assert "counterexample" in out


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claim", "--json", "--", "sin(-a) == sin(a)"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "REFUTED" and data["counterexample"]["values"]


def test_cli_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["claim", "--help"])
    assert info.value.code == 0
    assert "exit codes" in capsys.readouterr().out
