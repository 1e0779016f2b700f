"""A function the document already defines, written again with its own calls on the right: never a new definition.

``h(m) = h(m - 1) + 2`` after ``h(m) = 2m``, or ``r(m) = \\frac{r(m-1)}{c} = \\cdots`` in the chain of an induction:
an equation the function satisfies, derived, not what it means. Read as a definition, the right side would be read
with the old definition put in (``h(m) := 2(m - 1) + 2``), and every later step with that value -- a value no
line of the document gives it (a wrong recurrence would refute true steps after it). So:

* the function called on the right at other arguments only (a recurrence): the line is a step, decided with the
  definition in force (as :func:`.primed_steps.values_of_defined` reads a function stated at another argument);
* the function called at its own arguments (``f(x) = 2 f(x)``): an update or an equation about f, neither read
  (the caller's ``updated``);
* a name with a value written again with itself on the right (``x = 2x`` after ``x = 2``, :func:`names_itself`): an
  update or an equation about x too, never ``x := 4``, which no line of the document states.

The right side is read as written, with no name replaced by a definition: the check is on the text, never on the
value a definition gives it (where the old definition has gone from the reading).

Design constraints: a pure function of the head, the right side and the scope; it only ever keeps a line from
being read as a definition.
"""

from __future__ import annotations

from typing import Any

from ..readers.latex_syntax import read_quiet
from ..readers.scope import Scope
from .reading import Head, applied

__all__ = ["names_itself", "own_calls"]


def own_calls(head: Head, body: str, scope: Scope, explicit: bool) -> str | None:
    """``"step"`` where ``head = body`` calls the function ``head`` defines again at other arguments only,
    ``"update"`` where it calls it at its own arguments, None where the body does not call it as written (or the
    relation defines, ``:=``, or the function has no definition yet).

    Example:
        >>> import sympy
        >>> from ..readers.scope import Definition
        >>> m = sympy.Symbol("m")
        >>> scope = Scope(functions={"h": Definition("function", "h", 2 * m, (m,))})
        >>> [own_calls(Head("function", "h", ("m",)), b, scope, False) for b in ("h(m-1) + 2", "2 h(m)", "2m + 1")]
        ['step', 'update', None]
    """
    if explicit or head.kind != "function" or head.key not in scope.functions:
        return None
    value = _as_written(body, scope)
    calls = [f for f in applied(value) if f.func.__name__ == head.key]
    if not calls:
        return None
    own = any(tuple(str(a) for a in f.args) == head.params for f in calls)
    return "update" if own else "step"


def names_itself(head: Head, body: str, scope: Scope, explicit: bool) -> bool:
    """Whether ``head = body`` writes a name the document already gives a value again with itself in the body as
    written (``x = 2x`` after ``x = 2``): read with the old value put in, it would be ``x := 4``, a value no line
    states; it is an update or an equation about x (the caller's ``updated``). Only a plain name (a symbol) a
    definition gives a value, not one given in passing, and not where the relation defines (``:=``).

    Example:
        >>> import sympy
        >>> from ..readers.scope import Definition
        >>> scope = Scope(symbols={"x": Definition("symbol", "x", sympy.Integer(2))})
        >>> [names_itself(Head("symbol", "x"), b, scope, False) for b in ("2x", "2y + 1")]
        [True, False]
        >>> names_itself(Head("symbol", "x"), "2x", scope, True), names_itself(Head("symbol", "y"), "2y", scope, False)
        (False, False)
    """
    if explicit or head.kind != "symbol" or head.key not in scope.symbols or scope.symbols[head.key].stated_value:
        return False  # a value given in passing (``$m = 0$``) is a free name's: ``m = m - n`` keeps it free
    value = _as_written(body, scope)
    return value is not None and any(str(x) == head.key for x in getattr(value, "free_symbols", ()))


def _as_written(body: str, scope: Scope) -> Any:
    """``body`` read with the scope's domains and no definition put in (the check is on the text as written)."""
    return read_quiet(body, Scope(domains=scope.domains))
