"""The two-stage LaTeX parse gives exactly what SymPy's ``parse_latex(text, strict=True)`` gives: the same expression
or the same error, on formulas of every shape the readers hand it, and on the one shape found where SLL prediction
alone fails and full LL succeeds (``\\log_2 8``)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import sympy
from sympy.parsing.latex import parse_latex as sympy_parse_latex

from ropecheck.symbolic.readers import latex_parser
from ropecheck.symbolic.readers.latex_parser import WARM_UP, parse_latex

#: formulas of the shapes the readers parse (placeholders such as ``\mathit{ZQEU}`` are the readers' own names),
#: wrong ones included: an error must be the same error
SHAPES = [
    r"\cos(m \theta) q_0 - \sin(m \theta) q_1",
    r"\frac{a}{b} + e^{i(m-n)\theta} q_{2i} k_{2i+1}",
    r"\sum_{j=0}^{d-1} q_j k_j = \sum_{i=0}^{d/2-1} (q_{2i} k_{2i} + q_{2i+1} k_{2i+1})",
    r"\left(x_0 \cos m\theta_0 - x_1 \sin m\theta_0\right) \cdot y",
    r"\sqrt{(\sum_{j=1}^n \mathit{ZQEU} ^{s_j})^2}",
    r"\mathit{ZQEU} ^{-\frac{2k}{d}\ln(10000)}",
    r"| \mathit{ZQEU} ^{i\phi} w|^2",
    r"2 \times L \times \frac{H}{G}",
    r"F_{\mathit{ZQBP}}(c, m-1, 2)",
    r"\frac{p}{(b \mu)^{d/2}} - \frac{p}{c^{2*j/h}}",
    r"\psi(t+1) - \psi(t) \le \arctan(b/a)",
    r"u ^{\mathit{ZQMKT}} T _{b-a} v + u ^{\mathit{ZQMKT}} \mathit{ZQEU} ^{i(b-a)\phi} v",
    r"\cos({m\theta})\cdot \cos({n\theta}) - \sin({m\theta})\cdot \sin({n\theta})",
    r"\prod_{k=1}^{n} \theta_k^{-2/d} \times 10000",
    r"\log_2 8",  # SLL prediction reports an error here; full LL reads it
    r"\log_b x + \ln y - \exp(z)",
    r"a + b = c",
    r"x < y \le z",
    r"a + b )",  # not the whole text: SymPy's strict error
    r"\frac{1}{",  # a syntax error
    r"\sqrt{x^2+y^2} \le |a| \cdot \|b\|",  # a command the grammar does not know
    r"",
]


def _answer(parse: Any, text: str) -> str:
    """The expression ``parse`` gives, written out exactly, or its error's type and first line."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "value " + sympy.srepr(parse(text))
    except Exception as exc:
        return f"error {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def _sympy(text: str) -> Any:
    return sympy_parse_latex(text, strict=True)


def _sll_only(text: str) -> Any:
    """A broken input for the check: SLL's tree or nothing, never SymPy's own parse."""
    stripped = text.strip()
    relation = latex_parser._sll_tree(stripped)
    return latex_parser._sll_parts()[-1](relation)  # type: ignore[index]


def _no_strict(text: str) -> Any:
    """A broken input for the check: the tree of the text's first relation, however much of the text is left over."""
    antlr4, sll, lexer_class, parser_class, listener_class, convert = latex_parser._sll_parts()  # type: ignore[misc]
    listener = listener_class(text)
    lexer = lexer_class(antlr4.InputStream(text))
    lexer.removeErrorListeners()
    parser = parser_class(antlr4.CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(listener)
    parser._interp.predictionMode = sll
    return convert(parser.math().relation())


def _disagreements(parse: Any) -> list[str]:
    return [t for t in SHAPES if _answer(parse, t) != _answer(_sympy, t)]


def test_the_two_stage_parse_is_sympys_on_every_shape() -> None:
    assert latex_parser._sll_parts() is not None  # the fast stage is there: the check compares something
    assert _disagreements(parse_latex) == []


def test_the_check_catches_a_parse_without_the_second_stage_or_without_strictness() -> None:
    assert r"\log_2 8" in _disagreements(_sll_only)  # read by LL only: without the second stage, no value
    assert r"a + b )" in _disagreements(_no_strict)  # strict: the parse must cover the whole text


def test_log_base_needs_the_second_stage() -> None:
    with pytest.raises(latex_parser._NeedsLL):
        latex_parser._sll_tree(r"\log_2 8")
    assert _answer(parse_latex, r"\log_2 8") == "value " + sympy.srepr(sympy.log(8, 2, evaluate=False))


def test_every_warm_up_formula_is_read_by_the_fast_stage() -> None:
    """A warm-up formula SLL cannot read teaches it nothing past its error: each must parse in the first stage."""
    for text in WARM_UP:
        latex_parser._sll_tree(text)
