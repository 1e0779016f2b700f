"""keras-hub on Keras 3's torch backend: Gemma's attention rotating q or k.

keras-hub's ``CachedGemmaAttention._apply_rope(x, start_index, positions=None)`` runs its
``RotaryEmbedding`` layer (half-split pairs, positions ``arange(seq) + start_index`` in float32, cos and
sin cast to the layer's compute dtype) and then writes the two halves back interleaved -- the layout of
the original Gemma checkpoints, the same for queries and keys. The spec says so: ``output_layout=
"interleaved"``. One attention layer per dtype (a Keras layer computes in its dtype policy, as
``GemmaBackbone(dtype=...)`` builds them), x ``(batch, seq, heads, head_dim)`` as the layer takes q and k.

* ``keras-hub-gemma``: ``start_index`` (the cache index of generation; the ``fn(x, offset)`` convention);
* ``keras-hub-gemma-positions``: ``positions=`` per token (the serving path; ``fn(x, positions)``).

keras-hub declares tensorflow-text as a dependency, which pulls TensorFlow; its Gemma code imports
without it, so it is installed without dependencies (see ``install``). Keras reads its backend once, at
import: ``KERAS_BACKEND=torch`` is set here unless the process already chose another one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..errors import UsageError
from ..spec import RopeSpec
from .registry import Adapter, register

__all__ = ["GEMMA_SPEC", "gemma_attention", "torch_keras"]

# Gemma 2B/7B: head_dim 256, rope base 10000, 8192 positions; the pairs written back interleaved
GEMMA_SPEC = RopeSpec(head_dim=256, base=10000.0, max_position_embeddings=8192, output_layout="interleaved")
_INSTALL = (
    "pip install --no-deps keras-hub==0.32.0 keras==3.15.1 namex optree h5py absl-py regex "
    "(keras-hub's tensorflow-text dependency would pull TensorFlow; its Gemma code does not need it)"
)


def torch_keras() -> Any:
    os.environ.setdefault("KERAS_BACKEND", "torch")
    import keras  # optional: the adapted library

    if keras.config.backend() != "torch":
        raise UsageError(
            f"Keras runs on its {keras.config.backend()!r} backend in this process; the keras-hub adapters need "
            "KERAS_BACKEND=torch set before Keras is first imported"
        )
    return keras


def gemma_attention(dtype: str, head_dim: int = 256, heads: int = 2) -> Any:
    """keras-hub's ``CachedGemmaAttention`` built in ``dtype`` (its rotary layer is made by ``build``)."""
    torch_keras()
    from keras_hub.src.models.gemma.gemma_attention import CachedGemmaAttention

    layer = CachedGemmaAttention(head_dim=head_dim, num_query_heads=heads, num_key_value_heads=heads, dtype=dtype)
    layer.build((None, None, heads * head_dim))
    return layer


def _gemma(by_positions: bool) -> Callable[[], Callable[..., Any]]:
    def make() -> Callable[..., Any]:
        layers: dict[Any, Any] = {}

        def layer_for(x: Any) -> Any:
            key = str(x.dtype).replace("torch.", "")
            if key not in layers:
                layers[key] = gemma_attention(key, GEMMA_SPEC.head_dim, int(x.shape[2]))
            return layers[key]

        if by_positions:

            def fn(x: Any, positions: Any) -> Any:
                return layer_for(x)._apply_rope(x, 0, positions=positions)

        else:

            def fn(x: Any, start_index: int) -> Any:  # type: ignore[misc]
                return layer_for(x)._apply_rope(x, start_index)

        fn.rope_convention = "positions" if by_positions else "offset"  # type: ignore[attr-defined]
        fn.rope_backend = "torch"  # type: ignore[attr-defined]
        fn.__qualname__ = "keras-hub-gemma" + ("-positions" if by_positions else "")
        return fn

    return make


for _name, _by_positions, _how in (
    ("keras-hub-gemma", False, "_apply_rope(x, start_index)"),
    ("keras-hub-gemma-positions", True, "_apply_rope(x, 0, positions=positions)"),
):
    register(
        Adapter(
            _name,
            "keras-hub",
            "keras_hub",
            GEMMA_SPEC,
            _gemma(_by_positions),
            description=f"keras-hub CachedGemmaAttention.{_how} on Keras 3's torch backend (the rotated halves "
            "written back interleaved: --output-layout interleaved)",
            install=_INSTALL,
        )
    )
