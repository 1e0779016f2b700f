r"""A power written beside the labels of the same name: ``k_n^2`` where ``k_n^{(1)}``, ``k_n^{(2)}`` stand.

``q^{(2)}`` is a label, a name of its own (see :mod:`.latex_syntax`); ``q^2`` is a power. Where one formula writes
a name with labels and the same name with a number raised, the number may be a label whose parentheses were
dropped (``k_n^2`` for ``k_n^{(2)}``) or a power: not read with certainty.

Design constraint: pure text in, the first doubtful column out; the caller raises.
"""

from __future__ import annotations

import re

__all__ = ["power_beside_labels"]

#: a one-letter name, maybe with a subscript, carrying a label ``^{(N)}``
_LABELED_NAME = re.compile(
    r"(?<![\\A-Za-z])(?P<base>[A-Za-z](?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?)\s*\^\s*\{\s*\(\s*\d+\s*\)\s*\}"
)
#: the same shape with a number raised, ``k_n^2``, ``k_{n}^{2}``
_RAISED_NAME = re.compile(
    r"(?<![\\A-Za-z])(?P<base>[A-Za-z](?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?)\s*\^\s*(?:\{\s*\d+\s*\}|\d)"
)


def _key(base: str) -> str:
    return re.sub(r"[\s{}]", "", base)


def power_beside_labels(text: str) -> int | None:
    r"""The column of a name raised to a number where ``text`` also writes the name with labels, or None.

    Example:
        >>> power_beside_labels(r"q_m^{(1)} k_n^2 - q_m^{(2)} k_n^{(1)}"), power_beside_labels(r"q_m^{(1)} + k_n^2")
        (10, None)
    """
    labeled = {_key(m.group("base")) for m in _LABELED_NAME.finditer(text)}
    for m in _RAISED_NAME.finditer(text):
        if _key(m.group("base")) in labeled:
            return m.start()
    return None
