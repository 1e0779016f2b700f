"""How a definition's bare ``i`` is read where the document also indexes with i (``audit/defined_i.py``)."""

from __future__ import annotations

import pytest

from ropecheck.symbolic.audit.defined_i import defined_i_reading, writes_unit_places
from ropecheck.symbolic.readers.scope import Definition, Scope

READINGS = [
    (r"\boldsymbol{q}", "q_0 + i q_1", "unit"),
    (r"\mathbf{q}_m", r"q_m^{(1)} + i q_m^{(2)}", "unit"),
    ("z_j", r"x_{2j} + i \cdot x_{2j+1}", "unit"),
    ("z", "a+ib", "unit"),
    ("z", "x + yi", "unit"),
    ("p_{i,2t}", r"\sin\left(i\,\omega_t\right)", "index"),
    ("PE_{(pos,2i)}", r"\sin(pos/10000^{2i/d})", "index"),
    (r"h(\theta_i)", r"(b\lambda)^{-2i/d}", "index"),
    # neither shape: the refusal stands
    ("z_m^{(i)}", r"q_m^{(2i+1)} + i q_m^{(2i+2)}", None),  # the name carries i, the value writes the unit
    ("w", "q_i + i q_{i+1}", None),  # the parts are indexed with i
    ("z", "x_1 + i y_1", None),  # two names, not two entries of one
    ("z", "a + i a", None),
    ("z", "a + ie", None),  # e is Euler's number
    ("w", "2 i q", None),
    ("p_i", "a + b i", None),
    ("p_i", r"x + e^{i\theta}", None),
]


@pytest.mark.parametrize(("name", "body", "expected"), READINGS, ids=[f"{n} = {b}" for n, b, _ in READINGS])
def test_a_definition_reads_its_bare_i_only_from_its_shape(name: str, body: str, expected: str | None) -> None:
    found = defined_i_reading(name, body, Scope())
    assert (found[0] if found else None) == expected
    if found:
        assert ("imaginary unit" if expected == "unit" else "index") in found[1]


def test_two_letters_already_defined_are_no_parts_the_line_introduces() -> None:
    a = Definition("symbol", "a", 2)
    assert defined_i_reading("z", "a + ib", Scope(symbols={"a": a})) is None
    assert defined_i_reading("z", "a + ib", Scope(domains={"b": "complex"})) is None


def test_the_places_of_the_unit() -> None:
    assert writes_unit_places("x_{2i} + i x_{2i+1}") and writes_unit_places(r"q_i e^{i m \theta_i}")
    assert not writes_unit_places(r"\cos(i/10000^{2t/d})") and not writes_unit_places(r"\gamma(r(i))\,\theta_i")
