"""ropecheck: prove, test, measure and verify rotary position embeddings (RoPE).

The public API is re-exported here; internal modules start with an underscore.
"""

from ._spec import (
    ROPE_TYPES,
    Default,
    DynamicNTK,
    Linear,
    Llama3,
    LongRoPE,
    RopeSpec,
    StaticNTK,
    YaRN,
)
from .errors import ConfigError, RopeCheckError, SpecError, UsageError
from .reference import apply_rope, layout_permutation, rope_matrix

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "RopeSpec",
    "ROPE_TYPES",
    "Default",
    "Linear",
    "StaticNTK",
    "DynamicNTK",
    "YaRN",
    "Llama3",
    "LongRoPE",
    "RopeCheckError",
    "SpecError",
    "ConfigError",
    "UsageError",
    "apply_rope",
    "rope_matrix",
    "layout_permutation",
]
