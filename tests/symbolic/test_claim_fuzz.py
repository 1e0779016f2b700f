"""Fuzzing the claim checker: random text and random expression trees, through the API and the CLI.

Whatever a user types, ``check_claim`` returns a verdict or raises a ``RopeCheckError``
(nothing else escapes), ``ropecheck claim`` exits with a documented code (0, 1, 2 or 3)
and never prints a traceback, and each claim finishes: the decision has a 1 s time limit
here, and a generous hang guard (:data:`HANG_GUARD`) fails the test if anything still runs
far past it. The trees are drawn from the claim grammar (numbers, symbols, ``+ - * / ** ^``,
cos/sin/exp/R/Matrix/eye, nesting) in both syntaxes, so they reach the evaluator and the
decision procedure, not only the parser. Derandomized (the ``ci`` profile), bounded.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ropecheck.cli.main import main
from ropecheck.errors import RopeCheckError
from ropecheck.symbolic import ClaimResult, Verdict, check_claim

TIMEOUT = 1.0  # the claim's own time limit in these runs
HANG_GUARD = 60.0  # seconds: a claim still running this long means a limit failed (not a speed goal)
EXIT_CODES = {0, 1, 2, 3}

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# ------------------------------------------------------------------ SymPy-syntax trees

_NUMBERS = st.one_of(
    st.integers(-5, 12).map(str),
    st.sampled_from(["0.5", "1e3", "10**20", "2**64", "1/3", "10000", "99999", "1e-7", "007", "3."]),
)
_SYMBOLS = st.sampled_from(["a", "b", "x", "theta", "m", "n", "pi", "I", "E", "f(x)", "q0"])


def _sympy_tree(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    two = st.tuples(children, children)
    return st.one_of(
        two.map(lambda t: f"({t[0]} + {t[1]})"),
        two.map(lambda t: f"({t[0]} - {t[1]})"),
        two.map(lambda t: f"{t[0]}*{t[1]}"),
        two.map(lambda t: f"{t[0]}/{t[1]}"),
        two.map(lambda t: f"({t[0]})**({t[1]})"),
        two.map(lambda t: f"{t[0]}^{t[1]}"),
        children.map(lambda c: f"-{c}"),
        st.tuples(st.sampled_from(["cos", "sin", "exp", "R", "sqrt", "re", "conjugate", "Abs"]), children).map(
            lambda t: f"{t[0]}({t[1]})"
        ),
        children.map(lambda c: f"R({c}).T"),
        st.integers(-1, 70).map(lambda n: f"eye({n})"),
        st.tuples(children, children, children, children).map(
            lambda t: f"Matrix([[{t[0]}, {t[1]}], [{t[2]}, {t[3]}]])"
        ),
    )


SYMPY_SIDES = st.recursive(st.one_of(_NUMBERS, _SYMBOLS), _sympy_tree, max_leaves=10)
SYMPY_CLAIMS = st.tuples(SYMPY_SIDES, SYMPY_SIDES).map(lambda t: f"{t[0]} == {t[1]}")

# ------------------------------------------------------------------ LaTeX trees

_LATEX_LEAVES = st.one_of(
    st.integers(0, 12).map(str),
    st.sampled_from([r"\theta", r"\alpha", "m", "n", "x_i", "x_0", "i", "e", r"\pi", "10^{10}", "k^*", r"\bar{k}"]),
)


def _latex_tree(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    two = st.tuples(children, children)
    return st.one_of(
        two.map(lambda t: f"({t[0]} + {t[1]})"),
        two.map(lambda t: f"{t[0]} - {t[1]}"),
        two.map(lambda t: rf"{t[0]} \cdot {t[1]}"),
        two.map(lambda t: rf"\frac{{{t[0]}}}{{{t[1]}}}"),
        two.map(lambda t: f"{{{t[0]}}}^{{{t[1]}}}"),
        st.tuples(st.sampled_from([r"\cos", r"\sin", r"\exp", "R", r"\mathrm{Re}"]), children).map(
            lambda t: f"{t[0]}({t[1]})"
        ),
        children.map(lambda c: rf"\sum_{{i=0}}^{{N}} {c}"),
        children.map(lambda c: f"({c})!"),
    )


LATEX_SIDES = st.recursive(_LATEX_LEAVES, _latex_tree, max_leaves=8)
LATEX_CLAIMS = st.tuples(LATEX_SIDES, LATEX_SIDES).map(lambda t: f"{t[0]} = {t[1]}")

# ------------------------------------------------------------------ random text

_CLAIM_ALPHABET = "abxyz0123456789 +-*/^()[]{}=.,_\\TRIeE!<>'\"\x00é∑"
RANDOM_TEXT = st.one_of(
    st.text(alphabet=_CLAIM_ALPHABET, max_size=60),
    st.text(max_size=40),
    st.tuples(st.text(alphabet=_CLAIM_ALPHABET, max_size=30), st.text(alphabet=_CLAIM_ALPHABET, max_size=30)).map(
        lambda t: f"{t[0]} == {t[1]}"
    ),
)


@pytest.fixture(autouse=True)
def hang_guard() -> Iterator[None]:
    """Stops a fuzz test (rather than hanging CI) if the whole run takes absurdly long."""

    def stop(signum: int, frame: object) -> None:
        pytest.fail(f"a fuzz test ran past its hang guard of {5 * HANG_GUARD:g} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(int(5 * HANG_GUARD))
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _api_holds(claim: str) -> None:
    t0 = time.monotonic()
    try:
        result = check_claim(claim, timeout=TIMEOUT)
    except RopeCheckError:
        pass  # a parse error or a usage error: the CLI makes it one line and exit 2
    else:
        assert isinstance(result, ClaimResult) and result.verdict in set(Verdict)
        assert result.exit_code in EXIT_CODES
        if result.verdict != Verdict.UNDECIDED:
            assert result.limit is None
        result.to_dict()  # the JSON view never raises either
    assert time.monotonic() - t0 < HANG_GUARD, f"{claim!r} ran {time.monotonic() - t0:.1f} s"


def _cli_holds(claim: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["claim", "--timeout", str(TIMEOUT), "--", claim])
    out, err = capsys.readouterr()
    assert code in EXIT_CODES, (code, claim)
    assert "Traceback" not in out + err, err
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and out == "", err
    else:
        assert out.split()[0] in ("PROVED", "REFUTED", "UNDECIDED") and err == "", err


@FUZZ
@given(claim=SYMPY_CLAIMS)
def test_sympy_trees_through_the_api(claim: str) -> None:
    _api_holds(claim)


@settings(FUZZ, max_examples=30)  # SymPy's LaTeX parser takes 0.1-0.5 s a claim
@given(claim=LATEX_CLAIMS)
def test_latex_trees_through_the_api(claim: str) -> None:
    _api_holds(claim)


@FUZZ
@given(claim=st.one_of(RANDOM_TEXT, SYMPY_CLAIMS))
def test_random_text_and_trees_through_the_cli(claim: str, capsys: pytest.CaptureFixture[str]) -> None:
    _cli_holds(claim, capsys)
