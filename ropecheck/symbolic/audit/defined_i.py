r"""Which ``i`` a definition writes, where the document also indexes with i: the imaginary unit or an index.

In a text that indexes with i (``\theta_i``, ``x_{2i}``) a bare ``i`` reads two ways, and a definition whose
right side writes one is not read (:func:`.latex_syntax.read_latex_side`). Two shapes of definition say which:

* ``q = q_0 + i q_1``, ``z_j = x_{2j} + i \cdot x_{2j+1}``, ``z = a + bi``: the right side is exactly
  ``A ± i B`` (or ``A ± B i``, ``i \cdot B``), A and B the two parts of one thing -- two entries of one name
  (``q_0``, ``q_1``; ``q^{(1)}``, ``q^{(2)}``) with no i in their scripts, or two plain letters the document
  has not defined -- and the defined name carries no i. Its value cannot depend on an index i it does not
  carry, so the ``i`` is the imaginary unit: the name is complex.
* ``p_{i,2t} = \sin(i\,\omega_t)``, ``PE_{(pos,2i)} = \sin(pos/10000^{2i/d})``, ``h(\theta_i) = b^{-2i/d}``:
  the defined name carries i (a subscript, a parameter), so the ``i`` of its right side is that index, a real
  number -- where that side writes i in none of the unit's places (after a sign as a factor, ``+ iB``; after a
  part at the end of a term, ``+ B i``; in an exponent of e).

Anything else keeps the refusal. Each reading is said in the definition's reason. A chain that goes on from
such a definition (``z = a + bi = r(\cos\theta + i\sin\theta)``) has a step whose left side is that value as
written: its ``i`` is the unit the definition read, and so is the same letter on the other side, where the step
writes no subscript with i (:func:`unit_as_defined`).

Design constraint: pure functions of the text and the scope; nothing here decides a step.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import sympy

from ...errors import ClaimLimitError
from ..readers.latex_syntax import (
    AmbiguousReading,
    i_in_exponent_of_e,
    normalize_latex,
    read_latex_side,
    subscripts_with_i,
)
from ..readers.scope import Scope

__all__ = ["UNIT_AS_DEFINED", "defined_i_reading", "read_definition_side", "unit_as_defined", "writes_unit_places"]

#: the words that say a step's ``i`` is the unit a definition read (:func:`unit_as_defined`)
UNIT_AS_DEFINED = "i the imaginary unit (as in the value of"
#: a braced group, two levels deep
_GROUP = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
#: a part: a letter or a Greek name, with its subscripts and superscripts (``q_m^{(1)}``, ``x_{2j+1}``)
_PART = rf"(?:\\[A-Za-z]+|[A-Za-z])(?:\s*[_^]\s*(?:{_GROUP}|[A-Za-z0-9]))*"
#: the unit as a factor: ``i``, ``i \cdot``
_UNIT = r"i(?:\s*\\cdot(?![A-Za-z]))?"
#: ``A ± i B`` and ``A ± B i``, the whole side
_UNIT_FIRST = re.compile(rf"^\s*(?P<a>{_PART})\s*(?P<sign>[+-])\s*{_UNIT}\s*(?P<b>{_PART})\s*$")
_UNIT_LAST = re.compile(rf"^\s*(?P<a>{_PART})\s*(?P<sign>[+-])\s*(?P<b>{_PART})\s*(?:\\cdot(?![A-Za-z])\s*)?i\s*$")
#: a letter ``i`` standing alone (no command's name, no longer word)
_BARE_I = re.compile(r"(?<![\\A-Za-z])i(?![A-Za-z])")
#: spacing commands, which separate nothing a reader keeps
_SPACING = re.compile(r"\\[,;:! ]|\\quad(?![A-Za-z])|\\qquad(?![A-Za-z])")
#: a name and what follows its base: ``q`` and ``_m^{(1)}``
_BASE = re.compile(r"^(\\[A-Za-z]+|[A-Za-z])(.*)$", re.S)

#: why a definition is not read whose name carries i and whose value writes i as the unit of a complex number
BOTH_I = (
    "the defined name carries i as an index and its value writes i as the imaginary unit of a complex number "
    "(a + ib): not read with certainty; write \\mathrm{i} for the unit"
)


def read_definition_side(named: tuple[str, bool], body: str, scope: Scope, bound: frozenset[str]) -> tuple[Any, str]:
    r"""The right side ``body`` of the definition of a name (``named``: as written, and whether it is new, with no
    value yet; ``bound``: its parameters), and how its bare ``i`` was read where that needed saying ("" otherwise);
    raises as :func:`.read_latex_side` does.

    Where a parameter is i (``z_i = ...``), the i of an exponent of e is the unit (``q_i e^{i m\theta_i}``) and
    every other bare i the parameter; a value written as a complex number from its parts (``x_{2i} + i x_{2i+1}``)
    reads both ways and is not read. Elsewhere a refusal of a bare i is lifted by :func:`defined_i_reading`, for a
    new name only: a name with a value (``q_m = [q_m^1, q_m^2]^T``) seen again as ``q_m^1 + i q_m^2`` is the same
    pair viewed as a complex number, which would replace the value later steps use.
    """
    name, new = named
    if "i" in bound and scope.index_i and writes_unit_places(body):
        if not i_in_exponent_of_e(body) or _sum_places(body):
            raise ClaimLimitError(BOTH_I, "reading")
        index_scope = replace(scope, i_reading="index")
        value = read_latex_side(body, 0, index_scope, bound=bound - {"i"})
        return value, "i in the exponent of e read as the imaginary unit, every other i as the index the name carries"
    try:
        return read_latex_side(body, 0, scope, bound=bound), ""
    except AmbiguousReading as exc:
        found = defined_i_reading(name, body, scope) if exc.field == "i_reading" and "i" not in bound and new else None
        if found is None:
            raise
    choice, note = found
    if choice == "unit":
        return read_latex_side(body, 0, replace(scope, i_reading="unit"), bound=bound), note
    return read_latex_side(body, 0, scope, bound=bound | {"i"}), note


def defined_i_reading(name: str, body: str, scope: Scope) -> tuple[str, str] | None:
    r"""``("unit" | "index", note)``: how to read the bare ``i`` of the definition ``name = body``, or None.

    Example:
        >>> defined_i_reading(r"\boldsymbol{q}", "q_0 + i q_1", Scope())[0]
        'unit'
        >>> defined_i_reading("p_{i,2t}", r"\sin(i\,\omega_t)", Scope())[0]
        'index'
        >>> defined_i_reading("z_i", "x_{2i} + i x_{2i+1}", Scope()), defined_i_reading("w", "2 i q", Scope())
        (None, None)
    """
    head = _SPACING.sub(" ", normalize_latex(name))
    side = _SPACING.sub(" ", normalize_latex(body))
    if _BARE_I.search(head):
        return _index(head, side)
    parts = _unit_parts(side, scope)
    if parts is None:
        return None
    a, b = parts
    note = (
        f"i read as the imaginary unit: the right side writes a complex number from its parts {a} and {b} "
        "(a + ib), and the name it defines carries no index i"
    )
    return "unit", note


def _unit_parts(side: str, scope: Scope) -> tuple[str, str] | None:
    """The two parts of ``A ± i B`` (see the module), where they name the parts of one thing; else None."""
    m = _UNIT_FIRST.match(side) or _UNIT_LAST.match(side)
    if m is None:
        return None
    a, b = re.sub(r"\s+", "", m.group("a")), re.sub(r"\s+", "", m.group("b"))
    if _BARE_I.search(a) or _BARE_I.search(b) or a == b:
        return None
    ma, mb = _BASE.match(a), _BASE.match(b)
    if ma is None or mb is None:
        return None
    if ma.group(2) and mb.group(2):  # two entries of one name: q_0, q_1
        return (a, b) if ma.group(1) == mb.group(1) else None
    if ma.group(2) or mb.group(2) or not all(re.fullmatch(r"[a-hj-z]", x) and x != "e" for x in (a, b)):
        return None
    # two plain letters the document has not given a value or a complex domain: the parts the line introduces
    if any(scope.defines(x) or scope.domains.get(x, "real") == "complex" for x in (a, b)):
        return None
    return a, b


def _index(head: str, side: str) -> tuple[str, str] | None:
    """The index reading, where the defined name carries i and its right side writes i in no place of the unit."""
    if writes_unit_places(side):
        return None
    note = f"i read as the index i that the defined name {head.strip()} carries (a real number), not the imaginary unit"
    return "index", note


def writes_unit_places(side: str) -> bool:
    r"""Whether ``side`` writes a bare ``i`` where a complex number writes its unit: in an exponent of e, after a
    sign as a factor (``a + i b``), or after a part at the end of a term (``a + b i``).

    Example:
        >>> writes_unit_places("x_{2i} + i x_{2i+1}"), writes_unit_places(r"\sin(i \omega_t)")
        (True, False)
    """
    return i_in_exponent_of_e(side) or _sum_places(side)


def _sum_places(side: str) -> bool:
    """Whether ``side`` writes a bare ``i`` as the unit of a sum (``a + ib``, ``a + bi``; see just above)."""
    side = _SPACING.sub(" ", normalize_latex(side))
    if _UNIT_FIRST.match(side) or _UNIT_LAST.match(side):
        return True
    for m in _BARE_I.finditer(side):
        before = side[: m.start()].rstrip()
        after = re.sub(r"^(?:\s|\\cdot(?![A-Za-z]))+", "", side[m.end() :])
        if before.endswith(("+", "-", "\\pm", "\\mp")) and re.match(r"[A-Za-z\\({]", after):
            return True  # + i B: the unit as a factor
        if re.search(r"[A-Za-z}]$", before) and re.match(r"$|[+\-)\]=,]", after):
            return True  # + B i: the unit after a part
    return False


def unit_as_defined(left: str, right: str, scope: Scope) -> str | None:
    r"""The note for a step whose left side is written exactly as the value of a name defined with ``i`` the unit
    (``a + bi`` after ``z = a + bi``): its ``i`` is that unit; None where it is not, or the step indexes with i.

    Example:
        >>> from ..readers.scope import Definition
        >>> z = Definition("symbol", "z", sympy.Symbol("a") + sympy.I * sympy.Symbol("b"), body_source="a + bi")
        >>> unit_as_defined("a + bi", r"r(\cos\theta + i\sin\theta)", Scope(symbols={"z": z})) is not None
        True
        >>> unit_as_defined("a + bi", "x_i", Scope(symbols={"z": z}))
    """
    if subscripts_with_i(left + " = " + right) or _unit_parts(_SPACING.sub(" ", normalize_latex(left)), scope) is None:
        return None
    written = re.sub(r"\s+", "", left)
    for d in (*scope.symbols.values(), *scope.patterns.values()):
        value = d.body
        if re.sub(r"\s+", "", d.body_source) == written and isinstance(value, sympy.Basic) and value.has(sympy.I):
            return f"{UNIT_AS_DEFINED} {d.name} written so at line {d.line})"
    return None
