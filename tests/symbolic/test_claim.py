"""The claim checker: SymPy and LaTeX claims, verdicts, counterexamples, exit codes, parse errors."""

from __future__ import annotations

import json

import pytest
import sympy

from ropecheck.cli.main import main
from ropecheck.errors import ClaimParseError
from ropecheck.symbolic import Verdict, check_claim, parse_claim

# (id, claim, verdict): right identities and the wrong versions tutorials print
CLAIMS = [
    ("angle-sum", "cos(a + b) == cos(a)*cos(b) - sin(a)*sin(b)", Verdict.PROVED),
    ("angle-sum-wrong-sign", "cos(a + b) == cos(a)*cos(b) + sin(a)*sin(b)", Verdict.REFUTED),
    ("rotation-relative", "R(a).T * R(b) == R(b - a)", Verdict.PROVED),
    ("rotation-relative-swapped", "R(a).T * R(b) == R(a - b)", Verdict.REFUTED),
    ("rotation-orthogonal", "R(a).T * R(a) == eye(2)", Verdict.PROVED),
    (
        "complex-form",
        "re((q0 + I*q1)*exp(I*m*t) * conjugate((k0 + I*k1)*exp(I*n*t))) == re((q0 + I*q1)*(k0 - I*k1)*exp(I*(m "
        "- n)*t))",
        Verdict.PROVED,
    ),
    (
        "complex-form-n-minus-m",
        "re((q0 + I*q1)*exp(I*m*t) * conjugate((k0 + I*k1)*exp(I*n*t))) == re((q0 + I*q1)*(k0 - I*k1)*exp(I*(n "
        "- m)*t))",
        Verdict.REFUTED,
    ),
    ("matrix-literal", "Matrix([[cos(t), -sin(t)], [sin(t), cos(t)]]) == R(t)", Verdict.PROVED),
    ("power-xor", "(cos(t)^2 + sin(t)^2) == 1", Verdict.PROVED),
    ("decimal-exact", "0.5*x + 0.5*x == x", Verdict.PROVED),
    ("near-miss", "exp(pi*sqrt(163)) == 640320**3 + 744", Verdict.REFUTED),
    ("undefined-function", "f(x) == g(x)", Verdict.UNDECIDED),
    ("latex-relative", r"\cos(m\theta)\cos(n\theta) + \sin(m\theta)\sin(n\theta) = \cos((m-n)\theta)", Verdict.PROVED),
    (
        "latex-relative-wrong",
        r"\cos(m\theta)\cos(n\theta) + \sin(m\theta)\sin(n\theta) = \cos((m+n)\theta)",
        Verdict.REFUTED,
    ),
    (
        "latex-re-bar-star",
        r"\mathrm{Re}\left[q \bar{k} e^{i(m-n)\theta}\right] = \operatorname{Re}\left[q k^* e^{i(m-n)\theta}\right]",
        Verdict.PROVED,
    ),
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


# (id, claim, 0-based column of the problem): garbage must be a parse error with its position
PARSE_ERRORS = [
    ("unclosed-paren", "cos(a) == cos(a) + (", 19),
    ("two-equals", "a == b == c", 7),
    ("no-equals", "cos(a)", 6),
    ("empty-left", "  == b", 0),
    ("matrix-vs-scalar", "R(a) == 1", 7),
    ("latex-unclosed", r"\frac{1}{2} = \sin(", 18),
    ("code-import", '__import__("os").getcwd() == 1', 0),
    ("code-dunder-attribute", "x.__class__ == 1", 1),
    ("code-attribute", "R(a).T.real == 1", 6),
    ("code-lambda", "lambda x: x == 1", 0),
    ("code-string", "'abc' == 1", 0),
    ("code-subscript", "x[0] == 1", 0),
    ("code-keyword-argument", "cos(x=1) == 1", 0),
    ("power-tower", "1 == 10**10**10", 9),
    ("huge-power", "x**100000 == 1", 3),
    ("function-not-called", "cos == 1", 0),
    ("list-side", "[1, 2] == 1", 0),
    ("relation-side", "x > 1 == 1", 0),
    ("bad-number", "086 = 0554", 0),
    ("latex-trailing-junk", r"\cos(x) = \cos(x) )", 18),
    ("latex-junk-both-ways", "T)0(-0b00=a", 1),
    ("latex-unknown-command", r"\begin{pmatrix} a \end{pmatrix} = 1", 0),
    ("latex-unknown-command-right", r"x = \mathbf{q}", 4),
]


@pytest.mark.parametrize("claim,column", [p[1:] for p in PARSE_ERRORS], ids=[p[0] for p in PARSE_ERRORS])
def test_parse_errors_have_a_position(claim: str, column: int) -> None:
    with pytest.raises(ClaimParseError) as info:
        parse_claim(claim)
    assert info.value.position == column, str(info.value)


@pytest.mark.parametrize("claim", [p[1] for p in PARSE_ERRORS], ids=[p[0] for p in PARSE_ERRORS])
def test_cli_garbage_is_one_line_exit_2(claim: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claim", "--", claim]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "column" in err and "Traceback" not in err


def test_claims_cannot_run_code() -> None:
    """Builtins are unreachable: a name outside the claim language is a symbol or an undefined function."""
    lhs, rhs, _ = parse_claim("exec(x) + open(y) + globals == eval(x) + print(y)")
    assert {type(f).__name__ for f in lhs.atoms(sympy.Function) | rhs.atoms(sympy.Function)} == {
        "exec",
        "open",
        "eval",
        "print",
    }
    assert sympy.Symbol("globals", real=True) in lhs.free_symbols


@pytest.mark.parametrize("name", ["gamma", "beta", "N", "S", "Q", "E1", "zeta", "Symbol1"])
def test_sympy_names_are_plain_real_symbols(name: str) -> None:
    lhs, rhs, _ = parse_claim(f"{name} + 1 == 1 + {name}")
    assert lhs == rhs and lhs.free_symbols == {sympy.Symbol(name, real=True)}


# (id, claim, syntax, verdict): how auto-detection and the LaTeX reader understand what users type
READINGS = [
    ("single-equals-sympy", "cos(x)^2 = 1 - sin(x)^2", "sympy", Verdict.PROVED),
    ("implicit-product-latex", "2x = x + x", "latex", Verdict.PROVED),
    ("latex-cdot", r"n \cdot (n+1) = n^2 + n", "latex", Verdict.PROVED),
    ("latex-product-not-call", r"\sum_{i=0}^{n} i = \frac{n(n+1)}{2}", "latex", Verdict.PROVED),
    ("latex-product-not-call-wrong", r"\sum_{i=0}^{n} i = \frac{n(n-1)}{2}", "latex", Verdict.REFUTED),
    ("latex-sum-indexed", r"\sum_{i=0}^{3} x_i = x_0 + x_1 + x_2 + x_3", "latex", Verdict.PROVED),
    ("latex-sum-term-missing", r"\sum_{i=0}^{3} x_i = x_0 + x_1 + x_2", "latex", Verdict.REFUTED),
    ("latex-sum-telescoping", r"\sum_{i=0}^{N} (x_{i+1} - x_i) = x_{N+1} - x_0", "latex", Verdict.PROVED),
    ("latex-sum-telescoping-wrong", r"\sum_{i=0}^{N} (x_{i+1} - x_i) = x_{N+1} - x_1", "latex", Verdict.REFUTED),
    (
        "latex-decay-sum",
        r"\sum_{j=0}^{1} h_j e^{i(m-n)\theta_j} = h_0 e^{i(m-n)\theta_0} + h_1 e^{i(m-n)\theta_1}",
        "latex",
        Verdict.PROVED,
    ),
    (
        "latex-decay-sum-swapped",
        r"\sum_{j=0}^{1} h_j e^{i(m-n)\theta_j} = h_0 e^{i(n-m)\theta_0} + h_1 e^{i(m-n)\theta_1}",
        "latex",
        Verdict.REFUTED,
    ),
    ("latex-tutorial-cos-split", r"\cos(m\theta) = \cos(m)\cos(\theta)", "latex", Verdict.REFUTED),
    ("tutorial-rotation-transposed", "Matrix([[cos(t), sin(t)], [-sin(t), cos(t)]]) == R(t)", "sympy", Verdict.REFUTED),
    ("tutorial-compose-minus", "R(a) * R(b) == R(a - b)", "sympy", Verdict.REFUTED),
]


@pytest.mark.parametrize("claim,syntax,verdict", [r[1:] for r in READINGS], ids=[r[0] for r in READINGS])
def test_readings(claim: str, syntax: str, verdict: Verdict) -> None:
    result = check_claim(claim)
    assert (result.syntax, result.verdict) == (syntax, verdict), (str(result.lhs), str(result.rhs), result.method)
    if verdict == Verdict.REFUTED:
        cex = result.counterexample
        lhs, rhs = (result.lhs[cex.entry], result.rhs[cex.entry]) if cex.entry else (result.lhs, result.rhs)
        diff = (lhs - rhs).xreplace(cex.values).doit().xreplace(cex.values)
        assert abs(complex(sympy.N(diff, 40))) > 1e-15  # re-verified numerically


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
