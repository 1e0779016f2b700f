"""A name whose polar form a step states (``q = \\|q\\| e^{i\\theta_q}``), read through it in the steps after.

A derivation in the plane treats a vector as a complex number and writes it through its length and its angle,
``q = \\|q\\| e^{i\\theta_q}``, as a step of a chain (``q`` was written before, ``q = f_q(x_q, 0)``), not as a
definition. Later steps use the name and its norm together (``\\|q\\| e^{i(\\theta_q + m\\theta)} = q e^{im\\theta}``);
read as two names of their own, a counterexample may give them values no complex number has, so such a step was
left undecided. Here the step is read with the name standing for the polar form the text stated: its norm is then
the modulus that form writes (:func:`..readers.written_norms.polar_modulus`), and the two agree.

Design constraints. Only a step whose one side is the bare name, undefined, and whose other side is that name's norm
times ``e`` raised to i times a real angle that does not use the name states a polar form (a REFUTED or UNREAD one
states nothing); only a later step of its section that writes both the norm and the bare name is read through it,
and its reason says so, naming the line, taken as the document states it. A PROVED step holds for every positive
modulus and real angle, so for the number the text means. A REFUTED one stands only where the statement is what
introduces the angle -- no step, definition or math before writes it, so the statement holds of its angle by what
the words call it -- and where the step is unchanged when the angle turns by 2 pi (an angle is known only up to
whole turns: a step that uses it otherwise may hold for the branch the text means); else it is left undecided, with
that reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import Symbol

from ..readers.latex_syntax import NORM_OPEN, normalize_latex
from ..readers.scope import Definition, Scope
from ..readers.written_norms import NAMED_NORM, polar_modulus

__all__ = ["StatedPolar", "polar_scope", "refuted_polar_doubt", "stated_polar"]


@dataclass(frozen=True)
class StatedPolar:
    """A polar form a step stated: the name as defined by it, and whether that step introduced the angle."""

    definition: Definition
    angle_new: bool
    end: int | None = None  # the line its section ends at (a heading at its level or above), None: the document's end


def stated_polar(
    sides: tuple[Any, Any], line: int, scope: Scope, before: str, end: int | None = None
) -> StatedPolar | None:
    """The polar form the step with sides ``sides`` (as read, at ``line``, in a section ending at ``end``) states, or
    None; ``before`` is the document's math before its display, where the angle must not be written for the
    statement to introduce it."""
    for name_side, form in (sides, sides[::-1]):
        if not isinstance(name_side, Symbol) or not isinstance(form, sympy.Expr) or "_" in name_side.name:
            continue
        name = name_side.name
        if name in scope.symbols or name.startswith(NORM_OPEN) or name_side in form.free_symbols:
            continue  # defined, a norm, or in its own angle (theta_q read as a member at q)
        definition = Definition("symbol", name, form, line=line, source="stated")
        norms = [x for x in form.free_symbols if x.name.split(NORM_OPEN)[1:2] == [name]]
        if len(norms) == 1 and polar_modulus(definition, norms[0]):
            angles = form.free_symbols - set(norms)
            return StatedPolar(definition, not any(_written(str(a), before) for a in angles), end)
    return None


def polar_scope(texts: tuple[str, str], line: int, scope: Scope, stated: dict[str, StatedPolar]) -> tuple[Scope, str]:
    """``scope`` with each name the step at ``line`` writes both bare and under a norm standing for the polar form
    a step in its section stated, and what the reason says of it ("" and ``scope`` where there is none)."""
    text = normalize_latex(texts[0] + " = " + texts[1])
    normed = {re.sub(r"[\s{}]", "", m.group(1)).lstrip("\\") for m in NAMED_NORM.finditer(text)}
    bare = NAMED_NORM.sub(" ", text)
    here = {n for n, p in stated.items() if p.end is None or line < p.end}  # a section after may mean a vector
    used = sorted(n for n in normed & here if n not in scope.symbols and _written(n, bare))
    if not used:
        return scope, ""
    symbols = {**scope.symbols, **{n: stated[n].definition for n in used}}
    said = "; ".join(
        f"{n} read as {sympy.sstr(stated[n].definition.body)}, the polar form line {stated[n].definition.line} "
        "states (taken as the document states it)"
        for n in used
    )
    return replace(scope, symbols=symbols), said


def refuted_polar_doubt(s: Any, used: list[StatedPolar]) -> str:
    """Why a step refuted through the polar forms ``used`` is not refuted, or "" (see the module's constraints)."""
    if not used:
        return ""
    if any(not p.angle_new for p in used):
        return (
            "refuted with a name read as the polar form a step stated, whose angle the text wrote before: the "
            "statement may be false of that angle, so it is not refuted"
        )
    difference = s.lhs - s.rhs if isinstance(s.lhs, sympy.Expr) and isinstance(s.rhs, sympy.Expr) else None
    angles = {a for p in used for a in p.definition.body.free_symbols if not a.name.startswith(NORM_OPEN)}
    turned = difference.xreplace({a: a + 2 * sympy.pi for a in angles}) if difference is not None else None
    if turned is None or sympy.expand(turned - difference, power_exp=True) != 0:
        return (
            "refuted with a name read as its stated polar form, where the step changes when the angle turns by "
            "2 pi: it may hold for the angle the text means, so it is not refuted"
        )
    return ""


def _written(name: str, text: str) -> bool:
    """Whether ``text`` (LaTeX) writes the name ``name`` as read (``theta_{q}``: ``\\theta_q``, ``\\theta_{q}``)."""
    base, _, sub = name.partition("_")
    sub = sub.strip("{}")
    spelled = ("\\\\" if len(base) > 1 else "") + re.escape(base) + r"(?![A-Za-z])"
    if sub:
        spelled += r"\s*_\s*(?:\{\s*" + re.escape(sub) + r"\s*\}|" + re.escape(sub) + r"(?![A-Za-z0-9]))"
    else:
        spelled += r"(?!\s*_)"
    return re.search(r"(?<![A-Za-z])" + spelled, normalize_latex(text)) is not None
