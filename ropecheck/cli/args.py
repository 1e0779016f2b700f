"""What the commands share: exit codes, the spec flags, and writing JSON.

Design constraints: every command module imports from here, never from another command or
from :mod:`.main`; a flag's parsing problem is a :class:`~ropecheck.errors.UsageError`.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import numpy as np

from ..errors import ExitCode, SpecError, UsageError
from ..hf import load_config, read_rope_config, scaling_from_dict
from ..io import check_writable, write_output
from ..schedules import MAX_HEAD_DIM, MAX_POSITION_EMBEDDINGS
from ..spec import RopeSpec

__all__ = [
    "EXIT_FAIL",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_UNDECIDED",
    "EXIT_USAGE",
    "MAX_HEAD_DIM",
    "MAX_VERIFY_POSITION",
    "add_spec_arguments",
    "check_flag_range",
    "check_int_range",
    "check_outputs",
    "conventions_from_args",
    "hf_config_from_args",
    "json_text",
    "parse_size",
    "spec_from_args",
    "spec_source",
    "write_json",
]

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNDECIDED = ExitCode.OK, ExitCode.FAIL, ExitCode.USAGE, ExitCode.UNDECIDED
EXIT_INTERNAL = ExitCode.INTERNAL

#: The largest --max-position verify accepts: the fp64 reference is exact below 2^32, and a
#: probe of positions up to 2^31 already covers every context a model is trained for.
MAX_VERIFY_POSITION = 1 << 31


def check_outputs(args: argparse.Namespace) -> None:
    """Every output path a command was given can be written (a usage error naming the flag if not).

    Commands list their output flags as ``outputs=[(flag, dest, kind, unless_dest)]`` in their
    parser's defaults: ``kind`` is False for a file, True for a folder files are written into,
    ``"tree"`` for a folder ropecheck replaces as a whole (missing, empty or its own: see
    :func:`~ropecheck.io.check_replaceable`); ``unless_dest`` names a flag that turns the writing off.
    """
    for flag, dest, kind, unless in getattr(args, "outputs", []):
        path = getattr(args, dest, None)
        if path in (None, "") or (unless and getattr(args, unless, False)):
            continue
        check_writable(path, flag, directory=bool(kind), tree=kind == "tree")


def check_int_range(flag: str, value: int, low: int, high: int) -> None:
    """A usage error naming ``flag`` unless ``low <= value <= high``."""
    if not low <= value <= high:
        raise UsageError(f"{flag} must be between {low} and {high}, got {value}")


def parse_size(text: str, flag: str) -> int | None:
    """``512M``, ``8G``, ``1024`` (bytes) -> bytes; ``0`` or ``none`` -> None (no limit).

    Example:
        >>> parse_size("8G", "--memory-limit") == 8 << 30
        True
    """
    raw = text.strip().lower()
    if raw in ("0", "none", "unlimited"):
        return None
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    scale = units.get(raw[-1:], 1)
    number = raw[:-1] if raw[-1:] in units else raw
    try:
        value = float(number)
    except ValueError:
        raise UsageError(f"{flag} must be a size like 512M or 8G (0 for no limit), got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"{flag} must be a positive size like 512M or 8G (0 for no limit), got {text!r}")
    return int(value * scale)


def add_spec_arguments(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """Flags that describe a RopeSpec, shared by every command that needs one."""
    g = parser.add_argument_group("RoPE spec (flags, or --hf-config)")
    g.add_argument("--hf-config", metavar="PATH", help="read the spec from a Hugging Face config.json (or its folder)")
    g.add_argument(
        "--config-key",
        metavar="KEY",
        help="the sub-config of --hf-config to read, dotted (e.g. text_config), or '.' for the top level; "
        "default: text_config when the config has one, else the top level",
    )
    g.add_argument(
        "--head-dim",
        type=int,
        metavar="D",
        help=f"head dimension (even, at most {MAX_HEAD_DIM})" + (" [required without --hf-config]" if required else ""),
    )
    g.add_argument("--rotary-dim", type=int, metavar="R", help="rotated dims (partial rotary); default: head dim")
    g.add_argument("--base", type=float, metavar="THETA", help="rope_theta (default 10000)")
    g.add_argument(
        "--layout",
        choices=("interleaved", "half"),
        help="pairing: interleaved (x2i,x2i+1) or half (xi,xi+r/2); default half",
    )
    g.add_argument(
        "--rope-scaling",
        metavar="JSON",
        help="schedule as HF rope_scaling JSON, e.g. "
        '\'{"rope_type":"yarn","factor":4,"original_max_position_embeddings":4096}\'',
    )
    g.add_argument(
        "--max-position-embeddings",
        type=int,
        metavar="N",
        help=f"the model's context length (dynamic NTK, LongRoPE), at most 2^32 = {MAX_POSITION_EMBEDDINGS}",
    )
    c = parser.add_argument_group("conventions (deliberate differences a model was trained with)")
    c.add_argument(
        "--direction",
        type=_direction,
        metavar="+1|-1",
        help="rotation direction: +1 turns each pair by +m*theta_i (default), -1 by -m*theta_i",
    )
    c.add_argument(
        "--attention-factor-in",
        choices=("cos_sin", "softmax"),
        help="where the model applies the YaRN/LongRoPE attention factor: on cos and sin (default, as transformers) "
        "or on the softmax scale (the RoPE output is then a pure rotation)",
    )
    c.add_argument(
        "--rotary-dims",
        choices=("first", "last"),
        help="which end of the head holds the rotary_dim rotated dims (default first; last: DeepSeek MLA's "
        "cat(q_nope, q_pe))",
    )
    c.add_argument(
        "--output-layout",
        choices=("interleaved", "half"),
        help="where the rotated pairs are written back, when not where --layout reads them (a fixed permutation "
        "of the head, the same for q and k: keras-hub's Gemma writes a half-split rotation back interleaved)",
    )


def _direction(text: str) -> int:
    value = text.strip()
    if value in ("+1", "1"):
        return 1
    if value == "-1":
        return -1
    raise argparse.ArgumentTypeError(f"must be +1 or -1, got {text!r}")


def conventions_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The convention flags given (``direction``, ``attention_factor_in``, ``rotary_dims``, ``output_layout``)."""
    out: dict[str, Any] = {}
    for key in ("direction", "attention_factor_in", "rotary_dims", "output_layout"):
        value = getattr(args, key, None)
        if value is not None:
            out[key] = value
    return out


def check_flag_range(flag: str, value: int | None, low: int, high: int, why: str = "") -> None:
    """A ``UsageError`` naming ``flag`` unless ``value`` is None or in [low, high]; checked before any work."""
    if value is not None and not low <= value <= high:
        shown = str(value) if abs(value).bit_length() < 1000 else "a number with hundreds of digits"
        raise UsageError(f"{flag} must be in {low}..{high}{why}, got {shown}")


def spec_from_args(args: argparse.Namespace) -> RopeSpec:
    """Build the RopeSpec the shared flags describe; flags override an --hf-config.

    Sizes are checked first, naming the flag: ``--head-dim`` and ``--rotary-dim`` at most
    ``MAX_HEAD_DIM`` (65536), ``--max-position-embeddings`` at most 2^32.
    """
    check_flag_range("--head-dim", args.head_dim, 1, MAX_HEAD_DIM, " (the largest head_dim a spec accepts)")
    check_flag_range("--rotary-dim", args.rotary_dim, 1, MAX_HEAD_DIM, " (the largest head_dim a spec accepts)")
    check_flag_range("--max-position-embeddings", args.max_position_embeddings, 1, MAX_POSITION_EMBEDDINGS, " (2^32)")
    config_key = getattr(args, "config_key", None)  # a Namespace built by hand may lack it
    if config_key is not None and not args.hf_config:
        raise UsageError("--config-key selects a sub-config of --hf-config: give --hf-config PATH too")
    try:
        return _spec_from_args(args)
    except SpecError as exc:  # a bad --rope-scaling value: named by the flag
        if args.rope_scaling is not None and exc.field.split(".")[0] == "rope_scaling":
            raise SpecError(
                "--rope-scaling" + exc.field[len("rope_scaling") :], str(exc)[len(exc.field) + 2 :]
            ) from None
        raise


def spec_source(args: argparse.Namespace) -> str | None:
    """Where an --hf-config spec was read (``"text_config of PATH"``, ``"the top level of PATH"``); None without one."""
    if not args.hf_config:
        return None
    _, source = read_rope_config(hf_config_from_args(args), config_key=getattr(args, "config_key", None))
    return f"{'the top level' if source == 'top level' else source} of {args.hf_config}"


def hf_config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--hf-config`` file as a dict: a regular file only, bounded (one line naming the flag if not)."""
    return load_config(args.hf_config, flag="--hf-config")


def _spec_from_args(args: argparse.Namespace) -> RopeSpec:
    scaling_json = None
    if args.rope_scaling is not None:
        try:
            scaling_json = json.loads(args.rope_scaling)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--rope-scaling is not valid JSON: {exc.msg}") from None
        if not isinstance(scaling_json, dict):
            raise UsageError("--rope-scaling must be a JSON object")
    if args.hf_config:
        spec = RopeSpec.from_hf_config(
            hf_config_from_args(args), layout=args.layout, config_key=getattr(args, "config_key", None)
        )
        changes: dict[str, Any] = {}
        if args.head_dim is not None:
            changes["head_dim"] = args.head_dim
            changes["rotary_dim"] = args.rotary_dim
        elif args.rotary_dim is not None:
            changes["rotary_dim"] = args.rotary_dim
        if args.base is not None:
            changes["base"] = args.base
        if args.max_position_embeddings is not None:
            changes["max_position_embeddings"] = args.max_position_embeddings
        if scaling_json is not None:
            changes["scaling"] = scaling_from_dict(
                scaling_json,
                max_position_embeddings=changes.get("max_position_embeddings", spec.max_position_embeddings),
            )
        changes.update(conventions_from_args(args))
        return spec.with_(**changes) if changes else spec
    if args.head_dim is None:
        raise UsageError("give --head-dim (or --hf-config PATH)")
    scaling = scaling_from_dict(scaling_json, max_position_embeddings=args.max_position_embeddings)
    return RopeSpec(
        head_dim=args.head_dim,
        rotary_dim=args.rotary_dim,
        base=10000.0 if args.base is None else args.base,
        layout=args.layout or "half",
        scaling=scaling,
        max_position_embeddings=args.max_position_embeddings,
        **conventions_from_args(args),
    )


def json_text(data: Any) -> str:
    """The text every command writes for JSON data (numpy values as plain numbers)."""
    return json.dumps(data, indent=2, sort_keys=False, default=_json_default) + "\n"


def write_json(data: Any, target: str) -> None:
    """Write JSON to a path (atomically), through a FIFO or device, or to stdout for ``-`` (see :mod:`ropecheck.io`)."""
    write_output(target, json_text(data))


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
