"""Claims as people write them: each construct read to the intended expression, refusals with a column, domains."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import sympy
from sympy import I, ImmutableMatrix, Symbol, conjugate, cos, exp, re, sin

from ropecheck.cli.main import main
from ropecheck.errors import ClaimParseError, UsageError
from ropecheck.symbolic import Verdict, check_claim, parse_claim
from ropecheck.symbolic.readers.latex_syntax import conjugated_names, read_latex_side, star_only_names
from ropecheck.symbolic.readers.scope import Scope, describe_domains, parse_domain_flags, split_declaration
from ropecheck.symbolic.readers.sympy_syntax import read_side

a, b, c, d, f, x, m, n, theta, q, k = sympy.symbols("a b c d f x m n theta q k", real=True)
q1 = Symbol("q_{1}", real=True)
zc, qc, kc = sympy.symbols("z q k", complex=True)


def col(*items: object) -> ImmutableMatrix:
    return ImmutableMatrix([[i] for i in items])


def rot(t: object) -> ImmutableMatrix:
    return ImmutableMatrix([[cos(t), -sin(t)], [sin(t), cos(t)]])


C = {"z": "complex", "q": "complex", "k": "complex"}

# (id, syntax, one side as written, domains, the expression it is meant to be)
READS = [
    ("pmatrix", "latex", r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}", None, ImmutableMatrix([[a, b], [c, d]])),
    ("bmatrix", "latex", r"\begin{bmatrix} a \\ b \end{bmatrix}", None, col(a, b)),
    (
        "left-matrix-right",
        "latex",
        r"\left( \begin{matrix} \cos x & -\sin x \\ \sin x & \cos x \end{matrix} \right)",
        None,
        rot(x),
    ),  # fmt: skip
    (
        "matrix-product-order",
        "latex",
        r"\begin{pmatrix} 0 & 1 \\ 0 & 0 \end{pmatrix}\begin{pmatrix} a & b \\ c & d \end{pmatrix}",
        None,
        ImmutableMatrix([[c, d], [0, 0]]),
    ),  # fmt: skip
    ("tuple", "latex", r"(a, b)", None, col(a, b)),
    ("tuple-transposed", "latex", r"(a, b)^T", None, col(a, b)),
    ("matrix-times-tuple", "latex", r"R(x) (a, b)^T", None, rot(x) * col(a, b)),
    ("langle", "latex", r"\langle (a, b), (c, d) \rangle", None, a * c + b * d),
    ("angle-brackets", "latex", r"<(a, b), (c, d)>", None, a * c + b * d),
    ("angle-brackets-sympy", "sympy", "<Matrix([a, b]), Matrix([c, d])>", None, a * c + b * d),
    ("langle-complex", "latex", r"\langle z, 1 \rangle", C, re(zc)),
    ("langle-complex-numbers", "latex", r"\langle q, k \rangle", C, re(qc * conjugate(kc))),
    ("re-brackets", "latex", r"\Re[q \bar{k}]", None, q * k),
    ("re-plain", "latex", r"Re[x + i a]", None, x),
    ("operatorname-re", "latex", r"\operatorname{Re}(x + i a) + \operatorname{Im}(x + i a)", None, x + a),
    ("re-complex", "latex", r"\Re[q k^{*}]", C, re(qc * conjugate(kc))),
    ("re-complex-left-right", "latex", r"\mathrm{Re}\left[q k^{*}\right]", C, re(qc * conjugate(kc))),
    ("conjugate-star", "latex", r"z^{*} + \bar{z}", C, 2 * conjugate(zc)),
    ("conjugate-overline", "latex", r"\overline{z + 1}", C, conjugate(zc) + 1),
    ("conjugate-group", "latex", r"(a + i b)^*", None, a - I * b),
    ("hermitian", "latex", r"(a, i b)^H", None, ImmutableMatrix([[a, -I * b]])),
    ("odot", "latex", r"(a, b)^T \odot (c, d)^T", None, col(a * c, b * d)),
    ("otimes-plus", "latex", r"(a, b) \otimes (c, d) + (x, f)", None, col(a * c + x, b * d + f)),
    ("odot-binds-looser-than-product", "latex", r"2 (a, b) \odot (c, d)", None, col(2 * a * c, 2 * b * d)),
    ("plain-cos", "latex", r"cos(x)^2 + sin(x)", None, cos(x) ** 2 + sin(x)),
    ("euler", "latex", r"e^{i m\theta}", None, exp(I * m * theta)),
    ("pi", "latex", r"e^{i \pi}", None, -1),
    (
        "unicode",
        "latex",
        r"cos(mθ) + i·sin(mθ) − e^{imθ}",
        None,
        cos(m * theta) + I * sin(m * theta) - exp(I * m * theta),
    ),
    ("trig-no-parentheses", "latex", r"q_1 \cos m\theta", None, q1 * cos(m * theta)),
    ("trig-stops-at-component", "latex", r"\cos m\theta_1 q_1", None, cos(m * Symbol("theta_{1}", real=True)) * q1),
    (
        "label-superscript",
        "latex",
        r"q^{(1)} + i q^{(2)}",
        None,
        Symbol("q^{(1)}", real=True) + I * Symbol("q^{(2)}", real=True),
    ),  # fmt: skip
    ("row-times-tuple", "latex", r"\begin{pmatrix} a & b \end{pmatrix} (c, d)", None, a * c + b * d),
    ("bold", "latex", r"\mathbf{x}", None, x),
    ("dot", "sympy", "Matrix([a, b]).dot(Matrix([c, d]))", None, a * c + b * d),
    ("H", "sympy", "Matrix([a, I*b]).H", None, ImmutableMatrix([[a, -I * b]])),
    ("T", "sympy", "Matrix([a, b]).T", None, ImmutableMatrix([[a, b]])),
    ("index-matrix", "sympy", "Matrix([a, b])[1]", None, b),
    ("index-sequence", "sympy", "v[0]", None, sympy.IndexedBase("v", real=True)[0]),
    ("index-complex-sequence", "sympy", "z[1]", C, sympy.IndexedBase("z", complex=True)[1]),
    ("index-entry", "sympy", "Matrix([[a, b], [c, d]])[1, 0]", None, c),
    ("sympy-complex", "sympy", "conjugate(z)", C, conjugate(zc)),
]


def _read(syntax: str, text: str, domains: dict[str, str] | None) -> object:
    scope = Scope(domains=domains or {})
    return read_latex_side(text, 0, scope) if syntax == "latex" else read_side(text, 0, scope)


@pytest.mark.parametrize("syntax,text,domains,expected", [r[1:] for r in READS], ids=[r[0] for r in READS])
def test_each_construct_reads_as_intended(
    syntax: str, text: str, domains: dict[str, str] | None, expected: object
) -> None:
    got = _read(syntax, text, domains)
    assert got == expected, (got, expected)


def test_a_misread_would_be_caught() -> None:
    """Reading the factors of a product in the other order gives another matrix, and another verdict."""
    expected = dict((r[0], r[4]) for r in READS)["matrix-product-order"]
    assert _read("latex", r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}\begin{pmatrix} 0 & 1 \\ 0 & 0 \end{pmatrix}",
                 None) != expected  # fmt: skip
    result = check_claim(
        r"\begin{pmatrix} 0 & 1 \\ 0 & 0 \end{pmatrix}\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}"
        r" = \begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}\begin{pmatrix} 0 & 1 \\ 0 & 0 \end{pmatrix}"
    )
    assert result.verdict == Verdict.REFUTED
    # a trig argument read the parser's way would give another expression: read as the literature writes it
    assert _read("latex", r"\cos m\theta q_1", None) != read_latex_side(r"\cos m\theta q_1", narrow=False)


# (id, claim, verdict): RoPE identities in the new constructs, and their wrong twins
VERDICTS = [
    # a function without parentheses applies to the product that follows (this literature's convention)
    ("trig-of-product", r"\cos m\theta \, q_1 = q_1 \cos(m\theta)", Verdict.PROVED),
    ("trig-of-difference", r"\cos (m-n)\theta = \cos(m\theta - n\theta)", Verdict.PROVED),
    ("trig-not-the-parser", r"\cos (m-n)\theta = \theta \cos(m-n)", Verdict.REFUTED),
    (
        "rotation-matrix",
        r"\begin{pmatrix} \cos a & -\sin a \\ \sin a & \cos a \end{pmatrix}^T R(b) = R(b - a)",
        Verdict.PROVED,
    ),  # fmt: skip
    (
        "rotation-matrix-swapped",
        r"\begin{pmatrix} \cos a & -\sin a \\ \sin a & \cos a \end{pmatrix}^T R(b) = R(a - b)",
        Verdict.REFUTED,
    ),  # fmt: skip
    (
        "inner-rotated",
        r"\langle R(a) (q_1, q_2), R(b) (k_1, k_2) \rangle = \langle (q_1, q_2), R(b - a)(k_1, k_2)\rangle",
        Verdict.PROVED,
    ),  # fmt: skip
    (
        "inner-rotated-swapped",
        r"<R(a) (q_1, q_2), R(b) (k_1, k_2)> = <(q_1, q_2), R(a - b)(k_1, k_2)>",
        Verdict.REFUTED,
    ),  # fmt: skip
    (
        "rotate-half-elementwise",
        r"(x_1, x_2)^T \odot (\cos t, \cos t)^T + (-x_2, x_1)^T \odot (\sin t, \sin t)^T = R(t) (x_1, x_2)^T",
        Verdict.PROVED,
    ),  # fmt: skip
    (
        "rotate-half-elementwise-wrong",
        r"(x_1, x_2)^T \odot (\cos t, \cos t)^T + (x_2, -x_1)^T \odot (\sin t, \sin t)^T = R(t) (x_1, x_2)^T",
        Verdict.REFUTED,
    ),  # fmt: skip
    (
        "complex-form",
        r"Re[(q_1 + i q_2) e^{i m\theta} \overline{(k_1 + i k_2) e^{i n\theta}}]"
        r" = <R(m\theta)(q_1, q_2), R(n\theta)(k_1, k_2)>",
        Verdict.PROVED,
    ),  # fmt: skip
    (
        "complex-form-sign",
        r"Re[(q_1 + i q_2) e^{i m\theta} \overline{(k_1 + i k_2) e^{i n\theta}}]"
        r" = <R(m\theta)(q_1, q_2), R(-n\theta)(k_1, k_2)>",
        Verdict.REFUTED,
    ),  # fmt: skip
    (
        "dot-sympy",
        "(R(a)*Matrix([q1, q2])).dot(R(b)*Matrix([k1, k2])) == Matrix([q1, q2]).dot(R(b - a)*Matrix([k1, k2]))",
        Verdict.PROVED,
    ),  # fmt: skip
    (
        "H-sympy",
        "(R(a)*Matrix([q1, q2])).H * R(b)*Matrix([k1, k2]) == Matrix([[q1, q2]]) * R(b - a)*Matrix([k1, k2])",
        Verdict.PROVED,
    ),  # fmt: skip
    ("index-sympy", "(R(a)*Matrix([q1, q2]))[0] == q1*cos(a) + q2*sin(a)", Verdict.REFUTED),
    # @, Python's matrix product, between matrices the claim calls, transposes or defines
    ("matmul-latex", r"R(a)^T @ R(b) = R(b - a)", Verdict.PROVED),
    ("matmul-where", r"q^T @ k = k^T @ q \quad q = (q_0, q_1)^T, k = (k_0, k_1)^T", Verdict.PROVED),
    ("matmul-slip", r"q^T @ R(a) @ k = q_0 k_0 \quad q = (q_0, q_1)^T, k = (k_0, k_1)^T", Verdict.REFUTED),
]


@pytest.mark.parametrize("claim,verdict", [v[1:] for v in VERDICTS], ids=[v[0] for v in VERDICTS])
def test_verdicts_in_the_new_constructs(claim: str, verdict: Verdict) -> None:
    result = check_claim(claim)
    assert result.verdict == verdict, (str(result.lhs), str(result.rhs), result.method)


# (id, claim, 0-based column, words the message holds): refused with the column, never guessed
REFUSED = [
    ("sympy-Re", "Re(x) == x", 0, "did you mean re?"),
    ("sympy-cosine", "cosine(x) == 1", 0, "did you mean cos?"),
    ("latex-cosine", r"\sin(x) = cosine(x)", 10, "did you mean \\cos?"),
    ("latex-Cos", r"\sin(x) = Cos(x)", 10, "did you mean \\cos?"),
    ("ellipsis", r"x_1 + \cdots + x_d = 0", 6, "cannot see"),
    ("dots", "x_1 + ... + x_d = 0", 6, "cannot see"),
    ("unknown-environment", r"\begin{vmatrix} a \end{vmatrix} = 1", 0, "unknown environment"),
    ("ragged-matrix", r"x = \begin{pmatrix} a & b \\ c \end{pmatrix}", 4, "different lengths"),
    ("inner-three", r"\langle a, b, c \rangle = 0", 0, "two sides"),
    ("angle-unclosed", r"<a, b = 0", 0, "never closed"),
    ("transpose-scalar", r"q^T k = 0", 0, "applies to a matrix"),
    ("matmul-numbers", r"a @ b = b @ a", 2, "@ multiplies matrices"),  # read as numbers it would be PROVED
    ("matmul-brackets", r"(a) @ (b) = (b) @ (a)", 4, "@ multiplies matrices"),
    ("slice", "v[0:2] == 0", 2, "slice"),
    ("bad-attribute", "v.conjugate() == 0", 1, "attributes are"),
    ("vector-product", r"(a, b)^T (c, d)^T = 0", 0, "cannot multiply a 2x1 by a 2x1"),
    ("transposed-tuple-product", r"(a, b)^T (c, d) = 0", 0, "a tuple is a column vector"),
    ("sympy-call-or-product", "(a (m-1))**b == a(m-1)**b", 1, "with a space"),
]


@pytest.mark.parametrize(
    "claim",
    [
        "(a (m-1))^b = a(m-1)^b",
        r"(a (m-1))^{b} = a(m-1)^{b}",
        r"f(x)^{2} = f(x) f(x)",
        r"(\lambda (m-1))^{b} = \lambda(m-1)^{b}",
        r"(a_{k} (m-1))^{b} = a_{k}(m-1)^{b}",
    ],
    ids=["plain", "latex", "function-squared", "greek", "subscripted"],
)
def test_an_undefined_name_before_a_raised_bracket_is_refused(claim: str) -> None:
    # one tree for a(m-1)^b and (a(m-1))^b, read as a function a raised: PROVED so, false for a number a
    with pytest.raises(ClaimParseError, match="times the bracket raised"):
        parse_claim(claim)


def test_a_name_used_alone_before_a_raised_bracket_is_a_number() -> None:
    # the exponent written on the bracket: c (m-1)^2, decided; a slip in the expansion refuted
    assert check_claim(r"c(m-1)^{2} = c m^2 - 2 c m + c").verdict == Verdict.PROVED
    assert check_claim(r"c(m-1)^{2} = c m^2 - c m + c").verdict == Verdict.REFUTED
    assert check_claim(r"\lambda_i(m-1)^{2} = \lambda_i m^2 - 2 \lambda_i m + \lambda_i").verdict == Verdict.PROVED
    assert check_claim(r"\lambda_i(m-1)^{2} = \lambda_i m^2 - \lambda_i").verdict == Verdict.REFUTED


@pytest.mark.parametrize("claim,column,words", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_unreadable_constructs_are_refused_with_a_column(claim: str, column: int, words: str) -> None:
    with pytest.raises(ClaimParseError) as info:
        parse_claim(claim)
    assert info.value.position == column, str(info.value)
    assert words in str(info.value)


@pytest.mark.parametrize("claim", [r[1] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_cli_unreadable_is_exit_2_with_a_column(claim: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claim", "--", claim]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "column" in err and "Traceback" not in err


# --------------------------------------------------------------------------- domains

DOMAIN_CASES = [
    # (id, claim, domains, verdict): true over R, false over C -- never PROVED for complex symbols
    ("conjugate-real", "conjugate(z) == z", None, Verdict.PROVED),
    ("conjugate-complex-flag", "conjugate(z) == z", {"z": "complex"}, Verdict.REFUTED),
    ("conjugate-complex-clause", "z in C: conjugate(z) == z", None, Verdict.REFUTED),
    ("conjugate-complex-latex", r"z \in \mathbb{C}: \bar{z} = z", None, Verdict.REFUTED),
    # a name written conjugated is complex in the whole claim, so this is not the real case
    ("re-product-conjugated", r"\Re[q \cdot k^*] = q k", None, Verdict.REFUTED),
    ("re-product-real", r"q, k \in \mathbb{R}: \Re[q \cdot k^*] = q k", None, Verdict.PROVED),
    ("re-product-complex", r"q, k \in \mathbb{C}: \Re[q \cdot k^*] = q k", None, Verdict.REFUTED),
    # a conjugated bracket is complex, but which of its names are is not said: both readings are decided, and a
    # verdict stands only where both give it (true for real names, false for complex ones: not decided)
    ("bracket-conjugated-product", r"(a b)^* = a b", None, Verdict.UNDECIDED),
    ("bracket-overline-sum", r"\overline{a + b} = a + b", None, Verdict.UNDECIDED),
    ("bracket-both-ways-true", r"\overline{a b} = \overline{a}\,\overline{b}", None, Verdict.PROVED),
    ("bracket-both-ways-false", r"(a + b)^* = a - b", None, Verdict.REFUTED),
    ("bracket-stated-real", r"a, b \in \mathbb{R}: (a b)^* = a b", None, Verdict.PROVED),
    ("bracket-stated-complex", r"a, b \in \mathbb{C}: (a b)^* = a b", None, Verdict.REFUTED),
    ("abs-square-real", "Abs(z)**2 == z**2", None, Verdict.PROVED),
    ("abs-square-complex", "Abs(z)**2 == z**2", {"z": "complex"}, Verdict.REFUTED),
    ("abs-square-complex-true", "Abs(z)**2 == z*conjugate(z)", {"z": "complex"}, Verdict.PROVED),
    (
        "complex-form-true-over-C",
        r"q, k \in \mathbb{C}: \Re[q e^{i m\theta} \overline{k e^{i n\theta}}]"
        r" = \Re[q \bar{k} e^{i (m - n)\theta}]",
        None,
        Verdict.PROVED,
    ),  # fmt: skip
    ("integer-periodic-real", "cos(2*pi*m) == 1", None, Verdict.REFUTED),
    ("integer-periodic", "cos(2*pi*m) == 1", {"m": "integer"}, Verdict.PROVED),
    ("integer-clause", r"m \in \mathbb{Z}: e^{2\pi i m} = 1", None, Verdict.PROVED),
    ("positive-sqrt-real", "sqrt(x**2) == x", None, Verdict.REFUTED),
    ("positive-sqrt", "sqrt(x**2) == x", {"x": "positive"}, Verdict.PROVED),
    ("positive-clause", r"x \in \mathbb{R}_{>0}: \sqrt{x^2} = x", None, Verdict.PROVED),
]


@pytest.mark.parametrize("claim,domains,verdict", [c[1:] for c in DOMAIN_CASES], ids=[c[0] for c in DOMAIN_CASES])
def test_domains(claim: str, domains: dict[str, str] | None, verdict: Verdict) -> None:
    result = check_claim(claim, domains=domains)
    assert result.verdict == verdict, (str(result.lhs), str(result.rhs), result.method, result.domains)
    if verdict == Verdict.REFUTED:  # the counterexample is re-checked here, numerically
        cex = result.counterexample
        assert cex is not None
        assert abs(complex(sympy.N((result.lhs - result.rhs).xreplace(cex.values), 40))) > 1e-15


def test_every_verdict_states_its_domains() -> None:
    result = check_claim(r"q, k \in \mathbb{C}: \Re[q \bar{k} e^{i m\theta}] = 0")
    got = {d["symbol"]: (d["domain"], d["source"]) for d in result.domains}
    assert got == {"q": ("complex", "declared"), "k": ("complex", "declared"), "m": ("real", "default"),
                   "theta": ("real", "default")}  # fmt: skip
    assert result.to_dict()["domains"] == result.domains
    assert "k, q complex (declared)" in result.domains_text()


def test_sums_state_integer_indices() -> None:
    result = check_claim(r"\sum_{i=0}^{N} x_i = x_0 + \sum_{i=1}^{N} x_i")
    got = {d["symbol"]: (d["domain"], d["source"]) for d in result.domains}
    assert got["N"] == ("integer", "summation") and got["x"] == ("real", "default")


def test_cli_prints_domains_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claim", "--complex", "z", "conjugate(z) == z"]) == 1
    out = capsys.readouterr().out
    assert "domains: z complex (declared)" in out and "z = 1 + I" in out
    assert main(["claim", "--json", "-", "--integer", "m,n", "--positive", "n", "cos(2*pi*m) == cos(2*pi*n)"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {d["symbol"]: d["domain"] for d in data["domains"]} == {"m": "integer", "n": "positive integer"}
    assert main(["claim", "conjugate(z) == z"]) == 0
    assert "domains: z real (default)" in capsys.readouterr().out


def test_declaration_clause_keeps_columns() -> None:
    declared, rest = split_declaration(r"q, k \in \mathbb{C},\ m \in \mathbb{Z}: \cos(m) = q")
    assert declared == {"q": "complex", "k": "complex", "m": "integer"}
    assert rest.index(r"\cos") == 40 and rest[:40].strip() == ""
    with pytest.raises(ClaimParseError) as info:  # the column of an error after the clause is the user's column
        parse_claim(r"z \in \mathbb{C}: \bar{z} = cosine(z)")
    assert info.value.position == 28


def test_bold_names_declared_and_starred_as_whole_names() -> None:
    """``\\boldsymbol{k}_n^*`` is the conjugate of k_n, never k times the conjugate of n; a bold name is declared."""
    declared, _ = split_declaration(r"\boldsymbol{q}_m, \mathbf{k}_{n} \in \mathbb{C}: q = q")
    assert declared == {"q_m": "complex", "k_n": "complex"}
    assert conjugated_names(r"\mathrm{Re}[\boldsymbol{q}_m \boldsymbol{k}_n^*]") == {"k_n"}
    assert star_only_names(r"\mathbf{x}_{1}^* + \bar{\bm{z}}") == {"x_1"}
    kn = Symbol("k_{n}", complex=True)
    clause = r"\boldsymbol{k}_n \in \mathbb{C}: "
    verdict = check_claim(clause + r"\mathrm{Im}[\boldsymbol{k}_n^*] = -\mathrm{Im}[\boldsymbol{k}_n]")
    assert verdict.verdict is Verdict.PROVED and kn in verdict.lhs.free_symbols | verdict.rhs.free_symbols
    wrong = check_claim(clause + r"\mathrm{Im}[\boldsymbol{k}_n^*] = \mathrm{Im}[\boldsymbol{k}_n]")
    assert wrong.verdict is Verdict.REFUTED


def test_undefined_i_beside_a_square_matrix_is_the_identity() -> None:
    """``R(a)^T R(a) = I`` is PROVED with I the 2x2 identity, and says so; I in any other place stays a number."""
    proved = check_claim(r"R(a)^T R(a) = I")
    assert proved.verdict is Verdict.PROVED
    assert any("I read as the 2x2 identity matrix" in r for r in proved.readings)
    assert check_claim(r"R(a)^T R(-a) = \mathbf{I}").verdict is Verdict.REFUTED
    assert check_claim(r"R(a)^T R(a) = I_2").verdict is Verdict.PROVED
    for wrong_size in (r"R(a)^T R(a) = I_3", r"R(a)^T R(a) = I + 1", r"R(a)^T R(a) = I^2"):
        with pytest.raises(ClaimParseError, match="cannot compare a 2x2 matrix with a scalar"):
            parse_claim(wrong_size)


@pytest.mark.parametrize(
    "call,words",
    [
        (lambda: parse_domain_flags(complex="q,k", integer="q"), "two domains"),
        (lambda: parse_domain_flags(complex="q;k"), "comma-separated"),
        (lambda: check_claim("x == x", domains={"w": "complex"}), "not in the claim"),
        (lambda: check_claim("x == x", domains={"x": "quaternion"}), "unknown domain"),
        (lambda: check_claim("x in C: x == x", domains={"x": "integer"}), "two domains"),
    ],
    ids=["conflicting-flags", "bad-separator", "declared-but-absent", "unknown-domain", "clause-vs-flag"],
)
def test_domain_usage_errors(call: object, words: str) -> None:
    with pytest.raises(UsageError) as info:
        call()  # type: ignore[operator]
    assert words in str(info.value)


def test_cli_domain_errors_are_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claim", "--complex", "w", "x == x"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "w" in err


_TWO_SYMBOLS_ONE_NAME = """
import sympy
from ropecheck.symbolic.readers.scope import describe_domains
a, b = sympy.Symbol("l", integer=True), sympy.Symbol("l", integer=True, nonnegative=True)
print([d["domain"] for d in describe_domains([a + b])])
"""


def test_a_name_of_two_symbols_gets_one_domain_whatever_the_hash_seed() -> None:
    # a block index (natural) and the same letter as a summation index (integer): the listing must not depend
    # on a set's order, which the hash seed sets
    seen = set()
    for seed in ("0", "1", "2", "3", "4", "5"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _TWO_SYMBOLS_ONE_NAME], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        seen.add(done.stdout.strip())
    assert len(seen) == 1, seen


def test_describe_lists_a_declared_name_simplified_away() -> None:
    m_int = Symbol("m", integer=True)
    assert describe_domains([cos(2 * sympy.pi * m_int)], {"m": "integer"}) == [
        {"symbol": "m", "domain": "integer", "source": "declared"}
    ]


def test_a_slash_whose_divisor_a_factor_follows_is_not_read_with_certainty() -> None:
    # (x/2) y or x/(2 y)? people write both; the parenthesised and \\frac spellings are read
    assert check_claim("x/2 y = \\frac{x y}{2}").verdict == Verdict.UNDECIDED
    assert check_claim("(x/2) y = \\frac{x y}{2}").verdict == Verdict.PROVED
    assert check_claim("x/2 + y = y + \\frac{x}{2}").verdict == Verdict.PROVED
