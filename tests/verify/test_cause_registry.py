"""Every cause in CAUSES is recognised in exactly one place: one registered recogniser, or a named module."""

from __future__ import annotations

import importlib

import pytest

from ropecheck.diagnosis import CAUSES, ELSEWHERE, RECOGNISERS, Recogniser, recogniser, registry_problems


def test_every_cause_has_exactly_one_recogniser_or_says_where() -> None:
    assert registry_problems() == []
    for code in CAUSES:
        owners = [r.name for r in RECOGNISERS.values() if code in r.causes]
        assert len(owners) + (code in ELSEWHERE) == 1, (code, owners, ELSEWHERE.get(code))


@pytest.mark.parametrize("module", sorted(set(ELSEWHERE.values())))
def test_elsewhere_names_a_module_that_words_its_causes(module: str) -> None:
    source = importlib.import_module(module).__file__
    assert source is not None
    text = open(source, encoding="utf-8").read()
    assert all(f'"{code}"' in text for code, where in ELSEWHERE.items() if where == module)


def test_an_unknown_code_fails_the_check() -> None:
    bogus = Recogniser("bogus", ("no_such_cause",))
    problems = registry_problems([*RECOGNISERS.values(), bogus])
    assert problems == ["recogniser 'bogus' yields the unknown code 'no_such_cause'"]
    with pytest.raises(ValueError, match="unknown cause 'no_such_cause'"):
        recogniser("bogus", "no_such_cause")
    assert "bogus" not in RECOGNISERS


def test_a_cause_claimed_twice_or_never_fails_the_check() -> None:
    twice = Recogniser("twice", ("base_wrong",))
    assert registry_problems([*RECOGNISERS.values(), twice]) == [
        "cause 'base_wrong' has 2 recognisers (frequencies, twice), not one"
    ]
    rest = [r for r in RECOGNISERS.values() if r.name != "length_dependence"]
    assert registry_problems(rest) == ["cause 'ntk_call_length' has 0 recognisers (none), not one"]
