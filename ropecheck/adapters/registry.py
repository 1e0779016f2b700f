"""The adapter registry: name -> :class:`Adapter` (library, spec, installed?, CUDA?, factory)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from ..spec import RopeSpec

__all__ = ["Adapter", "ADAPTERS", "axes_fn", "register", "get_adapter", "positions_fn"]

Factory = Callable[[], Callable[..., Any]]


@dataclass(frozen=True)
class Adapter:
    """One library's RoPE as a canonical callable.

    Args:
        name: the ``--adapter`` name.
        library: the pip package.
        module: the import that tells whether the library is installed.
        spec: the RopeSpec the library's code is meant to implement (from its config/defaults).
        factory: builds the canonical ``fn(x, positions)`` (imports the library).
        requires_cuda: GPU-only kernels; skipped cleanly without CUDA.
        description: what exactly is wrapped.
        install: how to install the library next to torch 2.13.0 (default ``pip install <library>``).
        cpu_note: for a CUDA-only adapter, why it is not run on CPU by other means (appended to the skip reason).
        dtypes: the dtypes the adapter can be judged in (default: all three).
        dtype_note: why the others are not judged (a SKIP reason in matrices, a usage error when asked for).
        requires: further modules the factory imports, each a pip package of the same name (an exporter, a
            graph builder): the adapter is installed only when ``module`` and all of these are.
    """

    name: str
    library: str
    module: str
    spec: RopeSpec
    factory: Factory
    requires_cuda: bool = False
    description: str = ""
    install: str = ""
    cpu_note: str = ""
    dtypes: tuple[str, ...] = ("float32", "bfloat16", "float16")
    dtype_note: str = ""
    requires: tuple[str, ...] = ()

    def dtype_skip_reason(self, dtype: str) -> str | None:
        """None when the adapter is judged in ``dtype``, else why not."""
        if dtype in self.dtypes:
            return None
        return f"{self.name} is not judged in {dtype}" + (f": {self.dtype_note}" if self.dtype_note else "")

    def judged_dtypes(self, dtypes: tuple[str, ...] | list[str]) -> tuple[str, ...]:
        """The dtypes of ``dtypes`` this adapter is judged in, in the given order."""
        return tuple(d for d in dtypes if d in self.dtypes)

    @property
    def installed(self) -> bool:
        return not self.missing()

    def missing(self) -> list[str]:
        """The modules of ``module`` and ``requires`` that cannot be found (empty when the adapter is installed)."""
        return [m for m in (self.module, *self.requires) if not _findable(m)]

    def unavailable_reason(self) -> str | None:
        """None when the adapter can run here, else why not (for skips)."""
        if self.requires_cuda:  # first: on a machine without CUDA, installing the library would not help
            import torch  # heavy: imported when used

            if not torch.cuda.is_available():
                note = f" ({self.cpu_note})" if self.cpu_note else ""
                return f"{self.name} runs CUDA kernels only and CUDA is not available{note}"
        missing = self.missing()
        if missing:
            what = self.library if self.module in missing else " and ".join(missing)
            return f"{what} is not installed ({self.install or 'pip install ' + self.library})"
        return None

    def load(self) -> tuple[Callable[..., Any], RopeSpec]:
        """``(fn, spec)``; raises UsageError when the library is missing or CUDA is needed."""
        reason = self.unavailable_reason()
        if reason:
            raise UsageError(f"adapter {self.name!r}: {reason}")
        fn = self.factory()
        return fn, self.spec

    def info(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "library": self.library,
            "installed": self.installed,
            "requires_cuda": self.requires_cuda,
            "spec": self.spec.describe(),
            "spec_short": self.short_spec(),
            "description": self.description,
            "install": self.install or f"pip install {self.library}",
            "dtypes": list(self.dtypes),
        }

    def short_spec(self) -> str:
        s = self.spec
        return f"{s.layout} d={s.head_dim} r={s.rotary_dim} base={s.base:g} {s.rope_type}"


def _findable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


ADAPTERS: dict[str, Adapter] = {}


def register(adapter: Adapter) -> Adapter:
    ADAPTERS[adapter.name] = adapter
    return adapter


def get_adapter(name: str) -> Adapter:
    if name not in ADAPTERS:
        raise UsageError(f"unknown adapter {name!r}; choose from: {', '.join(ADAPTERS)} (see `ropecheck adapters`)")
    return ADAPTERS[name]


def axes_fn(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """Mark ``fn`` as a torch ``fn(x, positions)`` callable taking ``(axes, batch, seq)`` positions (multi-axis)."""
    fn.rope_convention = "axes"  # type: ignore[attr-defined]
    fn.rope_backend = "torch"  # type: ignore[attr-defined]
    fn.__qualname__ = fn.__name__ = name
    return fn


def positions_fn(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """Mark ``fn`` as a torch ``fn(x, positions)`` callable named ``name``."""
    fn.rope_convention = "positions"  # type: ignore[attr-defined]
    fn.rope_backend = "torch"  # type: ignore[attr-defined]
    fn.__qualname__ = fn.__name__ = name
    return fn
