"""An operator set upright with a subscript before its operand: ``\\operatorname{argmax}_j s_j``.

``\\operatorname{...}`` declares an operator, and ``argmax``, ``max``, ``sup``, ``lim``, ``softmax`` are
operators however they are set: with a subscript (``_j``: the index it runs over, bound) and an operand after it,
they are applied, never a name ``argmax_j`` times ``s_j``. Such a side is not read
(:func:`subscripted_operator`): the reader has no value for it, and reading it as a product would decide another
statement. A bracket right after the subscript (``\\operatorname{softmax}_i(x)``) is a call, read as before,
except for the operators whose subscript binds an index (``argmax``, ``max``, ``lim``, ...).

Design constraints: pure text; only ever refuses a reading (a ClaimLimitError by the caller), never makes one.
"""

from __future__ import annotations

import re

__all__ = ["subscripted_operator"]

#: operators whose subscript names the index they run over (bound): never a name, whatever follows
_BINDING_WORDS = frozenset(
    {"argmax", "argmin", "max", "min", "sup", "inf", "lim", "sum", "prod", "softmax", "mean", "avg", "median"}
)
_OPERATOR_SUBSCRIPT = re.compile(
    r"\\(?P<cmd>operatorname|mathrm|text|textrm|mathop)\s*\*?\s*\{\s*(?P<word>[A-Za-z]+(?:\s*(?:\\[,;:! ]|~)?\s*"
    r"[A-Za-z]+)?)\s*\}\s*(?:\\limits\s*)?_\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|[A-Za-z0-9])"
)
#: what after the subscript is no operand: a bracket (a call), an operator, a relation, the end
_NOT_OPERAND = re.compile(
    r"\s*(?:$|[(\[=+\-,;&)\]}<>|^_]|\\(?:left|right|big|Big|bigg|Bigg|cdot|times|le|ge|leq|geq|lt|gt|neq|approx|"
    r"quad|qquad|end|\\|mid|in|to|rightarrow)(?![A-Za-z]))"
)


def subscripted_operator(text: str) -> re.Match[str] | None:
    r"""The first upright operator in ``text`` with a subscript that is applied (see the module), or None.

    Example:
        >>> subscripted_operator(r"k = \operatorname{argmax}_j s_j").group("word")
        'argmax'
        >>> subscripted_operator(r"\mathrm{PE}_{pos} + 1") is None
        True
    """
    for m in _OPERATOR_SUBSCRIPT.finditer(text):
        word = re.sub(r"[^A-Za-z]", "", m.group("word"))
        if word.lower() in _BINDING_WORDS:
            return m
        if m.group("cmd") in ("operatorname", "mathop") and not _NOT_OPERAND.match(text, m.end()):
            return m
    return None
