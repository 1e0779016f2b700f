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

import inspect
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from .errors import TargetError, UsageError
from .reference import apply_rope, effective_seq_len
from .spec import RopeSpec
from .tolerance import dtype_name

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


def detect_convention(fn: Callable[..., Any]) -> str:
    """The calling convention read from ``fn``'s signature (a TorchScript function or module: its schema).

    One parameter: ``"none"``; a second one named like ``offset``/``start`` or annotated
    ``int``: ``"offset"``; otherwise (or ``*args``): ``"positions"``.

    Example:
        >>> detect_convention(lambda x, offset=0: x)
        'offset'
    """
    schema = _torchscript_schema(fn)
    if schema is not None:  # a ScriptModule's Python signature is (*args, **kwargs): read the compiled one
        args = [a for a in schema.arguments if a.name != "self" and not getattr(a, "kwarg_only", False)]
        if len(args) <= 1:
            return "none"
        second = args[1]
        if str(second.type) == "int" or "offset" in second.name.lower() or "start" in second.name.lower():
            return "offset"
        return "positions"
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return "positions"
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return "positions"
    if len(positional) <= 1:
        return "none"
    second = positional[1]
    if "offset" in second.name.lower() or "start" in second.name.lower() or second.annotation in (int, "int"):
        return "offset"
    return "positions"


def _torchscript_schema(fn: Any) -> Any:
    """The compiled schema of a TorchScript function (``fn.schema``) or module (``fn.forward.schema``), else None."""
    if not type(fn).__module__.startswith("torch"):
        return None
    for owner in (fn, getattr(fn, "forward", None)):
        schema = getattr(owner, "schema", None)
        if schema is not None and hasattr(schema, "arguments"):
            return schema
    return None


def _target_files(fn: Any, name: str) -> set[str]:
    """The source files the target's own code lives in (its module's file, its function's, its class's)."""
    files: set[str] = set()
    for obj in (fn, getattr(fn, "__func__", None), getattr(fn, "forward", None), type(fn)):
        if obj is None:
            continue
        try:
            files.add(str(Path(inspect.getfile(obj)).resolve()))
        except (TypeError, OSError):
            pass
        module = sys.modules.get(getattr(obj, "__module__", "") or "")
        if getattr(module, "__file__", None):
            files.add(str(Path(module.__file__).resolve()))  # type: ignore[union-attr, arg-type]
    head, sep, _ = name.rpartition(":")
    if sep and head.endswith(".py"):
        files.add(str(Path(head).resolve()))
    return {f for f in files if not f.startswith(str(Path(__file__).resolve().parent))}


def describe_exception(exc: BaseException, fn: Any = None, name: str = "") -> str:
    """``Type: text (at file:line in function: `source`)`` -- the exception a target raised, for a finding.

    The text is never empty (``(no message)`` for a bare ``assert``), and the frame is the last
    one in the target's own file (else the last one outside ropecheck and the libraries).

    Example:
        >>> describe_exception(AssertionError())
        'AssertionError (no message)'
    """
    text = str(exc).strip().splitlines()
    shown = " ".join(line.strip() for line in text[:3]) if text else ""
    if len(shown) > 400:  # long texts (TorchScript's) are cut at a word, never inside one
        shown = shown[:400].rsplit(" ", 1)[0] + " ..."
    out = f"{type(exc).__name__}: {shown}" if shown else f"{type(exc).__name__} (no message)"
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ is not None else []
    own = _target_files(fn, name) if fn is not None or name else set()
    pick = None
    for fr in frames:
        path = str(Path(fr.filename).resolve()) if fr.filename and not fr.filename.startswith("<") else fr.filename
        if path in own:
            pick = fr
    if pick is None:
        here = str(Path(__file__).resolve().parent)
        for fr in frames:
            path = fr.filename or ""
            if path.startswith("<") or path.startswith(here) or "site-packages" in path or "/lib/python" in path:
                continue
            pick = fr
    if pick is not None:
        where = f"{_short_path(pick.filename)}:{pick.lineno} in {pick.name}"
        out += f" (at {where}" + (f": `{pick.line.strip()}`)" if pick.line else ")")
    return out


def _short_path(filename: str) -> str:
    try:
        return str(Path(filename).resolve().relative_to(Path.cwd()))
    except ValueError:
        return filename


def round_to_dtype(x: np.ndarray, dtype: Any) -> np.ndarray:
    """``x`` rounded to ``dtype`` and promoted back to float64 (what the implementation sees)."""
    name = dtype_name(dtype)
    if name == "float64":
        return np.asarray(x, dtype=np.float64)
    if name in ("float32", "float16"):
        return np.asarray(x, dtype=np.float64).astype(name).astype(np.float64)
    torch = _torch()
    return torch.from_numpy(np.asarray(x, dtype=np.float64)).to(torch.bfloat16).double().numpy()


def is_out_of_memory(exc: BaseException) -> bool:
    """torch and numpy report a failed allocation as RuntimeError/ValueError text, not MemoryError."""
    text = str(exc).lower()
    return "can't allocate memory" in text or "out of memory" in text or "unable to allocate" in text


def _output_error(message: str) -> TargetError:
    """A TargetError about what the target returned (not about its call): ``output_problem`` is set."""
    err = TargetError(message)
    err.output_problem = True  # type: ignore[attr-defined]
    return err


def _jax_array(x64: np.ndarray, dtype: str) -> Any:
    """x64 as a jax array of ``dtype`` on jax's default (CPU) device; bfloat16 through ml_dtypes."""
    try:
        import jax.numpy as jnp  # optional: imported when used
    except ImportError as exc:
        raise UsageError("this target is a JAX function; install jax with `pip install 'ropecheck[jax]'`") from exc
    return jnp.asarray(np.asarray(x64, dtype=np.float64)).astype(getattr(jnp, dtype))


def _to_numpy64(value: Any) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value.astype(np.float64)
    if type(value).__module__.startswith("torch"):
        return value.detach().to("cpu").double().numpy()
    return np.asarray(value, dtype=np.float64)


@dataclass(frozen=True)
class Implementation:
    """A RoPE callable with its calling convention and backend.

    Args:
        fn: the callable under the canonical protocol.
        convention: ``"positions"``, ``"offset"`` or ``"none"`` (default: from the signature).
        backend: ``"torch"``, ``"numpy"`` or ``"auto"`` (torch tensors first; numpy arrays
            when the callable rejects tensors).
        name: for messages.

    Example:
        >>> impl = Implementation(lambda x, positions: x, convention="positions", backend="numpy")
        >>> impl.run(np.ones((1, 2, 1, 2)), np.array([[0, 1]]), dtype="float64").shape
        (1, 2, 1, 2)
    """

    fn: Callable[..., Any]
    convention: str = "positions"
    backend: str = "auto"
    name: str = "implementation"
    _resolved: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ raw calls

    @property
    def resolved_backend(self) -> str:
        """The backend in use: ``backend``, or for ``"auto"`` the one the first call settled on."""
        return self._resolved.get("backend", "torch" if self.backend == "auto" else self.backend)

    def _wrap(self, x64: np.ndarray, dtype: str, device: str) -> Any:
        if self.resolved_backend == "jax":
            return _jax_array(x64, dtype)
        if self.resolved_backend == "numpy":
            if dtype == "bfloat16":
                raise UsageError("numpy has no bfloat16; use a torch implementation or another dtype")
            return np.asarray(x64, dtype=dtype)
        torch = _torch()
        return torch.tensor(np.asarray(x64, dtype=np.float64), device=device).to(getattr(torch, dtype))

    def _positions(self, positions: np.ndarray, device: str) -> Any:
        if self.resolved_backend == "jax":  # int32: jax's default integer (int64 needs jax_enable_x64)
            import jax.numpy as jnp  # optional: imported when used

            return jnp.asarray(np.asarray(positions, dtype=np.int32))
        if self.resolved_backend == "numpy":
            return np.asarray(positions, dtype=np.int64)
        torch = _torch()
        return torch.tensor(np.asarray(positions, dtype=np.int64), device=device)

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
                self._resolved["backend"] = "torch"
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
        xin = self._wrap(x, dtype, device)
        try:
            if positions is not None:
                out = self.fn(xin, self._positions(positions, device))
            elif offset is not None:
                out = self.fn(xin, int(offset))
            else:
                out = self.fn(xin)
        except MemoryError:
            raise  # the whole verdict's problem: a supervisor reports it as the target running out of memory
        except Exception as exc:  # the target's own failure is a finding, not our crash
            if is_out_of_memory(exc):
                raise MemoryError(f"{self.name} ran out of memory: {exc}") from exc
            raise TargetError(f"{self.name} raised {describe_exception(exc, self.fn, self.name)}") from exc
        if (
            self._resolved.get("backend") == "numpy"
            and self.backend == "auto"
            and type(out).__module__.startswith("jax")
        ):
            self._resolved["backend"] = "jax"  # a JAX function takes numpy arrays and returns jax arrays
        if out is None or tuple(getattr(out, "shape", ())) != tuple(x.shape):
            raise _output_error(
                f"{self.name} returned shape {tuple(getattr(out, 'shape', ()))}, expected x's shape {tuple(x.shape)}"
            )
        try:
            return _to_numpy64(out)
        except Exception as exc:  # something shaped like x that is not a tensor or an array of numbers
            raise _output_error(
                f"{self.name} returned a {type(out).__name__} that is not a tensor of numbers: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

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
        return Implementation(fn.fn, convention or fn.convention, backend or fn.backend, name or fn.name)
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
        p = _to_numpy64(positions).astype(np.int64)[..., None]  # broadcast over heads
        if isinstance(x, np.ndarray):
            return apply_rope(x.astype(np.float64), p, spec, form=form).astype(x.dtype)  # type: ignore[arg-type]
        torch = _torch()
        y = apply_rope(_to_numpy64(x), p, spec, form=form)  # type: ignore[arg-type]
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
