"""The bounds an inequality is proved through: the triangle inequality and a maximum (engine/bounds.py)."""

import sympy

from ropecheck.symbolic.engine.proof import Verdict


def test_the_triangle_inequality_and_a_maximum_prove_a_bound_and_nothing_weaker() -> None:
    """``|sum f| <= sum |f|`` and ``sum |a||b| <= (max |b|) sum |a|`` are PROVED; the same bounds with a factor
    dropped, an index moved or a sum's sign taken away are not."""
    import sympy
    from sympy import Abs, Sum

    from ropecheck.symbolic import decide_le
    from ropecheck.symbolic.engine.bounds import largest_over

    i, n = sympy.Symbol("i", integer=True), sympy.Symbol("N", integer=True)
    s, h = sympy.IndexedBase("S"), sympy.IndexedBase("h")
    rng = (i, 0, n - 1)
    step = h[i + 1] - h[i]
    assert decide_le(Abs(Sum(s[i + 1] * step, rng)), Sum(Abs(s[i + 1]) * Abs(step), rng))[0] == Verdict.PROVED
    assert decide_le(Abs(Sum(s[i + 1] * step, rng)), Sum(Abs(s[i + 1]) * Abs(h[i + 1]), rng))[0] != Verdict.PROVED
    assert decide_le(Abs(Sum(s[i], rng)), Sum(s[i], rng))[0] != Verdict.PROVED  # no modulus on the right
    top = largest_over(Abs(step), "i")
    bound = top * Sum(Abs(s[i + 1]), rng)
    assert decide_le(Sum(Abs(s[i + 1]) * Abs(step), rng), bound)[0] == Verdict.PROVED
    assert decide_le(Sum(Abs(s[i + 1]) * Abs(step), rng), top * Sum(Abs(s[i]), rng))[0] != Verdict.PROVED
    assert decide_le(Sum(s[i + 1] * Abs(step), rng), top * Sum(s[i + 1], rng))[0] != Verdict.PROVED
    other = largest_over(Abs(h[i]), "i")  # the largest entry, not the largest difference
    assert decide_le(Sum(Abs(s[i + 1]) * Abs(step), rng), other * Sum(Abs(s[i + 1]), rng))[0] != Verdict.PROVED


def test_a_maximum_is_read_only_over_one_index_with_a_bracketed_body() -> None:
    """``\\max_i |X_i|`` and ``\\left(\\max_{i} (X_i)\\right)`` are read; a range under it, or a body the next factor
    may belong to, is not."""
    import pytest

    from ropecheck.errors import ClaimParseError
    from ropecheck.symbolic.engine.bounds import MAXIMUM_PREFIX
    from ropecheck.symbolic.readers.latex_syntax import read_latex_side

    for text in (r"\max_i |h_{i+1} - h_i| \sum_{i=0}^{N} |a_i|", r"\left(\max_{j} (b_j)\right) + 1"):
        value = read_latex_side(text)
        assert any(f.func.__name__.startswith(MAXIMUM_PREFIX) for f in value.atoms(sympy.Function)), text
    for text in (r"\max_{0 \le i < N} |h_i|", r"\max_i |a_i| |b_i|", r"\max_i a_i", r"\max_i |a_i| \sum_{j=0}^{N} c_j"):
        with pytest.raises(ClaimParseError):
            read_latex_side(text)


def test_a_maximum_of_a_sequence_used_nowhere_else_takes_a_value_in_a_counterexample() -> None:
    """``(max_j |h_j|) A = (max_j |h_j|) B`` is refuted where A and B differ: setting every h_j to one number gives
    the maximum any positive value. A maximum of anything else, or of a sequence the sides also use outside it,
    is given no value."""
    from sympy import Abs, Sum

    from ropecheck.symbolic.engine.bounds import free_maxima, largest_over
    from ropecheck.symbolic.engine.decide import decide

    j, n = sympy.Symbol("j", integer=True), sympy.Symbol("n", integer=True, positive=True)
    h = sympy.IndexedBase("h")
    top = largest_over(Abs(h[j]), "j")
    halvings = Sum(sympy.Integer(2) ** -j, (j, 0, n - 1))
    verdict, _, cex = decide(top * halvings, 2 * top)
    assert verdict == Verdict.REFUTED and cex is not None and {str(k): v for k, v in cex.values.items()}[str(top)] > 0
    assert free_maxima(top * halvings, 2 * top) != {}
    assert free_maxima(Sum(Abs(h[j]), (j, 0, n - 1)), n * top) == {}  # h used outside the maximum
    assert free_maxima(largest_over(Abs(h[j + 1] - h[j]), "j"), 1) == {}  # not the largest entry


def test_a_counterexample_is_sought_again_within_a_stated_bound() -> None:
    """Each bounded name is its bound plus a positive unknown (a whole one for a whole name): every value kept."""
    from ropecheck.symbolic.audit.kept_bounds import within_bounds_in_child
    from ropecheck.symbolic.audit.stated_signs import keeps_bound

    c, m = sympy.Symbol("c", real=True), sympy.Symbol("m", integer=True)
    o = within_bounds_in_child(c**2 + m, c + m**2, {"c": "c > 1", "m": "m >= 3"})
    assert o.status == "REFUTED" and o.counterexample is not None
    values = {str(k): v for k, v in o.counterexample.values.items()}
    assert keeps_bound(values["c"], "c > 1") and keeps_bound(values["m"], "m >= 3") and values["m"].is_integer
    assert within_bounds_in_child(c**2, c, {"c": "c >> 1"}).status == "UNDECIDED"  # a bound not read so
    assert within_bounds_in_child(abs(c - 1), c - 1, {"c": "c > 1"}).status == "UNDECIDED"  # true where kept


def test_a_positive_base_raised_to_a_real_exponent_is_nonnegative_and_no_other_base_is() -> None:
    from ropecheck.symbolic.engine.decide import manifestly_nonnegative

    c, x = sympy.Symbol("c", positive=True), sympy.Symbol("x", real=True)
    j, d = sympy.Symbol("j", integer=True), sympy.Symbol("d", integer=True)
    assert manifestly_nonnegative(c ** (-4 * j / d))
    assert not manifestly_nonnegative(x ** (-4 * j / d))  # x = -1, 4j/d = 1: negative
    assert not manifestly_nonnegative(c ** (sympy.I * j))  # not real
    assert not manifestly_nonnegative(c ** sympy.Symbol("z"))  # an exponent of unknown kind
