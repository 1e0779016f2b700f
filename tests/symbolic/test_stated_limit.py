"""``\\simeq`` after a limit the prose states: which inline formulas state one, and which steps it proves.

The step is shown staying undecided where the ratio of its sides depends on another name too (what drives the
limit may move it), tends to another value, or the limit named is another one (:mod:`ropecheck.symbolic.audit.tends`).
"""

from __future__ import annotations

from ropecheck.symbolic.audit.run import audit_document
from ropecheck.symbolic.audit.tends import stated_limits

TIMEOUT = 30.0


def test_an_inline_formula_states_a_limit_of_a_name_at_a_number() -> None:
    found = stated_limits([(3, r"\lambda \to 1"), (4, r"x_0 \rightarrow 0."), (5, r"d"), (6, r"n \to \infty")])
    assert found == [("\\lambda", "1", 3), ("x_0", "0", 4)]
    assert stated_limits([(1, r"f(x) \to 1"), (2, r"\lambda \to 1 + a"), (3, r"\lambda \top 1")]) == []


def _verdicts(prose: str, step: str) -> list[tuple[str, str]]:
    doc = f"Let $\\mu = s^{{2/(d-2)}}$. {prose}\n\n$$\n{step}\n$$\n"
    return [(s.status, s.reason) for s in audit_document(doc, timeout=TIMEOUT).steps]


def test_a_ratio_of_that_name_alone_tending_to_one_is_proved() -> None:
    ((status, why),) = _verdicts(r"Since $d$ is large, $\mu \to 1$:", r"\frac{p}{b \mu} \simeq \frac{p}{b}")
    assert status == "PROVED" and "\\mu \\to 1" in why and "alone" in why
    # the ratio also depends on d, which drives mu to 1: not proved
    ((status, _),) = _verdicts(r"Since $d$ is large, $\mu \to 1$:", r"\frac{p}{(b \mu)^{d}} \simeq \frac{p}{b^{d}}")
    assert status == "UNDECIDED"
    # a ratio tending to 1/2, a limit at another value, no limit stated: not proved, and never refuted
    ((status, _),) = _verdicts(r"Since $d$ is large, $\mu \to 1$:", r"\frac{p}{b \mu} \simeq \frac{2p}{b}")
    assert status == "UNDECIDED"
    ((status, _),) = _verdicts(r"Since $d$ is small, $\mu \to 0$:", r"\frac{p}{b \mu} \simeq \frac{p}{b}")
    assert status == "UNDECIDED"
    ((status, _),) = _verdicts(r"Since $d$ is large:", r"\frac{p}{b \mu} \simeq \frac{p}{b}")
    assert status == "UNDECIDED"
