"""Drive one rotary class of diffusers, built from its model's defaults and applied as its attention applies it.

Every diffusers rotary is built by a transformer model's ``__init__`` (``FluxPosEmbed(theta=10000,
axes_dim=axes_dims_rope)``): :func:`constructor_args` reads that call from the module's syntax tree
and evaluates its arguments over the model's own defaults (its ``__init__`` signature and the plain
assignments before the call, an ``if x is None: x = ...`` default included), so the class is built as the
model builds it; a class no model of its module builds is built with its own defaults, or, with none, with
the arguments its module's model gives the class with the same constructor. A model default that the
class's code cannot run is a ``config/default_unrunnable`` finding, driven with the repair
:data:`~.diffusers_readings.REPAIRS` names. The apply function is the module's: a module-level
``*apply_rot*``/``apply_rope`` function, one defined inside an attention processor (compiled from its
source, in the module's namespace), or diffusers' shared ``apply_rotary_emb`` with the keywords the
module's call passes (``sequence_dim``, ``use_real_unbind_dim``, ``use_real``); a module that calls none
takes the one of the sibling module it imports its blocks from.

Shapes of code, one driver each (:data:`SHAPES`):

* ``ids`` -- ``forward(ids)`` with one row of per-axis positions per token, ``(seq, axes)``
  (Flux, Flux 2, Bria, LongCat-Image, Ovis-Image, Krea 2, Z-Image's ``RopeEmbedder``): called with
  the positions asked for.
* ``grid`` -- ``forward(hidden_states)`` over a latent video ``(B, C, F, H, W)`` or image
  ``(B, C, H, W)``, positions ``arange`` along each axis of the patch grid (HunyuanVideo, Wan,
  SkyReels-V2, ChronoEdit, CogView4, GLM-Image, HunyuanImage, ...): called once on a grid that holds
  every position asked for, and the row of each token ``(t, h, w)`` (index ``(t * H + h) * W + w``,
  the order the patch embedding flattens the latents in) gathered.
* ``helper`` -- the helpers of ``embeddings`` (:mod:`.diffusers_helpers`): ``get_1d_rotary_pos_embed`` with
  ``apply_rotary_emb`` in its three forms, and the 2-D/3-D grid helpers read as data.
* ``sizes`` -- ``forward(frame_indices, height, width, device)`` (Helios, HunyuanVideo-Framepack) or
  ``forward((f, h, w))`` (Sana-WM): the grid built by its sizes (frame indices ``arange``, as the model
  passes them), flattened to tokens as the model flattens it, and each token's row gathered as for ``grid``.
* ``axes`` -- ``forward(pos)``/``forward(shape, pos)`` with one index tensor per axis (Kandinsky 5's and 6's
  ``RoPE3D``; a model's per-axis ``scale_factor`` is left at forward's default 1 and said not judged);
  ``fhw`` -- ``forward(video_fhw, ...)`` (Qwen-Image, Nucleus-MoE; h and w centred where ``scale_rope``).
  Both gathered as for ``grid`` (:mod:`.diffusers_grid` calls every grid shape).
* ``positions`` -- a 1-D rotary called with each token's position: ``forward(hidden_states,
  position_ids)`` (Anima) or ``forward(pos)`` indexing a table (Kandinsky 5/6 ``RoPE1D``).
* ``length`` -- a 1-D rotary called with a sequence length (``seq_len``, ``max_seq_len``; LongCat-Audio,
  MiniMax Music 3): the table of positions ``0..n-1``, each token's row gathered.

A class one model builds and calls its own way has a driver of its own (:data:`~.diffusers_dedicated.DEDICATED`:
Kolors' ChatGLM text rotary, Lumina 2's and Qwen-Image 2.1's mask-built positions, AnyFlow's layout-built grids;
and the classes that turn by fractional positions, :mod:`.diffusers_fractional`: LTX-Video, LTX 2, Sana-WM's
refiner, MiniMax H3's video decoder), tried before the shapes.

MiniMax H3's ``forward(position_ids)`` takes ``(seq, 3)`` rows like ``ids``; its ``rope_freq_dim``
frequencies form one table shared by the (t, h, w) blocks its forward unbinds and concatenates, rotating
part of the model's head. A 1-D class's spec is its ``rotary_dim``/``head_dim``/``dim`` and base, its
pairing read from both sources (the table's ``cat((f, f))`` with a ``rotate_half`` apply: half-split;
``repeat_interleave(2)`` or 2x2 blocks with an apply pairing adjacent dims: interleaved); anything else
is not driven.

The spec is read from the constructor's arguments: the per-axis dims (``axes_dim``, ``axes_dims``,
``rope_dim``; Wan's ``t_dim``/``h_dim``/``w_dim`` its ``__init__`` derives from the head), the base
(``theta``), and the pairing from the apply call (``use_real_unbind_dim=-2``: half-split; else
interleaved, diffusers' ``repeat_interleave_real``). Each axis owns a contiguous block of pairs with
its own table ``theta ** (-2j / dim_a)`` (``axial-split``); a 2-D class that splits one head in two
(``dim // 2`` per axis, half-split pairs) is ``axial-shared``. Dims and bases the code derives itself are
read through :data:`~.diffusers_readings.DERIVED_AXES` (Cosmos, EasyAnimate).

A class whose calling convention none of these fits is :class:`~.drive.NotDriven` with its
``forward`` signature (and why, where :data:`~.diffusers_readings.SKIP_REASONS` says), never a pass.

Design constraints: runs in a worker (imports the class's module); torch and diffusers imported lazily.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from ..axes import axial
from ..errors import RopeCheckError
from ..spec import RopeSpec
from .diffusers_dedicated import DEDICATED
from .diffusers_grid import GRID_SIDES, first, forward_of, grid_emb_for, select_rows, tokens_dim
from .diffusers_helpers import prepare_helper
from .diffusers_readings import DERIVED_AXES, REPAIRS, SKIP_REASONS
from .discover import Family
from .drive import DEFAULT_UNRUNNABLE, Driven, NotDriven, check_shape, maker, source_without_docstrings, with_finding

__all__ = ["GRID_SIDES", "SHAPES", "constructor_args", "diffusers_code_path", "prepare_diffusers", "shape_of"]

#: The driver shapes and what they take.
SHAPES: dict[str, str] = {
    "ids": "forward(ids): per-token position rows (seq, axes)",
    "grid": "forward(hidden_states): a latent grid, positions arange along each axis",
    "helper": "embeddings.get_1d_rotary_pos_embed + apply_rotary_emb: 1-D",
    "positions": "forward(hidden_states, position_ids) or forward(pos): a 1-D position per token",
    "length": "forward(seq_len): a 1-D table of positions 0..seq_len-1, each token's row gathered",
    "sizes": "forward(frame_indices, height, width): a latent grid by its sizes, each token's row gathered",
    "axes": "forward(pos) or forward(shape, pos): one index tensor per axis, the grid they span flattened",
    "fhw": "forward(video_fhw, ...): a (frames, height, width) grid by its sizes, h and w centred where scale_rope",
}
#: The arguments a ``length`` class takes its sequence length by.
_LENGTH_PARAMS = ("seq_len", "max_seq_len")
#: The arguments a 1-D class declares its rotated dims by (``rotary_dim``: part of the model's head).
_ROTARY_KEYS = ("rotary_dim", "head_dim", "dim")
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
    source: str = ""  # the function's source, as the module defines it
    nargs: int = 2  # the positional arguments of its call: 3 is f(q, cos, sin)
    origin: str = ""  # the module whose attention calls it

    def __call__(self, x: Any, emb: Any) -> Any:
        if self.star or (self.nargs >= 3 and isinstance(emb, (tuple, list))):
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
    args, source, _ = _construction(module, cls_name)
    return args, source


def _construction(module: Any, cls_name: str) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """:func:`constructor_args` and the model's defaults it evaluated them over (``{}`` for the class's own).

    A class no model builds and whose own defaults cannot build it takes the arguments a model gives a class of
    the same module with the same constructor (BriaPosEmbed and the BriaEmbedND its model builds: both
    ``(theta, axes_dim)``), said on its row."""
    built = _built_by_model(module, cls_name)
    if built is not None:
        return built
    cls = getattr(module, cls_name)
    required = [p for p in inspect.signature(cls).parameters.values() if p.default is inspect.Parameter.empty]
    if required:
        for twin in _same_constructor(module, cls_name):
            found = _built_by_model(module, twin)
            if found is not None:
                args, source, env = found
                return args, f"the arguments of {twin}, its module's class with the same constructor: {source}", env
    return {}, "the class's own defaults (no model of its module builds it)", {}


def _same_constructor(module: Any, cls_name: str) -> list[str]:
    """The other classes of ``module`` whose constructor takes the same parameters as ``cls_name``'s."""
    want = list(inspect.signature(getattr(module, cls_name)).parameters)
    out = []
    for name, obj in sorted(vars(module).items()):
        if name != cls_name and inspect.isclass(obj) and obj.__module__ == module.__name__:
            try:
                if list(inspect.signature(obj).parameters) == want:
                    out.append(name)
            except (TypeError, ValueError):
                continue
    return out


def _built_by_model(module: Any, cls_name: str) -> tuple[dict[str, Any], str, dict[str, Any]] | None:
    """The arguments the first model of ``module`` builds ``cls_name`` with, evaluated over its defaults."""
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
        return args, f"{node.name}'s defaults (`{ast.unparse(calls[0])}`)", env
    return None


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


def _run_assignments(init: Any, module: Any, env: dict[str, Any], before: int) -> None:
    """The plain ``name = expr`` assignments of ``init`` before line ``before``, over ``env`` (failures skipped),
    and those of an ``if`` whose test evaluates (``if axes_dim is None: axes_dim = [32, 32]``: a default filled in)."""
    for stmt in init.body:
        if stmt.lineno >= before:
            break
        if isinstance(stmt, ast.If):
            try:
                taken = bool(_eval(stmt.test, module, env))
            except Exception:
                continue
            _run_assignments(stmt if taken else ast.Module(stmt.orelse, []), module, env, before)
        elif isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            try:
                value = _eval(stmt.value, module, env)
            except Exception:
                continue
            for t in stmt.targets:
                env[t.id] = value  # type: ignore[attr-defined]


_APPLY = re.compile(r"apply_(\w+_)?ro(t|pe)")


def shape_of(cls: Any) -> str:
    """The driver shape for a class's ``forward`` (``ids``, ``grid``), or ``""`` for none."""
    params = [p for p in inspect.signature(forward_of(cls)).parameters.values() if p.name != "self"]
    required = [p.name for p in params if p.default is inspect.Parameter.empty]
    if required == ["ids"] or (required == ["position_ids"] and "rope_freq_dim" in inspect.signature(cls).parameters):
        return "ids"
    if {"frame_indices", "height", "width"} <= set(required) or required == ["fhw"]:
        return "sizes"
    if any(p.name in _LENGTH_PARAMS for p in params):
        return "length"
    one_axis = "axes_dims" not in inspect.signature(cls).parameters  # forward(pos) of a 3-D class takes a tuple
    if required == ["hidden_states", "position_ids"] or (required == ["pos"] and one_axis):
        return "positions"
    if required == ["hidden_states"]:
        return "grid"
    if required in (["pos"], ["shape", "pos"]):  # a 3-D class's tuple of per-axis indices (Kandinsky's)
        return "axes"
    if required[:1] == ["video_fhw"]:
        return "fhw"
    return ""


def _applies(module: Any, follow: bool = True) -> list[_Apply]:
    """The module's apply functions, as its code calls them: module-level ones, ones defined inside an attention
    processor, then diffusers' shared ``apply_rotary_emb`` (each with the keywords of its first call). A module
    that calls none takes its attention from a sibling it imports (HunyuanVideo-Framepack's blocks are
    HunyuanVideo's): that sibling's, when ``follow``."""
    tree = _module_tree(module)
    sites: dict[str, ast.Call] = {}
    for c in ast.walk(tree):
        if isinstance(c, ast.Call) and _APPLY.search(_call_name(c)) and _call_name(c) not in sites:
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
            fn, source = getattr(module, name), ast.unparse(own[name])
        elif name in nested:
            scope = dict(vars(module))
            exec(compile(ast.Module([nested[name]], []), f"<{module.__name__}>", "exec"), scope)
            fn, source = scope[name], ast.unparse(nested[name])
        else:
            from diffusers.models import embeddings  # the shared function the module imports

            fn = getattr(embeddings, name, None)
            if fn is None:
                continue
            source = inspect.getsource(fn)
        out.append(_Apply(name, fn, star, keywords, source, len(call.args), module.__name__))
    order = {"own": 0, "nested": 1}
    out.sort(key=lambda a: order.get("own" if a.name in own else "nested" if a.name in nested else "", 2))
    if not out and follow:
        for sibling in _sibling_imports(module, tree):
            out += _applies(sibling, follow=False)
    return out


def _origin(apply: _Apply, module: Any) -> tuple[str, ...]:
    """A note when the apply function is a sibling module's (its attention blocks imported from there)."""
    if not apply.origin or apply.origin == module.__name__:
        return ()
    return (f"{apply.name} called as {apply.origin}'s attention calls it: this module imports its blocks from there",)


def _sibling_imports(module: Any, tree: ast.Module) -> list[Any]:
    """The modules of the same package that ``module`` imports names from (``from .transformer_x import ...``)."""
    out = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            try:
                out.append(importlib.import_module(f".{node.module}", module.__package__))
            except ImportError:
                continue
    return out


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


def _derived_spec(rope: Any, layout: str) -> tuple[RopeSpec, str] | None:
    """The spec of a :data:`DERIVED_AXES` class, from its built module; None for another class."""
    reading = DERIVED_AXES.get(type(rope).__name__)
    if reading is None:
        return None
    dims = [int(d) for d in reading.dims(rope)]
    bases = reading.bases(rope)
    names = _NAMES[len(dims)]
    axes = axial(sum(dims), "split", names=names, sections=tuple(x // 2 for x in dims), bases=bases)
    spec = RopeSpec(head_dim=sum(dims), base=bases[0], layout=layout, axes=axes)  # type: ignore[arg-type]
    words = ", ".join(f"{n}: {d} dims, base {b:.6g}" for n, d, b in zip(names, dims, bases))
    return spec, f"per-axis dims and bases its code derives ({words}), read from {reading.source}"


def _spec(rope: Any, args: dict[str, Any], layout: str) -> tuple[RopeSpec, str]:
    """The spec the constructor's arguments declare, and how it was read."""
    derived = _derived_spec(rope, layout)
    if derived is not None:
        return derived
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


#: A forward that splits its angles into the three axes' blocks, in this order.
_UNBIND_THW = re.compile(r"freqs_t,\s*freqs_h,\s*freqs_w\s*=\s*freqs\.unbind\(")


def _spec_per_axis_table(cls: Any, args: dict[str, Any], env: dict[str, Any], layout: str) -> tuple[RopeSpec, str]:
    """``rope_freq_dim`` frequencies per axis from one table over ``2 * rope_freq_dim`` dims, the forward's
    (t, h, w) blocks concatenated (MiniMax H3): axial-split, each axis ``rope_freq_dim`` pairs, rotating the
    leading ``6 * rope_freq_dim`` dims of the model's ``attention_head_dim``."""
    if not _UNBIND_THW.search(inspect.getsource(cls)):
        raise NotDriven("`rope_freq_dim` without a forward that unbinds (t, h, w) blocks: the axes are not read")
    f = int(args["rope_freq_dim"])
    base = _base(None, args)
    head = env.get("attention_head_dim")
    if not isinstance(head, int):
        raise NotDriven("a partial rotary (`rope_freq_dim`) whose model declares no attention_head_dim")
    axes = axial(6 * f, "split", names=("t", "h", "w"), sections=(f, f, f))
    spec = RopeSpec(head_dim=head, rotary_dim=6 * f, base=base, layout=layout, axes=axes)  # type: ignore[arg-type]
    return spec, (
        f"`rope_freq_dim` {f} pairs per axis (t, h, w), one table over {2 * f} dims, {layout} pairs over the "
        f"leading {6 * f} dims of the model's {head}-dim head (the rest pass through)"
    )


def prepare_diffusers(family: Family) -> list[Driven]:
    """One diffusers rotary (class or ``embeddings`` helper) ready to verify; :class:`NotDriven` with the reason
    (and, for a class :data:`SKIP_REASONS` names, why it cannot be judged, read from its source).

    A class whose model's default arguments its code cannot run and that :data:`REPAIRS` names is driven with
    the repair, and the default is a ``config/default_unrunnable`` finding of its row (as for transformers)."""
    try:
        module = importlib.import_module(family.module)
    except Exception as exc:  # the library's own import failed: the reason of the skip
        raise NotDriven(f"{type(exc).__name__}: {exc}") from exc
    if not family.rotary_classes:
        return prepare_helper(module, family.apply_functions[0])
    dedicated = DEDICATED.get((family.module, family.rotary_classes[0]))
    if dedicated is not None:
        return dedicated(module, constructor_args(module, family.rotary_classes[0]))
    try:
        return _prepare_named(module, family.rotary_classes[0])
    except NotDriven as exc:
        why = SKIP_REASONS.get(family.rotary_classes[0])
        if why is None:
            raise
        raise NotDriven(f"{exc}; {why}") from exc


def _prepare_named(module: Any, cls_name: str) -> list[Driven]:
    """The class ``cls_name`` of ``module`` built as its model builds it (repaired where :data:`REPAIRS` says)."""
    cls = getattr(module, cls_name)
    shape = shape_of(cls)
    if not shape:
        sig = inspect.signature(forward_of(cls))
        raise NotDriven(f"forward{sig}: none of the drivers ({', '.join(SHAPES)}) takes this calling convention")
    args, source, env = _construction(module, cls_name)
    try:
        return [_prepare_class(module, cls, shape, args, env, source)]
    except NotDriven as exc:
        if cls_name not in REPAIRS:
            raise
        what, changes = REPAIRS[cls_name]
        driven = _prepare_class(module, cls, shape, {**args, **changes}, env, source)
        message = f"the default arguments its model gives {cls_name} ({source}) cannot run it: {exc}"
        return with_finding([driven], DEFAULT_UNRUNNABLE, message, f"driven with the smallest repair: {what}")


def _prepare_class(module: Any, cls: Any, shape: str, args: dict[str, Any], env: dict[str, Any], source: str) -> Driven:
    """``cls`` built with ``args`` and driven by ``shape`` with the first apply function of its module that takes
    its output; :class:`NotDriven` with every reason when none does."""
    try:
        rope = cls(**args)
    except Exception as exc:
        raise NotDriven(f"{cls.__name__} built with {source}: {type(exc).__name__}: {exc}") from exc
    if shape in ("positions", "length"):
        return _prepare_1d(shape, cls, rope, args, env, module, source)[0]
    interpolation = _interpolation_note(cls, env)
    # a (batch, channels, t, h, w) output the model flattens to (batch, tokens, channels)
    flatten = shape == "sizes" and "rotary_emb.flatten(2).transpose(1, 2)" in inspect.getsource(module)
    errors: list[str] = []

    def attempt(apply: _Apply) -> tuple[Driven, str]:
        layout = "half" if apply.keywords.get("use_real_unbind_dim") == -2 else "interleaved"
        if "rope_freq_dim" in args:  # one table shared by (t, h, w), part of the model's head
            spec, read = _spec_per_axis_table(cls, args, env, _layout_1d(cls, apply))
        else:
            spec, read = _spec(rope, args, layout)
        return _drive(shape, rope, apply, spec, args, flatten), read

    tail = (interpolation,) if interpolation else ()
    driven = _first_driven(cls, module, _applies(module), attempt, (shape, source, tail), errors)
    if driven is not None:
        return driven
    raise NotDriven("; ".join(dict.fromkeys(errors)) or f"no apply function in {module.__name__} takes its output")


def _first_driven(
    cls: Any,
    module: Any,
    applies: list[_Apply],
    attempt: Callable[[_Apply], tuple[Driven, str]],
    words: tuple[str, str, tuple[str, ...]],
    errors: list[str],
) -> Driven | None:
    """The first apply function ``attempt`` drives the class with, its page notes written (``words``: the shape,
    how it was built, notes to put last); None when none does, each reason added to ``errors``."""
    shape, source, tail = words
    for apply in applies:
        try:
            driven, read = attempt(apply)
        except NotDriven as exc:
            errors.append(str(exc))
            continue
        except RopeCheckError as exc:
            errors.append(f"the spec from the constructor's arguments: {exc}")
            continue
        except Exception as exc:
            errors.append(f"{cls.__name__} + {apply.name}: {type(exc).__name__}: {exc}")
            continue
        driven.rotary_class, driven.apply_function = cls.__name__, apply.name
        driven.notes = (
            f"shape `{shape}`: {SHAPES[shape]}",
            f"built with {source}",
            f"spec: {read}",
            *_origin(apply, module),
            *driven.notes,
            *tail,
        )
        return driven
    return None


def _drive(shape: str, rope: Any, apply: _Apply, spec: RopeSpec, args: dict[str, Any], flatten: bool = False) -> Driven:
    import torch  # heavy: imported when used

    n = len(spec.axes.axes) if spec.axes else 1
    notes: list[str] = []
    if shape == "ids":
        emb_for, max_position = _ids_emb_for(rope, args, notes)
    else:
        emb_for, max_position = grid_emb_for(shape, rope, args, n, flatten, notes)
    layout, _, batched = _probe_layout(apply, emb_for, rope, n, spec.head_dim).partition("+")

    def run(module: Any, x: Any, positions: Any) -> Any:
        outs = []
        for b in range(x.shape[0]):
            emb = emb_for(module, positions[:, b, :], x.dtype)
            emb = _batched(emb) if batched else emb
            out = apply(_to_layout(x[b : b + 1], layout), emb)
            outs.append(_from_layout(out, layout))
        return torch.cat(outs).to(x.dtype)

    check_shape(run, rope, spec.head_dim, torch.arange(3).repeat(n, 1)[:, None, :], apply.name)
    if batched:
        notes.append(f"its output is given a leading batch dim, as the model stacks it per sample for {apply.name}")
    if layout in ("bhsd", "bhds"):
        order = "seq, head_dim" if layout == "bhsd" else "head_dim, seq"
        notes.append(f"{apply.name} takes q as (batch, heads, {order}), as the attention calls it")
    make = maker(run, rope, "axes", _cast)
    return Driven("", spec, make, "", "", tuple(notes), max_position=max_position)


def _ids_emb_for(rope: Any, args: dict[str, Any], notes: list[str]) -> tuple[Callable[..., Any], int | None]:
    """``forward(ids)`` with one ``(seq, axes)`` row per token, and the positions its tables hold (``axes_lens``)."""

    def emb_for(module: Any, pos: Any, dtype: Any) -> Any:
        ids = pos.T.contiguous()  # (seq, axes), one row per token
        try:
            return module(ids)
        except (IndexError, RuntimeError):  # ids as (batch, seq, axes): PRX's `ids[:, :, i]`
            return module(ids[None])

    lens = args.get("axes_lens", getattr(rope, "axes_lens", None))
    if lens is None:
        return emb_for, None
    max_position = int(min(lens))  # a table per axis of axes_lens rows: positions past it index nothing
    notes.append(f"its per-axis tables hold axes_lens {list(lens)} positions: judged over 0..{max_position - 1}")
    return emb_for, max_position


def _prepare_1d(
    shape: str, cls: Any, rope: Any, args: dict[str, Any], env: dict[str, Any], module: Any, source: str
) -> list[Driven]:
    """A 1-D rotary (``positions``, ``length``) with each apply function of its module, judged as 1-D RoPE."""
    errors: list[str] = []
    applies = _applies(module)

    def attempt(apply: _Apply) -> tuple[Driven, str]:
        spec, read = _spec_1d(cls, rope, args, env, _layout_1d(cls, apply))
        return _drive_1d(shape, cls, rope, apply, spec, args), read

    driven = _first_driven(cls, module, applies, attempt, (shape, source, ()), errors)
    if driven is not None:
        return [driven]
    if not applies:
        errors.append(f"no apply function in {module.__name__} (no call of a function named apply_*rot*)")
    raise NotDriven("; ".join(dict.fromkeys(errors)))


#: How a 1-D class lays out its table, and how an apply function pairs the dims, read from their sources.
_TABLE_HALF = re.compile(r"cat\(\s*[(\[]\s*(\w+)\s*,\s*\1\s*[)\]]")  # cat((freqs, freqs)): rotate_half's
_TABLE_INTERLEAVED = re.compile(r"repeat_interleave\(\s*2|\.view\(\*\w+\.shape\[:-1\],\s*2,\s*2\)")
_APPLY_HALF = re.compile(r"rotate_half|\.chunk\(\s*2")
_APPLY_INTERLEAVED = re.compile(r"reshape\(\*\w+\.shape\[:-1\],\s*-1,\s*1,\s*2\)|unflatten\(\s*-1,\s*\(\s*-1,\s*2\s*\)")


def _layout_1d(cls: Any, apply: _Apply) -> str:
    """``half`` or ``interleaved``: the pairing both the class's table and the apply function's source say."""
    table = inspect.getsource(cls)
    says = {
        "half": bool(_TABLE_HALF.search(table)) and bool(_APPLY_HALF.search(apply.source)),
        "interleaved": bool(_TABLE_INTERLEAVED.search(table)) and bool(_APPLY_INTERLEAVED.search(apply.source)),
    }
    read = [layout for layout, yes in says.items() if yes]
    if len(read) != 1:
        raise NotDriven(
            f"the pairing of {cls.__name__}'s table with {apply.name} could not be read from their sources "
            "(cat((f, f)) with rotate_half, or repeat_interleave / 2x2 blocks with pairs of adjacent dims)"
        )
    return read[0]


def _spec_1d(cls: Any, rope: Any, args: dict[str, Any], env: dict[str, Any], layout: str) -> tuple[RopeSpec, str]:
    """The 1-D spec the constructor declares: the rotated dims, the base and, for ``rotary_dim``, the model's head."""
    signature = {
        k: p.default for k, p in inspect.signature(cls).parameters.items() if p.default is not inspect.Parameter.empty
    }
    rotary, key = None, ""
    for key in _ROTARY_KEYS:
        value = args.get(key, signature.get(key))
        if isinstance(value, int):
            rotary = value
            break
    if rotary is None:
        raise NotDriven(f"no rotated dims among the constructor's arguments ({', '.join(_ROTARY_KEYS)})")
    base = None
    for bkey in _BASE_KEYS:
        value = args.get(bkey, signature.get(bkey))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            base = float(value)
            break
    if base is None:
        raise NotDriven(f"no base among the constructor's arguments or defaults ({', '.join(_BASE_KEYS)})")
    scale = args.get("freqs_scaling", signature.get("freqs_scaling", 1.0))
    if scale != 1.0:
        raise NotDriven(f"freqs_scaling {scale}: its frequencies are rescaled, no spec read for that")
    head: Any = rotary
    read = f"1-D, `{key}` {rotary}, `{bkey}` {base:g}, {layout} pairs"
    if key == "rotary_dim":  # part of the head rotates: the head is the model's
        head = env.get("attention_head_dim", env.get("head_dim"))
        if not isinstance(head, int):
            raise NotDriven("a partial rotary (`rotary_dim`) whose model declares no attention_head_dim")
        read += f", the model's head of {head} (dims past {rotary} pass through)"
    spec = RopeSpec(head_dim=head, rotary_dim=rotary, base=base, layout=layout)  # type: ignore[arg-type]
    return spec, read


def _drive_1d(shape: str, cls: Any, rope: Any, apply: _Apply, spec: RopeSpec, args: dict[str, Any]) -> Driven:
    """Call a 1-D class as its model does: with each token's position (``positions``), or with a length and
    each token's row of the table gathered (``length``); q through the module's apply function."""
    import torch  # heavy: imported when used

    params = [p for p in inspect.signature(forward_of(cls)).parameters.values() if p.name != "self"]
    wanted = [p.name for p in params if p.default is inspect.Parameter.empty or p.name in _LENGTH_PARAMS]
    notes: list[str] = []

    def emb_for(module: Any, pos: Any, dtype: Any) -> Any:
        pos = pos[0]  # (seq,): one axis
        if shape == "positions":
            if "hidden_states" in wanted:  # forward(hidden_states, position_ids), a batch of one
                return module(torch.zeros(1, pos.shape[0], spec.head_dim, dtype=dtype), pos[None])
            return module(pos)
        n = int(pos.max()) + 1
        values = {"hidden_states": torch.zeros(1, n, spec.head_dim, dtype=dtype), "device": torch.device("cpu")}
        out = module(*(n if name in _LENGTH_PARAMS else values[name] for name in wanted))
        return select_rows(out, tokens_dim(first(out), n), pos)

    table = args.get("max_pos", getattr(rope, "max_pos", None))
    max_position = None
    if shape == "positions" and isinstance(table, int):  # a table of max_pos rows, indexed by position
        max_position = table
        notes.append(f"its table holds max_pos {table} positions: judged over 0..{table - 1}")
    layout, batched = _probe_1d(apply, emb_for, rope, spec.head_dim)

    def run(module: Any, x: Any, positions: Any) -> Any:
        outs = []
        for b in range(x.shape[0]):
            emb = emb_for(module, positions[b][None], x.dtype)
            emb = _batched(emb) if batched else emb
            out = apply(_to_layout(x[b : b + 1], layout), emb)
            outs.append(_from_layout(out, layout))
        return torch.cat(outs).to(x.dtype)

    check_shape(run, rope, spec.head_dim, torch.arange(3)[None], apply.name)
    if batched:
        notes.append(f"its output is given a leading batch dim, as the model passes it to {apply.name}")
    if layout == "bhsd":
        notes.append(f"{apply.name} takes q as (batch, heads, seq, head_dim), as the attention calls it")
    make = maker(run, rope, "positions", _cast)
    return Driven("", spec, make, "", "", tuple(notes), max_position=max_position)


def _probe_1d(apply: _Apply, emb_for: Callable[..., Any], rope: Any, head_dim: int) -> tuple[str, bool]:
    """The q layout (``bshd``, ``bhsd``) and whether a leading batch dim is added: 3 tokens, 2 heads."""
    import torch  # heavy: imported when used

    emb = emb_for(rope, torch.arange(3)[None], torch.float32)
    errors = []
    for layout, x in (("bshd", torch.randn(1, 3, 2, head_dim)), ("bhsd", torch.randn(1, 2, 3, head_dim))):
        for batched in (False, True):
            try:
                if tuple(apply(x, _batched(emb) if batched else emb).shape) == tuple(x.shape):
                    return layout, batched
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
    raise NotDriven(f"{apply.name} takes no q layout with this output: {'; '.join(dict.fromkeys(errors))}")


def _interpolation_note(cls: Any, env: dict[str, Any]) -> str | None:
    """What is not judged when the model passes a ``scale_factor`` other than 1 that ``forward`` divides the angles
    by per axis (Kandinsky 6: ``(1.0, 2.0, 2.0)``): a position interpolation per axis, which no spec states. The
    class is then driven at ``forward``'s own default, which must be 1 on every axis (angles divided by 1.0 are
    the integer positions' exactly); :class:`NotDriven` when that default is not."""
    params = inspect.signature(forward_of(cls)).parameters
    if "scale_factor" not in params:
        return None
    factor = env.get("scale_factor")
    if factor is None or all(float(f) == 1.0 for f in factor):
        return None
    own = params["scale_factor"].default
    if own is inspect.Parameter.empty or any(float(f) != 1.0 for f in own):
        raise NotDriven(
            f"its model passes scale_factor {tuple(factor)} and forward's own default is {own}: a per-axis "
            "position interpolation, which no spec states (a base change scales the frequencies unevenly)"
        )
    return (
        f"driven at forward's own default scale_factor {tuple(own)}, where each axis's angles are its table's at the "
        f"integer positions; not judged: the scale_factor {tuple(factor)} its model passes (its default), dividing "
        "each axis's angles by its factor, a per-axis position interpolation no spec states"
    )


#: The q layouts an apply function may take: (batch, seq, heads, dim), (batch, heads, seq, dim), and
#: (batch, heads, dim, seq) (Sana-WM's linear attention).
_LAYOUTS = ("bshd", "bhsd", "bhds")


def _to_layout(x: Any, layout: str) -> Any:
    """q from (batch, seq, heads, dim) to ``layout``."""
    return x if layout == "bshd" else x.transpose(1, 2) if layout == "bhsd" else x.permute(0, 2, 3, 1)


def _from_layout(x: Any, layout: str) -> Any:
    """q from ``layout`` back to (batch, seq, heads, dim)."""
    return x if layout == "bshd" else x.transpose(1, 2) if layout == "bhsd" else x.permute(0, 3, 1, 2)


def _probe_layout(apply: _Apply, emb_for: Callable[..., Any], rope: Any, n: int, head_dim: int) -> str:
    """``bshd`` or ``bhsd``: the q layout the apply function takes (3 tokens, 2 heads: a wrong one cannot broadcast).

    q's head is the output's last dim, else the spec's (Helios' output holds cos and sin side by side)."""
    import torch  # heavy: imported when used

    pos = torch.arange(3).repeat(n, 1)
    emb = emb_for(rope, pos, torch.float32)
    errors = []
    d = first(emb).shape[-1] * (2 if torch.is_complex(first(emb)) else 1)
    probe = torch.randn(1, 3, 2, d)  # (batch, seq, heads, head_dim)
    probes = [(layout, _to_layout(probe, layout)) for layout in _LAYOUTS]
    if head_dim != d:
        probes += [(layout, _to_layout(torch.randn(1, 3, 2, head_dim), layout)) for layout in _LAYOUTS]
    for layout, x in probes:
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
        text = source_without_docstrings(obj)
        parts.append(name if text is None else text.replace(driven.rotary_class, "X"))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:10]
