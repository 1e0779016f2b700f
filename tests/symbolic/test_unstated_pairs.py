"""A 2x1 column beside a complex number: read through the identification the document states, withheld where it
states none.

``q = a + ib`` then ``q = [a \\\\ b]`` (or ``\\vec{q} = [a \\\\ b]``) states the identification as much as the other
order does, so a phase step is PROVED through it and its twin with a sign error REFUTED, the reason naming the
line; a column never identified with a number is never decided by the identification, nor by reading it as a
column scaled by a phase.
"""

from __future__ import annotations

from worldaudit import audited


def _at(name: str, line: int):  # type: ignore[no-untyped-def]
    return next(s for s in audited(name).steps if s.line == line)


def test_a_number_written_again_as_its_column_identifies_the_two() -> None:
    for line in (8, 14):
        step = _at("pair_number_then_column.md", line)
        assert step.status == "PROVED"
        assert "z as x + I*y (line 3)" in step.reason
        twin = _at("pair_number_then_column_twin.md", line)
        assert twin.status == "REFUTED"
        assert "(line 3)" in twin.reason


def test_a_column_never_identified_is_not_decided_either_way() -> None:
    scaled = _at("pair_column_never_identified.md", 6)
    assert scaled.status == "UNDECIDED"
    assert "read as written, the column scaled by a complex number, REFUTED" in scaled.reason
    assert "usual identification (w as s + I*t" in scaled.reason and "), PROVED;" in scaled.reason
    written = _at("pair_column_never_identified.md", 12)
    assert written.status == "UNDECIDED" and "every name real): PROVED" in written.reason
    for line, usual in ((6, "), REFUTED;"), (12, "every name real): REFUTED")):
        twin = _at("pair_column_never_identified_twin.md", line)
        assert twin.status == "UNDECIDED" and usual in twin.reason and "no identification of columns" in twin.reason


def test_a_number_drawn_as_an_arrow_is_read_through_the_pair_the_document_states() -> None:
    step = _at("pair_arrow_of_number.md", 7)  # c e^{i gamma} = T \\vec{c}, after c = u + vi and \\vec{c} = [u \\\\ v]
    assert step.status == "PROVED" and "the document identifies the two (line 3)" in step.reason
    assert "where it is written with an arrow" in step.reason
    assert _at("pair_arrow_of_number_twin.md", 7).status == "REFUTED"
