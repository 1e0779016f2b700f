"""A claim refuted only through a reader's default is not refuted (``ropecheck.symbolic.readers.default_doubts``):
a log or root of a real name at a negative value, a norm read as a name beside the name inside it, j real in an
exponent of e, a log with no base whose verdict depends on the base, and a decorated name (``\\hat{x}``,
``\\dot{x}``) read as a name of its own. The audit's doubts use the same
functions; its documents are ``tests/fixtures/audit/world/`` (``engineering_j``, ``log_without_base``). In the
audit, a name complex only because the text conjugates it may still be one the document never defines
(``conjugated_undefined`` and its twin)."""

from __future__ import annotations

import pytest
import sympy

from ropecheck.symbolic.engine.proof import Verdict
from ropecheck.symbolic.readers.claim import check_claim
from ropecheck.symbolic.readers.default_doubts import norm_of_family


@pytest.mark.parametrize(
    ("claim", "verdict", "words"),
    [
        # once REFUTED at a = -1, b = -2: the log of a size read at a negative value
        (r"\ln(ab) = \ln a + \ln b", Verdict.UNDECIDED, "under a root or a log"),
        (r"\log_2 (ab) = \log_2 a + \log_2 b", Verdict.UNDECIDED, "under a root or a log"),
        (r"\ln(ab) = \ln a - \ln b", Verdict.REFUTED, ""),
        (r"\sqrt{a^2} = a", Verdict.REFUTED, ""),  # the root of a square, never negative: refuted at a = -1
        # once REFUTED with z and its norm two free numbers
        (r"z z = \|z\|^2", Verdict.UNDECIDED, "norm"),
        (r"\|D\| = 2", Verdict.REFUTED, ""),
        # once REFUTED with j real: in an exponent of e, j may be the unit
        (r"e^{j\theta} = \cos\theta + j\sin\theta", Verdict.UNDECIDED, "imaginary unit"),
        (r"\mathrm{Re}(e^{j\theta}) = \cos\theta", Verdict.UNDECIDED, "imaginary unit"),
        (r"e^{i\theta} = \cos\theta - i\sin\theta", Verdict.REFUTED, ""),
        (r"e^{jm\theta}e^{-jn\theta} = e^{j(m-n)\theta}", Verdict.PROVED, ""),
        # once REFUTED as the natural log: with base 10 it holds
        (r"\log 100 = 2", Verdict.UNDECIDED, "with base 10"),
        (r"\log 100 = 3", Verdict.REFUTED, ""),
        (r"\log(ab) = \log a \log b", Verdict.REFUTED, ""),
        (r"\log e^{x} = x", Verdict.PROVED, ""),
        # once REFUTED with a decorated name free: \dot{x} may be a derivative, \hat{x} an estimate of x
        (r"\dot{x} = 0", Verdict.UNDECIDED, "name of its own"),
        (r"\hat{x} = x", Verdict.UNDECIDED, "name of its own"),
        (r"w^{\star} = w", Verdict.UNDECIDED, "name of its own"),
        (r"\tilde{w} = 2\tilde{w} - \tilde{w}", Verdict.PROVED, ""),  # true whatever the name stands for
        (r"x + 1 = x", Verdict.REFUTED, ""),
    ],
)
def test_a_verdict_resting_on_a_default_reading_is_not_kept(claim: str, verdict: Verdict, words: str) -> None:
    r = check_claim(claim, syntax="latex")
    assert r.verdict is verdict, (r.method, r.counterexample)
    assert words in r.method


def test_a_name_declared_complex_is_refuted_at_a_negative_value_under_a_log() -> None:
    r = check_claim(r"a, b \in \mathbb{C}: \ln(ab) = \ln a + \ln b", syntax="latex")
    assert r.verdict is Verdict.REFUTED


def test_a_name_complex_only_because_it_is_conjugated_may_still_be_lone_in_an_audit() -> None:
    # once REFUTED with z_k a free complex number: the text says z_k is the key's, as z_q is the query's
    from worldaudit import audited

    by_line = {s.line: s for s in audited("conjugated_undefined.md").steps}
    assert by_line[17].status == "UNDECIDED" and "z_{k}, which the document never defines" in by_line[17].reason
    twin = {s.line: s for s in audited("conjugated_undefined_twin.md").steps}
    assert twin[13].status == "REFUTED" and twin[17].status == "UNDECIDED"


def test_a_norm_read_as_a_name_beside_a_family_on_its_letter_is_found() -> None:
    norm, x = sympy.Symbol("\u2016q\u2016", positive=True), sympy.Symbol("x")
    assert norm_of_family(["q"], norm * x, x) == "\u2016q\u2016"
    assert norm_of_family([r"\theta"], norm * x) == ""
