"""The claim checker: SymPy and LaTeX claims, verdicts, counterexamples, exit codes, parse errors."""

from __future__ import annotations

import json

import pytest
import sympy

from ropecheck.cli.main import main
from ropecheck.errors import ClaimLimitError, ClaimParseError, UsageError
from ropecheck.symbolic import (
    CLAIM_TIMEOUT,
    MAX_CLAIM_CHARS,
    MAX_EXPONENT,
    MAX_MATRIX_POWER,
    MAX_MATRIX_SIZE,
    MAX_TERMS,
    Verdict,
    check_claim,
    parse_claim,
)
from ropecheck.symbolic.readers import claim as claim_module

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
    # multi-axis RoPE: each block turns by its own axis's position, so R^T R is relative per axis
    (
        "per-axis-relative",
        "diag(R(p*u), R(q*v)).T * diag(R(r*u), R(s*v)) == diag(R((r-p)*u), R((s-q)*v))",
        Verdict.PROVED,
    ),
    (
        "per-axis-relative-one-axis-for-both",
        "diag(R(p*u), R(q*v)).T * diag(R(r*u), R(s*v)) == diag(R((r-p)*u), R((r-p)*v))",
        Verdict.REFUTED,
    ),
    (
        "per-axis-relative-axes-swapped",
        "diag(R(p*u), R(q*v)).T * diag(R(r*u), R(s*v)) == diag(R((s-q)*u), R((r-p)*v))",
        Verdict.REFUTED,
    ),
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
    ("code-slice", "x[0:2] == 1", 2),
    ("code-attribute-call", "x.conjugate() == 1", 1),
    ("code-keyword-argument", "cos(x=1) == 1", 0),
    ("too-long", " + ".join(f"x{i}" for i in range(3000)) + " == 0", 2000),
    ("brackets-too-deep", "cos(" * 31 + "x" + ")" * 31 + " == 1", 123),
    ("signs-too-deep", "-" * 40 + "x == x", 30),
    ("powers-too-deep", "x" + "**x" * 40 + " == 1", 90),
    ("latex-braces-too-deep", "x^{" * 31 + "2" + "}" * 31 + " = 1", 92),
    ("null-byte", "x\x00 == 1", 0),
    ("latex-recursion", r"\alpha = " + "-" * 1980 + "x", 0),  # the LaTeX parser's RecursionError, caught
    ("function-not-called", "cos == 1", 0),
    ("list-side", "[1, 2] == 1", 0),
    ("relation-side", "x > 1 == 1", 0),
    ("bad-number", "086 = 0554", 0),
    ("latex-trailing-junk", r"\cos(x) = \cos(x) )", 18),
    ("latex-junk-both-ways", "T)0(-0b00=a", 1),
    ("latex-unknown-environment", r"\begin{vmatrix} a \end{vmatrix} = 1", 0),
    ("latex-unknown-command-right", r"x = \mathfrak{q}", 4),
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


# (id, claim, limit, message): well-formed claims past a limit -- UNDECIDED at once, naming the limit.
# Before the limits each of these ran for minutes or exhausted the memory.
LIMITS = [
    ("exponent-product", "2**(10000*10000*10000) == 1", "exponent", "exponent 10^12 exceeds the limit 10000"),
    ("exponent-latex", "2^{10^{10}} = 1", "exponent", "exponent 10^10 exceeds the limit 10000"),
    ("exponent-latex-symbol", "x^{100000} = 1", "exponent", "exponent 100000 exceeds the limit 10000"),
    ("power-tower", "1 == 10**10**10", "exponent", "exponent 10^10 exceeds the limit 10000 (at column 10)"),
    ("huge-power", "x**100000 == 1", "exponent", "exponent 100000 exceeds the limit 10000 (at column 4)"),
    ("symbolic-exponent", "x**(10**6*n) == 1", "exponent", "exponent 10^6 exceeds the limit 10000"),
    ("expansion", "(a+b+c+d)**9999 == 0", "terms", "would give about 1.7e+11 terms, over the limit of 10000"),
    ("trig-multiple", "cos(100000*a) == 1", "terms", "would give about 100,001 terms, over the limit of 10000"),
    ("latex-sum-length", r"\sum_{i=0}^{10^{100}} x_i = 0", "terms", "terms, over the limit of 10000"),
    ("matrix-power", "R(a)**10000 == R(10000*a)", "matrix_power", "matrix power 10000 exceeds the limit 64"),
    ("eye", "eye(10000) == eye(10000)", "matrix_size", "eye(10000) exceeds the matrix size limit 64x64"),
    ("diag", "diag(eye(40), eye(40)) == 1", "matrix_size", "diag(...) of 80 rows exceeds the matrix size limit"),
    ("matrix-dims", "Matrix(100, 1, [a]) == 1", "matrix_size", "100 rows or columns exceeds the matrix size limit"),
    ("number-power", "(10**2000)**10000 == 1", "number", "digits exceeds the limit of 4000 digits"),
    ("number-product", "(2**9000)*(2**9000)*(2**9000)*(2**9000)*(2**9000) == 1", "number", "limit of 4000 digits"),
    ("number-literal", "1e99999 == 1", "number", "the number 1e99999 has more than 4000 digits"),
    ("latex-factorial", "(10^{5})! = 1", "number", "factorial of 100000 exceeds the limit 10000"),
]


@pytest.mark.parametrize("claim,limit,message", [c[1:] for c in LIMITS], ids=[c[0] for c in LIMITS])
def test_limits_make_a_claim_undecided(
    claim: str, limit: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    result = check_claim(claim)
    assert (result.verdict, result.limit) == (Verdict.UNDECIDED, limit), (result.method, result.limit_message)
    assert message in (result.limit_message or ""), result.limit_message
    assert main(["claim", "--json", "-", "--", claim]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["limit"] == {"name": limit, "message": result.limit_message}
    assert main(["claim", "--", claim]) == 3
    out, err = capsys.readouterr()
    assert out.startswith(f"UNDECIDED  [{result.limit_message}]") and "this is not a proof" in out and err == ""


def test_parse_claim_raises_the_limit() -> None:
    with pytest.raises(ClaimLimitError) as info:
        parse_claim("x**100000 == 1")
    assert info.value.limit == "exponent" and info.value.position == 3


def test_the_limits_are_what_the_module_says() -> None:
    """The numbers the README and the help quote."""
    assert (MAX_CLAIM_CHARS, MAX_EXPONENT, MAX_MATRIX_SIZE, MAX_MATRIX_POWER, MAX_TERMS) == (2000, 10000, 64, 64, 10000)
    assert CLAIM_TIMEOUT == 5.0


@pytest.mark.parametrize(
    "claim,verdict",
    [
        ("x**10000 == x**10000", Verdict.PROVED),  # at the exponent limit, and the same on both sides
        ("cos(100000*a) == cos(100000*a)", Verdict.PROVED),  # past the expansion limit, but identical sides
        ("eye(64) == eye(64)", Verdict.PROVED),
        ("R(a)**8 == R(8*a)", Verdict.PROVED),
        ("x**10000*y**10000*z**10000 == 1", Verdict.REFUTED),  # a counterexample past Python's int-to-text limit
        ("2**10000 == 2**10000 + 1", Verdict.REFUTED),
    ],
    ids=["exponent-at-limit", "identical-sides", "eye-64", "matrix-power-8", "huge-counterexample", "big-numbers"],
)
def test_claims_within_the_limits_are_decided(claim: str, verdict: Verdict, capsys: pytest.CaptureFixture[str]) -> None:
    result = check_claim(claim)
    assert (result.verdict, result.limit) == (verdict, None), (result.method, result.limit_message)
    assert main(["claim", "--", claim]) == result.exit_code
    assert "Traceback" not in capsys.readouterr().err


SLOW_CLAIM = "cos(" + " + ".join(f"x{i}" for i in range(13)) + ") == 0"  # about 6 s on 2 cores, 4096 terms


def test_time_limit() -> None:
    """A claim within the static limits that takes seconds is stopped at the time limit, its sides kept."""
    result = check_claim(SLOW_CLAIM, timeout=0.25)
    assert (result.verdict, result.limit) == (Verdict.UNDECIDED, "time")
    assert result.limit_message == "time limit of 0.25 s reached"
    assert result.lhs is not None and str(result.rhs) == "0"  # read before the time ran out


def test_time_limit_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claim", "--timeout", "0.25", "--json", "-", "--", SLOW_CLAIM]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "UNDECIDED" and data["limit"]["name"] == "time"


def test_memory_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A decision that allocates past the memory limit is stopped: UNDECIDED, naming the limit."""

    def greedy(lhs: object, rhs: object) -> object:
        return bytearray(16 << 30)  # far past the limit below

    monkeypatch.setattr(claim_module, "decide", greedy)  # the forked child inherits the patch
    result = check_claim("a == b", memory_limit=64 << 20)
    assert (result.verdict, result.limit, result.limit_message) == (
        Verdict.UNDECIDED,
        "memory",
        "memory limit of 64 MiB reached",
    )


@pytest.mark.parametrize("isolated", [True, False], ids=["child", "in-process"])
def test_a_recursion_error_never_escapes(isolated: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    def deep(lhs: object, rhs: object) -> object:
        return deep(lhs, rhs)

    monkeypatch.setattr(claim_module, "decide", deep)
    kwargs = {} if isolated else {"timeout": None, "memory_limit": None}
    result = check_claim("a == b", **kwargs)  # type: ignore[arg-type]
    assert (result.verdict, result.limit) == (Verdict.UNDECIDED, "recursion")


def test_a_failing_rewrite_is_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(lhs: object, rhs: object) -> object:
        raise KeyError("x")

    monkeypatch.setattr(claim_module, "decide", broken)
    result = check_claim("a == b")
    assert (result.verdict, result.limit, result.method) == (Verdict.UNDECIDED, None, "none (KeyError in the rewrites)")


@pytest.mark.parametrize(
    "value",
    ["0", "-1", "nan", "1e9"],
    ids=["zero", "negative", "nan", "huge"],
)
def test_bad_timeouts_are_one_line_exit_2(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claim", "--timeout", value, "a == a"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("ropecheck claim: error: --timeout must be a number of seconds in (0, 3600]")
    assert len(err.strip().splitlines()) == 1


def test_check_claim_argument_errors() -> None:
    for kwargs in ({"timeout": 0}, {"timeout": float("inf")}, {"memory_limit": -1}, {"syntax": "python"}):
        with pytest.raises(UsageError):
            check_claim("a == a", **kwargs)  # type: ignore[arg-type]
