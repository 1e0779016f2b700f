r"""A bare ``i`` written as a later argument of a call (``f_t(x_i, i)``, ``g(x, i)``): the position this
literature passes beside a vector at that position, never the imaginary unit -- the unit is written as a
coefficient (``a + bi``) or in an exponent of e, not as an argument of its own.

Used only where the step also indexes a subscript with i (:func:`.latex_syntax.i_indexes_the_step`): there the
letter the step writes as an argument is that index. A first or lone argument (``(i)``, ``(i, 1)``) and an
entry of a bracket that follows no name (the pair ``(1, i)``, which may be a complex vector) are not read so.

Design constraints: a pure function of the text of one step.
"""

from __future__ import annotations

import re

__all__ = ["index_argument_at"]

#: a call's opening bracket: a name's last letter, its subscript's closing brace or a prime right before it
_CALL_OPENER = re.compile(r"(?:[A-Za-z}'])\s*(?:\\left\s*)?\($")


def index_argument_at(text: str, at: int) -> bool:
    r"""Whether the lone ``i`` at ``text[at]`` is a later argument of a call: a comma before it, a comma or the
    closing bracket after it, and the bracket holding it opened right after a name.

    Example:
        >>> t = r"f_{t}(x_i, i) = W_t (x_i + p_i)"
        >>> index_argument_at(t, t.index(", i") + 2), index_argument_at("(1, i) = v", 4)
        (True, False)
        >>> index_argument_at(r"g(i, x) = 1", 2)
        False
    """
    if re.match(r"i\s*(?:,|\\right\s*\)|\))", text[at:]) is None or not text[:at].rstrip().endswith(","):
        return False
    depth, k = 0, at - 1
    while k >= 0:  # the bracket the argument list opens with
        depth += {")": 1, "(": -1}.get(text[k], 0)
        if depth < 0:
            break
        k -= 1
    return k > 0 and _CALL_OPENER.search(text[: k + 1]) is not None
