"""Adapters: the RoPE of the libraries people use, under the canonical protocol.

Each :class:`Adapter` names a library, the spec its RoPE is meant to implement, whether the
library is installed, whether it needs CUDA, and a factory that builds the library's own
rotary code and returns ``fn(x, positions)`` with x ``(batch, seq, heads, head_dim)``. The
glue only reshapes and routes arguments (q = x, positions -> the library's position ids or
cos/sin cache); the arithmetic is always the library's.

Usage::

    from ropecheck import verify
    from ropecheck.adapters import get_adapter
    fn, spec = get_adapter("hf-llama").load()
    verify(fn, spec)

Design constraints: libraries are imported only inside the factories, so listing adapters
never imports torch extensions or a missing library; a missing library raises
:class:`~ropecheck.errors.UsageError` saying what to install; GPU-only adapters report
``requires_cuda`` and refuse to load without CUDA.
"""

from __future__ import annotations

# the modules register their adapters on import (in this order in `ropecheck adapters`)
from . import (
    ggml_rope,
    gpu_kernels,
    hf_multimodal,
    hf_transformers,
    jax_libs,
    keras_libs,
    model_repos,
    runtimes,
    small_libs,
    torchtune_models,
)
from .registry import ADAPTERS, Adapter, get_adapter, register

__all__ = [
    "ADAPTERS",
    "Adapter",
    "get_adapter",
    "ggml_rope",
    "gpu_kernels",
    "hf_multimodal",
    "hf_transformers",
    "jax_libs",
    "keras_libs",
    "model_repos",
    "register",
    "runtimes",
    "small_libs",
    "torchtune_models",
]
