"""Calling an implementation under the canonical protocol, whatever its backend.

The canonical protocol (see the design notes) has three calling conventions:

* ``fn(x, positions)`` -- x ``(batch, seq, heads, head_dim)``, positions int64 ``(batch, seq)``;
* ``fn(x, offset)`` -- positions ``offset .. offset+seq-1`` for every row;
* ``fn(x)`` -- positions ``0 .. seq-1``.

:class:`Implementation` wraps a numpy or torch callable, reads the convention from the
signature (overridable), and offers one operation to the properties: rotate these float64
values, stored in this dtype, at these positions, and give back float64. Positions the
convention cannot express directly are emulated exactly (per-row calls: each row cut into
runs of consecutive positions, one ``fn(x, offset)`` call per run, or the run placed at the
end of a longer ``fn(x)`` sequence), so every property runs under every convention. A
TorchScript target's convention is read from its compiled schema. Also here:
:func:`reference_impl` (the fp64 reference as a canonical callable), :func:`torch_reference`
(a plain torch implementation, float32 angles) and :func:`describe_exception` (a target's
exception as a finding shows it: type, text, and the line of the target's own code).

Design constraints: torch is imported lazily; inputs are made in float64, rounded once to
the dtype, and the *rounded* values are what the reference sees, so input rounding never
counts as implementation error. An implementation that raises or returns the wrong shape
raises :class:`~ropecheck.errors.TargetError`, which the properties turn into a failure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .errors import TargetError, TargetMemoryError, UsageError
from .host import Host, LocalHost, describe_exception, detect_convention, is_out_of_memory, to_numpy64
from .reference import apply_rope, effective_seq_len
from .spec import RopeSpec
from .tolerance import dtype_name, round_bfloat16

__all__ = [
    "is_out_of_memory",
    "CONVENTIONS",
    "Convention",
    "Implementation",
    "as_implementation",
    "describe_exception",
    "detect_convention",
    "reference_impl",
    "round_to_dtype",
    "torch_reference",
]

Convention = Literal["positions", "offset", "none"]
CONVENTIONS: tuple[str, ...] = ("positions", "offset", "none")
Backend = Literal["auto", "torch", "numpy", "jax"]


def _torch() -> Any:
    try:
        import torch  # heavy: imported when used
    except ImportError as exc:  # pragma: no cover - torch is a dependency
        raise UsageError("this needs torch; install it with `pip install torch`") from exc
    return torch


def round_to_dtype(x: np.ndarray, dtype: Any) -> np.ndarray:
    """``x`` rounded to ``dtype`` and promoted back to float64 (what the implementation sees).

    bfloat16 is rounded here with numpy (round to nearest even, as torch converts), so judging a
    target needs no torch in ropecheck's own process.
    """
    name = dtype_name(dtype)
    if name == "float64":
        return np.asarray(x, dtype=np.float64)
    if name in ("float32", "float16"):
        return np.asarray(x, dtype=np.float64).astype(name).astype(np.float64)
    if name == "bfloat16":
        return round_bfloat16(x)
    raise UsageError(f"unknown dtype {name!r}")


def _output_error(message: str) -> TargetError:
    """A TargetError about what the target returned (not about its call): ``output_problem`` is set."""
    err = TargetError(message)
    err.output_problem = True  # type: ignore[attr-defined]
    return err


@dataclass(frozen=True)
class Implementation:
    """A RoPE callable with its calling convention and backend, called through a host.

    Args:
        fn: the callable under the canonical protocol (None when ``host`` holds it elsewhere).
        convention: ``"positions"``, ``"offset"`` or ``"none"`` (default: from the signature).
        backend: ``"torch"``, ``"numpy"`` or ``"auto"`` (torch tensors first; numpy arrays
            when the callable rejects tensors).
        name: for messages.
        host: where the calls are answered (:mod:`ropecheck.host`): this process by default, or
            the child process a supervised verdict runs the target in.
        key: which of the host's callables (0: the target; others are derived from it).

    Example:
        >>> impl = Implementation(lambda x, positions: x, convention="positions", backend="numpy")
        >>> impl.run(np.ones((1, 2, 1, 2)), np.array([[0, 1]]), dtype="float64").shape
        (1, 2, 1, 2)
    """

    fn: Callable[..., Any] | None
    convention: str = "positions"
    backend: str = "auto"
    name: str = "implementation"
    _resolved: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    host: Host | None = field(default=None, repr=False, compare=False)
    key: int = 0
    _local: list[Host] = field(default_factory=list, repr=False, compare=False)

    # ------------------------------------------------------------------ raw calls

    @property
    def resolved_backend(self) -> str:
        """The backend in use: ``backend``, or for ``"auto"`` the one the first call settled on."""
        return self._resolved.get("backend", "torch" if self.backend == "auto" else self.backend)

    def _host(self) -> Host:
        if self.host is not None:
            return self.host
        if not self._local:
            if self.fn is None:
                raise UsageError("an Implementation needs a callable or a host")
            self._local.append(LocalHost(self.fn, self.name))
        return self._local[0]

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """One request to the host that holds the target (:mod:`ropecheck.host`), with this backend."""
        return self._host().request(op, key=self.key, backend=self.resolved_backend, **fields)

    def derive(self, kind: str, **params: Any) -> Implementation:
        """A callable made from this one where the target lives: ``"axes"`` (its 1-D view), ``"compile"``."""
        reply = self._host().request("derive", key=self.key, kind=kind, **params)
        if reply.get("status") != "ok":
            raise TargetError(f"{self.name}: {kind} failed: {reply.get('error', reply.get('status'))}")
        return Implementation(None, "positions" if kind == "axes" else self.convention, self.backend, self.name,
                              host=self._host(), key=int(reply["key"]))  # fmt: skip

    def cuda_available(self) -> bool:
        """Whether CUDA is available where the target runs."""
        return bool(self._host().request("device").get("cuda", False))

    def cuda_unavailable_reason(self) -> str | None:
        """Why CUDA cannot be used where the target runs although it was looked for (None: no reason known)."""
        reason = self._host().request("device").get("reason")
        return str(reason) if reason else None

    def call(
        self,
        x: np.ndarray,
        *,
        dtype: str,
        device: str = "cpu",
        positions: np.ndarray | None = None,
        offset: int | None = None,
    ) -> np.ndarray:
        """One native call: ``fn(x, positions)``, ``fn(x, offset)`` or ``fn(x)`` as given; float64 out.

        With backend ``"auto"`` the first call tries torch tensors and, if the callable
        rejects them, numpy arrays; the backend that worked is kept.
        """
        if self.backend == "auto" and "backend" not in self._resolved:
            try:
                out = self._call(x, dtype=dtype, device=device, positions=positions, offset=offset)
                self._resolved.setdefault("backend", "torch")
                return out
            except TargetError as torch_error:
                if dtype == "bfloat16" or device != "cpu":
                    raise
                self._resolved["backend"] = "numpy"
                try:
                    return self._call(x, dtype=dtype, device=device, positions=positions, offset=offset)
                except TargetError:
                    del self._resolved["backend"]
                    raise torch_error from None
        return self._call(x, dtype=dtype, device=device, positions=positions, offset=offset)

    def _call(
        self,
        x: np.ndarray,
        *,
        dtype: str,
        device: str,
        positions: np.ndarray | None,
        offset: int | None,
    ) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.float64)
        if positions is not None:
            positions = np.ascontiguousarray(positions, dtype=np.int64)
        reply = self.request("call", x=x, dtype=dtype, device=device, positions=positions,
                             offset=None if offset is None else int(offset))  # fmt: skip
        status = reply.get("status")
        if status == "ok":
            out = reply.get("out")
            if not isinstance(out, np.ndarray) or out.shape != x.shape or out.dtype != np.float64:
                raise _output_error(f"{self.name} returned something that is not float values of x's shape")
            if self._resolved.get("backend") == "numpy" and self.backend == "auto":
                if str(reply.get("module", "")).startswith("jax"):  # a JAX function takes numpy, returns jax
                    self._resolved["backend"] = "jax"
            return out
        error = str(reply.get("error", status))
        if status == "memory":
            raise TargetMemoryError(f"{self.name} ran out of memory: {error}")
        if status == "usage":
            raise UsageError(error)
        if status == "bad_output":
            raise _output_error(f"{self.name} {error}")
        raise TargetError(f"{self.name} raised {error}")

    # ------------------------------------------------------------------ any positions

    def run(self, x: np.ndarray, positions: np.ndarray, *, dtype: Any, device: str = "cpu") -> np.ndarray:
        """Rotate ``x`` (float64 values representable in ``dtype``) at ``positions`` (batch, seq).

        Uses one native call when the convention can express the positions, otherwise
        emulates them exactly with several calls (tokens grouped by position).
        """
        dtype = dtype_name(dtype)
        x = np.asarray(x, dtype=np.float64)
        positions = np.broadcast_to(np.asarray(positions, dtype=np.int64), x.shape[:2])
        if x.ndim != 4:
            raise UsageError(f"x must be (batch, seq, heads, head_dim), got shape {x.shape}")
        if self.convention == "positions":
            return self.call(x, dtype=dtype, device=device, positions=np.ascontiguousarray(positions))
        seq = x.shape[1]
        run0 = positions[:, :1] + np.arange(seq)[None, :]
        if np.all(positions == run0) and np.all(positions[:, 0] == positions[0, 0]):
            start = int(positions[0, 0]) if positions.size else 0
            if self.convention == "offset":
                return self.call(x, dtype=dtype, device=device, offset=start)
            if start == 0:
                return self.call(x, dtype=dtype, device=device)
        return self._emulate(x, positions, dtype=dtype, device=device)

    def _emulate(self, x: np.ndarray, positions: np.ndarray, *, dtype: str, device: str) -> np.ndarray:
        """Per-row positions by per-run calls: each row is cut into runs of consecutive positions, and the
        runs that start at the same position with the same length go in one native call (``fn(x, offset)``
        at the run's start; for ``fn(x)``, at the end of a call of length start + run, after zero tokens).
        ``fn(x)`` rows whose positions are distinct go in one call, each token at its position's index."""
        out = np.empty_like(x)
        if self.convention == "none":  # rows whose positions are distinct: one call, each token at its index
            distinct = [b for b in range(x.shape[0]) if len(set(positions[b].tolist())) == x.shape[1]]
            if distinct and positions[distinct].min() >= 0:
                length = int(positions[distinct].max()) + 1
                seq = np.zeros((len(distinct), length) + x.shape[2:])
                for k, b in enumerate(distinct):
                    seq[k, positions[b]] = x[b]
                got = self.call(seq, dtype=dtype, device=device)
                for k, b in enumerate(distinct):
                    out[b] = got[k, positions[b]]
            rest = [b for b in range(x.shape[0]) if b not in set(distinct)]
            if not rest:
                return out
            sub = self._emulate_runs(x[rest], positions[rest], dtype=dtype, device=device)
            out[rest] = sub
            return out
        return self._emulate_runs(x, positions, dtype=dtype, device=device)

    def _emulate_runs(self, x: np.ndarray, positions: np.ndarray, *, dtype: str, device: str) -> np.ndarray:
        out = np.empty_like(x)
        for (start, length), members in _runs(positions).items():
            tokens = np.stack([x[b, j : j + length] for b, j in members])  # (n, length, heads, head_dim)
            if self.convention == "offset":
                got = self.call(tokens, dtype=dtype, device=device, offset=start)
            else:
                if start < 0:
                    raise UsageError(f"{self.name} takes no positions (fn(x)); it cannot rotate at position {start}")
                seq = np.zeros((len(members), start + length) + x.shape[2:])
                seq[:, start:] = tokens
                got = self.call(seq, dtype=dtype, device=device)[:, start:]
            for (b, j), g in zip(members, got):
                out[b, j : j + length] = g
        return out


def _runs(positions: np.ndarray) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """(start position, length) -> [(row, first column)] for every maximal run of consecutive positions."""
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for b in range(positions.shape[0]):
        row = positions[b]
        breaks = np.nonzero(np.diff(row) != 1)[0] + 1
        for j0, j1 in zip(np.concatenate([[0], breaks]), np.concatenate([breaks, [len(row)]])):
            groups.setdefault((int(row[j0]), int(j1 - j0)), []).append((b, int(j0)))
    return groups


def as_implementation(
    fn: Callable[..., Any] | Implementation,
    *,
    convention: str | None = None,
    backend: str | None = None,
    name: str | None = None,
) -> Implementation:
    """Wrap ``fn`` as an :class:`Implementation` (an Implementation is returned as is unless overridden).

    Example:
        >>> as_implementation(lambda x: x).convention
        'none'
    """
    if isinstance(fn, Implementation):
        if convention is None and backend is None and name is None:
            return fn
        return Implementation(fn.fn, convention or fn.convention, backend or fn.backend, name or fn.name,
                              host=fn.host, key=fn.key)  # fmt: skip
    if not callable(fn):
        raise UsageError(f"the implementation must be callable, got {type(fn).__name__}")
    conv = convention or getattr(fn, "rope_convention", None) or detect_convention(fn)
    if conv not in CONVENTIONS:
        raise UsageError(f"convention must be one of {', '.join(CONVENTIONS)}, got {conv!r}")
    be = backend or getattr(fn, "rope_backend", None) or "auto"
    if be not in ("torch", "numpy", "jax", "auto"):
        raise UsageError(f"backend must be 'torch', 'numpy', 'jax' or 'auto', got {be!r}")
    label = name or getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return Implementation(fn, conv, be, str(label))


# --------------------------------------------------------------------------- reference callables


def reference_impl(spec: RopeSpec, form: str = "elementwise") -> Callable[..., Any]:
    """The fp64 reference as a canonical ``fn(x, positions)``, for numpy arrays and torch tensors.

    The output has x's type, dtype and device: computed in float64 and rounded once.

    Example:
        >>> fn = reference_impl(RopeSpec(head_dim=2))
        >>> fn(np.array([[[[1.0, 0.0]]]]), np.array([[1]])).round(4).tolist()
        [[[[0.5403, 0.8415]]]]
    """

    def reference(x: Any, positions: Any) -> Any:
        p = to_numpy64(positions).astype(np.int64)[..., None]  # broadcast over heads
        if isinstance(x, np.ndarray):
            return apply_rope(x.astype(np.float64), p, spec, form=form).astype(x.dtype)  # type: ignore[arg-type]
        torch = _torch()
        y = apply_rope(to_numpy64(x), p, spec, form=form)  # type: ignore[arg-type]
        return torch.from_numpy(y).to(device=x.device, dtype=x.dtype)

    reference.rope_convention = "positions"  # type: ignore[attr-defined]
    reference.rope_backend = "auto"  # type: ignore[attr-defined]
    reference.__qualname__ = f"reference_impl({form})"
    return reference


def torch_reference(spec: RopeSpec) -> Callable[..., Any]:
    """A straightforward torch RoPE for ``spec``: float32 angles (float64 for float64 x), rotation in x's dtype.

    Length-dependent schedules see ``max(positions) + 1`` as the current length, as the
    reference does.

    Example:
        >>> import torch
        >>> fn = torch_reference(RopeSpec(head_dim=4))
        >>> fn(torch.ones(1, 3, 2, 4), torch.arange(3)[None]).shape
        torch.Size([1, 3, 2, 4])
    """
    torch = _torch()
    r, half, r0 = spec.rotary_dim, spec.half, spec.rotary_start
    if not spec.integer_positions:  # it forms p * theta_i: a spec whose axes map their positions is another rotation
        raise UsageError("torch_reference forms p * theta_i at integer positions; this spec's axes map them")

    def rope(x: Any, positions: Any) -> Any:
        angle_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
        seq_len = effective_seq_len(spec, positions.detach().cpu().numpy())
        inv_freq = torch.tensor(spec.inv_freq(seq_len), dtype=angle_dtype, device=x.device)
        ang = positions.to(angle_dtype)[..., None] * inv_freq  # (batch, seq, r/2)
        cos, sin = ang.cos() * spec.attention_factor, spec.direction * ang.sin() * spec.attention_factor
        if spec.layout == "half":
            cos, sin = torch.cat([cos, cos], -1), torch.cat([sin, sin], -1)
        else:
            cos, sin = cos.repeat_interleave(2, -1), sin.repeat_interleave(2, -1)
        cos, sin = cos[:, :, None].to(x.dtype), sin[:, :, None].to(x.dtype)
        before, xr, rest = x[..., :r0], x[..., r0 : r0 + r], x[..., r0 + r :]
        if spec.layout == "half":
            rot = torch.cat([-xr[..., half:], xr[..., :half]], -1)
        else:
            rot = torch.stack([-xr[..., 1::2], xr[..., 0::2]], -1).flatten(-2)
        return torch.cat([before, xr * cos + rot * sin, rest], -1)

    rope.rope_convention = "positions"  # type: ignore[attr-defined]
    rope.rope_backend = "torch"  # type: ignore[attr-defined]
    rope.__qualname__ = "torch_reference"
    return rope
