"""ropecheck: prove, test, measure and verify rotary position embeddings (RoPE).

The public API: the spec (:class:`RopeSpec` and its frequency schedules), the exact fp64
reference (:func:`apply_rope`, :func:`rope_matrix`, :func:`layout_permutation`), the
verifier (:func:`verify`, :class:`VerifyReport`) and the errors ropecheck raises on purpose.
The engines are packages: :mod:`ropecheck.symbolic` (proofs), :mod:`ropecheck.properties`
(property checks), :mod:`ropecheck.precision`, :mod:`ropecheck.verify`; the theorems are
:mod:`ropecheck.proofs`.

Example:
    >>> from ropecheck import RopeSpec, verify
    >>> from ropecheck.protocol import torch_reference
    >>> spec = RopeSpec(head_dim=8)
    >>> verify(torch_reference(spec), spec, dtypes=("float32",), max_position=4096).conforms
    True
"""

import sys
import types
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, RopeCheckError, SpecError, UsageError
from .lazy import lazy_getattr
from .version import __version__

if TYPE_CHECKING:  # the names below are imported on first use (see _LAZY)
    from .reference import apply_rope, layout_permutation, rope_matrix
    from .schedules import ROPE_TYPES, Default, DynamicNTK, Linear, Llama3, LongRoPE, Proportional, StaticNTK, YaRN
    from .spec import RopeSpec
    from .verify.model import VerifyReport
    from .verify.run import verify

__all__ = [
    "ROPE_TYPES",
    "ConfigError",
    "Default",
    "DynamicNTK",
    "Linear",
    "Llama3",
    "LongRoPE",
    "Proportional",
    "RopeCheckError",
    "RopeSpec",
    "SpecError",
    "StaticNTK",
    "UsageError",
    "VerifyReport",
    "YaRN",
    "__version__",
    "apply_rope",
    "layout_permutation",
    "rope_matrix",
    "verify",
]

#: The re-exported names imported on first use, and their modules: ``import ropecheck`` (and every
#: ``ropecheck`` command, which imports it first) costs almost nothing, so ``ropecheck verify`` can
#: start the target's process before it imports the verifier.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("apply_rope", "layout_permutation", "rope_matrix"), "reference"),
    **dict.fromkeys(
        ("ROPE_TYPES", "Default", "DynamicNTK", "Linear", "Llama3", "LongRoPE", "Proportional", "StaticNTK", "YaRN"),
        "schedules",
    ),
    "RopeSpec": "spec",
    "VerifyReport": "verify.model",
    "verify": "verify.run",
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """``ropecheck.verify`` is the function, as it always was: importing the subpackage of the same
    name does not rebind it (the subpackage is reached through its modules, ``ropecheck.verify.run``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "verify" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
