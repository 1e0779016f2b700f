"""The claim checker: parse a user's ``LHS == RHS`` and decide it, within limits of size, work, time and memory.

Two syntaxes:

* **SymPy** (Python expression syntax, read by :mod:`.sympy_syntax`): ``I``, ``re``, ``im``,
  ``conjugate``, ``Abs``, ``exp``, ``cos``, ``sin``, ``tan``, ``sqrt``, ``log``, ``pi``,
  ``E``, ``Rational``, ``eye(n)``, ``Matrix``, ``R(phi)`` (the 2x2 rotation matrix),
  ``diag(A, B, ...)`` (block-diagonal) and ``inner(u, v)`` are known; ``^`` is a power;
  decimal numbers become exact rationals;
  ``M.T``, ``M.H``, ``u.dot(v)``, ``<u, v>`` and ``v[0]`` are read; a call of a name close to
  a known function (``Re(x)``) is an error naming it; any other ``f(x)`` is an undefined
  function. Only arithmetic, calls, numbers, ``[...]`` lists, subscripts and those
  attributes are accepted (checked on the syntax tree, which is then evaluated node by node,
  never by ``eval``), so a claim cannot run other code.
* **LaTeX** as written in papers and tutorials (:mod:`.latex_syntax`): one ``=`` between the
  sides; matrices, tuples, inner products, ``\\Re[...]``, conjugates, transposes,
  elementwise products, ``cos(x)`` without a backslash, sums over sequences.

**Domains.** Every free name is a real number unless a domain is stated: ``domains=`` (the
CLI's ``--complex``, ``--integer``, ``--positive``, ...) or a leading clause,
``q, k \\in \\mathbb{C}:`` (LaTeX) or ``q, k in C:`` (plain); see :mod:`.scope`. A result lists
the domains it was decided under (``ClaimResult.domains``), and a name declared but absent
from the claim is an error (a typo would otherwise decide another claim).

Without ``syntax=``: a claim with a backslash or braces is LaTeX; otherwise it is SymPy
syntax (``==`` or one ``=``), and LaTeX only if that fails (``2x = x + x``). Matrices
compare entrywise. Unparsable text raises :class:`~ropecheck.errors.ClaimParseError` with
the 0-based column of the problem.

**Limits** (the constants of :mod:`.limits`): a claim longer than ``MAX_CLAIM_CHARS``
(2000) characters or nested deeper than ``MAX_NESTING`` (30) cannot be read
(``ClaimParseError``, exit 2, with the column). A claim past ``MAX_EXPONENT`` (10000),
``MAX_NUMBER_DIGITS`` (4000), ``MAX_MATRIX_SIZE`` (64), ``MAX_MATRIX_POWER`` (64) or
``MAX_TERMS`` (10000 terms after expansion, estimated) is UNDECIDED, and the result names the
limit (``ClaimResult.limit``). :func:`check_claim` reads and decides the claim in a forked
child (:func:`ropecheck.isolate.run_isolated`) stopped after ``timeout`` seconds
(``CLAIM_TIMEOUT``, 5 s) or past ``memory_limit`` bytes (``CLAIM_MEMORY_LIMIT``, 2 GiB):
UNDECIDED, naming the limit. A ``RecursionError`` never escapes.

Design constraints: parsing only builds expressions; deciding is
:func:`ropecheck.symbolic.engine.decide.decide`, so a claim gets the same verdicts and
counterexamples as the proof steps.
"""

from __future__ import annotations

import functools
import re
import signal
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from sympy import MatrixBase, MatrixExpr, Symbol, expand

from ... import isolate
from ...errors import ClaimLimitError, ClaimParseError, RopeCheckError, UsageError
from ..engine.decide import decide
from ..engine.proof import Counterexample, Verdict, expr_text
from .decorated_names import undefined_decorations
from .decorated_plain import as_own_name, decorated_beside_plain
from .default_doubts import j_in_exponent, negative_under_root_at, norm_beside_name, unbased_logs, with_log_base
from .expectation import expectations_left
from .identity_matrix import IDENTITY_TOKEN, identity_note, identity_sides
from .latex_decimals import exact_closed_claim
from .latex_parser import warm_up
from .latex_syntax import (
    AmbiguousReading,
    check_ellipsis,
    conjugated_group_names,
    conjugated_names,
    read_latex_side,
    reading_notes,
    star_only_names,
    subscripts_with_i,
    trig_ambiguities,
)
from .latex_tree import antlr_runtime_problem, index_sums
from .limits import CLAIM_MEMORY_LIMIT, CLAIM_TIMEOUT, MAX_TIMEOUT, check_text, check_work
from .open_sums import false_over_every_range, open_range_names, open_range_reading
from .scope import DOMAINS, Definition, Scope, describe_domains, domain_key, merge_domains, split_declaration
from .sign_pairs import SIGN_NAMES, kept_of_both, sign_pair
from .sympy_syntax import read_side
from .where import Clause, split_where

__all__ = ["ClaimResult", "Syntax", "antlr_runtime_problem", "check_claim", "domains_text", "parse_claim"]

Syntax = Literal["auto", "sympy", "latex"]


@dataclass
class ClaimResult:
    """A decided claim: the parsed sides, the verdict, the deciding rewrite, any counterexample.

    ``limit`` names the limit that stopped the decision (``"time"``, ``"memory"``,
    ``"exponent"``, ``"number"``, ``"matrix_size"``, ``"matrix_power"``, ``"terms"``,
    ``"recursion"``), and ``limit_message`` says it in a sentence; both are None when
    no limit was hit. ``lhs``/``rhs`` are None when the claim was stopped before it was read.
    """

    text: str
    syntax: str
    lhs: Any
    rhs: Any
    verdict: Verdict
    method: str
    counterexample: Counterexample | None
    seconds: float
    limit: str | None = None
    limit_message: str | None = None
    domains: list[dict[str, str]] = field(default_factory=list)
    #: each default reading applied to a LaTeX claim, in words (``^\mathsf{T}`` read as transpose, ...)
    readings: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 PROVED, 1 REFUTED, 3 UNDECIDED (2 is a parse error, raised before a result exists)."""
        return {Verdict.PROVED: 0, Verdict.REFUTED: 1, Verdict.UNDECIDED: 3}[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        read = self.lhs is not None
        return {
            "claim": self.text,
            "syntax": self.syntax,
            "lhs": expr_text(self.lhs) if read else None,
            "rhs": expr_text(self.rhs) if read else None,
            "lhs_latex": expr_text(self.lhs, latex=True) if read else None,
            "rhs_latex": expr_text(self.rhs, latex=True) if read else None,
            "verdict": self.verdict.value,
            "method": self.method,
            "counterexample": self.counterexample.to_dict() if self.counterexample else None,
            "limit": None if self.limit is None else {"name": self.limit, "message": self.limit_message},
            "domains": self.domains,
            "seconds": round(self.seconds, 6),
        }

    def domains_text(self) -> str:
        """``q, k complex (declared); m, n real (default)`` -- the domains this verdict holds under."""
        return domains_text(self.domains)


def domains_text(domains: list[dict[str, str]]) -> str:
    """Symbols grouped by domain and source, for one line of text."""
    groups: dict[tuple[str, str], list[str]] = {}
    for d in domains:
        groups.setdefault((d["domain"], d["source"]), []).append(d["symbol"])
    return "; ".join(f"{', '.join(names)} {domain} ({source})" for (domain, source), names in groups.items())


def _split(text: str, sep: str) -> tuple[str, str, int]:
    """Split at the one top-level ``sep``; returns (left, right, column where right starts)."""
    depth, hits = 0, []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif (
            depth == 0
            and text.startswith(sep, i)
            and (sep != "=" or (text[i - 1 : i] not in ("=", "<", ">", "!", "\\") and text[i + 1 : i + 2] != "="))
        ):
            hits.append(i)
            i += len(sep)
            continue
        i += 1
    if len(hits) != 1:
        what = "none" if not hits else f"{len(hits)}"
        need = "'==' (or '=')" if not hits else f"exactly one '{sep}'"
        raise ClaimParseError(
            f"a claim needs {need} between its two sides, found {what}", hits[1] if len(hits) > 1 else len(text)
        )
    k = hits[0]
    return text[:k], text[k + len(sep) :], k + len(sep)


# --------------------------------------------------------------------------- API


def _detect(text: str) -> str:
    """LaTeX when the text has a backslash or braces; SymPy syntax otherwise."""
    return "latex" if ("\\" in text or ("{" in text and "==" not in text)) else "sympy"


def _parse(text: str, used: str, scope: Scope) -> tuple[Any, Any, int]:
    sep = "==" if "==" in text else "="
    left, right, col = _split(text, sep)
    try:
        if used == "sympy":
            return read_side(left, 0, scope), read_side(right, col, scope), col
        domains = dict(scope.domains)
        # @ (Python's matrix product) is the product written by juxtaposition; what stands beside it is checked
        # by _check_matrix_products (same length: the columns stay)
        left, right = left.replace("@", " "), right.replace("@", " ")
        # a trig argument without parentheses (\cos m\theta, \cos (m-n)\theta) is the function of the
        # product that follows, as this literature writes it; the reading is stated with the verdict
        lhs, rhs = index_sums(read_latex_side(left, 0, scope), read_latex_side(right, col, scope), domains)
        # (10^{20} + 0.3) - 10^{20}: closed numbers with decimals are the arithmetic written, read exactly
        lhs, rhs = exact_closed_claim((left, right), (lhs, rhs), scope, lambda t, s: read_latex_side(t, 0, s))
    except RecursionError:
        raise ClaimParseError(
            "the claim nests too deeply to read; write it with fewer nested brackets or terms", 0
        ) from None
    return lhs, rhs, col


def parse_claim(
    text: str, *, syntax: Syntax = "auto", domains: Mapping[str, str] | None = None
) -> tuple[Any, Any, str]:
    """Parse ``"LHS == RHS"`` (SymPy) or ``"LHS = RHS"`` (LaTeX) into two expressions.

    With ``syntax="auto"`` a claim with a backslash or braces is LaTeX; any other is read
    as SymPy syntax (``==`` or a single ``=``) and, only if that fails, as LaTeX
    (``2x = x + x``); when both fail the SymPy error is raised. ``domains`` maps names to
    ``complex``, ``real``, ``integer``, ``natural``, ``positive`` or ``positive integer``
    (:mod:`.scope`); a leading clause of the claim (``z \\in \\mathbb{C}:``) adds to it.

    Returns:
        (lhs, rhs, syntax actually used).

    Raises:
        ClaimParseError: the text is not a claim, or too long or too deeply nested to read
            (:data:`~.limits.MAX_CLAIM_CHARS`, :data:`~.limits.MAX_NESTING`), with the column.
        ClaimLimitError: the claim is past a limit of :mod:`.limits` (an exponent, a number,
            a matrix size or power); :func:`check_claim` reports it as UNDECIDED.
        UsageError: a name is given two domains, or declared but absent from the claim.

    Example:
        >>> lhs, rhs, syntax = parse_claim("cos(a)**2 + sin(a)**2 == 1")
        >>> syntax, rhs
        ('sympy', 1)
        >>> parse_claim("z in C: conjugate(z) == z")[0]
        conjugate(z)
    """
    lhs, rhs, used, _ = _parse_claim(text, syntax, domains)
    return lhs, rhs, used


def _parse_claim(
    text: str,
    syntax: Syntax,
    domains: Mapping[str, str] | None,
    choices: Mapping[str, str] | None = None,
    arrays: frozenset[str] = frozenset(),
) -> tuple[Any, Any, str, dict[str, str]]:
    """:func:`parse_claim`, also returning every stated domain (flags and clause).

    ``choices``: the readings picked for notation that reads two ways (``{"i_reading": "index"}``,
    :class:`~.scope.Scope`); without one, such notation raises :class:`.latex_syntax.AmbiguousReading`.
    ``arrays``: names read as general matrices and vectors, in their written order (:mod:`.general_matrices`).
    """
    if not isinstance(text, str) or not text.strip():
        raise ClaimParseError("the claim is empty; write it as 'LHS == RHS'", 0)
    check_text(text)
    stated = _check_domains(domains)
    declared, text = split_declaration(text)
    merge_domains(stated, declared, where="the claim's clause and the flags")
    if not text.strip():
        raise ClaimParseError("the claim is empty after its domain clause; write it as 'LHS == RHS'", len(text))
    picked = dict(choices or {})
    index_i = "\\" in text or "{" in text or "_" in text
    options: dict[str, Any] = {
        "index_i": index_i and subscripts_with_i(text),
        "star_names": frozenset(star_only_names(text)) - set(stated),
        "i_reading": picked.get("i_reading", ""),
        "star_reading": picked.get("star_reading", ""),
        "word_reading": picked.get("word_reading", ""),
        "dot_reading": picked.get("dot_reading", ""),
        "general_matrices": bool(arrays),
        "array_names": arrays,
    }
    check_ellipsis(text)
    used = _detect(text) if syntax == "auto" else syntax
    if used not in ("sympy", "latex"):
        raise UsageError(f"syntax must be 'auto', 'sympy' or 'latex', got {syntax!r}")
    text, clauses = split_where(text) if used == "latex" or syntax == "auto" else (text, [])
    if clauses:
        used = "latex"
    scope = _with_clauses(Scope(domains=stated, **options), clauses)
    try:
        lhs, rhs, col = _parse(text, used, scope)
    except ClaimParseError:
        if syntax != "auto" or used != "sympy" or "==" in text:
            raise
        try:
            lhs, rhs, col = _parse(text, "latex", scope)
            used = "latex"
        except ClaimParseError as latex_error:
            raise ClaimParseError(*_first_error(text, scope, latex_error)) from None
        except UsageError:
            raise ClaimParseError(*_first_error(text, scope, None)) from None
    if used == "latex":
        _check_matrix_products(text, clauses)
        # a name written conjugated is complex in the whole claim
        named = options["star_names"] if options["star_reading"] == "name" else frozenset()
        conjugated = {n: "complex" for n in conjugated_names(text) if n not in stated and n not in named}
        conjugated |= _bracket_reading(text, stated, conjugated, arrays | named, picked.get("bracket_reading", ""))
        if conjugated:
            scope = _with_clauses(Scope(domains={**stated, **conjugated}, **options), clauses)
            lhs, rhs, col = _parse(text, used, scope)
            stated = {**stated, **conjugated}
    if isinstance(lhs, MatrixBase) != isinstance(rhs, MatrixBase) and (eye := identity_sides(lhs, rhs, scope.defines)):
        lhs, rhs, _ = eye  # R^T R = I: an undefined I beside a square matrix is the identity (said by _readings)
    if isinstance(lhs, MatrixBase) != isinstance(rhs, MatrixBase) or (
        isinstance(lhs, MatrixBase) and lhs.shape != rhs.shape
    ):
        shape = lambda e: f"a {e.rows}x{e.cols} matrix" if isinstance(e, MatrixBase) else "a scalar"
        raise ClaimParseError(f"cannot compare {shape(lhs)} with {shape(rhs)}", col)
    if used == "latex" and isinstance(lhs, MatrixBase) and (bold := _bold_numbers(text, lhs, rhs)):
        raise ClaimParseError(
            f"{bold} is written bold, as a vector or a matrix, but the claim does not write it out: beside a matrix it "
            "would be read as a number (write its entries in a where-clause, e.g. \\quad q = (q_1, q_2))",
            col,
        )
    present = {domain_key(d["symbol"]) for d in describe_domains([lhs, rhs])} | _names_in(text)
    missing = sorted(set(stated) - present)
    if missing:
        raise UsageError(
            f"{', '.join(missing)}: given a domain ({stated[missing[0]]}) but not in the claim "
            f"(the claim's names: {', '.join(sorted(present)) or 'none'})"
        )
    return lhs, rhs, used, stated


#: a small Latin letter written bold or with an arrow (``\mathbf{q}``, ``\vec k``, ``\bm x``): a vector by its look;
#: ``sub``: a subscript follows (``\mathbf{x}_m``, ``\mathbf{x_m}``)
_BOLD_SMALL = re.compile(
    r"\\(?:mathbf|boldsymbol|bm|vec|overrightarrow|pmb)\s*(?:\{\s*([a-z])\s*(?P<in>_)?|\s([a-z])(?![A-Za-z]))"
    r"(?:\s*\}?\s*(?P<sub>_))?"
)


#: a capital Latin letter written bold (``\\mathbf{W}``, ``\\boldsymbol{R}_m``, ``\\bm W``): a matrix by its look
_BOLD_CAPITAL = re.compile(
    r"\\(?:mathbf|boldsymbol|bm|pmb)\s*(?:\{\s*([A-Z])\s*(?P<in>_)?|\s([A-Z])(?![A-Za-z]))"
    r"(?:\s*\}?\s*(?P<sub>_))?"
)


def _bold_names(text: str, lhs: Any, rhs: Any, pattern: re.Pattern[str] = _BOLD_SMALL) -> list[str]:
    """The names left in the sides that the claim writes bold (``pattern``: small letters, or capitals), in order."""
    free = sorted(str(x) for side in (lhs, rhs) for x in side.free_symbols)
    out: list[str] = []
    for m in pattern.finditer(text):
        letter, sub = m.group(1) or m.group(3), m.group("in") or m.group("sub")
        out += [n for n in free if (n.startswith(letter + "_") if sub else n == letter) and n not in out]
    return out


def _bold_numbers(text: str, lhs: MatrixBase, rhs: Any) -> str:
    """``R(a)\\mathbf{q} = \\mathbf{q} R(a)``: a letter written bold (a vector or a matrix by its look) that the claim
    does not write out is read as a number; beside a matrix that says another thing (a matrix scaled, products that
    commute), so the claim is not read. The name, or "" where no such name is left in the sides."""
    found = _bold_names(text, lhs, rhs) or _bold_names(text, lhs, rhs, _BOLD_CAPITAL)
    return found[0] if found else ""


def _commuted_bold(text: str, lhs: Any, rhs: Any, domains: Mapping[str, str] | None, choices: Mapping[str, str]) -> str:
    """``\\mathbf{A}\\mathbf{B} = \\mathbf{B}\\mathbf{A}``: where a claim PROVED with its bold capitals read as numbers
    (the claim writes none of them out) is not also proved with its bold letters read as general matrices and vectors
    in their written order (:mod:`.general_matrices`), the bold capitals; else "".

    A matrix identity holds of scalar matrices too, so a counterexample in numbers refutes it; only a proof can
    rest on numbers commuting.
    """
    names = _bold_names(text, lhs, rhs, _BOLD_CAPITAL)
    if not names or isinstance(lhs, MatrixBase) or isinstance(rhs, MatrixBase):
        return ""
    arrays = frozenset(names + _bold_names(text, lhs, rhs))
    try:
        left, right, _, _ = _parse_claim(text, "latex", domains, choices, arrays)
        if isinstance(left, MatrixExpr) and isinstance(right, MatrixExpr) and left.shape == right.shape:
            difference = expand((left - right).doit())
            if difference == 0 or getattr(difference, "is_ZeroMatrix", False):
                return ""
    except (RopeCheckError, RecursionError, ValueError, TypeError, AttributeError):
        pass  # not read as matrices: the proof for numbers is not kept
    return ", ".join(names)


#: the two readings of the names in a conjugated bracket (``(a b)^*``, ``\\overline{W_k x_n}``)
BRACKET_CHOICES = {
    "complex": "the names of a conjugated bracket complex",
    "real": "the names of a conjugated bracket real (the bracket complex only through i or exponentials)",
}


def _bracket_reading(
    text: str, stated: Mapping[str, str], conjugated: Mapping[str, str], left: frozenset[str], picked: str
) -> dict[str, str]:
    """``(a b)^* = a b``: the bracket is conjugated, so complex, but which of its names are the claim does not say
    (``(W_k x_n)^*``: a real matrix and a complex vector). Its names -- the factors and terms of the bracket, not
    those in its exponents or calls (:func:`.latex_syntax.conjugated_group_names`) -- are read both ways: complex
    (``picked == "complex"``: returned with that domain) and real (nothing returned). Unpicked, where some such name
    has no domain yet, :class:`.latex_syntax.AmbiguousReading`: the claim is decided in both readings, and a verdict
    stands only where both give it (a proof for complex names holds for real ones; a refutation must hold for both).
    ``left``: names read otherwise (vectors and matrices, a starred name read as one of its own)."""
    grouped = {n for n in conjugated_group_names(text) if n not in stated and n not in conjugated and n not in left}
    if not grouped:
        return {}
    if picked not in BRACKET_CHOICES:
        names = ", ".join(sorted(grouped))
        raise AmbiguousReading(
            f"{names} stand in a conjugated bracket: complex, or real with the bracket complex otherwise",
            "bracket_reading",
            BRACKET_CHOICES,
        )
    return dict.fromkeys(grouped, "complex") if picked == "complex" else {}


#: what stands right before ``@``, and right after it: a written-out matrix, a bracket, or a name (bold or not,
#: with a subscript); then a transpose, or (after it) the bracket of a call such as ``R(a)``
_OPERAND = r"(?P<name>(?:\\(?:mathbf|boldsymbol|bm)\s*\{\s*)?\\?[A-Za-z]+\s*\}?\s*(?:_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?)"
_T = r"(?P<t>\s*\^\s*(?:\{\s*(?:T|\\top)\s*\}|T|\\top))?"
_BEFORE_AT = re.compile(
    r"(?:(?P<matrix>\\end\s*\{[pbBvV]?matrix\})|(?P<bracket>[)\]])|" + _OPERAND + ")" + _T + r"\s*$"
)
_AFTER_AT = re.compile(
    r"^\s*(?:(?P<matrix>\\begin\s*\{[pbBvV]?matrix\})|(?P<bracket>[(\[])|" + _OPERAND + _T + r"(?P<call>\s*\()?)"
)


def _bare_name(name: str) -> str:
    """A name as written without its bold and spaces: ``\\mathbf{q} _m`` -> ``q_m``."""
    return re.sub(r"\s+|\\(?:mathbf|boldsymbol|bm)\s*\{|\}", "", name)


def _check_matrix_products(text: str, clauses: list[Clause]) -> None:
    """``@`` is Python's matrix product: each one must stand between matrices or vectors the claim writes out,
    defines (its where-clause), transposes or calls (``R(a)``). A name that is none of these is refused: read
    as a number, ``a @ b = b @ a`` would be PROVED, though matrices do not commute."""
    defined = {_bare_name(c.name) for c in clauses}
    for m in re.finditer(r"@", text):
        sides = (_BEFORE_AT.search(text[: m.start()]), _AFTER_AT.match(text[m.end() :]))
        kinds = []
        for side in sides:
            if side is None:
                kinds.append("other")
            elif side.group("t") or side.group("matrix") or side.groupdict().get("call"):
                kinds.append("matrix")
            elif side.group("name"):
                kinds.append("matrix" if _bare_name(side.group("name")) in defined else "number")
            else:
                kinds.append("bracket")
        if "number" in kinds or "matrix" not in kinds:
            raise ClaimParseError(
                "@ multiplies matrices, and what stands beside it here is not one the claim writes out or defines: "
                "define the names after the claim (\\quad a = \\begin{pmatrix} ... \\end{pmatrix}) or write the "
                "product as numbers",
                m.start(),
            )


def _with_clauses(scope: Scope, clauses: list[Clause]) -> Scope:
    """``scope`` with the where-clause's names defined, each value read with the names before it."""
    symbols: dict[str, Definition] = {}
    for c in clauses:
        name = read_latex_side(c.name, c.name_column)
        if not isinstance(name, Symbol):
            raise ClaimParseError(f"{c.name.strip()} is not a name that a where-clause can define", c.name_column)
        if name.name in symbols:
            raise ClaimParseError(f"{c.name.strip()} is defined twice in the where-clause", c.name_column)
        body = read_latex_side(c.value, c.value_column, replace(scope, symbols=dict(symbols)))
        symbols[name.name] = Definition("symbol", name.name, body, source=f"{c.name.strip()} = {c.value.strip()}")
    return replace(scope, symbols=symbols) if symbols else scope


def _names_in(text: str) -> set[str]:
    """Every name the text could mean (``\\theta``, ``x_{m}``, ``q0``, and each letter of ``mn``), as domain keys."""
    words = re.findall(r"\\?[A-Za-z][A-Za-z0-9]*(?:_\{[^{}]*\}|_[A-Za-z0-9]+)?", text)
    return {domain_key(w) for w in words} | set(re.findall(r"[A-Za-z]", text))


def _check_domains(domains: Mapping[str, str] | None) -> dict[str, str]:
    if domains is None:
        return {}
    if not isinstance(domains, Mapping):
        raise UsageError(f"domains must map names to domains, got {type(domains).__name__}")
    out: dict[str, str] = {}
    for name, domain in domains.items():
        if domain not in DOMAINS:
            raise UsageError(f"unknown domain {domain!r} for {name!r}; known: {', '.join(DOMAINS)}")
        merge_domains(out, {domain_key(name): domain})
    return out


def _first_error(text: str, scope: Scope, latex_error: ClaimParseError | None) -> tuple[str, int | None]:
    """The error to show when neither syntax reads ``text`` (message without the column suffix, and the column).

    The LaTeX reader's error when it got past the parser (the text is LaTeX, and something in
    it cannot be read) or found the problem further right; the SymPy-syntax error otherwise.
    """
    try:
        _parse(text, "sympy", scope)
    except ClaimParseError as exc:
        chosen = exc
        if latex_error is not None:
            further = (latex_error.position or 0) > (exc.position or 0)
            syntax_only = "cannot parse LaTeX" in str(latex_error)
            if not syntax_only or further:
                chosen = latex_error
        message = str(chosen)
        if chosen.position is not None:
            message = message.rsplit(" (at column ", 1)[0]
        return message, chosen.position
    return "cannot parse the claim", None  # pragma: no cover


def _limited(
    text: str,
    syntax: str,
    limit: str,
    message: str,
    t0: float,
    sides: tuple[Any, ...] = (),
    domains: Mapping[str, str] | None = None,
) -> ClaimResult:
    lhs, rhs, used = sides[:3] if sides else (None, None, syntax)
    described = describe_domains([lhs, rhs], domains) if sides else []
    return ClaimResult(
        text, used, lhs, rhs, Verdict.UNDECIDED, "none", None, time.perf_counter() - t0, limit, message, described
    )


def _read_and_decide(text: str, syntax: Syntax, domains: Mapping[str, str] | None = None) -> ClaimResult:
    """Parse, check the limits, decide (in the child, or in-process); user errors are raised."""
    signs = sign_pair(text) if syntax != "sympy" else None
    if signs is not None:  # \pm on both sides: the claim for each sign (.sign_pairs)
        return _both_signs(text, [_read_and_decide(t, syntax, domains) for t in signs])
    result = _decided(text, syntax, domains)
    if result.syntax == "latex":
        result.readings = _readings(text, domains) + result.readings
        if "parity_split" in (result.method or ""):
            result.readings.append("a sum to half another's range presupposes an even length: terms paired two by two")
        if eye := _identity_read(text, result):
            result.readings.append(eye)
        if said := open_range_reading(result.lhs, result.rhs):
            result.readings.append(said)
    return result


def _both_signs(text: str, results: list[ClaimResult]) -> ClaimResult:
    """One verdict for a claim read with the upper and with the lower signs: PROVED when both are, REFUTED when
    either is, else UNDECIDED (:func:`.sign_pairs.kept_of_both`)."""
    out = results[kept_of_both([r.verdict.value for r in results])]
    ways = "; ".join(f"{name}: {r.verdict.value}" for name, r in zip(SIGN_NAMES, results, strict=True))
    out.readings = [*out.readings, f"\\pm read with each sign in turn ({ways})"]
    out.text = text
    out.seconds = sum(r.seconds for r in results)
    return out


def _identity_read(text: str, result: ClaimResult) -> str:
    """The note for an I read as the identity matrix (:mod:`.identity_matrix`): the claim writes I, its sides were
    read as square matrices, and no name I is left in them (so I was read so); else ""."""
    m = IDENTITY_TOKEN.search(text)
    sides = [s for s in (result.lhs, result.rhs) if isinstance(s, MatrixBase)]
    if m is None or len(sides) != 2 or sides[0].rows != sides[0].cols:
        return ""
    names = {s.name for side in sides for s in side.free_symbols if isinstance(s, Symbol)}
    if any(n == "I" or n.startswith("I_") for n in names):
        return ""
    return identity_note(re.sub(r"\\(?:mathbf|boldsymbol|bm)\s*\{?\s*|\s+|\}", "", m.group(0)), sides[0].rows)


def _readings(text: str, domains: Mapping[str, str] | None) -> list[str]:
    """The default readings a LaTeX claim was read with, in words."""
    try:
        declared, body = split_declaration(text)
    except RopeCheckError:  # pragma: no cover - the claim was read, so its clause was too
        declared, body = {}, text
    stated = {domain_key(n) for n in (domains or {})} | set(declared)
    body, clauses = split_where(body)
    notes = reading_notes(body)
    notes += [f"{c.name.strip()} stands for {c.value.strip()} (the where-clause)" for c in clauses]
    if trig_ambiguities(body):
        notes.append(
            "a function without parentheses applies to the product that follows (\\cos m\\theta is cos(m theta))"
        )
    conjugated = sorted(conjugated_names(body) - stated)
    if conjugated:
        notes.append(f"{', '.join(conjugated)} complex (conjugated)")
    return notes


#: at most this many readings of one claim are decided (three choices of two readings each)
_MAX_READINGS = 8


def _decided(text: str, syntax: Syntax, domains: Mapping[str, str] | None = None) -> ClaimResult:
    """The claim decided; notation that reads two ways is decided in every reading, and the verdict
    stands only when every reading gives it (else UNDECIDED, ``limit: reading``, naming the readings)."""
    t0 = time.perf_counter()
    pending: list[dict[str, str]] = [{}]
    words: dict[str, dict[str, str]] = {}
    results: list[tuple[dict[str, str], ClaimResult]] = []
    while pending:
        choices = pending.pop(0)
        try:
            result = _decided_once(text, syntax, domains, choices)
        except ClaimParseError as exc:
            if not choices:
                raise
            # one reading of two cannot be read: the claim is not read with certainty
            said = ", ".join(words[f][v] for f, v in sorted(choices.items()))
            used = syntax if syntax != "auto" else _detect(text)
            result = _limited(text, used, "reading", f"read with {said}, it cannot be read: {exc}", t0)
        except AmbiguousReading as exc:
            if exc.field in choices or len(results) + len(pending) + len(exc.choices) > _MAX_READINGS:
                raise  # pragma: no cover - each reading is chosen once, and there are three at most
            pending.extend({**choices, exc.field: value} for value in exc.choices)
            words[exc.field] = exc.choices
            continue
        if not choices:
            return result
        results.append((choices, result))
    return _agreed(results, words, t0)


def _agreed(
    results: list[tuple[dict[str, str], ClaimResult]], words: Mapping[str, Mapping[str, str]], t0: float
) -> ClaimResult:
    """One verdict for a claim read several ways: kept when every reading gives it, else UNDECIDED."""
    first = results[0][1]
    verdicts = {r.verdict for _, r in results}
    ways = "; ".join(", ".join(words[f][v] for f, v in sorted(c.items())) + f": {r.verdict.value}" for c, r in results)
    if len(verdicts) == 1 and first.limit is None:
        first.seconds = time.perf_counter() - t0
        first.readings.append(f"read {len(results)} ways ({ways}): the same verdict")
        return first
    message = f"the claim reads {len(results)} ways and their verdicts differ ({ways}); not read with certainty"
    out = ClaimResult(
        first.text, first.syntax, first.lhs, first.rhs, Verdict.UNDECIDED, "none", None,
        time.perf_counter() - t0, "reading", message, first.domains,
    )  # fmt: skip
    out.readings = list(first.readings)
    return out


#: why a claim with a sum over a range it does not write is not refuted (see :mod:`.open_sums`)
_OPEN_RANGE_DOUBT = "the counterexample's range may not be the one meant"


def _decided_once(
    text: str, syntax: Syntax, domains: Mapping[str, str] | None, choices: Mapping[str, str]
) -> ClaimResult:
    t0 = time.perf_counter()
    try:
        lhs, rhs, used, stated = _parse_claim(text, syntax, domains, choices)
    except AmbiguousReading:
        raise
    except ClaimLimitError as exc:
        return _limited(text, syntax if syntax != "auto" else _detect(text), exc.limit, str(exc), t0)
    sides = (lhs, rhs, used)
    described = describe_domains([lhs, rhs], stated)
    try:  # the caller keeps the sides even if the time runs out
        isolate.send(("read", lhs, rhs, used, stated))
    except Exception:  # pragma: no cover - sides too deep to pickle: the caller just will not show them
        pass
    try:
        if lhs != rhs:  # a claim identical on both sides is decided at once, whatever its size
            check_work(lhs, rhs)
    except ClaimLimitError as exc:
        return _limited(text, used, exc.limit, str(exc), t0, sides, stated)
    try:
        verdict, method, cex = decide(lhs, rhs)
    except MemoryError:
        raise
    except RecursionError:
        message = "the rewrites nested deeper than Python's recursion limit"
        return _limited(text, used, "recursion", message, t0, sides, stated)
    except Exception as exc:  # a rewrite that fails decides nothing: not a proof, not a refutation
        verdict, method, cex = Verdict.UNDECIDED, f"none ({type(exc).__name__} in the rewrites)", None
    if verdict == Verdict.REFUTED and expectations_left(lhs, rhs, text):  # values no distribution need give
        verdict, method, cex = Verdict.UNDECIDED, "none (expectations left in the difference)", None
    letters = open_range_names(lhs, rhs) if verdict == Verdict.REFUTED else []
    if letters and (cex is None or not false_over_every_range(lhs, rhs, cex.values)):  # a range not meant?
        verdict, cex = Verdict.UNDECIDED, None
        method = f"none (a sum over {', '.join(letters)} with no range (or no lower end) written: {_OPEN_RANGE_DOUBT})"
    if used == "latex" and verdict != Verdict.UNDECIDED and not _decorated_agrees(text, syntax, domains, verdict):
        verdict, method, cex = Verdict.UNDECIDED, "none (a letter written decorated and bare: one name or two?)", None
    if used == "latex" and verdict == Verdict.PROVED and (bold := _commuted_bold(text, lhs, rhs, domains, choices)):
        why = f"{bold} written bold, matrices by their look: proved as numbers, not as matrices (they need not commute)"
        verdict, method, cex = Verdict.UNDECIDED, f"none ({why})", None
    if verdict == Verdict.REFUTED and cex is not None and (why := _default_doubt(text, used, lhs, rhs, cex, stated)):
        verdict, method, cex = Verdict.UNDECIDED, f"none ({why})", None
    if used == "latex" and verdict != Verdict.UNDECIDED and (other := _other_log_base(text, syntax, domains, verdict)):
        method = f"none (\\log with no base: {verdict.value} read as the natural log, {other})"
        verdict, cex = Verdict.UNDECIDED, None
    return ClaimResult(text, used, lhs, rhs, verdict, method, cex, time.perf_counter() - t0, domains=described)


def _default_doubt(text: str, used: str, lhs: Any, rhs: Any, cex: Counterexample, stated: Mapping[str, str]) -> str:
    """Why a REFUTED claim rests on a reader's default, not the text (:mod:`.default_doubts`); "" where not: a log or
    root of a real name refuted only at a negative value of it, a norm read as a name beside the name inside it, j
    real only by default in an exponent of e, a decorated name (``\\hat{x}``, ``\\dot{x}``) read as one of its own."""
    root = negative_under_root_at(lhs, rhs, cex.values, real_only=True)
    if root:
        return f"refuted only where {root}, under a root or a log, is negative: the log or root of a name is a real one"
    if norm := norm_beside_name(lhs, rhs):
        return f"the norm {norm} read as a name of its own beside the name inside it: their values refute nothing"
    if used == "latex" and "j" not in stated and j_in_exponent(text, cex.values):
        return "refuted with j real, but j stands in an exponent of e, where it may be the imaginary unit"
    if used == "latex" and (decorated := undefined_decorations(text)):
        named = ", ".join(dict.fromkeys(decorated))
        return (
            f"{named} read as a name of its own, whose relation to other names (an estimate, a derivative, an "
            "optimum) the claim does not write: its values refute nothing"
        )
    return ""


def _other_log_base(text: str, syntax: Syntax, domains: Mapping[str, str] | None, verdict: Verdict) -> str:
    """``\\log 100 = 2``: where the claim writes a log with no base (and nothing that makes it natural), the verdict
    with base 10 or 2 where one differs from ``verdict`` (read as the natural log), else "" (:mod:`.default_doubts`)."""
    if not unbased_logs(text):
        return ""
    for base in (10, 2):
        try:
            lhs, rhs, _, _ = _parse_claim(with_log_base(text, base), syntax, domains)
            other = decide(lhs, rhs)[0]
        except (RopeCheckError, RecursionError, ValueError, TypeError):
            return f"not read with base {base}"
        if other != verdict:
            return f"{other.value} with base {base}"
    return ""


def _decorated_agrees(text: str, syntax: Syntax, domains: Mapping[str, str] | None, verdict: Verdict) -> bool:
    """``\\vec z = z``: where the claim writes a letter both decorated and bare (see :mod:`.decorated_plain`), a
    PROVED holds only if it also holds with the two as names of their own; a REFUTED is never kept (the decorated
    one may be a vector). True where the claim writes no such letter."""
    letter = decorated_beside_plain(text)
    if letter is None:
        return True
    if verdict != Verdict.PROVED:
        return False
    try:
        lhs, rhs, _, _ = _parse_claim(as_own_name(text, letter), syntax, domains)
        return decide(lhs, rhs)[0] == Verdict.PROVED
    except (RopeCheckError, RecursionError, ValueError, TypeError):
        return False


#: how many LaTeX claims this process has forked a child for: from the second, the parser is warmed up first
#: (:func:`.latex_parser.warm_up`, about a second, once), which one claim alone would not repay
_LATEX_CLAIMS = [0]


@functools.cache
def _load_latex_parser() -> None:
    """Import SymPy's LaTeX parser and its ANTLR grammar (0.4 s) in this process, before forking."""
    try:
        with warnings.catch_warnings():  # a missing runtime: the child reports it in one line
            warnings.filterwarnings("ignore", message=r"antlr4\..* is not installed", category=UserWarning)
            from sympy.parsing.latex import parse_latex  # the ANTLR runtime: imported when a LaTeX claim may come

            parse_latex("x", strict=True)
    except Exception:  # pragma: no cover - missing runtime: the child reports it as a usage error
        pass


def _in_child(text: str, syntax: Syntax, domains: Mapping[str, str] | None) -> ClaimResult | RopeCheckError:
    """What runs in the forked child: the result, or the user error to raise in the caller."""
    try:
        return _read_and_decide(text, syntax, domains)
    except RopeCheckError as exc:
        return exc


def _memory_words(limit: int) -> str:
    return f"{limit / 2**30:g} GiB" if limit >= 2**30 else f"{limit / 2**20:g} MiB"


def check_claim(
    text: str,
    *,
    syntax: Syntax = "auto",
    timeout: float | None = CLAIM_TIMEOUT,
    memory_limit: int | None = CLAIM_MEMORY_LIMIT,
    domains: Mapping[str, str] | None = None,
) -> ClaimResult:
    """Decide a claimed identity: PROVED, REFUTED (with a counterexample) or UNDECIDED.

    ``domains`` states names' domains (``{"q": "complex", "m": "integer"}``; every other name
    is real); ``result.domains`` lists every symbol's domain the verdict was decided under.

    The claim is read and decided in a forked child (:func:`ropecheck.isolate.run_isolated`)
    that is stopped after ``timeout`` seconds or once it maps ``memory_limit`` more bytes:
    the claim is then UNDECIDED and ``result.limit`` is ``"time"`` or ``"memory"``. The
    limits of :mod:`.limits` (exponents, numbers, matrix sizes and powers, expansion size)
    make a claim UNDECIDED the same way, before the work. With ``timeout=None`` and
    ``memory_limit=None`` (or where ``fork`` is missing) it runs in this process, unbounded
    in time.

    Raises:
        ClaimParseError: the claim cannot be read (also: longer than ``MAX_CLAIM_CHARS``,
            nested deeper than ``MAX_NESTING``), with the column.
        UsageError: a bad ``syntax``, ``timeout``, ``memory_limit`` or ``domains``.

    Example:
        >>> check_claim("R(a).T * R(b) == R(b - a)").verdict.value
        'PROVED'
        >>> check_claim("R(a).T * R(b) == R(a - b)").verdict.value
        'REFUTED'
        >>> check_claim("x**(10**10) == 1").limit_message
        'exponent 10^10 exceeds the limit 10000 (at column 5)'
        >>> check_claim("conjugate(z) == z", domains={"z": "complex"}).verdict.value
        'REFUTED'
    """
    t0 = time.perf_counter()
    if not isinstance(text, str) or not text.strip():
        raise ClaimParseError("the claim is empty; write it as 'LHS == RHS'", 0)
    check_text(text)  # too long or too deep to read: exit 2 before any work
    if syntax not in ("auto", "sympy", "latex"):
        raise UsageError(f"syntax must be 'auto', 'sympy' or 'latex', got {syntax!r}")
    _check_limits(timeout, memory_limit)
    _check_domains(domains)
    if (timeout is None and memory_limit is None) or not isolate.available():
        try:
            return _read_and_decide(text, syntax, domains)
        except MemoryError:
            return _limited(text, syntax if syntax != "auto" else _detect(text), "memory", "out of memory", t0)
    if syntax == "latex" or (syntax == "auto" and "==" not in text):
        _load_latex_parser()  # once, here: not again in every child
        _LATEX_CLAIMS[0] += 1
        if _LATEX_CLAIMS[0] > 1:  # a process deciding many: what the parser learns here, every later child starts with
            warm_up()
    # SymPy only, which starts no process: one child answers claim after claim, keeping its caches
    outcome = isolate.run_warm(_in_child, text, syntax, domains, timeout=timeout, memory_limit=memory_limit)
    if outcome.ok:
        if isinstance(outcome.value, RopeCheckError):
            raise outcome.value
        result: ClaimResult = outcome.value
        result.seconds = time.perf_counter() - t0
        return result
    read = [m[1:] for m in outcome.messages if isinstance(m, tuple) and m and m[0] == "read"]
    sides = tuple(read[0]) if read else ()
    used = sides[2] if sides else (syntax if syntax != "auto" else _detect(text))
    stated = sides[3] if sides else None
    if outcome.status == "timeout":
        return _limited(text, used, "time", f"time limit of {timeout:g} s reached", t0, sides, stated)
    if outcome.status == "memory" or (outcome.status == "signaled" and outcome.signal_number == signal.SIGKILL):
        words = _memory_words(memory_limit) if memory_limit else "the machine's memory"
        return _limited(text, used, "memory", f"memory limit of {words} reached", t0, sides, stated)
    # a crash or an escape in the decision: nothing was decided, and the reason is kept
    lhs, rhs = sides[:2] if sides else (None, None)
    method = f"none ({isolate.describe_outcome(outcome, 'the decision')})"
    described = describe_domains([lhs, rhs], stated) if sides else []
    return ClaimResult(
        text, used, lhs, rhs, Verdict.UNDECIDED, method, None, time.perf_counter() - t0, domains=described
    )


def _check_limits(timeout: float | None, memory_limit: int | None) -> None:
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT
    ):
        raise UsageError(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}], got {timeout!r}")
    if memory_limit is not None and (
        isinstance(memory_limit, bool) or not isinstance(memory_limit, int) or memory_limit <= 0
    ):
        raise UsageError(f"memory_limit must be a positive number of bytes, got {memory_limit!r}")
