"""Notation met in published RoPE derivations, read only where its reading is certain.

Upright text (``\\text{exp}``, ``\\mathrm{i}``, ``\\mathrm{dim}``), glued letters (``pos``, ``PE_{...}``),
``i`` both an index and the imaginary unit, and ``b^*`` both "the optimal b" and a conjugate:
each is read the one way it means, or not decided -- never refuted or proved on a guess.
"""

from __future__ import annotations

import pytest
import sympy

from ropecheck.errors import ClaimLimitError, ClaimParseError
from ropecheck.symbolic import Verdict, check_claim
from ropecheck.symbolic.readers.latex_syntax import AmbiguousReading, read_latex_side, star_only_names
from ropecheck.symbolic.readers.scope import Scope

# (id, claim, verdict, limit)
CLAIMS = [
    ("text-exp", r"\text{exp}(0) = 1", Verdict.PROVED, None),
    ("text-cos-sin", r"\text{cos}(\omega t)^2 + \text{sin}(\omega t)^2 = 1", Verdict.PROVED, None),
    ("mathrm-exp", r"\mathrm{exp}(x) = \exp(x)", Verdict.PROVED, None),
    ("operatorname-exp", r"\operatorname{exp}(2x) = \exp(x)^2", Verdict.PROVED, None),
    ("text-exp-wrong", r"\text{exp}(0) = 0", Verdict.REFUTED, None),
    ("text-i", r"e^{\text{i}\phi} = \cos\phi + \text{i}\sin\phi", Verdict.PROVED, None),
    ("mathrm-i-mathrm-e", r"\mathrm{e}^{\mathrm{i} x} = \cos x + i \sin x", Verdict.PROVED, None),
    ("mathrm-word-one-name", r"\mathrm{dim} + 1 = 1 + \mathrm{dim}", Verdict.PROVED, None),
    ("text-subscript-word", r"d_{\text{model}} = d_{\mathrm{model}}", Verdict.PROVED, None),
    ("text-prose", r"\text{a turn by } (b-a)\phi = (b-a)\phi", Verdict.UNDECIDED, "reading"),
    ("text-label", r"\text{Rotated}[x_1; x_2] = 2 x_1", Verdict.UNDECIDED, "reading"),
    ("text-label-matrix", r"\text{Rot}\begin{bmatrix} u \\ v \end{bmatrix} = \begin{bmatrix} u \\ v \end{bmatrix}",
     Verdict.UNDECIDED, "reading"),
    ("three-letters", r"pos + 1 = 1 + pos", Verdict.PROVED, None),  # a name or p·o·s: true either way
    ("two-letters-subscript", r"PE_{(p,2j)} = \sin(w_j p)", Verdict.REFUTED, None),  # false for a free PE or P·E
    ("two-letters-call", r"PE(p) = PE(p) + 0", Verdict.PROVED, None),
    ("two-letters-product", r"qk = kq", Verdict.PROVED, None),
    ("i-index-same-both-ways", r"x_i b^{2*i/d} = x_i b^{2i/d}", Verdict.PROVED, None),
    ("i-index-verdicts-differ", r"\Im[i] x_i = x_i", Verdict.UNDECIDED, "reading"),
    ("i-index-euler-upright", r"e^{i\theta_i} = \cos\theta_i + \mathrm{i}\sin\theta_i", Verdict.PROVED, None),
    ("i-without-index", r"\Im[i] x = x", Verdict.PROVED, None),
    ("star-verdicts-differ", r"\Re[b^*] = b^*", Verdict.UNDECIDED, "reading"),
    ("star-same-both-ways", r"q k^* = k q^*", Verdict.REFUTED, None),
    ("star-with-bar-is-conjugate", r"\Re[b^*] = \Re[\bar{b}] + 0 b^*", Verdict.PROVED, None),
    ("bar-stays-conjugate", r"\Re[\bar{b}] = \bar{b}", Verdict.REFUTED, None),
    # glued letters: decided when the name reading and the product reading agree (they bound every other)
    ("word-both-readings-prove",
     r"\sin(w(pos+k)) = \sin(w\, pos)\cos(w k) + \cos(w\, pos)\sin(w k)", Verdict.PROVED, None),
    ("word-both-readings-refute",
     r"\sin(w(pos+k)) = \sin(w\, pos)\cos(w k) - \cos(w\, pos)\sin(w k)", Verdict.REFUTED, None),
    ("word-readings-differ", r"pos = p\, o\, s", Verdict.UNDECIDED, "reading"),
    ("word-with-i-letter", r"\Re[dim] = dim", Verdict.UNDECIDED, "reading"),
    ("word-letter-complex", r"\bar{p} + pos = pos + \bar{p} + 0 \Im[pos]", Verdict.UNDECIDED, "reading"),
    ("word-subscripted-name", r"PE_{(pos,2j)} + 1 = 1 + PE_{(pos,2j)}", Verdict.PROVED, None),
    ("upright-word-subscript", r"\mathrm{PE}_{p} + 1 = 1 + \mathrm{PE}_{p}", Verdict.PROVED, None),
    # a placeholder inside a subscript is named as written, the same on both sides
    ("upright-inside-subscript",
     r"\mathrm{foo} + v_{\mathrm{pos}+k} = v_{\mathrm{pos}+k} + \mathrm{foo}", Verdict.PROVED, None),
    ("underbrace-label", r"\underbrace{\cos a\cos b}_{\text{first}} - \sin a\sin b = \cos(a+b)", Verdict.PROVED,
     None),
    ("underbrace-label-wrong", r"\underbrace{\cos a\cos b}_{\text{first}} + \sin a\sin b = \cos(a+b)",
     Verdict.REFUTED, None),
    ("underbrace-keeps-group", r"2\underbrace{a+b}_{x} = 2a + 2b", Verdict.PROVED, None),
]  # fmt: skip


@pytest.mark.parametrize("claim, verdict, limit", [c[1:] for c in CLAIMS], ids=[c[0] for c in CLAIMS])
def test_world_notation(claim: str, verdict: Verdict, limit: str | None) -> None:
    result = check_claim(claim, syntax="latex", timeout=None)
    assert (result.verdict, result.limit) == (verdict, limit), (result.lhs, result.rhs, result.limit_message)


def test_mathrm_word_is_one_symbol() -> None:
    for side in (r"\mathrm{dim}", r"d_{\mathrm{dim}}", r"L_\text{train}"):
        value = read_latex_side(side)
        assert len(value.free_symbols) == 1 and value.is_Symbol, (side, value)
    assert str(read_latex_side(r"d_{\text{model}}")) == "d_model"
    result = check_claim(r"\mathrm{dim} = 31", syntax="latex", timeout=None)
    assert [str(s) for s in result.lhs.free_symbols] == ["dim"]


def test_i_as_index_needs_a_reading() -> None:
    scope = Scope(index_i=True)
    with pytest.raises(AmbiguousReading) as exc:
        read_latex_side(r"2\pi b^{2*i/d}", 0, scope)
    assert exc.value.limit == "reading" and set(exc.value.choices) == {"unit", "index"}
    index = read_latex_side(r"b^{2*i/d}", 0, Scope(index_i=True, i_reading="index"))
    assert index.exp.free_symbols and all(s.is_real for s in index.free_symbols)
    # in an exponent of e, i is the unit
    assert read_latex_side(r"e^{i m \theta_i}", 0, scope).has(sympy_I())


def test_ambiguous_readings_are_named() -> None:
    result = check_claim(r"\Re[b^*] = b^*", syntax="latex", timeout=None)
    assert "conjugate of a complex b" in (result.limit_message or "")
    assert "real name of its own" in (result.limit_message or "")
    same = check_claim(r"x_i b^{2*i/d} = x_i b^{2i/d}", syntax="latex", timeout=None)
    assert any("the same verdict" in r for r in same.readings), same.readings


def test_star_only_names() -> None:
    assert star_only_names(r"b^* = 2 b + \bar{q} q^* + k^{*} k^H") == {"b"}


def test_prime_command_reads_as_prime() -> None:
    assert read_latex_side(r"R(a)^{\prime} R(b)") == read_latex_side(r"R(a)' R(b)")
    with pytest.raises(ClaimParseError, match="prime"):
        read_latex_side(r"b^{\prime} + b")


@pytest.mark.parametrize("command", [r"\mathcal{O}(n)", r"\mathscr{M}", r"\mathring{u}"])
def test_other_commands_stay_unread(command: str) -> None:
    with pytest.raises((ClaimParseError, ClaimLimitError), match="unknown LaTeX command"):
        read_latex_side(command + " + 1")


def test_a_calligraphic_capital_is_a_name_of_its_own() -> None:
    calligraphic = read_latex_side(r"\boldsymbol{\mathcal{M}}_t + \mathcal{M}")
    assert sorted(str(x) for x in calligraphic.free_symbols) == ["calM", "calM_{t}"]
    assert read_latex_side(r"\mathcal{M} - M") != 0  # never the plain M


@pytest.mark.parametrize("norm", [r"\Vert u \Vert", r"\|u\|", r"\lVert u\rVert", r"\left\| u \right\|"])
def test_the_norm_of_a_name_is_a_positive_name_of_its_own(norm: str) -> None:
    import sympy

    assert read_latex_side(norm + " + 1") == sympy.Symbol("\u2016u\u2016", positive=True) + 1


def test_the_norm_of_an_expression_or_of_a_defined_name_is_not_read() -> None:
    from ropecheck.symbolic.readers.scope import Definition, Scope

    with pytest.raises(ClaimParseError, match="norm"):
        read_latex_side(r"\Vert u + v \Vert")
    scope = Scope(symbols={"u": Definition("symbol", "u", read_latex_side("(1, 2)"))})
    assert read_latex_side(r"\|u\|", 0, scope) == sympy.sqrt(5)  # a vector written out: its length
    matrix = Scope(symbols={"u": Definition("symbol", "u", sympy.Matrix([[1, 2], [3, 4]]))})
    with pytest.raises(ClaimParseError, match="defines"):
        read_latex_side(r"\|u\|", 0, matrix)  # the norm of a matrix: which one is not said


def test_the_norm_of_a_name_defined_by_its_polar_form_is_the_modulus_it_writes() -> None:
    from ropecheck.symbolic.readers.scope import Definition

    def defined(body: str, domains: dict[str, str] | None = None) -> Scope:
        return Scope(symbols={"q": Definition("symbol", "q", read_latex_side(body, 0, Scope(domains=domains or {})))})

    modulus = sympy.Symbol("\u2016q\u2016", positive=True)
    polar = defined(r"\|q\| e^{i\theta}", {"theta": "real"})
    assert read_latex_side(r"\|q\| + 1", 0, polar) == modulus + 1  # q = |q| e^{i theta}: the modulus written
    for other in (r"\|q\| e^{\theta}", r"2 \|q\| e^{i\theta}", r"\|q\|_2 e^{i\theta}"):  # no polar form of \|q\|
        with pytest.raises(ClaimParseError, match="defines"):
            read_latex_side(r"\|q\|", 0, defined(other, {"theta": "real"}))
    with pytest.raises(ClaimParseError, match="defines"):  # an angle that may be complex: the modulus is not |q|
        read_latex_side(r"\|q\|", 0, defined(r"\|q\| e^{i\theta}", {"theta": "complex"}))


def test_the_norm_of_an_expression_that_reads_as_a_written_out_column_is_its_length() -> None:
    from ropecheck.symbolic.readers.scope import Definition

    scope = Scope(symbols={"p": Definition("symbol", "p", read_latex_side("(3, 4)"))})
    turn = r"\begin{pmatrix} 0 & -1 \\ 1 & 0 \end{pmatrix} p"
    assert read_latex_side(rf"\left\| {turn} \right\|", 0, scope) == 5
    assert read_latex_side(rf"\|2 {turn}\|^2", 0, scope) == 100
    assert read_latex_side(r"\|(a, b)\|_2", 0, Scope(domains={"a": "real", "b": "real"})) == sympy.sqrt(
        sympy.Symbol("a", real=True) ** 2 + sympy.Symbol("b", real=True) ** 2
    )
    for unread in (r"\|(1, 2)\|_1", r"\|\begin{pmatrix} 1 & 0 \\ 0 & 1 \end{pmatrix}\|", r"\|u + v\|"):
        with pytest.raises(ClaimParseError, match="norm"):
            read_latex_side(unread)  # another norm, a matrix (which norm?), an expression of unknown kind


def test_a_squared_norm_of_a_real_general_vector_is_its_product_with_its_transpose() -> None:
    from ropecheck.symbolic.readers.general_matrices import general_name

    general = Scope(general_matrices=True, array_names=frozenset({"R", "u"}))
    r, u = general_name("R"), general_name("u")
    assert r is not None and u is not None
    assert read_latex_side(r"\|R u\|^2", 0, general) == (r * u).T * (r * u)
    assert read_latex_side(r"\|u\|^2", 0, general) == u.T * u
    with pytest.raises(ClaimParseError, match="norm"):
        read_latex_side(r"\|R u\|^2", 0, Scope(general_matrices=True, array_names=frozenset({"R", "u"}),
                                                 domains={"u": "complex"}))  # fmt: skip
    with pytest.raises(ClaimParseError, match="norm"):
        read_latex_side(r"\|R u\|", 0, general)  # unsquared: no root of a general product


def test_two_norms_of_a_step_are_decided_through_their_squares() -> None:
    from ropecheck.symbolic.readers.written_norms import squared_norm_sides

    assert squared_norm_sides(r"\lVert R u \rVert", r"\|u\|_2") == (r"\lVert R u \rVert^{2}", r"\|u\|_2^{2}")
    assert squared_norm_sides(r"\|R u\|^2", r"\|u\|^2") is None  # already squares
    assert squared_norm_sides(r"\|R u\|", r"2 \|u\|") is None  # not one norm a side
    assert squared_norm_sides(r"\|A\|_F", r"\|B\|_F") is None  # another norm


def test_an_evaluation_bar_sets_its_name_where_it_closes_the_side() -> None:
    assert read_latex_side(r"x^2 + y \Big|_{x = 3}") == read_latex_side("9 + y")
    with pytest.raises(ClaimParseError, match="bar"):
        read_latex_side(r"|x| |_{x = 3}")


def sympy_I() -> object:
    import sympy

    return sympy.I


def test_a_decorated_name_is_a_name_of_its_own() -> None:
    # a tilde, a hat or a dot on a letter makes another name, never the letter itself nor a product
    assert str(read_latex_side(r"\tilde{u} + 1")) == "utilde + 1"
    assert read_latex_side(r"\hat{x}") != read_latex_side("x")
