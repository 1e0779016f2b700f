"""What runs in the target's process: calling the target, and nothing else.

The verifier never judges inside the process that imported the target. A *host* holds the
target's callables and answers a small set of requests, each a call of the target whose
raw result comes back as data:

* ``call`` -- one native call ``fn(x, positions)`` / ``fn(x, offset)`` / ``fn(x)``; the output as
  float64 values (lossless for every float dtype a target returns) and the module of its type;
* ``interface`` -- the same call with the raw facts the interface check reads: the output's type,
  shape, dtype and device, whether it *is* x, and x and the positions as they are after the call;
* ``vjp`` -- one forward with autograd (torch) or ``jax.vjp``: the output, the gradient and the
  double backward (the gradient of ``<grad, x>`` with respect to g);
* ``derive`` -- a new callable beside the target: ``torch.compile`` of it, its multi-axis
  view (a ``(batch, seq)`` position given on every axis), its output gathered into the spec's order
  (a declared ``output_layout``), or one side of a q/k target (:mod:`ropecheck.qk`);
* ``qk_layout`` -- how a q/k target lays out q and k, found by probing;
* ``device`` -- whether CUDA is available there.

Every exception of the target's becomes a reply (``raised`` with the type, text and the line of
the target's own code; ``memory`` for a failed allocation) -- never an exception out of here.
:class:`LocalHost` answers in this process (the library API, the Hypothesis properties);
:class:`ropecheck.isolate.TargetProcess` answers from a child process, and the replies cross
:mod:`ropecheck.wire` as data. A target that patches numpy, torch or ropecheck in its process
changes only what it answers -- which is what is judged.

Design constraints: torch and jax imported only when a request needs them; requests and
replies hold only JSON data and numpy arrays (:data:`ropecheck.wire.DTYPES`); the judging side
re-checks every reply (shapes, dtypes) and never trusts a verdict from here.
"""

from __future__ import annotations

import inspect
import itertools
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .errors import UsageError
from .tolerance import dtype_name

__all__ = [
    "Host",
    "LocalHost",
    "ProcessHost",
    "TargetHost",
    "describe_exception",
    "detect_convention",
    "is_out_of_memory",
    "target_meta",
    "to_numpy64",
]


# --------------------------------------------------------------------------- reading a target


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


def target_meta(fn: Callable[..., Any], name: str | None = None) -> dict[str, Any]:
    """What the judge needs to know of a callable: its declared/read convention, backend and label."""
    if not callable(fn):
        raise UsageError(f"the implementation must be callable, got {type(fn).__name__}")
    declared = getattr(fn, "rope_convention", None)
    label = name or getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return {
        "declared_convention": declared if isinstance(declared, str) else None,
        "convention": detect_convention(fn),
        "backend": str(getattr(fn, "rope_backend", None) or "auto"),
        "label": str(label),
        "qk": _qk_kind(fn),
    }


def _qk_kind(fn: Callable[..., Any]) -> str | None:
    from .qk import pair_kind

    return pair_kind(fn)


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


def is_out_of_memory(exc: BaseException) -> bool:
    """torch and numpy report a failed allocation as RuntimeError/ValueError text, not MemoryError."""
    text = str(exc).lower()
    return "can't allocate memory" in text or "out of memory" in text or "unable to allocate" in text


def to_numpy64(value: Any) -> np.ndarray:
    """A tensor or array (torch, numpy, jax) as a float64 numpy array on the CPU."""
    if isinstance(value, np.ndarray):
        return value.astype(np.float64)
    if type(value).__module__.startswith("torch"):
        return value.detach().to("cpu").double().numpy()
    return np.asarray(value, dtype=np.float64)


# --------------------------------------------------------------------------- native values


def _wrap(x64: np.ndarray, dtype: str, device: str, backend: str) -> Any:
    if backend == "jax":
        try:
            import jax.numpy as jnp  # optional: imported when used
        except ImportError as exc:
            raise UsageError("this target is a JAX function; install jax with `pip install 'ropecheck[jax]'`") from exc
        return jnp.asarray(np.asarray(x64, dtype=np.float64)).astype(getattr(jnp, dtype))
    if backend == "numpy":
        if dtype == "bfloat16":
            raise UsageError("numpy has no bfloat16; use a torch implementation or another dtype")
        return np.asarray(x64, dtype=dtype)
    torch = _torch()
    return torch.tensor(np.asarray(x64, dtype=np.float64), device=device).to(getattr(torch, dtype))


def _positions(positions: np.ndarray, device: str, backend: str) -> Any:
    if backend == "jax":  # int32: jax's default integer (int64 needs jax_enable_x64)
        import jax.numpy as jnp  # optional: imported when used

        return jnp.asarray(np.asarray(positions, dtype=np.int32))
    if backend == "numpy":
        return np.asarray(positions, dtype=np.int64)
    return _torch().tensor(np.asarray(positions, dtype=np.int64), device=device)


def _arguments(request: dict[str, Any]) -> tuple[Any, tuple[Any, ...]]:
    """The native x and the position argument(s) a request describes."""
    backend, device = request["backend"], request["device"]
    xin = _wrap(request["x"], dtype_name(request["dtype"]), device, backend)
    if request.get("positions") is not None:
        return xin, (_positions(request["positions"], device, backend),)
    if request.get("offset") is not None:
        return xin, (int(request["offset"]),)
    return xin, ()


def _raised(exc: BaseException, fn: Any, name: str) -> dict[str, Any]:
    if isinstance(exc, MemoryError) or is_out_of_memory(exc):
        return {"status": "memory", "error": f"{type(exc).__name__}: {exc}"}
    return {"status": "raised", "error": describe_exception(exc, fn, name), "type": type(exc).__name__}


# --------------------------------------------------------------------------- the requests


def _invoke(fn: Any, name: str, request: dict[str, Any]) -> tuple[Any, tuple[Any, ...], Any] | dict[str, Any]:
    """The target called on the request's values: (x, the position argument(s), the output), or the reply
    that says why there is none (a usage error, or the target's own exception as data)."""
    try:
        xin, args = _arguments(request)
    except UsageError as exc:
        return {"status": "usage", "error": str(exc)}
    try:
        return xin, args, fn(xin, *args)
    except Exception as exc:  # the target's own failure is a finding, never our crash
        return _raised(exc, fn, name)


def _call(fn: Any, name: str, request: dict[str, Any]) -> dict[str, Any]:
    shape = tuple(request["x"].shape)
    called = _invoke(fn, name, request)
    if isinstance(called, dict):
        return called
    _, _, out = called
    module = type(out).__module__
    got = tuple(getattr(out, "shape", ()))
    if out is None or got != shape:
        return {"status": "bad_output", "error": f"returned shape {got}, expected x's shape {shape}"}
    try:
        values = to_numpy64(out)
    except Exception as exc:  # something shaped like x that is not a tensor or an array of numbers
        return {
            "status": "bad_output",
            "error": f"returned a {type(out).__name__} that is not a tensor of numbers: {type(exc).__name__}: {exc}",
        }
    return {"status": "ok", "out": values, "module": module}


def _interface(fn: Any, name: str, request: dict[str, Any]) -> dict[str, Any]:
    called = _invoke(fn, name, request)
    if isinstance(called, dict):
        return called
    xin, args, out = called
    facts: dict[str, Any] = {
        "status": "ok",
        "type": type(out).__name__,
        "module": type(out).__module__,
        "in_module": type(xin).__module__,
        "in_shape": list(xin.shape),
        "in_dtype": str(xin.dtype).replace("torch.", ""),
        "in_device": str(getattr(xin, "device", "cpu")),
        "is_x": out is xin,
        "x_after": to_numpy64(xin),
        "positions_after": None,
    }
    if args and hasattr(args[0], "shape"):
        facts["positions_after"] = np.asarray(to_numpy64(args[0]), dtype=np.int64)
    if hasattr(out, "shape") and hasattr(out, "dtype"):
        facts.update(shape=[int(n) for n in out.shape], dtype=str(out.dtype).replace("torch.", ""))
        facts["device"] = str(getattr(out, "device", "cpu"))
        try:
            facts["out"] = to_numpy64(out)
        except Exception:  # not numbers (a meta tensor, strings): the shape and dtype say enough
            facts["out"] = None
    return facts


class _NoAutograd(Exception):
    """No autograd path for this call (the check is skipped with this reason)."""


def _vjp(fn: Any, name: str, request: dict[str, Any]) -> dict[str, Any]:
    backend = request["backend"]
    if backend == "numpy":
        return {"status": "no_autograd", "why": "a numpy target has no autograd"}
    try:
        if backend == "jax":
            return _jax_vjp(fn, name, request)
        return _torch_vjp(fn, name, request)
    except _NoAutograd as exc:
        return {"status": "no_autograd", "why": str(exc)}


def _torch_vjp(fn: Any, name: str, request: dict[str, Any]) -> dict[str, Any]:
    torch = _torch()
    dtype, device = getattr(torch, dtype_name(request["dtype"])), request["device"]
    x, g = request["x"], request["g"]
    args: tuple[Any, ...] = ()
    if request.get("positions") is not None:
        args = (torch.tensor(request["positions"], device=device),)
    elif request.get("offset") is not None:
        args = (int(request["offset"]),)

    def forward() -> tuple[Any, Any]:
        leaf = torch.tensor(x, device=device).to(dtype).requires_grad_(True)
        try:
            out = fn(leaf.clone(), *args)  # an in-place target writes into a copy, not into the leaf
        except Exception as exc:  # a target that refuses inputs requiring grad has no autograd path
            raise _NoAutograd(f"the target raised when x requires grad: {describe_exception(exc, fn, name)}") from exc
        if not isinstance(out, torch.Tensor) or tuple(out.shape) != tuple(x.shape):
            raise _NoAutograd("the output under autograd is not a tensor of x's shape (the forward checks judge it)")
        if not out.requires_grad:
            raise _NoAutograd("the output carries no autograd graph (computed outside autograd, or detached)")
        return leaf, out

    # <out, g> differentiated, rather than grad_outputs=g: the same J^T g exactly (d<out, g>/d out is g,
    # with no rounding), and torch's check of grad_outputs' shape imports SymPy (half a second per verdict)
    leaf, out = forward()
    try:
        inner = (out * torch.tensor(g, device=device).to(dtype)).sum()
        (grad,) = torch.autograd.grad(inner, leaf, allow_unused=True)
    except Exception as exc:
        return {"status": "backward_raised", "error": f"the backward raised {describe_exception(exc, fn, name)}"}
    if grad is None:
        raise _NoAutograd("the output does not depend on x through autograd")
    reply: dict[str, Any] = {
        "status": "ok",
        "out": to_numpy64(out),
        "grad": to_numpy64(grad),
        "grad_dtype": str(grad.dtype).replace("torch.", ""),
        "double": None,
        "why": "",
    }
    # the double backward, on a fresh call: create_graph changes what some backends (compiled graphs) accept
    leaf, out = forward()
    gt = torch.tensor(g, device=device).to(dtype).requires_grad_(True)
    try:
        (grad2,) = torch.autograd.grad((out * gt).sum(), leaf, create_graph=True, allow_unused=True)
        if grad2 is None or not grad2.requires_grad:
            return reply | {"why": "the backward is not differentiable (no double backward claimed)"}
        (dd,) = torch.autograd.grad((grad2 * leaf.detach()).sum(), gt, allow_unused=True)
    except RuntimeError as exc:
        text = str(exc)
        if any(k in text for k in ("double backward", "once_differentiable", "create_graph")):
            return reply | {"why": f"the target does not support double backward ({text.splitlines()[0]})"}
        return {"status": "backward_raised", "error": f"the double backward raised {describe_exception(exc, fn, name)}"}
    if dd is None:
        why = "no double backward: the gradient does not depend on g through autograd (once_differentiable, or a "
        return reply | {"why": why + "detached backward)"}
    return reply | {"double": to_numpy64(dd)}


def _jax_vjp(fn: Any, name: str, request: dict[str, Any]) -> dict[str, Any]:
    import jax  # optional: imported when used
    import jax.numpy as jnp

    jdt = getattr(jnp, dtype_name(request["dtype"]))
    xj = jnp.asarray(request["x"]).astype(jdt)
    gj = jnp.asarray(request["g"]).astype(jdt)
    args: tuple[Any, ...] = ()
    if request.get("positions") is not None:
        args = (jnp.asarray(request["positions"].astype(np.int32)),)
    elif request.get("offset") is not None:
        args = (int(request["offset"]),)
    try:
        out, pullback = jax.vjp(lambda v: fn(v, *args), xj)
    except Exception as exc:
        why = f"the target cannot be differentiated by jax.vjp: {describe_exception(exc, fn, name)}"
        raise _NoAutograd(why) from exc
    try:
        (grad,) = pullback(gj)
    except Exception as exc:
        return {"status": "backward_raised", "error": f"the backward raised {describe_exception(exc, fn, name)}"}
    reply: dict[str, Any] = {
        "status": "ok",
        "out": np.asarray(out, np.float64),
        "grad": np.asarray(grad, np.float64),
        "grad_dtype": str(grad.dtype),
        "double": None,
        "why": "",
    }
    try:
        _, pull2 = jax.vjp(lambda gg: pullback(gg)[0], gj)
        (dd,) = pull2(xj)
    except Exception as exc:
        return reply | {"why": f"the target does not support double backward ({type(exc).__name__})"}
    return reply | {"double": np.asarray(dd, np.float64)}


def _axes_view(fn: Any, axes: int) -> Callable[..., Any]:
    """The target as a 1-D RoPE: ``(batch, seq)`` positions given on every one of ``axes`` axes."""

    def one_position(x: Any, positions: Any) -> Any:
        if isinstance(positions, np.ndarray):  # a numpy target
            return fn(x, np.ascontiguousarray(np.broadcast_to(positions, (axes, *positions.shape))))
        return fn(x, positions.unsqueeze(0).expand(axes, *positions.shape).contiguous())

    return one_position


def _reordered_view(fn: Any, order: list[int]) -> Callable[..., Any]:
    """The target with its output's last dim gathered back into the spec's order (a declared ``output_layout``):
    dim ``j`` of the view is dim ``order[j]`` of the target's output. Only routing: the arithmetic stays the
    target's, and autograd sees an index, so the backward is the target's too."""
    index: list[Any] = []

    def in_spec_order(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        if not hasattr(out, "shape") or not out.shape or out.shape[-1] != len(order):
            return out  # the interface check says what is wrong with it
        if not type(out).__module__.startswith("torch"):
            return out[..., order]  # numpy, jax
        if not index or index[0].device != out.device:
            index[:] = [_torch().as_tensor(order, device=out.device)]
        return out.index_select(-1, index[0])

    return in_spec_order


def _qk_layout(fn: Any, name: str, request: dict[str, Any]) -> dict[str, Any]:
    """How a q/k target lays out q and k (:func:`ropecheck.qk.probe_layout`), or why that cannot be told."""
    from .qk import probe_layout, qk_kind

    kind = qk_kind(fn)
    if kind is None or kind == "cos_sin":
        return {"status": "usage", "error": "the target does not take and return q and k"}
    try:
        return {"status": "ok", "qk": kind, "layout": probe_layout(fn, kind, int(request["head_dim"]))}
    except UsageError as exc:
        return {"status": "usage", "error": str(exc)}
    except Exception as exc:
        return _raised(exc, fn, name)


def _compiled(fn: Any, backend: str) -> Callable[..., Any]:
    """``torch.compile(fn)`` with dynamo's recompile limit raised (so no call silently runs eagerly)."""
    import torch  # heavy: imported when used
    import torch._dynamo

    cfg = torch._dynamo.config
    limit_name = "recompile_limit" if hasattr(cfg, "recompile_limit") else "cache_size_limit"
    # dynamo's default limit (8) would let later calls -- other dtypes and shapes -- run eagerly, unjudged
    setattr(cfg, limit_name, max(getattr(cfg, limit_name), 256))
    return torch.compile(fn, backend=backend, dynamic=None)  # type: ignore[no-any-return]


def _device() -> dict[str, Any]:
    """Whether CUDA can be used here, and where it cannot although a GPU is present, why."""
    try:
        torch = _torch()
    except UsageError:
        return {"status": "ok", "cuda": False, "reason": "torch is not installed where the target runs"}
    bad_fork = getattr(torch.cuda, "_is_in_bad_fork", lambda: False)
    if bad_fork():  # this process was forked from one that had initialised CUDA: CUDA cannot start here
        return {"status": "ok", "cuda": False, "reason": _BAD_FORK}
    return {"status": "ok", "cuda": bool(torch.cuda.is_available())}


_BAD_FORK = (
    "the process that started verification had initialised CUDA before the target's process was forked from it, "
    "and CUDA cannot be used in a forked process: verify before that process touches CUDA, or run "
    "`ropecheck verify` (or the test) in a process of its own"
)


class TargetHost:
    """The target's callables (the target itself is key 0) and the requests that call them."""

    def __init__(self, fn: Callable[..., Any], name: str) -> None:
        self.name = name
        self.fns: dict[int, Callable[..., Any]] = {0: fn}
        self._keys = itertools.count(1)

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reply to one request (``op`` and its fields); a target's exception is a reply."""
        op = request.get("op")
        if op == "device":
            return _device()
        fn = self.fns.get(int(request.get("key", 0)))
        if fn is None:
            return {"status": "usage", "error": f"no callable {request.get('key')!r}"}
        if op == "call":
            return _call(fn, self.name, request)
        if op == "interface":
            return _interface(fn, self.name, request)
        if op == "vjp":
            return _vjp(fn, self.name, request)
        if op == "derive":
            return self._derive(fn, request)
        if op == "qk_layout":
            return _qk_layout(fn, self.name, request)
        return {"status": "usage", "error": f"unknown request {op!r}"}

    def _derive(self, fn: Any, request: dict[str, Any]) -> dict[str, Any]:
        try:
            if request["kind"] == "axes":
                derived = _axes_view(fn, int(request["axes"]))
            elif request["kind"] == "qk":
                from .qk import side_view

                derived = side_view(fn, str(request["qk"]), str(request["layout"]), str(request["side"]))
            elif request["kind"] == "reorder":
                derived = _reordered_view(fn, [int(j) for j in request["order"]])
            elif request["kind"] == "compile":
                derived = _compiled(fn, str(request["backend"]))
            else:
                return {"status": "usage", "error": f"unknown derivation {request['kind']!r}"}
        except Exception as exc:
            return _raised(exc, fn, self.name)
        key = next(self._keys)
        self.fns[key] = derived
        return {"status": "ok", "key": key}


class Host:
    """Where a target's calls are answered: :class:`LocalHost` here, or a child process."""

    def request(self, op: str, key: int = 0, **fields: Any) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError


class LocalHost(Host):
    """Answers in this process (the library API and the property tests, where the caller chose to)."""

    def __init__(self, fn: Callable[..., Any], name: str = "implementation") -> None:
        self.target = TargetHost(fn, name)

    def request(self, op: str, key: int = 0, **fields: Any) -> dict[str, Any]:
        return self.target.answer({"op": op, "key": key, **fields})


class ProcessHost(Host):
    """Answers from the child process that holds the target (:class:`ropecheck.isolate.TargetProcess`).

    Every reply is checked to be a mapping with a status before it is used; anything else means the
    target wrote into the channel, and the process is ended as such (:class:`~ropecheck.isolate.ChildEnded`).
    """

    def __init__(self, process: Any) -> None:
        self.process = process

    def request(self, op: str, key: int = 0, **fields: Any) -> dict[str, Any]:
        reply = self.process.request({"op": op, "key": key, **fields})
        if not isinstance(reply, dict) or not isinstance(reply.get("status"), str):
            raise self.process.fail("channel", f"a reply to {op!r} that is not a message")
        status = reply["status"]
        if status == "internal":
            raise self.process.fail("channel", f"ropecheck's code in the target's process failed: {reply.get('error')}")
        if status == "exited":
            code = reply.get("code")
            raise self.process.fail("exited", str(reply.get("error")), code if isinstance(code, int) else None)
        if status == "ended":
            raise self.process.fail("raised", str(reply.get("error")))
        return reply
