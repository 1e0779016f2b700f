"""An inner product typed with ``<`` and ``>`` and an ``=`` glued to it (``<a, b>=c``): the ``=`` is the relation,
where the pair certainly is one; comparisons stay comparisons (``audit/angle_pairs.py``)."""

from __future__ import annotations

import pytest

from ropecheck.symbolic.audit.angle_pairs import angle_pairs
from ropecheck.symbolic.audit.document import chains, math_blocks

CASES = [
    ("glued to a call", "<f(x,m),h(y,n)>=g(x,y,m-n)", [("<f(x,m),h(y,n)>", ""), ("g(x,y,m-n)", "=")]),
    ("two pairs", "<a,b>=<b,a>", [("<a,b>", ""), ("<b,a>", "=")]),
    ("left and right", r"\left<a,b\right>=a b", [(r"\left<a,b\right>", ""), ("a b", "=")]),
    ("spaced as before", "<a, b> = a b", [("<a, b>", ""), ("a b", "=")]),
    ("after a relation", "c=<a,b>=d", [("c", ""), ("<a,b>", "="), ("d", "=")]),
    ("a comparison chain", "0 < a, b > 1", [("0 < a, b > 1", "")]),
    ("a greater-or-equal", "x >= 0", [("x >= 0", "")]),
    ("three entries", "<a,b,c>=d", [("<a,b,c>=d", "")]),
    ("a side before the sign", "x<a,b>=c", [("x<a,b>=c", "")]),
]


@pytest.mark.parametrize(("text", "links"), [pytest.param(t, k, id=i) for i, t, k in CASES])
def test_an_equals_glued_to_a_pair_is_the_relation(text: str, links: list[tuple[str, str]]) -> None:
    blocks, lines = math_blocks(f"# T\n\n$${text}$$\n")
    (chain,) = chains(blocks[0], lines)
    assert [(link.text, link.relation) for link in chain.links] == links


@pytest.mark.parametrize(
    "text", ["0 < a, b > 1", "a < b, c > d", "0<a,b>1", "x > 0", "<a, b> 2", "<a, b>> c", "<-a, b>=c", "y = a<b, c>=d"]
)
def test_comparisons_are_never_pairs(text: str) -> None:
    assert angle_pairs(text) == []
