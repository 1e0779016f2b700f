"""The theorem registry: the eight families, their theorems, and running them by name.

A *family* is one runnable module in ``proofs/`` (``python proofs/<family>.py``) and one
numbered theorem of the suite; it holds one or more proof objects. Names given to
``ropecheck prove`` may be family names or theorem names.

Design constraints: builders are plain functions with no arguments (the defaults are the
published statement); nothing here renders or writes files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import UsageError
from ._proof import Proof
from ._theorems_core import (
    concrete_d_check,
    forms_agree,
    layouts_agree,
    relative_position_2d,
    relative_position_general,
    rotation_2d,
)
from ._theorems_ext import context_extension, linear_attention, long_term_decay, multi_axis

__all__ = ["FAMILIES", "THEOREMS", "resolve", "run_family", "run_proofs"]

#: family -> (number, one-line description, theorem builders)
FAMILIES: dict[str, tuple[int, str, tuple[Callable[[], Proof], ...]]] = {
    "relative_position": (1, "Relative position in 2-D; the rotation group", (rotation_2d, relative_position_2d)),
    "relative_position_general": (2, "Relative position for every even d (structural)", (relative_position_general,)),
    "forms": (3, "Matrix, elementwise and complex forms agree", (forms_agree,)),
    "layouts": (4, "Half-split = P (interleaved) P^T", (layouts_agree,)),
    "linear_attention": (5, "Linear attention depends only on n - m", (linear_attention,)),
    "long_term_decay": (6, "Abel summation and the decay bound", (long_term_decay,)),
    "context_extension": (7, "Context-extension schedules: relative or not", (context_extension,)),
    "multi_axis": (8, "Axial 2-D RoPE and M-RoPE", (multi_axis,)),
}

#: theorem name -> (family, builder)
THEOREMS: dict[str, tuple[str, Callable[[], Proof]]] = {
    b.__name__: (family, b) for family, (_, _, builders) in FAMILIES.items() for b in builders
}


def resolve(names: Sequence[str]) -> list[Callable[[], Proof]]:
    """Builders for family or theorem names, in registry order, without duplicates."""
    wanted: list[Callable[[], Proof]] = []
    for name in names:
        key = name.replace("-", "_")
        if key in FAMILIES:
            found = list(FAMILIES[key][2])
        elif key in THEOREMS:
            found = [THEOREMS[key][1]]
        else:
            known = ", ".join(list(FAMILIES) + [t for t in THEOREMS if t not in FAMILIES])
            raise UsageError(f"unknown theorem or family {name!r}; known: {known}")
        wanted += [b for b in found if b not in wanted]
    order = [b for _, b in THEOREMS.values()]
    return sorted(wanted, key=order.index)


def run_proofs(names: Sequence[str] | None = None, *, d: int | None = None) -> list[Proof]:
    """Run the named theorems (all with None), plus the concrete-d expansion when ``d`` is given."""
    builders = [b for _, b in THEOREMS.values()] if names is None else resolve(names)
    proofs = [b() for b in builders]
    if d is not None:
        proofs.append(concrete_d_check(d))
    return proofs


def run_family(family: str) -> list[Proof]:
    """Every theorem of one family (what ``python proofs/<family>.py`` prints)."""
    return run_proofs([family])
