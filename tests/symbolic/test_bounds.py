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
