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

from .errors import ConfigError, RopeCheckError, SpecError, UsageError
from .reference import apply_rope, layout_permutation, rope_matrix
from .schedules import ROPE_TYPES, Default, DynamicNTK, Linear, Llama3, LongRoPE, Proportional, StaticNTK, YaRN
from .spec import RopeSpec
from .verify import VerifyReport, verify
from .version import __version__

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
