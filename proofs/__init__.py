"""The theorems of ropecheck: one readable, runnable SymPy module per family.

Each module here states and proves one family of RoPE's identities with the decision
procedure of :mod:`ropecheck.symbolic` (``python proofs/<family>.py`` prints every step). The
installed package carries this folder as ``ropecheck.proofs``; this ``__init__`` is the
registry: families in their numbered order, their theorems, and running them by name.

Design constraints: a theorem builder is a plain function with no required arguments (its
defaults are the published statement) that returns a decided :class:`~ropecheck.symbolic.Proof`;
nothing here renders or writes files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType

from ropecheck.errors import UsageError
from ropecheck.proofs import (
    context_extension,
    forms,
    layouts,
    linear_attention,
    long_term_decay,
    multi_axis,
    relative_position,
    relative_position_general,
)
from ropecheck.proofs.relative_position_general import concrete_d_check
from ropecheck.symbolic.engine.proof import Proof

__all__ = ["FAMILIES", "THEOREMS", "resolve", "run_family", "run_proofs"]

_MODULES: tuple[ModuleType, ...] = (
    relative_position,
    relative_position_general,
    forms,
    layouts,
    linear_attention,
    long_term_decay,
    context_extension,
    multi_axis,
)

#: family -> (number, one-line description, theorem builders)
FAMILIES: dict[str, tuple[int, str, tuple[Callable[[], Proof], ...]]] = {
    m.__name__.rpartition(".")[2]: (m.NUMBER, m.TITLE, tuple(m.THEOREMS)) for m in _MODULES
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
