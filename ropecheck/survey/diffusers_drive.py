"""Drive one rotary class of diffusers, built from its model's defaults and applied as its attention applies it.

Every diffusers rotary is built by a transformer model's ``__init__`` (``FluxPosEmbed(theta=10000,
axes_dim=axes_dims_rope)``): :func:`constructor_args` reads that call from the module's syntax tree
and evaluates its arguments over the model's own defaults (its ``__init__`` signature and the plain
assignments before the call), so the class is built as the model builds it; a class no model of its
module builds is built with its own defaults. The apply function is the module's: a module-level
``*apply_rot*`` function, one defined inside an attention processor (compiled from its source, in
the module's namespace), or diffusers' shared ``apply_rotary_emb`` with the keywords the module's
call passes (``sequence_dim``, ``use_real_unbind_dim``, ``use_real``).

Shapes of code, one driver each (:data:`SHAPES`):

* ``ids`` -- ``forward(ids)`` with one row of per-axis positions per token, ``(seq, axes)``
  (Flux, Flux 2, Bria, LongCat-Image, Ovis-Image, Krea 2, Z-Image's ``RopeEmbedder``): called with
  the positions asked for.
* ``grid`` -- ``forward(hidden_states)`` over a latent video ``(B, C, F, H, W)`` or image
  ``(B, C, H, W)``, positions ``arange`` along each axis of the patch grid (HunyuanVideo, Wan,
  SkyReels-V2, ChronoEdit, CogView4, GLM-Image, HunyuanImage, ...): called once on a grid that holds
  every position asked for, and the row of each token ``(t, h, w)`` (index ``(t * H + h) * W + w``,
  the order the patch embedding flattens the latents in) gathered.
* ``helper`` -- ``embeddings.get_1d_rotary_pos_embed`` with ``apply_rotary_emb``, each of its three
  forms (interleaved real, half-split real, complex): a 1-D RoPE.

The spec is read from the constructor's arguments: the per-axis dims (``axes_dim``, ``axes_dims``,
``rope_dim``; Wan's ``t_dim``/``h_dim``/``w_dim`` its ``__init__`` derives from the head), the base
(``theta``), and the pairing from the apply call (``use_real_unbind_dim=-2``: half-split; else
interleaved, diffusers' ``repeat_interleave_real``). Each axis owns a contiguous block of pairs with
its own table ``theta ** (-2j / dim_a)`` (``axial-split``); a 2-D class that splits one head in two
(``dim // 2`` per axis, half-split pairs) is ``axial-shared``.

A class whose calling convention none of these fits is :class:`~.drive.NotDriven` with its
``forward`` signature, never a pass.

Design constraints: runs in a worker (imports the class's module); torch and diffusers imported lazily.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from ..axes import axial
from ..errors import RopeCheckError
from ..spec import RopeSpec
from .discover import Family
from .drive import Driven, NotDriven, check_shape, maker
from .grid import GRID_SIDES, first, grid_rows

__all__ = ["GRID_SIDES", "SHAPES", "constructor_args", "diffusers_code_path", "prepare_diffusers", "shape_of"]

#: The driver shapes and what they take.
SHAPES: dict[str, str] = {
    "ids": "forward(ids): per-token position rows (seq, axes)",
    "grid": "forward(hidden_states): a latent grid, positions arange along each axis",
    "helper": "embeddings.get_1d_rotary_pos_embed + apply_rotary_emb: 1-D",
}
_DIM_KEYS = ("axes_dim", "axes_dims", "rope_dim", "rope_axes_dims")
_BASE_KEYS = ("theta", "rope_theta", "base", "max_period")
_NAMES = {1: ("x",), 2: ("h", "w"), 3: ("t", "h", "w"), 4: ("t", "h", "w", "l")}


@dataclass
class _Apply:
    """The module's apply function and how its attention calls it."""

    name: str
    fn: Callable[..., Any]
    star: bool  # f(q, *emb): cos and sin as two arguments
    keywords: dict[str, Any]

    def __call__(self, x: Any, emb: Any) -> Any:
        if self.star:
            return self.fn(x, *emb, **self.keywords)
        return self.fn(x, emb, **self.keywords)


def _module_tree(module: Any) -> ast.Module:
    return ast.parse(inspect.getsource(module))


def _call_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def constructor_args(module: Any, cls_name: str) -> tuple[dict[str, Any], str]:
    """The arguments a model of ``module`` builds ``cls_name`` with (its ``__init__`` defaults), and where from.

    The first class whose ``__init__`` calls ``cls_name(...)`` and whose arguments evaluate over its defaults and
    the plain assignments before the call; else ``({}, "the class's own defaults")``.
    """
    cls = getattr(module, cls_name)
    params = list(inspect.signature(cls).parameters)
    for node in _module_tree(module).body:
        if not isinstance(node, ast.ClassDef) or node.name == cls_name:
            continue
        init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        owner = getattr(module, node.name, None)
        if init is None or owner is None:
            continue
        calls = [c for c in ast.walk(init) if isinstance(c, ast.Call) and _call_name(c) == cls_name]
        if not calls:
            continue
        env = _defaults(owner)
        _run_assignments(init, module, env, calls[0].lineno)
        try:
            args = {params[i]: _eval(a, module, env) for i, a in enumerate(calls[0].args)}
            args.update({k.arg: _eval(k.value, module, env) for k in calls[0].keywords if k.arg})
        except Exception:
            continue
        return args, f"{node.name}'s defaults (`{ast.unparse(calls[0])}`)"
    return {}, "the class's own defaults (no model of its module builds it)"


def _defaults(owner: Any) -> dict[str, Any]:
    try:
        sig = inspect.signature(owner.__init__)
    except (TypeError, ValueError):
        return {}
    env = {k: p.default for k, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}
    env["self"] = SimpleNamespace(config=SimpleNamespace(**env))
    return env


def _eval(node: ast.expr, module: Any, env: dict[str, Any]) -> Any:
    return eval(compile(ast.Expression(node), "<model defaults>", "eval"), vars(module), env)


def _run_assignments(init: ast.FunctionDef, module: Any, env: dict[str, Any], before: int) -> None:
    """The plain ``name = expr`` assignments of ``init`` before line ``before``, over ``env`` (failures skipped)."""
    for stmt in init.body:
        if stmt.lineno >= before:
            break
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            try:
                value = _eval(stmt.value, module, env)
            except Exception:
                continue
            for t in stmt.targets:
                env[t.id] = value  # type: ignore[attr-defined]


def _forward(cls: Any) -> Any:
    return cls.forward if hasattr(cls, "forward") else cls.__call__


def shape_of(cls: Any) -> str:
    """The driver shape for a class's ``forward`` (``ids``, ``grid``), or ``""`` for none."""
    params = [p for p in inspect.signature(_forward(cls)).parameters.values() if p.name != "self"]
    required = [p.name for p in params if p.default is inspect.Parameter.empty]
    if required == ["ids"]:
        return "ids"
    if required == ["hidden_states"]:
        return "grid"
    return ""


def _applies(module: Any) -> list[_Apply]:
    """The module's apply functions, as its code calls them: module-level ones, ones defined inside an attention
    processor, then diffusers' shared ``apply_rotary_emb`` (each with the keywords of its first call)."""
    tree = _module_tree(module)
    sites: dict[str, ast.Call] = {}
    for c in ast.walk(tree):
        if isinstance(c, ast.Call) and "apply_rot" in _call_name(c) and _call_name(c) not in sites:
            sites[_call_name(c)] = c
    own = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in sites}
    nested = {
        n.name: n
        for top in tree.body
        if isinstance(top, ast.ClassDef)
        for n in ast.walk(top)
        if isinstance(n, ast.FunctionDef) and n.name in sites and n.name not in own
    }
    out = []
    for name, call in sites.items():
        star = any(isinstance(a, ast.Starred) for a in call.args)
        keywords = {}
        for k in call.keywords:
            if k.arg and isinstance(k.value, (ast.Constant, ast.UnaryOp)):
                keywords[k.arg] = ast.literal_eval(k.value)
        if name in own:
            fn = getattr(module, name)
        elif name in nested:
            scope = dict(vars(module))
            exec(compile(ast.Module([nested[name]], []), f"<{module.__name__}>", "exec"), scope)
            fn = scope[name]
        else:
            from diffusers.models import embeddings  # the shared function the module imports

            fn = getattr(embeddings, name, None)
            if fn is None:
                continue
        out.append(_Apply(name, fn, star, keywords))
    order = {"own": 0, "nested": 1}
    return sorted(out, key=lambda a: order.get("own" if a.name in own else "nested" if a.name in nested else "", 2))


def _dims(rope: Any, args: dict[str, Any]) -> tuple[list[int], str]:
    """The per-axis dims the constructor declares, and the argument it was read from."""
    for key in _DIM_KEYS:
        value = args.get(key, getattr(rope, key, None))
        if value is not None:
            return [int(v) for v in value], key
    head = args.get("attention_head_dim")
    if isinstance(head, int):  # Wan's family: h_dim = w_dim = 2 * (attention_head_dim // 6), t_dim the rest
        hw = 2 * (head // 6)
        return [head - 2 * hw, hw, hw], "attention_head_dim (h = w = 2 * (head // 6), t the rest, as its __init__ says)"
    return [], ""


def _base(rope: Any, args: dict[str, Any]) -> float:
    for key in _BASE_KEYS:
        value = args.get(key, getattr(rope, key, None))
        if isinstance(value, (int, float)):
            return float(value)
    return 10000.0


def _spec(rope: Any, args: dict[str, Any], layout: str) -> tuple[RopeSpec, str]:
    """The spec the constructor's arguments declare, and how it was read."""
    base = _base(rope, args)
    dims, key = _dims(rope, args)
    if dims:
        names = _NAMES.get(len(dims), tuple(f"a{i}" for i in range(len(dims))))
        d = sum(dims)
        axes = axial(d, "split", names=names, sections=tuple(x // 2 for x in dims))
        return RopeSpec(head_dim=d, base=base, layout=layout, axes=axes), f"per-axis dims {dims} from `{key}`"  # type: ignore[arg-type]
    dim = args.get("dim", getattr(rope, "dim", None))
    if isinstance(dim, int) and layout == "half":
        axes = axial(dim, "shared", names=("h", "w"))
        return RopeSpec(head_dim=dim, base=base, layout="half", axes=axes), f"`dim` {dim}, half per axis (h, w)"
    raise NotDriven("no per-axis dims among the constructor's arguments (axes_dim, rope_dim, ...)")


def prepare_diffusers(family: Family) -> list[Driven]:
    """One diffusers rotary (class or ``embeddings`` helper) ready to verify; :class:`NotDriven` with the reason."""
    try:
        module = importlib.import_module(family.module)
    except Exception as exc:  # the library's own import failed: the reason of the skip
        raise NotDriven(f"{type(exc).__name__}: {exc}") from exc
    if not family.rotary_classes:
        return _prepare_helper(module, family.apply_functions[0])
    cls_name = family.rotary_classes[0]
    cls = getattr(module, cls_name)
    shape = shape_of(cls)
    if not shape:
        sig = inspect.signature(_forward(cls))
        raise NotDriven(f"forward{sig}: none of the drivers ({', '.join(SHAPES)}) takes this calling convention")
    args, source = constructor_args(module, cls_name)
    try:
        rope = cls(**args)
    except Exception as exc:
        raise NotDriven(f"{cls_name} built with {source}: {type(exc).__name__}: {exc}") from exc
    errors: list[str] = []
    for apply in _applies(module):
        layout = "half" if apply.keywords.get("use_real_unbind_dim") == -2 else "interleaved"
        try:
            spec, read = _spec(rope, args, layout)
            driven = _drive(shape, rope, apply, spec, args)
        except NotDriven as exc:
            errors.append(str(exc))
            continue
        except RopeCheckError as exc:
            errors.append(f"the spec from the constructor's arguments: {exc}")
            continue
        except Exception as exc:
            errors.append(f"{cls_name} + {apply.name}: {type(exc).__name__}: {exc}")
            continue
        driven.rotary_class, driven.apply_function = cls_name, apply.name
        driven.notes = (f"shape `{shape}`: {SHAPES[shape]}", f"built with {source}", f"spec: {read}", *driven.notes)
        return [driven]
    raise NotDriven("; ".join(dict.fromkeys(errors)) or f"no apply function in {family.module} takes its output")


def _drive(shape: str, rope: Any, apply: _Apply, spec: RopeSpec, args: dict[str, Any]) -> Driven:
    import torch  # heavy: imported when used

    n = len(spec.axes.axes) if spec.axes else 1
    notes: list[str] = []
    max_position = None
    emb_for: Callable[[Any, Any, Any], Any]
    if shape == "ids":

        def ids_rows(module: Any, pos: Any, dtype: Any) -> Any:
            return module(pos.T.contiguous())  # (seq, axes), one row per token

        emb_for = ids_rows

        lens = args.get("axes_lens", getattr(rope, "axes_lens", None))
        if lens is not None:  # a table per axis of axes_lens rows: positions past it index nothing
            max_position = int(min(lens))
            notes.append(
                f"its per-axis tables hold axes_lens {list(lens)} positions: judged over 0..{max_position - 1}"
            )

    else:
        side = GRID_SIDES.get(n)
        if side is None:
            raise NotDriven(f"a {n}-axis grid: no grid size to drive it on")
        interp = args.get("rope_axes_dim")
        if interp is not None:  # the position interpolation h * rope_axes_dim[0] // height is the identity there
            side = int(max(interp))
            notes.append(
                f"driven on a {side}-patch grid per axis: its positions are interpolated onto rope_axes_dim "
                f"{list(interp)} (`idx * rope_axes_dim // size`), the identity at that size"
            )
        patch = _patch(args, n)

        def whole(module: Any, dtype: Any) -> Any:
            return module(torch.zeros(1, 1, *(side * p for p in patch), dtype=dtype))

        emb_for = grid_rows(whole, side, n)
        max_position = side
        notes.append(
            f"driven on a {'x'.join([str(side)] * n)} patch grid (patch size {list(patch)}); each token's row "
            f"gathered at (t * H + h) * W + w, the order the patch embedding flattens the latents"
        )
    layout, _, batched = _probe_layout(apply, emb_for, rope, n).partition("+")

    def run(module: Any, x: Any, positions: Any) -> Any:
        outs = []
        for b in range(x.shape[0]):
            emb = emb_for(module, positions[:, b, :], x.dtype)
            emb = _batched(emb) if batched else emb
            xb = x[b : b + 1] if layout == "bshd" else x[b : b + 1].transpose(1, 2)
            out = apply(xb, emb)
            outs.append(out if layout == "bshd" else out.transpose(1, 2))
        return torch.cat(outs).to(x.dtype)

    check_shape(run, rope, spec.head_dim, torch.arange(3).repeat(n, 1)[:, None, :], apply.name)
    if batched:
        notes.append(f"its output is given a leading batch dim, as the model stacks it per sample for {apply.name}")
    if layout == "bhsd":
        notes.append(f"{apply.name} takes q as (batch, heads, seq, head_dim), as the attention calls it")
    make = maker(run, rope, "axes", _cast)
    return Driven("", spec, make, "", "", tuple(notes), max_position=max_position)


def _patch(args: dict[str, Any], n: int) -> tuple[int, ...]:
    p = args.get("patch_size", 1)
    if isinstance(p, (tuple, list)):
        return tuple(int(v) for v in p)[-n:]
    pt = int(args.get("patch_size_t", 1) or 1)
    return (pt, int(p), int(p))[-n:] if n == 3 else (int(p),) * n


def _probe_layout(apply: _Apply, emb_for: Callable[..., Any], rope: Any, n: int) -> str:
    """``bshd`` or ``bhsd``: the q layout the apply function takes (3 tokens, 2 heads: a wrong one cannot broadcast)."""
    import torch  # heavy: imported when used

    pos = torch.arange(3).repeat(n, 1)
    emb = emb_for(rope, pos, torch.float32)
    errors = []
    d = first(emb).shape[-1] * (2 if torch.is_complex(first(emb)) else 1)
    for layout, x in (("bshd", torch.randn(1, 3, 2, d)), ("bhsd", torch.randn(1, 2, 3, d))):
        for batched in (False, True):
            try:
                if tuple(apply(x, _batched(emb) if batched else emb).shape) == tuple(x.shape):
                    return layout + ("+batch" if batched else "")
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
    raise NotDriven(f"{apply.name} takes no q layout with this output: {'; '.join(dict.fromkeys(errors))}")


def _batched(emb: Any) -> Any:
    """The output with a leading batch dim, as a model that stacks it per sample passes it."""
    if isinstance(emb, (tuple, list)):
        return type(emb)(e[None] for e in emb)
    return emb[None]


def _cast(module: Any, dtype: Any) -> Any:
    """``module.to(dtype)`` as ``model.to(dtype)`` casts it; a plain object (not a module) is not reached by it."""
    if hasattr(module, "to") and callable(module.to):
        return copy.deepcopy(module).to(dtype)
    return module


def _prepare_helper(module: Any, name: str) -> list[Driven]:
    """``embeddings.get_1d_rotary_pos_embed`` in its three forms, each with ``apply_rotary_emb`` as diffusers pairs
    them (``sequence_dim=2``, q as (batch, heads, seq, head_dim)); ``apply_rotary_emb`` alike with
    ``sequence_dim=1``. Other helpers build a grid or a cropped one: not driven."""
    import torch  # heavy: imported when used

    if name not in ("get_1d_rotary_pos_embed", "apply_rotary_emb"):
        sig = inspect.signature(getattr(module, name))
        raise NotDriven(f"{name}{sig}: a grid or cropped-grid helper, no driver for this calling convention")
    get, apply = module.get_1d_rotary_pos_embed, module.apply_rotary_emb
    seq_dim = 2 if name == "get_1d_rotary_pos_embed" else 1
    head_dim, theta = 128, 10000.0
    forms: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
        "interleaved": ({"use_real": True, "repeat_interleave_real": True}, {"use_real_unbind_dim": -1}),
        "half": ({"use_real": True, "repeat_interleave_real": False}, {"use_real_unbind_dim": -2}),
        "complex": ({"use_real": False}, {"use_real": False}),
    }
    out = []
    for form, (get_kw, apply_kw) in forms.items():

        def run(_: Any, x: Any, positions: Any, get_kw: Any = get_kw, apply_kw: Any = apply_kw) -> Any:
            outs = []
            for b in range(x.shape[0]):
                emb = get(head_dim, positions[b].float(), theta, **get_kw)
                if not apply_kw.get(
                    "use_real", True
                ):  # q as (batch, seq, heads, d), freqs (batch, seq, d / 2): Lumina's
                    outs.append(apply(x[b : b + 1], emb[None], **apply_kw))
                elif seq_dim == 1:
                    outs.append(apply(x[b : b + 1], emb, sequence_dim=1, **apply_kw))
                else:
                    outs.append(apply(x[b : b + 1].transpose(1, 2), emb, **apply_kw).transpose(1, 2))
            return torch.cat(outs).to(x.dtype)

        layout = "half" if form == "half" else "interleaved"
        spec = RopeSpec(head_dim=head_dim, base=theta, layout=layout)  # type: ignore[arg-type]
        make = maker(run, None, "positions", lambda m, dt: m)
        note = (
            f"{form}: get_1d_rotary_pos_embed({head_dim}, positions, {theta:g}, "
            f"{', '.join(f'{k}={v}' for k, v in get_kw.items())}) + apply_rotary_emb(..., "
            f"{', '.join(f'{k}={v}' for k, v in apply_kw.items())}{', sequence_dim=1' if seq_dim == 1 else ''})"
        )
        out.append(Driven(form, spec, make, "get_1d_rotary_pos_embed", "apply_rotary_emb", (note,)))
    return out


def diffusers_code_path(family: Family, driven: Driven) -> str:
    """A short hash of the source a diffusers verdict runs (the class and the apply function, or the helpers),
    docstrings and comments left out and the class name replaced: classes ``# Copied from`` one another share it."""
    module = importlib.import_module(family.module)
    parts = []
    for name in (driven.rotary_class, driven.apply_function):
        obj: Any = getattr(module, name, None)
        if obj is None:
            from diffusers.models import embeddings  # the shared function the module imports

            obj = getattr(embeddings, name, None)
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
        except (OSError, TypeError, SyntaxError):
            parts.append(name)
            continue
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
                if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
        parts.append(ast.unparse(tree).replace(driven.rotary_class, "X"))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:10]
